import {
  clusterFacets,
  ClusterPageQuery,
  ClusterSummary,
  pageOfClusters,
} from '@capz-backstage/plugin-capz-common';
import { EventEmitter } from 'node:events';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';
import { ClusterViews } from './clusterViews';

const CAPZ = 'infrastructure.cluster.x-k8s.io';
const cluster: CachedObject = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: 'c1', namespace: 'ns', uid: 'uid-c1' },
  spec: {
    controlPlaneRef: {
      apiGroup: CAPZ,
      kind: 'AzureASOManagedControlPlane',
      name: 'c1',
    },
  },
};
const controlPlane: CachedObject = {
  apiVersion: `${CAPZ}/v1beta1`,
  kind: 'AzureASOManagedControlPlane',
  metadata: { name: 'c1', namespace: 'ns', uid: 'uid-cp1' },
  status: { ready: true },
};

function setup() {
  const objects: Record<string, CachedObject[]> = {
    Cluster: [cluster],
    AzureASOManagedControlPlane: [],
  };
  const cache = Object.assign(new EventEmitter(), {
    list: (_mc: string, kind: string, ns?: string) =>
      (objects[kind] ?? []).filter(
        o => ns === undefined || o.metadata.namespace === ns,
      ),
  }) as unknown as WatchCache;
  const views = new ClusterViews(cache, ['mc']);
  const kinds = () =>
    views
      .tree('mc', 'ns', 'c1', 0)
      .tree.children.map(c => `${c.kind}:${c.health}`);
  return { objects, cache, kinds };
}

describe('ClusterViews', () => {
  it("reuses a namespace's object groups until the cache reports a change there", () => {
    const { objects, cache, kinds } = setup();
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:unknown']); // referenced, not found yet
    objects.AzureASOManagedControlPlane.push(controlPlane);
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:unknown']); // memoised: no change reported yet
    cache.emit('change', {
      managementCluster: 'mc',
      kind: 'AzureASOManagedControlPlane',
      type: 'add',
      object: controlPlane,
    } satisfies CacheChange);
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:healthy']);
  });

  it('ignores Events and other namespaces for invalidation', () => {
    const { objects, cache, kinds } = setup();
    kinds();
    objects.AzureASOManagedControlPlane.push(controlPlane);
    cache.emit('change', {
      managementCluster: 'mc',
      kind: 'Event',
      type: 'add',
      object: { metadata: { name: 'e', namespace: 'ns', uid: 'e1' } },
    });
    cache.emit('change', {
      managementCluster: 'mc',
      kind: 'ResourceGroup',
      type: 'add',
      object: { metadata: { name: 'r', namespace: 'other', uid: 'r1' } },
    });
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:unknown']);
  });
});

