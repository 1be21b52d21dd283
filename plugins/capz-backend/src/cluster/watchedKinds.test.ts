import { kinds } from '@capz-backstage/plugin-capz-common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import {
  CLUSTER_KINDS,
  EVENT_KIND,
  FLUX_KINDS,
  WATCHED_KINDS,
} from './watchedKinds';

describe('the watched kinds', () => {
  it('are the clusters’ kinds, Flux’s Kustomization and GitRepository at v1, and Events', () => {
    expect(WATCHED_KINDS).toEqual([
      ...CLUSTER_KINDS,
      ...FLUX_KINDS,
      EVENT_KIND,
    ]);
    expect(FLUX_KINDS).toEqual([
      {
        name: 'Kustomization',
        group: 'kustomize.toolkit.fluxcd.io',
        versions: ['v1'],
        plural: 'kustomizations',
      },
      {
        name: 'GitRepository',
        group: 'source.toolkit.fluxcd.io',
        versions: ['v1'],
        plural: 'gitrepositories',
      },
    ]);
    // Flux's objects are read by name, never as part of a cluster.
    expect(CLUSTER_KINDS.map(k => k.name)).not.toEqual(
      expect.arrayContaining(['Kustomization']),
    );
    expect(CLUSTER_KINDS.map(k => k.name)).not.toEqual(
      expect.arrayContaining(['GitRepository']),
    );
    for (const k of WATCHED_KINDS.filter(x => x.group))
      expect(kinds[k.name as keyof typeof kinds].plural).toBe(k.plural);
  });

  it('are exactly what rbac/read.yaml lets the backend list and watch', () => {
    const [role] = YAML.parseAllDocuments(
      readFileSync(join(__dirname, '..', '..', 'rbac', 'read.yaml'), 'utf8'),
    ).map(d => d.toJS());
    expect(role.kind).toBe('ClusterRole');
    const granted = new Set<string>();
    for (const rule of role.rules)
      for (const g of rule.apiGroups)
        for (const r of rule.resources)
          for (const v of rule.verbs) granted.add(`${v} ${g}/${r}`);
    const needed = new Set(
      WATCHED_KINDS.flatMap(k => [
        `list ${k.group}/${k.plural}`,
        `watch ${k.group}/${k.plural}`,
      ]),
    );
    expect([...granted].sort()).toEqual([...needed].sort());
  });
});
