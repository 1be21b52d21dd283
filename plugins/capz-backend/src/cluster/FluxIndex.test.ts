import { EventEmitter } from 'node:events';
import type { CacheChange, CachedObject } from './ClusterWatch';
import { TouchedClusters } from './TouchedClusters';
import type { WatchCache } from './WatchCache';

const CAPZ = 'infrastructure.cluster.x-k8s.io';
const FLUX = 'flux-system';
const by = (name: string, namespace = FLUX) => ({
  'kustomize.toolkit.fluxcd.io/name': name,
  'kustomize.toolkit.fluxcd.io/namespace': namespace,
});

const cluster = (
  ns: string,
  name: string,
  labels?: Record<string, string>,
): CachedObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, labels },
  spec: {
    controlPlaneRef: {
      apiGroup: CAPZ,
      kind: 'AzureASOManagedControlPlane',
      name,
    },
  },
});
const pool = (
  ns: string,
  clusterName: string,
  labels?: Record<string, string>,
): CachedObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachinePool',
  metadata: {
    name: `${clusterName}-pool0`,
    namespace: ns,
    uid: `uid-${ns}-${clusterName}-pool0`,
    labels: { 'cluster.x-k8s.io/cluster-name': clusterName, ...labels },
  },
  spec: { clusterName, replicas: 1 },
});
const kustomization = (
  name: string,
  sourceRef: Record<string, string>,
  ns = FLUX,
): CachedObject => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name, namespace: ns, uid: `uid-ks-${ns}-${name}` },
  spec: { sourceRef, path: './clusters', prune: true },
});

/** A cache stand-in that reports its changes and counts its lists of a whole kind (no namespace: a scan). */
function world(initial: CachedObject[]) {
  const objects = [...initial];
  const scans: string[] = [];
  const list = (_m: string, kind: string, ns?: string) => {
    if (ns === undefined) scans.push(kind);
    return objects.filter(
      o => o.kind === kind && (ns === undefined || o.metadata.namespace === ns),
    );
  };
  const cache = Object.assign(new EventEmitter(), {
    list,
    get: (_m: string, kind: string, ns: string | undefined, name: string) =>
      objects.find(
        o =>
          o.kind === kind &&
          o.metadata.namespace === ns &&
          o.metadata.name === name,
      ),
  });
  const emit = (type: CacheChange['type'], object: CachedObject) =>
    cache.emit('change', {
      managementCluster: 'mc',
      kind: object.kind!,
      type,
      object,
    } satisfies CacheChange);
  return {
    cache: cache as unknown as WatchCache,
    scans,
    put(object: CachedObject) {
      const i = objects.findIndex(o => o.metadata.uid === object.metadata.uid);
      if (i >= 0) objects[i] = object;
      else objects.push(object);
      emit(i >= 0 ? 'update' : 'add', object);
    },
    remove(uid: string) {
      const i = objects.findIndex(o => o.metadata.uid === uid);
      const [object] = objects.splice(i, 1);
      emit('delete', object);
    },
    /** The same objects behind a stand-in without change events: everything computed afresh. */
    fresh(): WatchCache {
      return { list } as unknown as WatchCache;
    },
  };
}

const sorted = (xs: string[]) => [...xs].sort();

describe('the Flux index: which clusters a Kustomization applies, which Kustomizations a GitRepository feeds', () => {
  it('follows adds, updates and deletes of the clusters’ objects and of Kustomizations without scanning the cache, as a fresh index would answer', () => {
    const w = world([
      cluster('team-a', 'a', by('clusters')),
      cluster('team-a', 'b', by('other')),
      // c's Cluster carries no label: its pool does (its Git source comes from the pool's Kustomization).
      cluster('team-b', 'c'),
      pool('team-b', 'c', by('clusters')),
      // An object with one label only is not Flux's.
      cluster('team-b', 'd', {
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
      }),
      kustomization('clusters', { kind: 'GitRepository', name: 'gitops' }),
      kustomization('other', {
        kind: 'GitRepository',
        name: 'gitops',
        namespace: 'sources',
      }),
      kustomization('oci', { kind: 'OCIRepository', name: 'gitops' }),
    ]);
    const touched = new TouchedClusters(w.cache, ['mc']);
    const answers = (t: TouchedClusters) => ({
      clusters: sorted(
        t.clustersAppliedBy('mc', { namespace: FLUX, name: 'clusters' }),
      ),
      other: sorted(
        t.clustersAppliedBy('mc', { namespace: FLUX, name: 'other' }),
      ),
      gitops: sorted(
        t.clustersFollowing('mc', { namespace: FLUX, name: 'gitops' }),
      ),
      sources: sorted(
        t.clustersFollowing('mc', { namespace: 'sources', name: 'gitops' }),
      ),
    });
    const fresh = () => answers(new TouchedClusters(w.fresh(), ['mc']));

    expect(answers(touched)).toEqual({
      clusters: ['uid-team-a-a', 'uid-team-b-c'],
      other: ['uid-team-a-b'],
      gitops: ['uid-team-a-a', 'uid-team-b-c'],
      sources: ['uid-team-a-b'],
    });
    // Built once by one pass over the cache; from now on each change costs what it touched.
    w.scans.length = 0;

    // b moves to Kustomization clusters; c's pool loses its labels; a is deleted; a new labelled cluster appears.
    w.put(cluster('team-a', 'b', by('clusters')));
    w.put(pool('team-b', 'c'));
    w.remove('uid-team-a-a');
    w.put(cluster('team-c', 'e', by('other')));
    expect(answers(touched)).toEqual({
      clusters: ['uid-team-a-b'],
      other: ['uid-team-c-e'],
      gitops: ['uid-team-a-b'],
      sources: ['uid-team-c-e'],
    });
    expect(w.scans).toEqual([]);
    expect(answers(touched)).toEqual(fresh());
    w.scans.length = 0;

    // Kustomization other now applies from flux-system/gitops; clusters is deleted (its objects keep their labels).
    w.put(kustomization('other', { kind: 'GitRepository', name: 'gitops' }));
    w.remove('uid-ks-flux-system-clusters');
    expect(answers(touched)).toEqual({
      clusters: ['uid-team-a-b'],
      other: ['uid-team-c-e'],
      gitops: ['uid-team-c-e'],
      sources: [],
    });
    expect(w.scans).toEqual([]);
    expect(answers(touched)).toEqual(fresh());
  });
});
