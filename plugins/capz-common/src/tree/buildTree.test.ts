import { buildClusterTree } from './buildTree';
import { treeToLines } from './text';
import {
  asoManagedCluster,
  failReady,
  find,
  legacyCluster,
  markNotReady,
  NOW,
  setCapiCondition,
  T_READY,
} from './__fixtures__/clusters';
import type { TreeNode } from './types';

const opts = { now: NOW };

function findNode(n: TreeNode, kind: string, name: string): TreeNode {
  if (n.kind === kind && n.name === name) return n;
  for (const c of n.children) {
    try {
      return findNode(c, kind, name);
    } catch {
      // keep looking
    }
  }
  throw new Error(`${kind}/${name} not in tree`);
}

const threePools = () =>
  asoManagedCluster({
    namespace: 'team-search',
    name: 'search-prod',
    pools: [
      { name: 'system', mode: 'System', count: 3 },
      { name: 'user1', mode: 'User', count: 2, autoscale: { min: 1, max: 5 } },
      { name: 'user2', mode: 'User', count: 2, vmSize: 'Standard_D4s_v5' },
    ],
  });

describe('buildClusterTree: a healthy ASO-managed cluster with three pools', () => {
  it('has the clusterctl shape with the ASO objects under their CAPZ objects', () => {
    const { cluster, objects } = threePools();
    expect(treeToLines(buildClusterTree(cluster, objects, opts))).toEqual([
      'Cluster/search-prod healthy Available',
      '  AzureASOManagedCluster/search-prod healthy',
      '    ResourceGroup/search-prod healthy Succeeded',
      '  AzureASOManagedControlPlane/search-prod healthy',
      '    ManagedCluster/search-prod healthy Succeeded',
      '  Workers/Workers healthy',
      '    MachinePool/search-prod-system healthy Available',
      '      AzureASOManagedMachinePool/search-prod-system healthy',
      '        ManagedClustersAgentPool/search-prod-system healthy Succeeded',
      '    MachinePool/search-prod-user1 healthy Available',
      '      AzureASOManagedMachinePool/search-prod-user1 healthy',
      '        ManagedClustersAgentPool/search-prod-user1 healthy Succeeded',
      '    MachinePool/search-prod-user2 healthy Available',
      '      AzureASOManagedMachinePool/search-prod-user2 healthy',
      '        ManagedClustersAgentPool/search-prod-user2 healthy Succeeded',
    ]);
  });

  it('uses uids as ids, and synthetic ids for virtual nodes', () => {
    const { cluster, objects } = threePools();
    const tree = buildClusterTree(cluster, objects, opts);
    expect(tree.id).toBe(cluster.metadata.uid);
    expect(tree.uid).toBe(cluster.metadata.uid);
    const mc = findNode(tree, 'ManagedCluster', 'search-prod');
    expect(mc.id).toBe(
      find(objects, 'ManagedCluster', 'search-prod').metadata.uid,
    );
    const workers = findNode(tree, 'Workers', 'Workers');
    expect(workers.id).toBe(`workers:${cluster.metadata.uid}`);
    expect(workers.uid).toBeUndefined();
    expect(workers.facts).toEqual({ machinePools: 3 });
  });

  it('without uids, ids are stable and unique', () => {
    const strip = () => {
      const f = threePools();
      for (const o of f.objects) delete o.metadata.uid;
      return f;
    };
    const a = strip();
    const b = strip();
    const ids = (n: TreeNode): string[] => [n.id, ...n.children.flatMap(ids)];
    const idsA = ids(buildClusterTree(a.cluster, a.objects, opts));
    expect(idsA).toEqual(ids(buildClusterTree(b.cluster, b.objects, opts)));
    expect(new Set(idsA).size).toBe(idsA.length);
    expect(idsA[0]).toBe('obj:Cluster:team-search/search-prod');
  });

  it('carries conditions, apiVersion, namespace and the facts a person wants', () => {
    const { cluster, objects } = threePools();
    find(objects, 'ManagedCluster', 'search-prod').metadata.annotations![
      'serviceoperator.azure.com/reconcile-policy'
    ] = 'manage';
    const tree = buildClusterTree(cluster, objects, opts);
    expect(tree.conditions.find(c => c.type === 'Available')).toEqual({
      type: 'Available',
      status: 'True',
      reason: 'Available',
      lastTransitionTime: T_READY,
      observedGeneration: 1,
    });
    expect(tree.facts).toMatchObject({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      phase: 'Provisioned',
      workersDesired: 7,
      workersReady: 7,
    });
    const mc = findNode(tree, 'ManagedCluster', 'search-prod');
    expect(mc.apiVersion).toBe('containerservice.azure.com/v1api20240901');
    expect(mc.namespace).toBe('team-search');
    expect(mc.facts).toEqual({
      apiVersion: 'containerservice.azure.com/v1api20240901',
      azureName: 'search-prod',
      kubernetesVersion: '1.33.2',
      location: 'westeurope',
      fqdn: 'search-prod-abc123.hcp.westeurope.azmk8s.io',
      nodeResourceGroup: 'MC_search-prod_search-prod_westeurope',
      provisioningState: 'Succeeded',
      powerState: 'Running',
      disableLocalAccounts: false,
      agentPools: 3,
      reconcilePolicy: 'manage',
      controlledBy: 'AzureASOManagedControlPlane/search-prod',
    });
    expect(
      findNode(tree, 'ManagedClustersAgentPool', 'search-prod-user1').facts,
    ).toMatchObject({
      azureName: 'user1',
      mode: 'User',
      replicas: 2,
      autoscaling: true,
      autoscalingMin: 1,
      autoscalingMax: 5,
      kubernetesVersion: '1.33.2',
      provisioningState: 'Succeeded',
    });
    expect(
      findNode(tree, 'ManagedClustersAgentPool', 'search-prod-user2').facts,
    ).toMatchObject({
      autoscaling: false,
      vmSize: 'Standard_D4s_v5',
      // As AKS reports it (status.osType).
      osType: 'Linux',
    });
    expect(
      findNode(tree, 'ManagedClustersAgentPool', 'search-prod-user2').facts
        .autoscalingMin,
    ).toBeUndefined();
    expect(
      findNode(tree, 'MachinePool', 'search-prod-user1').facts,
    ).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      kubernetesVersion: 'v1.33.2',
      phase: 'Running',
      replicasManagedBy: 'aks',
    });
    expect(
      findNode(tree, 'AzureASOManagedControlPlane', 'search-prod').facts,
    ).toMatchObject({
      kubernetesVersion: 'v1.33.2',
      ready: true,
      initialized: true,
      controlPlaneEndpoint: 'search-prod-abc123.hcp.westeurope.azmk8s.io',
    });
    expect(
      findNode(tree, 'AzureASOManagedMachinePool', 'search-prod-system').facts,
    ).toMatchObject({ replicas: 3, providerIDs: 3 });
    expect(findNode(tree, 'ResourceGroup', 'search-prod').facts).toMatchObject({
      location: 'westeurope',
      provisioningState: 'Succeeded',
    });
  });

  it('leaves out other clusters and other namespaces', () => {
    const a = threePools();
    const other = asoManagedCluster({
      namespace: 'team-search',
      name: 'search-dev',
    });
    const elsewhere = asoManagedCluster({
      namespace: 'team-b',
      name: 'search-prod',
      pools: [{ name: 'x' }],
    });
    const tree = buildClusterTree(
      a.cluster,
      [...other.objects, ...a.objects, ...elsewhere.objects],
      opts,
    );
    expect(treeToLines(tree)).toEqual(
      treeToLines(buildClusterTree(a.cluster, a.objects, opts)),
    );
  });

  it('does not modify its inputs', () => {
    const { cluster, objects } = threePools();
    const before = JSON.stringify({ cluster, objects });
    buildClusterTree(cluster, objects, opts);
    expect(JSON.stringify({ cluster, objects })).toBe(before);
  });
});

