import { buildClusterTree } from './buildTree';
import {
  asoManagedCluster,
  failReady,
  find,
  legacyCluster,
} from './__fixtures__/clusters';
import { partitionByCluster } from './partition';
import { summarizeCluster } from './summary';
import type { ObservedObject } from '../objects/types';

/** A namespace with several clusters of both APIs, one failing, one sharing its name prefix with another. */
function namespace(): ObservedObject[] {
  const a = asoManagedCluster({
    namespace: 'ns',
    name: 'alpha',
    pools: [
      { name: 'system', mode: 'System', count: 2 },
      { name: 'batch', count: 3 },
    ],
  });
  const b = asoManagedCluster({ namespace: 'ns', name: 'alpha-2' });
  const c = legacyCluster({ namespace: 'ns', name: 'legacy' });
  failReady(
    find(b.objects, 'ManagedCluster', 'alpha-2'),
    'ReconciliationBlocked',
    'Warning',
    'blocked',
  );
  return [...a.objects, ...b.objects, ...c.objects];
}

describe('partitionByCluster', () => {
  it('builds every tree and summary exactly as from the whole namespace', () => {
    const objects = namespace();
    const groups = partitionByCluster(objects);
    const clusters = objects.filter(o => o.kind === 'Cluster');
    expect(clusters).toHaveLength(3);
    for (const cluster of clusters) {
      const group = groups.get(cluster.metadata!.uid!)!;
      expect(buildClusterTree(cluster, group)).toEqual(
        buildClusterTree(cluster, objects),
      );
      expect(
        summarizeCluster(
          'mc',
          buildClusterTree(cluster, group),
          cluster,
          group,
        ),
      ).toEqual(
        summarizeCluster(
          'mc',
          buildClusterTree(cluster, objects),
          cluster,
          objects,
        ),
      );
    }
  });

  it('keeps clusters apart, so each tree is built from its own objects only', () => {
    const objects = namespace();
    const groups = partitionByCluster(objects);
    const sizes = objects
      .filter(o => o.kind === 'Cluster')
      .map(c => groups.get(c.metadata!.uid!)!.length);
    expect(sizes.every(n => n < objects.length / 2)).toBe(true);
    for (const group of groups.values()) {
      expect(group.filter(o => o.kind === 'Cluster')).toHaveLength(1);
    }
  });

  it('joins objects that only name each other (no owner reference yet)', () => {
    const { objects } = asoManagedCluster({ namespace: 'ns', name: 'fresh' });
    for (const o of objects) delete o.metadata!.ownerReferences;
    const groups = partitionByCluster(objects);
    const cluster = objects.find(o => o.kind === 'Cluster')!;
    expect(
      buildClusterTree(cluster, groups.get(cluster.metadata!.uid!)!),
    ).toEqual(buildClusterTree(cluster, objects));
  });

  it('joins objects that share the name they reference (the aks-aso flavour names them all after the cluster)', () => {
    const objects: ObservedObject[] = [
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: { name: 'payments', namespace: 'ns', uid: 'c' },
        spec: {
          controlPlaneRef: {
            apiGroup: 'infrastructure.cluster.x-k8s.io',
            kind: 'AzureASOManagedControlPlane',
            name: 'payments',
          },
        },
      },
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'AzureASOManagedControlPlane',
        metadata: { name: 'payments', namespace: 'ns', uid: 'cp' },
        spec: {
          resources: [
            {
              apiVersion: 'containerservice.azure.com/v1api20240901',
              kind: 'ManagedCluster',
              metadata: { name: 'payments' },
            },
          ],
        },
      },
      {
        apiVersion: 'containerservice.azure.com/v1api20240901',
        kind: 'ManagedCluster',
        metadata: { name: 'payments', namespace: 'ns', uid: 'mc' },
      },
    ];
    expect(
      partitionByCluster(objects)
        .get('c')!
        .map(o => o.metadata!.uid)
        .sort(),
    ).toEqual(['c', 'cp', 'mc']);
  });
});