describe('ClusterViews: one AKS cluster managed from more than one place', () => {
  const SUB = '00000000-0000-0000-0000-0000000000aa';
  const armId = (rg: string, name: string, sub = SUB) =>
    `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`;
  const legacy = (ns: string, name: string): CachedObject[] => [
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name, namespace: ns, uid: `uid-${ns}-${name}` },
      spec: {
        controlPlaneRef: {
          apiGroup: CAPZ,
          kind: 'AzureManagedControlPlane',
          name,
        },
      },
    },
    {
      apiVersion: `${CAPZ}/v1beta1`,
      kind: 'AzureManagedControlPlane',
      metadata: { name, namespace: ns, uid: `uid-${ns}-${name}-cp` },
    },
  ];
  const mc = (
    ns: string,
    name: string,
    o: {
      id?: string;
      owner?: string;
      azureName?: string;
      policy?: string;
      controlPlane?: string;
    } = {},
  ): CachedObject =>
    ({
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedCluster',
      metadata: {
        name,
        namespace: ns,
        uid: `uid-mc-${ns}-${name}`,
        ...(o.policy
          ? {
              annotations: {
                'serviceoperator.azure.com/reconcile-policy': o.policy,
              },
            }
          : {}),
        ...(o.controlPlane
          ? {
              ownerReferences: [
                {
                  apiVersion: `${CAPZ}/v1beta1`,
                  kind: 'AzureManagedControlPlane',
                  name: o.controlPlane,
                  uid: `uid-${ns}-${o.controlPlane}-cp`,
                  controller: true,
                },
              ],
            }
          : {}),
      },
      spec: {
        ...(o.azureName ? { azureName: o.azureName } : {}),
        ...(o.owner ? { owner: { name: o.owner } } : {}),
      },
      ...(o.id ? { status: { id: o.id } } : {}),
    } as CachedObject);
  const rg = (ns: string, name: string, azureName: string): CachedObject => ({
    apiVersion: 'resources.azure.com/v1api20200601',
    kind: 'ResourceGroup',
    metadata: { name, namespace: ns, uid: `uid-rg-${ns}-${name}` },
    spec: { azureName },
  });

  function views(world: Record<string, CachedObject[]>) {
    const cache = {
      list: (m: string, kind: string, ns?: string) =>
        (world[m] ?? []).filter(
          o =>
            o.kind === kind &&
            (ns === undefined || o.metadata.namespace === ns),
        ),
    } as unknown as WatchCache;
    return new ClusterViews(cache, Object.keys(world));
  }
  const flags = (v: ClusterViews) =>
    Object.fromEntries(
      v
        .list()
        .map(s => [
          `${s.managementCluster}/${s.namespace}/${s.name}`,
          s.managedFrom,
        ]),
    );

  it('flags both clusters of one AKS cluster, across namespaces and management clusters, case-insensitively', () => {
    const v = views({
      east: [
        ...legacy('team-a', 'analytics'),
        mc('team-a', 'analytics', {
          id: armId('rg-analytics', 'analytics-aks'),
          controlPlane: 'analytics',
        }),
        ...legacy('team-b', 'other'),
        mc('team-b', 'other', {
          id: armId('rg-other', 'other-aks'),
          controlPlane: 'other',
        }),
        // A hand-made one, no status yet: azureName in the group its owner names.
        mc('scratch', 'copy', { azureName: 'Analytics-AKS', owner: 'grp' }),
        rg('scratch', 'grp', 'RG-Analytics'),
      ],
      west: [
        ...legacy('team-c', 'analytics'),
        mc('team-c', 'analytics', {
          id: armId('RG-ANALYTICS', 'analytics-aks').toLowerCase(),
          controlPlane: 'analytics',
        }),
      ],
    });
    expect(flags(v)).toEqual({
      'east/team-a/analytics': [
        { managementCluster: 'east', namespace: 'scratch', name: 'copy' },
        {
          managementCluster: 'west',
          namespace: 'team-c',
          name: 'analytics',
          cluster: 'analytics',
        },
      ],
      'east/team-b/other': undefined,
      'west/team-c/analytics': [
        { managementCluster: 'east', namespace: 'scratch', name: 'copy' },
        {
          managementCluster: 'east',
          namespace: 'team-a',
          name: 'analytics',
          cluster: 'analytics',
        },
      ],
    });
    expect(
      v.tree('west', 'team-c', 'analytics', 0).summary.managedFrom,
    ).toHaveLength(2);
  });

  it('does not count ManagedClusters on reconcile-policy skip, other subscriptions, or unknown groups', () => {
    const v = views({
      east: [
        ...legacy('team-a', 'analytics'),
        mc('team-a', 'analytics', {
          id: armId('rg-analytics', 'analytics-aks'),
          controlPlane: 'analytics',
        }),
        mc('old', 'analytics-aks', {
          id: armId('rg-analytics', 'analytics-aks'),
          policy: 'skip',
        }), // a migration's disarmed one
        mc('elsewhere', 'analytics-aks', {
          id: armId(
            'rg-analytics',
            'analytics-aks',
            '00000000-0000-0000-0000-0000000000bb',
          ),
        }),
        mc('unknown', 'analytics-aks', { owner: 'not-cached' }),
      ],
    });
    expect(flags(v)).toEqual({ 'east/team-a/analytics': undefined });
  });
});