describe('buildClusterTree: a failing ManagedCluster', () => {
  const failing = () => {
    const f = threePools();
    failReady(
      find(f.objects, 'ManagedCluster', 'search-prod'),
      'ReconciliationBlocked',
      'Warning',
      "Managed cluster 'search-prod' is Updating; the operation is retried when it is done.",
      '2026-11-21T11:20:00Z',
    );
    markNotReady(find(f.objects, 'AzureASOManagedControlPlane', 'search-prod'));
    setCapiCondition(
      f.cluster,
      'ControlPlaneAvailable',
      'False',
      'NotAvailable',
      'AzureASOManagedControlPlane is not initialized',
    );
    setCapiCondition(
      f.cluster,
      'Available',
      'False',
      'NotAvailable',
      '* ControlPlaneAvailable: AzureASOManagedControlPlane is not initialized',
    );
    return f;
  };

  it('its reason reaches the cluster rollup, prefixed with the object', () => {
    const { cluster, objects } = failing();
    const tree = buildClusterTree(cluster, objects, opts);
    expect(treeToLines(tree)).toEqual([
      'Cluster/search-prod degraded ManagedCluster search-prod: ReconciliationBlocked',
      '  AzureASOManagedCluster/search-prod healthy',
      '    ResourceGroup/search-prod healthy Succeeded',
      '  AzureASOManagedControlPlane/search-prod degraded ReconciliationBlocked',
      '    ManagedCluster/search-prod degraded ReconciliationBlocked',
      '  Workers/Workers healthy',
      '    MachinePool/search-prod-system healthy Available',
      '      AzureASOManagedMachinePool/search-prod-system healthy',
      '        ManagedClustersAgentPool/search-prod-system healthy Succeeded',
      '    MachinePool/search-prod-user1 healthy Available',
      '      AzureASOManagedMachinePool/search-prod-user1 healthy',
      '        ManagedClustersAgentPool/search-prod-user1 healthy Succeeded',
      '    MachinePool/search-prod-user2 healthy Available',
      '      AzureASOManagedMachinePool/search-prod-user2 healthy',
      '        ManagedClustersAgentPool/search-prod-user2 healthy Succeeded',
    ]);
    const mcUid = find(objects, 'ManagedCluster', 'search-prod').metadata.uid;
    expect(tree).toMatchObject({
      health: 'degraded',
      reason: 'ManagedCluster search-prod: ReconciliationBlocked',
      message:
        "ManagedCluster search-prod: Managed cluster 'search-prod' is Updating; the operation is retried when it is done.",
      severity: 'Warning',
      since: '2026-11-21T11:20:00Z',
      source: { id: mcUid, kind: 'ManagedCluster', name: 'search-prod' },
    });
    expect(
      findNode(tree, 'AzureASOManagedControlPlane', 'search-prod').source,
    ).toEqual({ id: mcUid, kind: 'ManagedCluster', name: 'search-prod' });
  });

  it('an Error on the ManagedCluster makes the cluster failed', () => {
    const { cluster, objects } = failing();
    failReady(
      find(objects, 'ManagedCluster', 'search-prod'),
      'InvalidParameter',
      'Error',
      'kubernetesVersion 1.99.0 is not supported',
    );
    expect(buildClusterTree(cluster, objects, opts)).toMatchObject({
      health: 'failed',
      reason: 'ManagedCluster search-prod: InvalidParameter',
      severity: 'Error',
    });
  });

  it("the cluster's own problem is kept when nothing below is worse", () => {
    const { cluster, objects } = threePools();
    setCapiCondition(
      cluster,
      'RemoteConnectionProbe',
      'False',
      'ProbeFailed',
      'Remote connection not established yet',
    );
    setCapiCondition(
      cluster,
      'Available',
      'False',
      'NotAvailable',
      '* RemoteConnectionProbe: Remote connection not established yet',
    );
    expect(buildClusterTree(cluster, objects, opts)).toMatchObject({
      health: 'degraded',
      reason: 'NotAvailable',
      message: '* RemoteConnectionProbe: Remote connection not established yet',
    });
  });
});

