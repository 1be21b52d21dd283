import { mockServices } from '@backstage/backend-test-utils';
import { CAPZ_SIGNAL_CHANNEL } from '@capz-backstage/plugin-capz-common';
import { EventEmitter } from 'node:events';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';
import { ChangeSignals } from './ChangeSignals';

const o = (
  kind: string,
  ns: string,
  name: string,
  uid: string,
  extra: Record<string, unknown> = {},
): CachedObject =>
  ({
    apiVersion:
      kind === 'Cluster'
        ? 'cluster.x-k8s.io/v1beta2'
        : 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind,
    ...extra,
    metadata: { name, namespace: ns, uid, ...(extra.metadata as object) },
  } as CachedObject);

const cluster = (ns: string, name: string, uid: string) =>
  o('Cluster', ns, name, uid, {
    spec: {
      controlPlaneRef: {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'AzureASOManagedControlPlane',
        name,
      },
    },
  });
const controlPlane = (
  ns: string,
  name: string,
  uid: string,
  owner: CachedObject,
) =>
  o('AzureASOManagedControlPlane', ns, name, uid, {
    metadata: {
      ownerReferences: [
        {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          name: owner.metadata.name,
          uid: owner.metadata.uid,
        },
      ],
    },
  });

function setup(coalesceMs = 60_000) {
  const a = cluster('ns1', 'a', 'uid-a');
  const b = cluster('ns1', 'b', 'uid-b');
  const c = cluster('ns2', 'c', 'uid-c');
  const objects: Record<string, CachedObject[]> = {
    Cluster: [a, b, c],
    AzureASOManagedControlPlane: [
      controlPlane('ns1', 'a', 'uid-cp-a', a),
      controlPlane('ns1', 'b', 'uid-cp-b', b),
    ],
  };
  const cache = Object.assign(new EventEmitter(), {
    list: (_mc: string, kind: string, ns?: string) =>
      (objects[kind] ?? []).filter(
        x => ns === undefined || x.metadata.namespace === ns,
      ),
  }) as unknown as WatchCache;
  const published: any[] = [];
  const signals = { publish: async (s: any) => void published.push(s) };
  const live = new ChangeSignals(
    cache,
    ['mc'],
    signals,
    mockServices.logger.mock(),
    coalesceMs,
  );
  live.start();
  const emit = (
    kind: string,
    type: CacheChange['type'],
    object: CachedObject,
  ) =>
    cache.emit('change', {
      managementCluster: 'mc',
      kind,
      type,
      object,
    } satisfies CacheChange);
  return { live, emit, published, objects };
}

