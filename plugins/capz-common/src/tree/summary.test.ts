import { buildClusterTree } from './buildTree';
import { groupTree } from './grouping';
import { describePools, detectClusterApi, summarizeCluster } from './summary';
import {
  asoManagedCluster,
  failReady,
  find,
  legacyCluster,
  markNotReady,
  NOW,
} from './__fixtures__/clusters';

const opts = { now: NOW };

describe('summarizeCluster', () => {
  it('a healthy ASO-managed cluster at v1beta1', () => {
    const { cluster, objects } = asoManagedCluster({
      namespace: 'team-search',
      name: 'search-prod',
      location: 'northeurope',
      version: '1.33.2',
      pools: [
        { name: 'system', mode: 'System', count: 3 },
        { name: 'user1', count: 2 },
        { name: 'user2', count: 4 },
      ],
    });
    cluster.metadata.annotations = { 'capz.io/owner': 'group:default/search' };
    const tree = buildClusterTree(cluster, objects, opts);
    expect(summarizeCluster('mgmt-west', tree, cluster, objects)).toEqual({
      managementCluster: 'mgmt-west',
      namespace: 'team-search',
      name: 'search-prod',
      uid: cluster.metadata!.uid,
      api: 'aso-v1beta1',
      owner: 'group:default/search',
      health: 'healthy',
      reason: 'Available',
      kubernetesVersion: 'v1.33.2',
      location: 'northeurope',
      pools: { total: 3, ready: 3, replicas: 9 },
      migrationCandidate: false,
    });
  });

  it('names who applies the cluster when any of its objects carries GitOps marks', () => {
    const { cluster, objects } = asoManagedCluster({ name: 'gitops' });
    const tree = () => buildClusterTree(cluster, objects, opts);
    expect(
      summarizeCluster('m', tree(), cluster, objects).appliedBy,
    ).toBeUndefined();
    const mp = objects.find(o => o.kind === 'MachinePool')!;
    mp.metadata = {
      ...mp.metadata,
      labels: {
        ...mp.metadata?.labels,
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      },
    };
    expect(summarizeCluster('m', tree(), cluster, objects).appliedBy).toBe(
      "Flux's Kustomization flux-system/clusters",
    );
  });

  it('a failing cluster: the rollup reason and message, and the pools that are not ready', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'gap',
      pools: [
        { name: 'system', mode: 'System', count: 2 },
        { name: 'batch', count: 1 },
      ],
    });
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'gap-batch'),
      'OperationNotAllowed',
      'Error',
      'quota exceeded',
    );
    markNotReady(find(objects, 'AzureASOManagedMachinePool', 'gap-batch'));
    const s = summarizeCluster(
      'm',
      buildClusterTree(cluster, objects, opts),
      cluster,
      objects,
    );
    expect(s).toMatchObject({
      health: 'failed',
      reason: 'ManagedClustersAgentPool gap-batch: OperationNotAllowed',
      message: 'ManagedClustersAgentPool gap-batch: quota exceeded',
      pools: { total: 2, ready: 1, replicas: 3 },
    });
    expect(s.owner).toBeUndefined();
  });

  it('tells paused and updating pools apart from broken ones', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'calm',
      pools: [
        { name: 'system', mode: 'System', count: 2 },
        { name: 'web', count: 1 },
        { name: 'batch', count: 1 },
      ],
    });
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'calm-web'),
      'Reconciling',
      'Info',
      'The resource is being updated',
    );
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'calm-batch'),
      'OperationNotAllowed',
      'Error',
      'quota exceeded',
    );
    const summary = () =>
      summarizeCluster(
        'm',
        buildClusterTree(cluster, objects, opts),
        cluster,
        objects,
      ).pools;
    expect(summary()).toEqual({
      total: 3,
      ready: 1,
      updating: 1,
      replicas: 4,
    });
    // Paused: the healthy pool is paused; AKS may still be updating the other (ASO's condition says so), and the
    // broken one stays broken.
    cluster.spec = { ...cluster.spec, paused: true };
    expect(summary()).toEqual({
      total: 3,
      ready: 0,
      paused: 1,
      updating: 1,
      replicas: 4,
    });
  });

  it('counts pools the same way on a grouped tree', () => {
    const pools = Array.from({ length: 12 }, (_, i) => ({
      name: `p${i}`,
      count: 2,
    }));
    const { cluster, objects } = asoManagedCluster({ name: 'many', pools });
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'many-p3'),
      'ReconciliationBlocked',
      'Warning',
      'busy',
    );
    const tree = buildClusterTree(cluster, objects, opts);
    const grouped = groupTree(tree);
    expect(grouped.children[2].children).toHaveLength(2);
    const expected = { total: 12, ready: 11, replicas: 24 };
    expect(summarizeCluster('m', tree, cluster, objects).pools).toEqual(
      expected,
    );
    expect(summarizeCluster('m', grouped, cluster, objects).pools).toEqual(
      expected,
    );
  });

  it('takes the version from the control plane status, else the ManagedCluster, else the spec', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'v',
      version: '1.32.1',
    });
    const cp = find(objects, 'AzureASOManagedControlPlane', 'v');
    cp.spec.version = 'v1.33.0'; // upgrade requested
    const tree = () => buildClusterTree(cluster, objects, opts);
    expect(
      summarizeCluster('m', tree(), cluster, objects).kubernetesVersion,
    ).toBe('v1.32.1');
    delete cp.status.version;
    find(objects, 'ManagedCluster', 'v').status.currentKubernetesVersion =
      '1.32.9';
    expect(
      summarizeCluster('m', tree(), cluster, objects).kubernetesVersion,
    ).toBe('v1.32.9');
    const noMc = objects.filter(o => o.kind !== 'ManagedCluster');
    expect(
      summarizeCluster(
        'm',
        buildClusterTree(cluster, noMc, opts),
        cluster,
        noMc,
      ).kubernetesVersion,
    ).toBe('v1.33.0');
  });

  it('a legacy AzureManaged* cluster is a migration candidate', () => {
    const { cluster, objects } = legacyCluster({
      name: 'old-prod',
      location: 'eastus',
      version: '1.31.4',
      pools: [
        { name: 'pool0', mode: 'System', count: 3 },
        { name: 'pool1', count: 1 },
      ],
    });
    const s = summarizeCluster(
      'm',
      buildClusterTree(cluster, objects, opts),
      cluster,
      objects,
    );
    expect(s).toEqual({
      managementCluster: 'm',
      namespace: 'team-legacy',
      name: 'old-prod',
      uid: cluster.metadata!.uid,
      api: 'azure-managed',
      health: 'healthy',
      reason: 'Available',
      kubernetesVersion: 'v1.31.4',
      location: 'eastus',
      pools: { total: 2, ready: 2, replicas: 4 },
      migrationCandidate: true,
    });
  });

  it('a cluster without pools or objects still summarises', () => {
    const { cluster } = asoManagedCluster({ name: 'empty' });
    const s = summarizeCluster(
      'm',
      buildClusterTree(cluster, [], opts),
      cluster,
      [],
    );
    expect(s).toMatchObject({
      api: 'aso-v1beta1',
      health: 'unknown',
      pools: { total: 0, ready: 0, replicas: 0 },
      migrationCandidate: false,
    });
    expect(s.kubernetesVersion).toBeUndefined();
    expect(s.location).toBeUndefined();
  });
});