describe('ClusterViews: where a cluster applied from Git comes from (gitSource)', () => {
  const A = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
  const B = '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80';
  const FLUX_LABELS = {
    'kustomize.toolkit.fluxcd.io/name': 'clusters',
    'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
  };
  const labelled: CachedObject = {
    ...cluster,
    metadata: { ...cluster.metadata, labels: FLUX_LABELS },
  };
  const kustomization = (
    o: { applied?: string; suspend?: boolean; ns?: string } = {},
  ): CachedObject => ({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: {
      name: 'clusters',
      namespace: o.ns ?? 'flux-system',
      uid: `uid-ks-${o.ns ?? 'flux-system'}`,
      generation: 2,
    },
    spec: {
      sourceRef: { kind: 'GitRepository', name: 'gitops' },
      path: './clusters/ns',
      prune: true,
      ...(o.suspend ? { suspend: true } : {}),
    },
    status: {
      observedGeneration: 2,
      lastAppliedRevision: o.applied ?? `main@sha1:${A}`,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ReconciliationSucceeded',
          message: `Applied revision: ${o.applied ?? `main@sha1:${A}`}`,
        },
      ],
    },
  });
  const gitRepository = (revision = `main@sha1:${A}`): CachedObject => ({
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name: 'gitops', namespace: 'flux-system', uid: 'uid-repo' },
    spec: {
      url: 'https://flux:token@git.example.com/org/gitops.git',
      ref: { branch: 'main' },
    },
    status: { artifact: { revision } },
  });

  /** The watch cache as a stand-in: objects by kind, `get` by name, and change events (objects replaced). */
  function world(initial: CachedObject[]) {
    const objects = [...initial];
    const lookups: string[] = [];
    const list = (_m: string, kind: string, ns?: string) => {
      if (ns === undefined && kind !== 'Cluster') lookups.push(`list ${kind}`);
      return objects.filter(
        o =>
          o.kind === kind && (ns === undefined || o.metadata.namespace === ns),
      );
    };
    const cache = Object.assign(new EventEmitter(), {
      list,
      get: (_m: string, kind: string, ns: string | undefined, name: string) => {
        lookups.push(`get ${kind} ${ns}/${name}`);
        return objects.find(
          o =>
            o.kind === kind &&
            o.metadata.namespace === ns &&
            o.metadata.name === name,
        );
      },
    });
    const put = (object: CachedObject) => {
      const i = objects.findIndex(o => o.metadata.uid === object.metadata.uid);
      if (i >= 0) objects[i] = object;
      else objects.push(object);
      cache.emit('change', {
        managementCluster: 'mc',
        kind: object.kind!,
        type: i >= 0 ? 'update' : 'add',
        object,
      } satisfies CacheChange);
    };
    const views = new ClusterViews(cache as unknown as WatchCache, ['mc']);
    return { views, put, lookups };
  }

  it('reads the Kustomization that applies the Cluster and its GitRepository from the cache, by name', () => {
    const w = world([labelled, controlPlane, kustomization(), gitRepository()]);
    const { summary } = w.views.tree('mc', 'ns', 'c1', 0);
    expect(summary.appliedBy).toBe("Flux's Kustomization flux-system/clusters");
    expect(summary.gitSource).toEqual({
      kustomization: { namespace: 'flux-system', name: 'clusters' },
      source: {
        kind: 'GitRepository',
        namespace: 'flux-system',
        name: 'gitops',
      },
      sourceFound: true,
      url: 'https://git.example.com/org/gitops.git',
      branch: 'main',
      path: './clusters/ns',
      lastAppliedRevision: `main@sha1:${A}`,
      sourceRevision: `main@sha1:${A}`,
      ready: {
        status: 'True',
        reason: 'ReconciliationSucceeded',
        message: `Applied revision: main@sha1:${A}`,
      },
      suspended: false,
      generation: 2,
      observedGeneration: 2,
      inSync: true,
    });
    // Two lookups by name per page view; never a list of Flux's kinds.
    expect(w.lookups).toEqual([
      'get Kustomization flux-system/clusters',
      'get GitRepository flux-system/gitops',
    ]);
    expect(w.views.list()[0].gitSource).toEqual(summary.gitSource);
  });

  it('follows changes of the Kustomization and of its GitRepository, the tree untouched', () => {
    const w = world([labelled, controlPlane, kustomization(), gitRepository()]);
    const before = w.views.tree('mc', 'ns', 'c1', 0);
    w.put(gitRepository(`main@sha1:${B}`));
    const behind = w.views.tree('mc', 'ns', 'c1', 0);
    expect(behind.summary.gitSource).toMatchObject({
      lastAppliedRevision: `main@sha1:${A}`,
      sourceRevision: `main@sha1:${B}`,
      inSync: false,
    });
    // Flux's objects are in no tree: the cluster's tree is the very same object.
    expect(behind.tree).toBe(before.tree);
    w.put(kustomization({ applied: `main@sha1:${B}` }));
    expect(w.views.tree('mc', 'ns', 'c1', 0).summary.gitSource).toMatchObject({
      inSync: true,
    });
    w.put(kustomization({ applied: `main@sha1:${B}`, suspend: true }));
    expect(w.views.tree('mc', 'ns', 'c1', 0).summary.gitSource).toMatchObject({
      suspended: true,
      inSync: false,
    });
  });

  it('is absent for a cluster Flux does not apply, and for one whose Kustomization the cache does not hold (no Flux on the management cluster)', () => {
    const plain = world([
      cluster,
      controlPlane,
      kustomization(),
      gitRepository(),
    ]);
    const summary = plain.views.tree('mc', 'ns', 'c1', 0).summary;
    expect(summary).not.toHaveProperty('gitSource');
    expect(summary).not.toHaveProperty('appliedBy');
    expect(plain.lookups).toEqual([]);

    // Labelled by Flux, but Flux's kinds are not served: the summary is what it was before the Git source existed.
    const noFlux = world([labelled, controlPlane]);
    const s = noFlux.views.tree('mc', 'ns', 'c1', 0).summary;
    expect(s).not.toHaveProperty('gitSource');
    expect(s.appliedBy).toBe("Flux's Kustomization flux-system/clusters");
  });

  it('keeps a Kustomization and a GitRepository in the cluster’s own namespace, of the same name, out of its objects', () => {
    // Flux's bootstrap applies Kustomizations too: this one carries flux-system/flux-system's labels.
    const own = (o: CachedObject): CachedObject => ({
      ...o,
      metadata: {
        ...o.metadata,
        name: 'c1',
        namespace: 'ns',
        uid: `${o.metadata.uid}-ns`,
        labels: {
          'kustomize.toolkit.fluxcd.io/name': 'flux-system',
          'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
        },
      },
      spec: {
        ...(o.spec as object),
        sourceRef: { kind: 'GitRepository', name: 'c1' },
      },
    });
    const w = world([
      cluster,
      controlPlane,
      own(kustomization()),
      own(gitRepository()),
    ]);
    const { tree, summary } = w.views.tree('mc', 'ns', 'c1', 0);
    const kinds: string[] = [];
    const walk = (n: typeof tree) => {
      kinds.push(n.kind);
      n.children.forEach(walk);
    };
    walk(tree);
    expect(kinds).toEqual(['Cluster', 'AzureASOManagedControlPlane']);
    // Not applied from Git: the Kustomization's own labels are not the cluster's.
    expect(summary).not.toHaveProperty('appliedBy');
    expect(summary).not.toHaveProperty('gitSource');

    // Applied by that Kustomization: its source is read, from the same namespace.
    w.put({
      ...cluster,
      metadata: {
        ...cluster.metadata,
        labels: {
          'kustomize.toolkit.fluxcd.io/name': 'c1',
          'kustomize.toolkit.fluxcd.io/namespace': 'ns',
        },
      },
    });
    expect(w.views.tree('mc', 'ns', 'c1', 0).summary.gitSource).toMatchObject({
      kustomization: { namespace: 'ns', name: 'c1' },
      source: { kind: 'GitRepository', namespace: 'ns', name: 'c1' },
      sourceFound: true,
      inSync: true,
    });
  });
});

