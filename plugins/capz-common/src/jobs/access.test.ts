import { readFileSync } from 'fs';
import { resolve } from 'path';
import { requiredAccess } from './access';

/** The ClusterRole's rules as `verb group/resource` lines, from the flow-style lists jobs.yaml uses. */
function rbacRules(): Set<string> {
  const text = readFileSync(
    resolve(__dirname, '../../../capz-backend/rbac/jobs.yaml'),
    'utf8',
  );
  // A flow list prettier wrapped over several lines is put back on one line.
  const role = text
    .split('\n---\n')[0]
    .replace(
      /:\s*\n\s*\[([^\]]*)\]/g,
      (_, items: string) =>
        `: [${items.replace(/\s+/g, ' ').trim().replace(/,$/, '')}]`,
    );
  const list = (line: string) =>
    line
      .replace(/^[^[]*\[|\]\s*$/g, '')
      .split(',')
      .map(s => s.trim().replace(/^'|'$/g, ''));
  const out = new Set<string>();
  const lines = role.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim().startsWith('- apiGroups:')) return;
    const groups = list(line);
    const resources = list(lines[i + 1]);
    const verbs = list(lines[i + 2]);
    for (const g of groups)
      for (const r of resources)
        for (const v of verbs) out.add(`${v} ${g}/${r}`);
  });
  return out;
}

describe('requiredAccess', () => {
  const all = [
    ...requiredAccess('migrate', {
      managementCluster: 'm',
      namespace: 'old',
      name: 'c',
      targetNamespace: 'new',
    }),
    ...requiredAccess('adopt', {
      managementCluster: 'm',
      namespace: 'ns',
      credentialSecret: 's',
      subscriptionId: 'x',
      resourceGroup: 'rg',
      clusterName: 'c',
    }),
    ...requiredAccess('upgrade-api-version', {
      managementCluster: 'm',
      namespace: 'ns',
      name: 'c',
    }),
  ];

  it('matches rbac/jobs.yaml exactly: nothing missing, nothing extra', () => {
    const needed = new Set(all.map(a => `${a.verb} ${a.group}/${a.resource}`));
    expect([...rbacRules()].sort()).toEqual([...needed].sort());
  });

  it('asks per namespace: the old one for the legacy objects, the new one for what is created', () => {
    const migrate = requiredAccess('migrate', {
      managementCluster: 'm',
      namespace: 'old',
      name: 'c',
      targetNamespace: 'new',
    });
    const where = (verb: string, resource: string) =>
      migrate
        .filter(a => a.verb === verb && a.resource === resource)
        .map(a => a.namespace);
    expect(where('patch', 'managedclusters')).toEqual(['old']);
    expect(where('create', 'managedclusters')).toEqual(['new']);
    expect(where('get', 'secrets')).toEqual(['old', 'new']);
    expect(where('create', 'namespaces')).toEqual([undefined]);
    expect(migrate.every(a => a.why.length > 0)).toBe(true);
  });
});