describe('detectClusterApi', () => {
  it('aso-v1alpha1 when the CAPZ objects are read at v1alpha1', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'alpha',
      capzVersion: 'v1alpha1',
    });
    expect(detectClusterApi(cluster, objects)).toBe('aso-v1alpha1');
    expect(
      summarizeCluster(
        'm',
        buildClusterTree(cluster, objects, opts),
        cluster,
        objects,
      ).api,
    ).toBe('aso-v1alpha1');
  });

  it('aso-v1alpha1 when read at v1beta1 but a field manager wrote them at v1alpha1', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'alpha',
      capzVersion: 'v1alpha1',
    });
    for (const o of objects)
      if (o.kind!.startsWith('AzureASOManaged'))
        o.apiVersion = 'infrastructure.cluster.x-k8s.io/v1beta1';
    expect(detectClusterApi(cluster, objects)).toBe('aso-v1alpha1');
    // Only a status write at v1alpha1 does not count: that is a controller, not how the object is written.
    for (const o of objects) {
      for (const m of o.metadata.managedFields ?? []) {
        m.apiVersion =
          m.subresource === 'status'
            ? 'infrastructure.cluster.x-k8s.io/v1alpha1'
            : 'infrastructure.cluster.x-k8s.io/v1beta1';
      }
    }
    expect(detectClusterApi(cluster, objects)).toBe('aso-v1beta1');
  });

  it('a v1alpha1 AzureASOManagedMachinePool alone is enough', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'mixed',
      pools: [{ name: 'a' }, { name: 'b' }],
    });
    find(objects, 'AzureASOManagedMachinePool', 'mixed-b').apiVersion =
      'infrastructure.cluster.x-k8s.io/v1alpha1';
    expect(detectClusterApi(cluster, objects)).toBe('aso-v1alpha1');
  });

  it('v1beta1 Cluster references with a v1alpha1 apiVersion', () => {
    const { cluster, objects } = asoManagedCluster({ name: 'ref' });
    cluster.spec.controlPlaneRef = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
      kind: 'AzureASOManagedControlPlane',
      name: 'ref',
    };
    expect(detectClusterApi(cluster, objects)).toBe('aso-v1alpha1');
  });

  it('the hint wins either way for ASO-managed clusters, never for legacy ones', () => {
    const beta = asoManagedCluster({ name: 'b' });
    expect(
      detectClusterApi(beta.cluster, beta.objects, {
        apiVersionHint: 'v1alpha1',
      }),
    ).toBe('aso-v1alpha1');
    expect(
      detectClusterApi(beta.cluster, beta.objects, {
        apiVersionHint: 'infrastructure.cluster.x-k8s.io/v1alpha1',
      }),
    ).toBe('aso-v1alpha1');
    const alpha = asoManagedCluster({ name: 'a', capzVersion: 'v1alpha1' });
    expect(
      detectClusterApi(alpha.cluster, alpha.objects, {
        apiVersionHint: 'v1beta1',
      }),
    ).toBe('aso-v1beta1');
    const legacy = legacyCluster({ name: 'l' });
    expect(
      detectClusterApi(legacy.cluster, legacy.objects, {
        apiVersionHint: 'v1alpha1',
      }),
    ).toBe('azure-managed');
    const summary = summarizeCluster(
      'm',
      buildClusterTree(beta.cluster, beta.objects, opts),
      beta.cluster,
      beta.objects,
      { apiVersionHint: 'v1alpha1' },
    );
    expect(summary.api).toBe('aso-v1alpha1');
  });

  it('azure-managed from the infrastructure kind when there is no control plane reference', () => {
    expect(
      detectClusterApi(
        {
          spec: {
            infrastructureRef: { kind: 'AzureManagedCluster', name: 'x' },
          },
        },
        [],
      ),
    ).toBe('azure-managed');
    expect(detectClusterApi({}, [])).toBe('aso-v1beta1');
  });
});

describe('describePools', () => {
  it('says ready when all are, and a single state as a share of all', () => {
    expect(describePools({ total: 2, ready: 2, replicas: 4 })).toBe(
      '2/2 pools ready',
    );
    expect(describePools({ total: 0, ready: 0, replicas: 0 })).toBe(
      '0/0 pools ready',
    );
    expect(describePools({ total: 1, ready: 0, paused: 1, replicas: 1 })).toBe(
      '1/1 pools paused',
    );
    expect(
      describePools({ total: 2, ready: 0, updating: 2, replicas: 2 }, ''),
    ).toBe('2/2 updating');
    expect(describePools({ total: 2, ready: 0, replicas: 2 })).toBe(
      '0/2 pools ready',
    );
  });

  it('names each state beside the ready share when they mix', () => {
    expect(
      describePools({
        total: 4,
        ready: 1,
        updating: 1,
        paused: 1,
        replicas: 4,
      }),
    ).toBe('1/4 pools ready, 1 updating, 1 paused, 1 not ready');
    expect(
      describePools({ total: 2, ready: 0, paused: 1, replicas: 2 }, ''),
    ).toBe('0/2 ready, 1 paused, 1 not ready');
  });
});
