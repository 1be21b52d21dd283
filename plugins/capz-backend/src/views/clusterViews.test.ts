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