describe('ChangeSignals', () => {
  it('names only the Cluster whose tree holds the changed object, on the capz channel, as a broadcast', async () => {
    const { live, emit, published, objects } = setup();
    emit(
      'AzureASOManagedControlPlane',
      'update',
      objects.AzureASOManagedControlPlane[0],
    );
    await live.flush();
    expect(published).toEqual([
      {
        recipients: { type: 'broadcast' },
        channel: CAPZ_SIGNAL_CHANNEL,
        message: { clusterUids: ['uid-a'] },
      },
    ]);
    live.stop();
  });

  it("says a management cluster's connection changed, with no cluster named (an outage sends no watch event)", async () => {
    const { live, published } = setup();
    live.notifyManagementClusters();
    await live.flush();
    expect(published.map(p => p.message)).toEqual([
      { clusterUids: [], managementClusters: true },
    ]);
    // Said once: the next flush has nothing to say.
    await live.flush();
    expect(published).toHaveLength(1);
    live.stop();
  });

  it('publishes a change after a quiet window at once, and gathers the next ones until the window since ends', async () => {
    jest.useFakeTimers();
    try {
      const { live, emit, published, objects } = setup(100);
      await jest.advanceTimersByTimeAsync(100); // quiet since it started
      emit('Cluster', 'update', objects.Cluster[0]);
      await jest.advanceTimersByTimeAsync(0);
      expect(published.map(p => p.message.clusterUids)).toEqual([['uid-a']]);
      emit('Cluster', 'update', objects.Cluster[1]);
      await jest.advanceTimersByTimeAsync(50);
      emit('Cluster', 'update', objects.Cluster[2]);
      await jest.advanceTimersByTimeAsync(49);
      expect(published).toHaveLength(1); // within 100 ms of the first message
      await jest.advanceTimersByTimeAsync(1);
      expect(published.map(p => p.message.clusterUids)).toEqual([
        ['uid-a'],
        ['uid-b', 'uid-c'],
      ]);
      live.stop();
    } finally {
      jest.useRealTimers();
    }
  });

  it('coalesces many changes into one message', async () => {
    const { live, emit, published, objects } = setup();
    emit(
      'AzureASOManagedControlPlane',
      'update',
      objects.AzureASOManagedControlPlane[0],
    );
    emit(
      'AzureASOManagedControlPlane',
      'update',
      objects.AzureASOManagedControlPlane[1],
    );
    emit('Cluster', 'update', objects.Cluster[2]);
    await live.flush();
    expect(published).toHaveLength(1);
    expect(published[0].message.clusterUids.sort()).toEqual([
      'uid-a',
      'uid-b',
      'uid-c',
    ]);
    live.stop();
  });

  it('maps an Event to the object it is about, and ignores Event expiry and unrelated Events', async () => {
    const { live, emit, published } = setup();
    const event = (uid: string) =>
      o('Event', 'ns1', `e-${uid}`, `ev-${uid}`, { involvedObject: { uid } });
    emit('Event', 'add', event('uid-cp-b'));
    await live.flush();
    expect(published.map(p => p.message.clusterUids)).toEqual([['uid-b']]);
    emit('Event', 'delete', event('uid-cp-a'));
    emit('Event', 'add', event('uid-of-a-pod'));
    await live.flush();
    expect(published).toHaveLength(1);
    live.stop();
  });

  it('names every Cluster of the namespace when an object that is in no tree any more was deleted', async () => {
    const { live, emit, published } = setup();
    emit(
      'AzureASOManagedMachinePool',
      'delete',
      o('AzureASOManagedMachinePool', 'ns1', 'gone', 'uid-gone'),
    );
    await live.flush();
    expect(published[0].message.clusterUids.sort()).toEqual(['uid-a', 'uid-b']);
    live.stop();
  });

  it('publishes nothing when nothing concerns a cluster, and announces history changes passed to it', async () => {
    const { live, emit, published } = setup();
    emit(
      'ManagedCluster',
      'add',
      o('ManagedCluster', 'ns1', 'orphan', 'uid-orphan'),
    );
    await live.flush();
    expect(published).toHaveLength(0);
    live.notifyClusters(['uid-c']);
    await live.flush();
    expect(published.map(p => p.message.clusterUids)).toEqual([['uid-c']]);
    live.stop();
  });

  it('names the Clusters managing the same AKS cluster when a ManagedCluster in no tree appears or goes (managedFrom)', async () => {
    const { live, emit, published, objects } = setup();
    const id =
      '/subscriptions/sub/resourceGroups/rg-a/providers/Microsoft.ContainerService/managedClusters/aks-a';
    const mc = (ns: string, name: string, uid: string) =>
      ({
        ...o('ManagedCluster', ns, name, uid),
        apiVersion: 'containerservice.azure.com/v1api20240901',
        status: { id },
      } as CachedObject);
    // Cluster a's control plane embeds its ManagedCluster (the ASO API), which points at aks-a.
    objects.AzureASOManagedControlPlane[0].spec = {
      resources: [
        {
          apiVersion: 'containerservice.azure.com/v1api20240901',
          kind: 'ManagedCluster',
          metadata: { name: 'a' },
        },
      ],
    };
    objects.ManagedCluster = [mc('ns1', 'a', 'uid-mc-a')];
    const copy = mc('by-hand', 'copy', 'uid-copy');
    objects.ManagedCluster.push(copy);
    emit('ManagedCluster', 'add', copy);
    await live.flush();
    objects.ManagedCluster.pop();
    emit('ManagedCluster', 'delete', copy);
    await live.flush();
    // One written with its own ResourceGroup (no ARM id yet), both deleted before the flush: still found.
    const handMade = {
      ...o('ManagedCluster', 'by-hand', 'copy2', 'uid-copy2'),
      spec: { azureName: 'AKS-A', owner: { name: 'grp' } },
    } as CachedObject;
    objects.ResourceGroup = [
      {
        ...o('ResourceGroup', 'by-hand', 'grp', 'uid-grp'),
        spec: { azureName: 'rg-a' },
      } as CachedObject,
    ];
    emit('ManagedCluster', 'delete', handMade);
    objects.ResourceGroup = [];
    await live.flush();
    // A status update of it names nobody (its tree is none; the owners did not change).
    emit('ManagedCluster', 'update', copy);
    await live.flush();
    expect(published.map(p => p.message.clusterUids)).toEqual([
      ['uid-a'],
      ['uid-a'],
      ['uid-a'],
    ]);
    live.stop();
  });

  it("announces a Flux Kustomization's change to the Clusters it applies and a GitRepository's to those of the Kustomizations applying from it, never to its namespace's other Clusters", async () => {
    const FLUX_LABELS = {
      'kustomize.toolkit.fluxcd.io/name': 'clusters',
      'kustomize.toolkit.fluxcd.io/namespace': 'ns1',
    };
    const { live, emit, published, objects } = setup();
    // a's Cluster is Flux's; b's Cluster is not, its control plane is; c (another namespace) is not Flux's at all.
    objects.Cluster[0] = o('Cluster', 'ns1', 'a', 'uid-a', {
      ...objects.Cluster[0],
      metadata: { labels: FLUX_LABELS },
    });
    objects.AzureASOManagedControlPlane[1] = o(
      'AzureASOManagedControlPlane',
      'ns1',
      'b',
      'uid-cp-b',
      {
        metadata: {
          ...objects.AzureASOManagedControlPlane[1].metadata,
          labels: FLUX_LABELS,
        },
      },
    );
    // Flux's objects in the clusters' own namespace.
    const kustomization = (name: string) =>
      o('Kustomization', 'ns1', name, `uid-ks-${name}`, {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        spec: { sourceRef: { kind: 'GitRepository', name: 'gitops' } },
      });
    const repo = o('GitRepository', 'ns1', 'gitops', 'uid-repo', {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
    });
    objects.Kustomization = [
      kustomization('clusters'),
      kustomization('lonely'),
    ];
    objects.GitRepository = [repo];
    const announced = () =>
      published.splice(0).map(p => [...p.message.clusterUids].sort());

    emit('Kustomization', 'update', objects.Kustomization[0]);
    await live.flush();
    expect(announced()).toEqual([['uid-a', 'uid-b']]);

    emit('GitRepository', 'update', repo);
    await live.flush();
    expect(announced()).toEqual([['uid-a', 'uid-b']]);

    // A Kustomization that applies no cluster changed, or went: no page is concerned (no object of a tree went).
    emit('Kustomization', 'update', objects.Kustomization[1]);
    emit('Kustomization', 'delete', objects.Kustomization[1]);
    await live.flush();
    expect(announced()).toEqual([]);

    // The Kustomization that applies them is deleted: their pages lose their Git source.
    emit('Kustomization', 'delete', objects.Kustomization[0]);
    await live.flush();
    expect(announced()).toEqual([['uid-a', 'uid-b']]);
  });
});
