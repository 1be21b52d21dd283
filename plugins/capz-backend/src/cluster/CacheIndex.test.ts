import { EventEmitter } from 'node:events';
import { ClusterViews } from '../views/clusterViews';
import { CacheIndex, type NamespaceIndex } from './CacheIndex';
import type { CacheChange, CachedObject } from './ClusterWatch';
import type { WatchCache } from './WatchCache';

const CAPZ = 'infrastructure.cluster.x-k8s.io';
const SUB = '00000000-0000-0000-0000-0000000000aa';
const armId = (rg: string, name: string) =>
  `/subscriptions/${SUB}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`;

const cluster = (ns: string, name: string): CachedObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name, namespace: ns, uid: `uid-${ns}-${name}` },
  spec: {
    controlPlaneRef: { apiGroup: CAPZ, kind: 'AzureManagedControlPlane', name },
  },
});
const controlPlane = (ns: string, name: string): CachedObject => ({
  apiVersion: `${CAPZ}/v1beta1`,
  kind: 'AzureManagedControlPlane',
  metadata: { name, namespace: ns, uid: `uid-${ns}-${name}-cp` },
});
const managedCluster = (
  ns: string,
  name: string,
  o: { id?: string; owner?: string; azureName?: string; policy?: string } = {},
  controlledBy?: string,
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
      ...(controlledBy
        ? {
            ownerReferences: [
              {
                apiVersion: `${CAPZ}/v1beta1`,
                kind: 'AzureManagedControlPlane',
                name: controlledBy,
                uid: `uid-${ns}-${controlledBy}-cp`,
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
const resourceGroup = (
  ns: string,
  name: string,
  azureName: string,
): CachedObject => ({
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  metadata: { name, namespace: ns, uid: `uid-rg-${ns}-${name}` },
  spec: { azureName },
});

/** A cache stand-in that reports its changes, like the watch cache (objects are replaced, never changed). */
function world(initial: Record<string, CachedObject[]>) {
  const objects = Object.fromEntries(
    Object.entries(initial).map(([m, os]) => [m, [...os]]),
  );
  const list = (m: string, kind: string, ns?: string) =>
    (objects[m] ?? []).filter(
      o => o.kind === kind && (ns === undefined || o.metadata.namespace === ns),
    );
  const cache = Object.assign(new EventEmitter(), {
    list,
    get: (m: string, kind: string, ns: string | undefined, name: string) =>
      list(m, kind, ns).find(o => o.metadata.name === name),
  });
  const emit = (m: string, type: CacheChange['type'], object: CachedObject) =>
    cache.emit('change', {
      managementCluster: m,
      kind: object.kind!,
      type,
      object,
    } satisfies CacheChange);
  return {
    cache: cache as unknown as WatchCache,
    put(m: string, object: CachedObject) {
      const i = objects[m].findIndex(
        o => o.metadata.uid === object.metadata.uid,
      );
      if (i >= 0) objects[m][i] = object;
      else objects[m].push(object);
      emit(m, i >= 0 ? 'update' : 'add', object);
    },
    remove(m: string, uid: string) {
      const i = objects[m].findIndex(o => o.metadata.uid === uid);
      const [object] = objects[m].splice(i, 1);
      emit(m, 'delete', object);
    },
    /** The same objects behind a stand-in without change events: everything computed afresh. */
    fresh(): WatchCache {
      return { list } as unknown as WatchCache;
    },
  };
}

describe('CacheIndex', () => {
  it('keeps the clusters list and managedFrom equal to a computation from scratch through adds, updates and deletes', () => {
    const w = world({
      east: [
        cluster('team-a', 'analytics'),
        controlPlane('team-a', 'analytics'),
        managedCluster(
          'team-a',
          'analytics',
          { id: armId('rg-analytics', 'analytics-aks') },
          'analytics',
        ),
        cluster('team-b', 'other'),
        controlPlane('team-b', 'other'),
        managedCluster(
          'team-b',
          'other',
          { id: armId('rg-other', 'other-aks') },
          'other',
        ),
      ],
      west: [
        cluster('team-c', 'analytics'),
        controlPlane('team-c', 'analytics'),
      ],
    });
    const views = new ClusterViews(w.cache, ['east', 'west']);
    const check = () =>
      expect(views.list()).toEqual(
        new ClusterViews(w.fresh(), ['east', 'west']).list(),
      );
    check();
    expect(views.list().flatMap(s => s.managedFrom ?? [])).toEqual([]);

    // A hand-made copy in a group that does not exist yet: no resource group, no flag.
    w.put(
      'east',
      managedCluster('scratch', 'copy', {
        azureName: 'Analytics-AKS',
        owner: 'grp',
      }),
    );
    check();
    expect(views.list().flatMap(s => s.managedFrom ?? [])).toEqual([]);
    // Its group appears: now it points at the same AKS cluster.
    w.put('east', resourceGroup('scratch', 'grp', 'RG-Analytics'));
    check();
    expect(
      views.tree('east', 'team-a', 'analytics', 0).summary.managedFrom,
    ).toEqual([
      { managementCluster: 'east', namespace: 'scratch', name: 'copy' },
    ]);
    // The group is renamed in Azure: the flag goes.
    w.put('east', resourceGroup('scratch', 'grp', 'rg-elsewhere'));
    check();
    expect(
      views.tree('east', 'team-a', 'analytics', 0).summary.managedFrom,
    ).toBeUndefined();
    // Another management cluster's cluster points at it too.
    w.put(
      'west',
      managedCluster(
        'team-c',
        'analytics',
        { id: armId('RG-ANALYTICS', 'analytics-aks').toLowerCase() },
        'analytics',
      ),
    );
    check();
    expect(
      views.tree('west', 'team-c', 'analytics', 0).summary.managedFrom,
    ).toEqual([
      {
        managementCluster: 'east',
        namespace: 'team-a',
        name: 'analytics',
        cluster: 'analytics',
      },
    ]);
    // Disarmed (skip): not counted any more.
    w.put(
      'east',
      managedCluster(
        'team-a',
        'analytics',
        { id: armId('rg-analytics', 'analytics-aks'), policy: 'skip' },
        'analytics',
      ),
    );
    check();
    expect(views.list().flatMap(s => s.managedFrom ?? [])).toEqual([]);
    w.remove('east', 'uid-mc-team-a-analytics');
    w.remove('west', 'uid-team-c-analytics');
    check();
  });

  it('keeps no chain of earlier namespace indexes: at most the one replaced, until every view is built again', () => {
    const w = world({
      east: [
        cluster('ns', 'a'),
        controlPlane('ns', 'a'),
        cluster('ns', 'b'),
        controlPlane('ns', 'b'),
      ],
    });
    const index = CacheIndex.for(w.cache, ['east']);
    // The link is private: what it holds is what this test is about.
    const previousOf = (i: NamespaceIndex) =>
      (i as unknown as { previous?: NamespaceIndex }).previous;
    const change = (ready: boolean) =>
      w.put('east', { ...controlPlane('ns', 'b'), status: { ready } });
    const first = index.namespace('east', 'ns');
    first.view(first.clusters[0]);
    change(true);
    const second = index.namespace('east', 'ns');
    expect(previousOf(second)).toBe(first);
    const a = second.view(second.clusters[0]);
    expect(a).toBe(first.view(first.clusters[0])); // reused from the index it replaced
    change(false);
    const third = index.namespace('east', 'ns');
    expect(previousOf(third)).toBe(second);
    expect(previousOf(second)).toBeUndefined();
    expect(third.view(third.clusters[0])).toBe(a);
    third.view(third.clusters[1]);
    expect(previousOf(third)).toBeUndefined();
  });

  it('rebuilds only the trees whose own objects changed', () => {
    const w = world({
      east: [
        cluster('ns', 'a'),
        controlPlane('ns', 'a'),
        cluster('ns', 'b'),
        controlPlane('ns', 'b'),
      ],
    });
    const views = new ClusterViews(w.cache, ['east']);
    const tree = (name: string) => views.tree('east', 'ns', name, 0).tree;
    const a = tree('a');
    const b = tree('b');
    expect(tree('a')).toBe(a);
    w.put('east', {
      ...controlPlane('ns', 'b'),
      status: { ready: true },
    });
    expect(tree('a')).toBe(a); // same namespace, other cluster: reused
    expect(tree('b')).not.toBe(b);
    expect(tree('b')).toEqual(
      new ClusterViews(w.fresh(), ['east']).tree('east', 'ns', 'b', 0).tree,
    );
  });
});