describe('buildClusterTree: the CAPI gap (Available ignores MachinePools)', () => {
  const gap = (stillAvailable: boolean) => {
    const f = asoManagedCluster({
      name: 'gap',
      pools: [
        { name: 'system', mode: 'System', count: 2 },
        { name: 'batch', count: 1, autoscale: { min: 1, max: 4 } },
      ],
    });
    failReady(
      find(f.objects, 'ManagedClustersAgentPool', 'gap-batch'),
      'ReconciliationFailedPermanently',
      'Error',
      'quota exceeded',
      '2026-11-21T10:45:00Z',
    );
    markNotReady(find(f.objects, 'AzureASOManagedMachinePool', 'gap-batch'));
    if (!stillAvailable) {
      const mp = find(f.objects, 'MachinePool', 'gap-batch');
      setCapiCondition(
        mp,
        'InfrastructureReady',
        'False',
        'NotReady',
        'AzureASOManagedMachinePool is not ready',
      );
      setCapiCondition(
        mp,
        'Available',
        'False',
        'NotAvailable',
        '0 of 1 replicas are available',
      );
      mp.status.phase = 'Provisioning';
    }
    return f;
  };

  it('Cluster Available is True, yet the rollup is failed because of the agent pool', () => {
    const { cluster, objects } = gap(false);
    const tree = buildClusterTree(cluster, objects, opts);
    expect(
      cluster.status.conditions.find((c: any) => c.type === 'Available').status,
    ).toBe('True');
    expect(treeToLines(tree)).toEqual([
      'Cluster/gap failed ManagedClustersAgentPool gap-batch: ReconciliationFailedPermanently',
      '  AzureASOManagedCluster/gap healthy',
      '    ResourceGroup/gap healthy Succeeded',
      '  AzureASOManagedControlPlane/gap healthy',
      '    ManagedCluster/gap healthy Succeeded',
      '  Workers/Workers failed ManagedClustersAgentPool gap-batch: ReconciliationFailedPermanently',
      '    MachinePool/gap-batch progressing NotAvailable',
      '      AzureASOManagedMachinePool/gap-batch failed ReconciliationFailedPermanently',
      '        ManagedClustersAgentPool/gap-batch failed ReconciliationFailedPermanently',
      '    MachinePool/gap-system healthy Available',
      '      AzureASOManagedMachinePool/gap-system healthy',
      '        ManagedClustersAgentPool/gap-system healthy Succeeded',
    ]);
    expect(tree).toMatchObject({
      message: 'ManagedClustersAgentPool gap-batch: quota exceeded',
      severity: 'Error',
      since: '2026-11-21T10:45:00Z',
    });
  });

  it('even while the MachinePool itself still looks fine', () => {
    const { cluster, objects } = gap(true);
    const tree = buildClusterTree(cluster, objects, opts);
    expect(findNode(tree, 'MachinePool', 'gap-batch').health).toBe('healthy');
    expect(tree.health).toBe('failed');
    expect(tree.reason).toBe(
      'ManagedClustersAgentPool gap-batch: ReconciliationFailedPermanently',
    );
  });

  it('a Warning on a pool makes the cluster degraded', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'warn',
      pools: [{ name: 'system', mode: 'System' }],
    });
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'warn-system'),
      'ReconciliationBlocked',
      'Warning',
      'busy',
    );
    expect(buildClusterTree(cluster, objects, opts)).toMatchObject({
      health: 'degraded',
      reason: 'ManagedClustersAgentPool warn-system: ReconciliationBlocked',
    });
  });
});

