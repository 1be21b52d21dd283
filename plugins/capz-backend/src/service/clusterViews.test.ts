import { EventEmitter } from 'node:events';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';
import { ClusterViews } from './clusterViews';

const CAPZ = 'infrastructure.cluster.x-k8s.io';
const cluster: CachedObject = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name: 'c1', namespace: 'ns', uid: 'uid-c1' },
  spec: { controlPlaneRef: { apiGroup: CAPZ, kind: 'AzureASOManagedControlPlane', name: 'c1' } },
};
const controlPlane: CachedObject = {
  apiVersion: `${CAPZ}/v1beta1`,
  kind: 'AzureASOManagedControlPlane',
  metadata: { name: 'c1', namespace: 'ns', uid: 'uid-cp1' },
  status: { ready: true },
};

function setup() {
  const objects: Record<string, CachedObject[]> = { Cluster: [cluster], AzureASOManagedControlPlane: [] };
  const cache = Object.assign(new EventEmitter(), {
    list: (_mc: string, kind: string, ns?: string) => (objects[kind] ?? []).filter(o => ns === undefined || o.metadata.namespace === ns),
  }) as unknown as WatchCache;
  const views = new ClusterViews(cache, ['mc']);
  const kinds = () => views.tree('mc', 'ns', 'c1', 0).tree.children.map(c => `${c.kind}:${c.health}`);
  return { objects, cache, kinds };
}

describe('ClusterViews', () => {
  it('reuses a namespace\'s object groups until the cache reports a change there', () => {
    const { objects, cache, kinds } = setup();
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:unknown']); // referenced, not found yet
    objects.AzureASOManagedControlPlane.push(controlPlane);
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:unknown']); // memoised: no change reported yet
    cache.emit('change', { managementCluster: 'mc', kind: 'AzureASOManagedControlPlane', type: 'add', object: controlPlane } satisfies CacheChange);
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:healthy']);
  });

  it('ignores Events and other namespaces for invalidation', () => {
    const { objects, cache, kinds } = setup();
    kinds();
    objects.AzureASOManagedControlPlane.push(controlPlane);
    cache.emit('change', { managementCluster: 'mc', kind: 'Event', type: 'add', object: { metadata: { name: 'e', namespace: 'ns', uid: 'e1' } } });
    cache.emit('change', { managementCluster: 'mc', kind: 'ResourceGroup', type: 'add', object: { metadata: { name: 'r', namespace: 'other', uid: 'r1' } } });
    expect(kinds()).toEqual(['AzureASOManagedControlPlane:unknown']);
  });
});
