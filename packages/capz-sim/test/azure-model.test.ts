import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { AzureError } from '../src/azure/errors.ts';
import { AzureWorld, azureResourceState } from '../src/azure/model.ts';

const SUB = 'sub-1';
const pools = [
  { name: 'system', mode: 'System' as const, count: 2 },
  { name: 'user', mode: 'User' as const, count: 1 },
];

async function settled(w: AzureWorld, check: () => boolean) {
  while (!check()) await once(w, 'change');
}

test('a managed cluster goes Creating -> Succeeded, and AKS refuses changes while it is busy', async () => {
  const w = new AzureWorld({ operationMs: 5, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  const { created, cluster } = w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: pools,
  });
  assert.equal(created, true);
  assert.equal(cluster.provisioningState, 'Creating');
  assert.throws(
    () => w.putAgentPool(SUB, 'rg', 'aks', 'extra', { count: 1 }),
    (e: AzureError) => e.code === 'OperationNotAllowed' && e.status === 409,
  );
  await settled(w, () => cluster.provisioningState === 'Succeeded');
  assert.equal(cluster.nodeResourceGroup, 'MC_rg_aks_westeurope');
  assert.match(cluster.fqdn, /^aks-[0-9a-f]{8}\.hcp\.westeurope\.azmk8s\.io$/);
  assert.deepEqual(Object.keys(cluster.agentPools), ['system', 'user']);
  assert.deepEqual(w.counters.created, {
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
  });
  w.close();
});

test('AKS errors have ARM codes: missing group, missing pools on create, last system pool', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  assert.throws(
    () =>
      w.putManagedCluster(SUB, 'nope', 'aks', {
        location: 'x',
        agentPoolProfiles: pools,
      }),
    (e: AzureError) => e.code === 'ResourceGroupNotFound',
  );
  assert.throws(
    () => w.getResourceGroup('other', 'rg'),
    (e: AzureError) => e.code === 'SubscriptionNotFound',
  );
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  assert.throws(
    () => w.putManagedCluster(SUB, 'rg', 'aks', { location: 'westeurope' }),
    (e: AzureError) => e.code === 'InvalidParameter' && e.status === 400,
  );
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: [pools[0]],
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  assert.throws(
    () => w.deleteAgentPool(SUB, 'rg', 'aks', 'system'),
    /last system agent pool/,
  );
  w.close();
});

test('deleting a resource group deletes what is in it, and every deletion is counted', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: pools,
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  assert.equal(
    w.deleteResourceGroup(SUB, 'RG'),
    true,
    'names are case-insensitive, as in ARM',
  );
  assert.deepEqual(w.counters.deleted, {
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
  });
  assert.equal(w.getResourceGroup(SUB, 'rg'), undefined);
  w.close();
});

test('admin credentials are refused when local accounts are disabled; user credentials carry kubelogin', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'entra', {
    location: 'westeurope',
    disableLocalAccounts: true,
    aadProfile: { managed: true },
    agentPoolProfiles: pools,
  });
  assert.throws(
    () => w.listClusterCredentials(SUB, 'rg', 'entra', 'admin'),
    /Getting static credential is not allowed/,
  );
  assert.match(
    w.listClusterCredentials(SUB, 'rg', 'entra', 'user'),
    /command: kubelogin/,
  );
  w.close();
});

test('a snapshot restores the world with in-flight operations completed and counters kept', async () => {
  const w = new AzureWorld({ operationMs: 10_000, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: pools,
  });
  const snapshot = JSON.parse(JSON.stringify(w.snapshot()));
  w.close();
  const r = AzureWorld.restore(snapshot);
  assert.equal(
    r.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState,
    'Succeeded',
  );
  assert.deepEqual(r.counters.created, {
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
  });
  r.close();
});

test('a forced failure is returned once, for the named resource only', () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.failNext(
    `/subscriptions/${SUB}/resourceGroups/rg`,
    new AzureError(429, 'TooManyRequests', 'throttled'),
  );
  assert.throws(
    () => w.putResourceGroup(SUB, 'rg', { location: 'westeurope' }),
    /throttled/,
  );
  assert.equal(
    w.putResourceGroup(SUB, 'rg', { location: 'westeurope' }).created,
    true,
  );
  w.close();
});

test('a resource group PUT replaces its tags: omitted means none (ARM PUT, not PATCH)', () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', {
    location: 'westeurope',
    tags: { 'cost-center': 'data', owner: 'team-data' },
  });
  w.putResourceGroup(SUB, 'rg', {
    location: 'westeurope',
    tags: { owner: 'team-data' },
  });
  assert.deepEqual(w.getResourceGroup(SUB, 'rg')!.tags, { owner: 'team-data' });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  assert.deepEqual(w.getResourceGroup(SUB, 'rg')!.tags, {});
  w.close();
});