describe('buildClusterTree: a legacy AzureManaged* cluster', () => {
  it('shows the ASO objects each legacy object controls, with their v1beta1 conditions', () => {
    const { cluster, objects } = legacyCluster({
      name: 'old-prod',
      pools: [
        { name: 'pool0', mode: 'System', count: 3 },
        { name: 'pool1', count: 2 },
      ],
    });
    // Another legacy cluster in the same namespace: its ASO objects must not show up here.
    const other = legacyCluster({ name: 'old-dev' });
    const tree = buildClusterTree(
      cluster,
      [...objects, ...other.objects],
      opts,
    );
    expect(treeToLines(tree)).toEqual([
      'Cluster/old-prod healthy Available',
      '  AzureManagedCluster/old-prod healthy',
      '  AzureManagedControlPlane/old-prod healthy',
      '    ResourceGroup/rg-old-prod healthy Succeeded',
      '    ManagedCluster/old-prod healthy Succeeded',
      '  Workers/Workers healthy',
      '    MachinePool/old-prod-pool0 healthy Available',
      '      AzureManagedMachinePool/old-prod-pool0 healthy',
      '        ManagedClustersAgentPool/old-prod-pool0 healthy Succeeded',
      '    MachinePool/old-prod-pool1 healthy Available',
      '      AzureManagedMachinePool/old-prod-pool1 healthy',
      '        ManagedClustersAgentPool/old-prod-pool1 healthy Succeeded',
    ]);
    const amcp = findNode(tree, 'AzureManagedControlPlane', 'old-prod');
    expect(amcp.conditions.map(c => `${c.type}=${c.status}`)).toEqual([
      'ManagedClusterRunning=True',
      'Ready=True',
      'ResourceGroupReady=True',
    ]);
    expect(amcp.facts).toMatchObject({
      kubernetesVersion: 'v1.32.5',
      location: 'westeurope',
      resourceGroupName: 'RG_old-prod',
    });
    expect(findNode(tree, 'ResourceGroup', 'rg-old-prod').facts).toMatchObject({
      reconcilePolicy: 'manage',
      azureName: 'RG_old-prod',
    });
    expect(
      findNode(tree, 'AzureManagedMachinePool', 'old-prod-pool0').facts,
    ).toMatchObject({ azureName: 'pool0', mode: 'System', replicas: 3 });
  });

  it("shows the control plane's VNet and subnet in CAPZ's service order, health from their Ready condition", () => {
    const { cluster, objects } = legacyCluster({
      name: 'old-prod',
      network: true,
    });
    const tree = buildClusterTree(cluster, objects, opts);
    expect(treeToLines(tree).slice(0, 7)).toEqual([
      'Cluster/old-prod healthy Available',
      '  AzureManagedCluster/old-prod healthy',
      '  AzureManagedControlPlane/old-prod healthy',
      '    ResourceGroup/rg-old-prod healthy Succeeded',
      '    VirtualNetwork/old-prod healthy Succeeded',
      '    VirtualNetworksSubnet/old-prod-old-prod healthy Succeeded',
      '    ManagedCluster/old-prod healthy Succeeded',
    ]);
    expect(findNode(tree, 'VirtualNetwork', 'old-prod').facts).toMatchObject({
      azureName: 'old-prod',
      location: 'westeurope',
      addressSpace: '10.0.0.0/8',
      reconcilePolicy: 'manage',
      controlledBy: 'AzureManagedControlPlane/old-prod',
    });
    expect(
      findNode(tree, 'VirtualNetworksSubnet', 'old-prod-old-prod').facts,
    ).toMatchObject({ azureName: 'old-prod', addressPrefix: '10.240.0.0/16' });
    failReady(
      find(objects, 'VirtualNetworksSubnet', 'old-prod-old-prod'),
      'InUseSubnetCannotBeUpdated',
      'Error',
      'subnet in use',
      '2026-11-21T11:01:00Z',
    );
    expect(buildClusterTree(cluster, objects, opts)).toMatchObject({
      health: 'failed',
      reason:
        'VirtualNetworksSubnet old-prod-old-prod: InUseSubnetCannotBeUpdated',
    });
  });

  it('a subnet whose VNet is missing is degraded, not waiting', () => {
    const { cluster, objects } = legacyCluster({
      name: 'old-prod',
      network: true,
    });
    failReady(
      find(objects, 'VirtualNetworksSubnet', 'old-prod-old-prod'),
      'WaitingForOwner',
      'Warning',
      'Owner "old-prod" cannot be found',
    );
    const without = objects.filter(o => o.kind !== 'VirtualNetwork');
    expect(
      findNode(
        buildClusterTree(cluster, without, opts),
        'VirtualNetworksSubnet',
        'old-prod-old-prod',
      ).health,
    ).toBe('degraded');
    expect(
      findNode(
        buildClusterTree(cluster, objects, opts),
        'VirtualNetworksSubnet',
        'old-prod-old-prod',
      ).health,
    ).toBe('progressing');
  });

  it('a failing legacy pool condition reaches the rollup', () => {
    const { cluster, objects } = legacyCluster({ name: 'old-prod' });
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'old-prod-pool0'),
      'OperationNotAllowed',
      'Error',
      'quota',
      '2026-11-21T11:01:00Z',
    );
    failReady(
      find(objects, 'AzureManagedMachinePool', 'old-prod-pool0'),
      'OperationNotAllowed',
      'Error',
      'quota',
      '2026-11-21T11:02:00Z',
    );
    const tree = buildClusterTree(cluster, objects, opts);
    expect(
      findNode(tree, 'AzureManagedMachinePool', 'old-prod-pool0'),
    ).toMatchObject({
      health: 'failed',
      reason: 'OperationNotAllowed',
      severity: 'Error',
    });
    // The deeper object, the agent pool, names the cause.
    expect(tree).toMatchObject({
      health: 'failed',
      reason: 'ManagedClustersAgentPool old-prod-pool0: OperationNotAllowed',
      since: '2026-11-21T11:01:00Z',
    });
  });

  it('matches owners by uid, so a same-named owner elsewhere does not count', () => {
    const { cluster, objects } = legacyCluster({ name: 'old-prod' });
    const rg = find(objects, 'ResourceGroup', 'rg-old-prod');
    rg.metadata.ownerReferences![0].uid = 'someone-else';
    const tree = buildClusterTree(cluster, objects, opts);
    expect(
      findNode(tree, 'AzureManagedControlPlane', 'old-prod').children.map(
        c => c.kind,
      ),
    ).toEqual(['ManagedCluster']);
  });
});