describe('ClusterViews.page', () => {
  // A small deterministic generator: the same fleet on every run.
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];

  const available = (up: boolean | undefined) =>
    up === undefined
      ? undefined
      : {
          conditions: [
            {
              type: 'Available',
              status: up ? 'True' : 'False',
              reason: up ? 'Available' : 'NotAvailable',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        };

  function fleetCluster(ns: string, name: string): CachedObject[] {
    const ready = pick([true, false, undefined]);
    return [
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { name, namespace: ns, uid: `uid-${ns}-${name}-${random()}` },
        status: available(pick([true, false, undefined])),
        spec: {
          controlPlaneRef: {
            apiGroup: CAPZ,
            kind: pick([
              'AzureASOManagedControlPlane',
              'AzureManagedControlPlane',
            ]),
            name,
          },
        },
      },
      {
        apiVersion: `${CAPZ}/v1beta1`,
        kind: 'AzureASOManagedControlPlane',
        metadata: {
          name,
          namespace: ns,
          uid: `uid-cp-${ns}-${name}-${random()}`,
        },
        spec: { version: pick(['v1.32.5', 'v1.33.2', 'v1.34.1']) },
        ...(ready === undefined ? {} : { status: { ready } }),
      },
    ];
  }

  function world() {
    const objects: CachedObject[] = [];
    for (let i = 0; i < 60; i++)
      objects.push(
        ...fleetCluster(`ns-${i % 4}`, `c-${pick(['a', 'B', 'x-'])}${i}`),
      );
    const cache = Object.assign(new EventEmitter(), {
      list: (_mc: string, kind: string, ns?: string) =>
        objects.filter(
          o =>
            o.kind === kind &&
            (ns === undefined || o.metadata.namespace === ns),
        ),
    }) as unknown as WatchCache;
    const emit = (type: CacheChange['type'], object: CachedObject) =>
      cache.emit('change', {
        managementCluster: 'mc',
        kind: object.kind!,
        type,
        object,
      } satisfies CacheChange);
    return { objects, views: new ClusterViews(cache, ['mc']), emit };
  }

  const QUERIES: ClusterPageQuery[] = [
    {},
    { limit: 7 },
    { offset: 5, limit: 10 },
    { sort: 'name', dir: 'descending', limit: 9 },
    { sort: 'version', offset: 50, limit: 20 },
    { namespace: 'ns-2', sort: 'managementCluster' },
    { health: 'healthy', sort: 'api', dir: 'descending', limit: 4 },
    { q: 'b', sort: 'reason', limit: 3, offset: 1 },
    { api: 'aso-v1beta1', sort: 'pools' },
    { offset: 1000, limit: 5 },
  ];
  const allowed = (c: ClusterSummary) => c.namespace !== 'ns-3';
  const ids = (xs: ClusterSummary[]) => xs.map(c => `${c.namespace}/${c.name}`);

  function expectSameAsTheBrowser(v: ClusterViews) {
    for (const query of QUERIES) {
      const want = pageOfClusters(v.list().filter(allowed), query);
      const got = v.page(query, allowed);
      expect({ query, ids: ids(got.items), total: got.total }).toEqual({
        query,
        ids: ids(want.items),
        total: want.total,
      });
      expect(got.items).toEqual(want.items);
    }
    // The facets: of every cluster the caller may read, whatever the filters.
    expect(
      v.page({ health: 'healthy' }, allowed, { facets: true }).facets,
    ).toEqual(clusterFacets(v.list().filter(allowed)));
  }

  it("answers each view with pageOfClusters' clusters and order, before and after changes", () => {
    const { objects, views: v, emit } = world();
    expect(v.list()).toHaveLength(60);
    expectSameAsTheBrowser(v);
    // A few changes in one namespace: a control plane turns ready, a cluster goes, another comes.
    const cp = objects.find(
      o =>
        o.kind === 'AzureASOManagedControlPlane' &&
        o.metadata.namespace === 'ns-1',
    )!;
    const readied = { ...cp, status: { ready: true } } as CachedObject;
    objects.splice(objects.indexOf(cp), 1, readied);
    emit('update', readied);
    const gone = objects.find(
      o => o.kind === 'Cluster' && o.metadata.namespace === 'ns-0',
    )!;
    objects.splice(objects.indexOf(gone), 1);
    emit('delete', gone);
    const added = fleetCluster('ns-2', 'c-new');
    objects.push(...added);
    for (const o of added) emit('add', o);
    expectSameAsTheBrowser(v);
  });

  it('moves a changed cluster to its new place in a kept order', () => {
    const { objects, views: v, emit } = world();
    const worstFirst = () => ids(v.page({ limit: 60 }, () => true).items);
    const before = worstFirst();
    const last = before[before.length - 1];
    const [ns, name] = last.split('/');
    const moved = objects.find(
      o =>
        o.kind === 'Cluster' &&
        o.metadata.namespace === ns &&
        o.metadata.name === name,
    )!;
    const failed = { ...moved, status: available(false) } as CachedObject;
    objects.splice(objects.indexOf(moved), 1, failed);
    emit('update', failed);
    const after = worstFirst();
    expect(after).not.toEqual(before);
    expect(after.indexOf(last)).toBeLessThan(before.indexOf(last));
    expect(after).toEqual(ids(pageOfClusters(v.list(), { limit: 60 }).items));
  });

  it('answers the clusters a change named by uid, as list() has them, through deletes and a name created again', () => {
    const { objects, views: v, emit } = world();
    const clusters = () => objects.filter(o => o.kind === 'Cluster');
    const [a, b, c] = clusters().filter(o => o.metadata.namespace !== 'ns-3');
    const hidden = clusters().find(o => o.metadata.namespace === 'ns-3')!;
    const byUid = (uids: string[]) => v.withUids(uids, allowed).map(x => x.uid);
    const listed = (uid: string) => v.list().find(x => x.uid === uid);

    // Before any page, in the order asked, once each; an unknown uid and one the caller may not read left out.
    expect(
      byUid([
        c.metadata.uid,
        'nope',
        a.metadata.uid,
        hidden.metadata.uid,
        c.metadata.uid,
      ]),
    ).toEqual([c.metadata.uid, a.metadata.uid]);
    expect(v.withUids([a.metadata.uid], allowed)).toEqual([
      listed(a.metadata.uid),
    ]);

    // A changed cluster answers as it is now.
    const failed = { ...a, status: available(false) } as CachedObject;
    objects.splice(objects.indexOf(a), 1, failed);
    emit('update', failed);
    expect(v.withUids([a.metadata.uid], allowed)).toEqual([
      listed(a.metadata.uid),
    ]);
    expect(v.withUids([a.metadata.uid], allowed)[0].health).toBe(
      listed(a.metadata.uid)!.health,
    );

    // A deleted one is left out; its name created again answers under the new uid only.
    objects.splice(objects.indexOf(b), 1);
    emit('delete', b);
    expect(byUid([b.metadata.uid])).toEqual([]);
    const again = {
      ...b,
      metadata: { ...b.metadata, uid: `${b.metadata.uid}-again` },
    } as CachedObject;
    objects.push(again);
    emit('add', again);
    expect(byUid([b.metadata.uid, again.metadata.uid])).toEqual([
      again.metadata.uid,
    ]);
    // Deleted and created again between two reads.
    const third = {
      ...b,
      metadata: { ...b.metadata, uid: `${b.metadata.uid}-third` },
    } as CachedObject;
    objects.splice(objects.indexOf(again), 1, third);
    emit('delete', again);
    emit('add', third);
    expect(byUid([again.metadata.uid, third.metadata.uid])).toEqual([
      third.metadata.uid,
    ]);
  });
});