test('a managed cluster PUT replaces the cluster tags and, for the pools it names, labels, taints, tags and autoscaling', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  const full = {
    name: 'user',
    mode: 'User' as const,
    count: 3,
    vmSize: 'Standard_D4s_v3',
    osSKU: 'AzureLinux',
    availabilityZones: ['1', '2'],
    maxPods: 50,
    osDiskSizeGB: 256,
    enableAutoScaling: true,
    minCount: 2,
    maxCount: 6,
    nodeLabels: { workload: 'etl' },
    nodeTaints: ['workload=etl:NoSchedule'],
    tags: { team: 'etl' },
  };
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    tags: { env: 'prod', team: 'data' },
    agentPoolProfiles: [pools[0], full],
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  // The same cluster PUT without tags, and the pool with only name, mode and count (as a careless adoption would).
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: [{ name: 'user', mode: 'User', count: 3 }],
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  const mc = w.getManagedCluster(SUB, 'rg', 'aks')!;
  assert.deepEqual(mc.tags, {});
  const p = mc.agentPools.user;
  assert.deepEqual(
    [p.nodeLabels, p.nodeTaints, p.tags],
    [{}, [], {}],
    'replaced: omitted means none',
  );
  assert.deepEqual(
    [p.enableAutoScaling, p.minCount, p.maxCount],
    [false, undefined, undefined],
    'autoscaling omitted is off',
  );
  // What AKS does not change in place keeps its value when omitted.
  assert.deepEqual(
    [
      p.vmSize,
      p.osType,
      p.osSKU,
      p.availabilityZones,
      p.maxPods,
      p.osDiskSizeGB,
      p.count,
    ],
    ['Standard_D4s_v3', 'Linux', 'AzureLinux', ['1', '2'], 50, 256, 3],
  );
  // A pool the PUT does not name is left alone.
  assert.equal(mc.agentPools.system.count, 2);
  w.close();
});

test("an agent pool PUT replaces labels, taints and tags; defaults on create are AKS's; autoscaling needs its bounds", async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: [pools[0]],
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  const created = w.putAgentPool(SUB, 'rg', 'aks', 'batch', {
    mode: 'User',
    count: 2,
    nodeLabels: { a: '1', b: '2' },
    nodeTaints: ['x=y:NoExecute'],
    tags: { t: '1' },
  }).pool;
  assert.deepEqual(
    [
      created.osSKU,
      created.osDiskSizeGB,
      created.maxPods,
      created.availabilityZones,
    ],
    ['Ubuntu', 128, 30, []],
  );
  await settled(
    w,
    () =>
      w.getAgentPool(SUB, 'rg', 'aks', 'batch')!.provisioningState ===
      'Succeeded',
  );
  w.putAgentPool(SUB, 'rg', 'aks', 'batch', {
    mode: 'User',
    count: 2,
    nodeLabels: { a: '1' },
  });
  const p = w.getAgentPool(SUB, 'rg', 'aks', 'batch')!;
  assert.deepEqual([p.nodeLabels, p.nodeTaints, p.tags], [{ a: '1' }, [], {}]);
  await settled(
    w,
    () =>
      w.getAgentPool(SUB, 'rg', 'aks', 'batch')!.provisioningState ===
      'Succeeded',
  );
  assert.throws(
    () =>
      w.putAgentPool(SUB, 'rg', 'aks', 'batch', {
        mode: 'User',
        enableAutoScaling: true,
      }),
    (e: AzureError) => e.status === 400 && e.code === 'InvalidParameter',
  );
  w.close();
});

test('azureResourceState: every field of a group and its cluster, without provisioning states, diffable', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', {
    location: 'westeurope',
    tags: { 'cost-center': 'data' },
  });
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    tags: { env: 'prod' },
    agentPoolProfiles: [
      { ...pools[0], nodeTaints: ['CriticalAddonsOnly=true:NoSchedule'] },
    ],
  });
  const busy = azureResourceState(JSON.parse(JSON.stringify(w.snapshot())), {
    resourceGroup: 'RG',
    name: 'aks',
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  const before = azureResourceState(JSON.parse(JSON.stringify(w.snapshot())), {
    subscriptionId: SUB,
    resourceGroup: 'rg',
  });
  assert.deepEqual(busy, before, 'provisioning states are left out');
  assert.deepEqual(before.resourceGroup, {
    location: 'westeurope',
    name: 'rg',
    subscriptionId: SUB,
    tags: { 'cost-center': 'data' },
  });
  assert.deepEqual(
    before.managedClusters.map(c => c.tags),
    [{ env: 'prod' }],
  );
  assert.deepEqual(before.managedClusters[0].agentPools.system.nodeTaints, [
    'CriticalAddonsOnly=true:NoSchedule',
  ]);
  assert.equal(
    JSON.stringify(before),
    JSON.stringify(azureResourceState(w.snapshot(), { resourceGroup: 'rg' })),
    'stable key order',
  );
  // A PUT that drops a taint shows in the diff.
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    tags: { env: 'prod' },
    agentPoolProfiles: [pools[0]],
  });
  await settled(
    w,
    () =>
      w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded',
  );
  assert.notDeepEqual(
    azureResourceState(w.snapshot(), { resourceGroup: 'rg' }),
    before,
  );
  w.close();
});

test('a state file written before pools carried labels, taints and OS fields restores with AKS defaults', () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', {
    location: 'westeurope',
    agentPoolProfiles: [pools[0]],
  });
  const old = JSON.parse(JSON.stringify(w.snapshot()));
  w.close();
  for (const f of [
    'osSKU',
    'availabilityZones',
    'maxPods',
    'osDiskSizeGB',
    'nodeLabels',
    'nodeTaints',
    'tags',
  ])
    delete old.managedClusters[0].agentPools.system[f];
  const p = AzureWorld.restore(old).getAgentPool(SUB, 'rg', 'aks', 'system')!;
  assert.deepEqual(
    [
      p.osSKU,
      p.availabilityZones,
      p.maxPods,
      p.osDiskSizeGB,
      p.nodeLabels,
      p.nodeTaints,
      p.tags,
    ],
    ['Ubuntu', [], 30, 128, {}, [], {}],
  );
});