describe('buildClusterTree: paused and deleting', () => {
  it('a paused cluster is paused, with its CAPZ objects; ASO objects show reconcile-policy skip', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'moving',
      pools: [{ name: 'system', mode: 'System' }],
    });
    cluster.spec.paused = true;
    setCapiCondition(
      cluster,
      'Paused',
      'True',
      'Paused',
      '',
      '2026-11-21T08:00:00Z',
    );
    for (const o of objects.filter(x =>
      ['ResourceGroup', 'ManagedCluster', 'ManagedClustersAgentPool'].includes(
        x.kind!,
      ),
    )) {
      o.metadata.annotations!['serviceoperator.azure.com/reconcile-policy'] =
        'skip';
    }
    const tree = buildClusterTree(cluster, objects, opts);
    expect(treeToLines(tree)).toEqual([
      'Cluster/moving paused Paused',
      '  AzureASOManagedCluster/moving paused Paused',
      '    ResourceGroup/moving healthy Succeeded',
      '  AzureASOManagedControlPlane/moving paused Paused',
      '    ManagedCluster/moving healthy Succeeded',
      '  Workers/Workers paused AzureASOManagedMachinePool moving-system: Paused',
      '    MachinePool/moving-system paused Paused',
      '      AzureASOManagedMachinePool/moving-system paused Paused',
      '        ManagedClustersAgentPool/moving-system healthy Succeeded',
    ]);
    expect(tree.since).toBe('2026-11-21T08:00:00Z');
    expect(
      findNode(tree, 'ManagedCluster', 'moving').facts.reconcilePolicy,
    ).toBe('skip');
  });

  it('a failure under a paused cluster still shows', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'moving',
      pools: [{ name: 'system', mode: 'System' }],
    });
    cluster.spec.paused = true;
    failReady(
      find(objects, 'ManagedCluster', 'moving'),
      'AzureResourceNotFound',
      'Warning',
      'not found',
    );
    expect(buildClusterTree(cluster, objects, opts)).toMatchObject({
      health: 'degraded',
      reason: 'ManagedCluster moving: AzureResourceNotFound',
    });
  });

  it('a cluster being deleted stays deleting; a stuck child explains why', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'bye',
      pools: [{ name: 'system', mode: 'System' }],
    });
    for (const o of objects)
      o.metadata.deletionTimestamp = '2026-11-21T11:40:00Z';
    const tree = buildClusterTree(cluster, objects, opts);
    expect(tree).toMatchObject({
      health: 'deleting',
      reason: 'Deleting',
      since: '2026-11-21T11:40:00Z',
    });
    expect(treeToLines(tree).filter(l => !l.includes(' deleting '))).toEqual(
      [],
    );
    failReady(
      find(objects, 'ManagedCluster', 'bye'),
      'SecretNotFound',
      'Warning',
      'credential secret "bye/aso-credential" not found',
    );
    expect(buildClusterTree(cluster, objects, opts)).toMatchObject({
      health: 'deleting',
      reason: 'ManagedCluster bye: SecretNotFound',
      message:
        'ManagedCluster bye: credential secret "bye/aso-credential" not found',
    });
  });

  it('a stuck deletion of one pool makes a healthy cluster degraded', () => {
    const { cluster, objects } = threePools();
    for (const o of objects.filter(
      x => x.metadata.name === 'search-prod-user2',
    ))
      o.metadata.deletionTimestamp = '2026-11-21T11:45:00Z';
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'search-prod-user2'),
      'SecretNotFound',
      'Warning',
      'credential secret not found',
    );
    const tree = buildClusterTree(cluster, objects, opts);
    expect(
      findNode(tree, 'ManagedClustersAgentPool', 'search-prod-user2'),
    ).toMatchObject({ health: 'deleting', reason: 'SecretNotFound' });
    expect(tree).toMatchObject({
      health: 'degraded',
      reason: 'ManagedClustersAgentPool search-prod-user2: SecretNotFound',
    });
  });

  it('one MachinePool being deleted makes a healthy cluster progressing, not deleting', () => {
    const { cluster, objects } = threePools();
    for (const o of objects.filter(
      x => x.metadata.name === 'search-prod-user2',
    ))
      o.metadata.deletionTimestamp = '2026-11-21T11:45:00Z';
    const tree = buildClusterTree(cluster, objects, opts);
    expect(findNode(tree, 'MachinePool', 'search-prod-user2').health).toBe(
      'deleting',
    );
    // The deepest object decides on a tie: here the agent pool, deleted with its MachinePool.
    expect(tree).toMatchObject({
      health: 'progressing',
      reason: 'ManagedClustersAgentPool search-prod-user2: Deleting',
    });
    expect(findNode(tree, 'Workers', 'Workers').health).toBe('progressing');
  });
});

