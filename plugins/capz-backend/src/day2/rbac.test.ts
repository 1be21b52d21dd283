import { requiredDay2Access } from '@capz-backstage/plugin-capz-common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

describe('rbac/day2.yaml', () => {
  it('grants exactly what the day-2 routes ask of the API server (requiredDay2Access)', () => {
    const [role] = YAML.parseAllDocuments(
      readFileSync(join(__dirname, '..', '..', 'rbac', 'day2.yaml'), 'utf8'),
    ).map(d => d.toJS());
    expect(role.kind).toBe('ClusterRole');
    const granted = new Set<string>();
    for (const rule of role.rules)
      for (const g of rule.apiGroups)
        for (const r of rule.resources)
          for (const v of rule.verbs) granted.add(`${v} ${g}/${r}`);
    const needed = new Set(
      requiredDay2Access().map(a => `${a.verb} ${a.group}/${a.resource}`),
    );
    expect([...granted].sort()).toEqual([...needed].sort());
    // Never Secrets, never watch (the watch cache reads, read.yaml); list only of MachinePools.
    expect(
      [...granted].filter(x =>
        /secrets|^watch |^list (?!cluster\.x-k8s\.io\/machinepools$)/.test(x),
      ),
    ).toEqual([]);
  });
});