describe('buildClusterTree: missing and odd objects', () => {
  it('missing referenced objects are unknown NotFound nodes, and the tree never throws', () => {
    const { cluster, objects } = threePools();
    const gone = new Set([
      'AzureASOManagedControlPlane/search-prod',
      'ManagedClustersAgentPool/search-prod-user1',
      'AzureASOManagedMachinePool/search-prod-user2',
    ]);
    const tree = buildClusterTree(
      cluster,
      objects.filter(o => !gone.has(`${o.kind}/${o.metadata.name}`)),
      opts,
    );
    expect(treeToLines(tree)).toEqual([
      'Cluster/search-prod unknown AzureASOManagedControlPlane search-prod: NotFound',
      '  AzureASOManagedCluster/search-prod healthy',
      '    ResourceGroup/search-prod healthy Succeeded',
      '  AzureASOManagedControlPlane/search-prod unknown NotFound',
      '  Workers/Workers unknown ManagedClustersAgentPool search-prod-user1: NotFound',
      '    MachinePool/search-prod-system healthy Available',
      '      AzureASOManagedMachinePool/search-prod-system healthy',
      '        ManagedClustersAgentPool/search-prod-system healthy Succeeded',
      '    MachinePool/search-prod-user1 healthy Available',
      '      AzureASOManagedMachinePool/search-prod-user1 unknown NotFound',
      '        ManagedClustersAgentPool/search-prod-user1 unknown NotFound',
      '    MachinePool/search-prod-user2 healthy Available',
      '      AzureASOManagedMachinePool/search-prod-user2 unknown NotFound',
    ]);
    const cp = findNode(tree, 'AzureASOManagedControlPlane', 'search-prod');
    expect(cp).toEqual({
      id: `missing:${cluster.metadata.uid}:AzureASOManagedControlPlane:search-prod`,
      kind: 'AzureASOManagedControlPlane',
      name: 'search-prod',
      namespace: 'team-search',
      health: 'unknown',
      reason: 'NotFound',
      message:
        'AzureASOManagedControlPlane team-search/search-prod, referenced by Cluster search-prod, was not found',
      conditions: [],
      facts: {},
      children: [],
    });
    const amp = find(
      objects,
      'AzureASOManagedMachinePool',
      'search-prod-user1',
    );
    expect(
      findNode(tree, 'ManagedClustersAgentPool', 'search-prod-user1').id,
    ).toBe(
      `missing:${amp.metadata.uid}:ManagedClustersAgentPool:search-prod-user1`,
    );
    expect(
      findNode(tree, 'AzureASOManagedMachinePool', 'search-prod-user1').source
        ?.id,
    ).toBe(
      `missing:${amp.metadata.uid}:ManagedClustersAgentPool:search-prod-user1`,
    );
  });

  it('kinds the plugin does not watch are NotWatched', () => {
    const { cluster, objects } = threePools();
    cluster.spec.infrastructureRef = {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'AzureCluster',
      name: 'search-prod',
    };
    const infra = buildClusterTree(cluster, objects, opts).children[0];
    expect(infra).toMatchObject({
      kind: 'AzureCluster',
      health: 'unknown',
      reason: 'NotWatched',
    });
  });

  it('an ASO object whose owner is missing is degraded, not progressing', () => {
    const { cluster, objects } = threePools();
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'search-prod-system'),
      'WaitingForOwner',
      'Warning',
      'Owner cannot be found',
    );
    const withOwner = buildClusterTree(cluster, objects, opts);
    expect(
      findNode(withOwner, 'ManagedClustersAgentPool', 'search-prod-system')
        .health,
    ).toBe('progressing');
    const without = buildClusterTree(
      cluster,
      objects.filter(o => o.kind !== 'ManagedCluster'),
      opts,
    );
    expect(
      findNode(without, 'ManagedClustersAgentPool', 'search-prod-system')
        .health,
    ).toBe('degraded');
  });

  it('copes with empty and malformed input', () => {
    expect(buildClusterTree({}, [], opts)).toMatchObject({
      kind: '',
      name: '',
      health: 'unknown',
      children: [],
    });
    const { cluster } = threePools();
    const junk = [
      {},
      { kind: 'MachinePool' },
      {
        kind: 'MachinePool',
        metadata: { name: 'x' },
        spec: { clusterName: 'search-prod', template: 'no' },
      },
    ] as any[];
    const tree = buildClusterTree(cluster, junk, opts);
    expect(treeToLines(tree)).toEqual([
      'Cluster/search-prod unknown AzureASOManagedCluster search-prod: NotFound',
      '  AzureASOManagedCluster/search-prod unknown NotFound',
      '  AzureASOManagedControlPlane/search-prod unknown NotFound',
      '  Workers/Workers unknown MachinePool x: NotReconciled',
      '    MachinePool/x unknown NotReconciled',
    ]);
  });

  it('accepts v1beta1 references with apiVersion', () => {
    const { cluster, objects } = threePools();
    cluster.spec.controlPlaneRef = {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      name: 'search-prod',
    };
    expect(buildClusterTree(cluster, objects, opts).children[1]).toMatchObject({
      kind: 'AzureASOManagedControlPlane',
      health: 'healthy',
    });
    cluster.spec.controlPlaneRef = {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      name: 'search-prod',
    };
    expect(buildClusterTree(cluster, objects, opts).children[1]).toMatchObject({
      health: 'unknown',
      reason: 'NotFound',
    });
  });
});

describe('buildClusterTree: stale observedGeneration', () => {
  it('an ASO object whose spec changed but is not processed yet makes the cluster progressing', () => {
    const { cluster, objects } = threePools();
    const mc = find(objects, 'ManagedCluster', 'search-prod');
    mc.metadata.generation = 2; // e.g. the upgrade to 1.34 was just written
    const tree = buildClusterTree(cluster, objects, opts);
    expect(findNode(tree, 'ManagedCluster', 'search-prod')).toMatchObject({
      health: 'progressing',
      reason: 'GenerationNotObserved',
    });
    // CAPZ counts it not ready (docs/capz-aso-facts.md#aso-managed-status), and the rollup names it.
    expect(
      findNode(tree, 'AzureASOManagedControlPlane', 'search-prod'),
    ).toMatchObject({ health: 'progressing', reason: 'GenerationNotObserved' });
    expect(tree).toMatchObject({
      health: 'progressing',
      reason: 'ManagedCluster search-prod: GenerationNotObserved',
      message:
        'ManagedCluster search-prod: ASO has not processed generation 2 yet (Ready is for generation 1)',
    });
  });
});
