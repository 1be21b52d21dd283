/**
 * What the simulated ARM answers CAPZ v1.26.0's legacy controllers besides ASO's writes
 * (docs/real-controllers.md#legacy-path): the node resource group's VMSS list and a VMSS's VM list, which the legacy
 * AzureManagedMachinePool turns into its providerIDList (`controllers/azuremanagedmachinepool_reconciler.go` lines
 * 130–171, armcompute v5.7.0 at api-version 2024-03-01), checked against the Nodes the workload sync writes for the
 * same pools (CAPI matches the two by providerID); and the VNet/subnet ASO writes for the legacy control plane.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { apiRequest } from '@internal/mgmt-cluster';
import { testCluster } from '@internal/mgmt-cluster/testing';
import { AzureWorld } from '../src/azure/model.ts';
import { startArmServer, type ArmServer } from '../src/arm/server.ts';
import { WorkloadNodeSync } from '../src/workload/sync.ts';
import { OWNER_LABEL } from '../src/workload/nodes.ts';
import { SUB } from './helpers.ts';

const TOKEN = 'token-capz';
let dir: string;
let world: AzureWorld;
let arm: ArmServer;
let sync: WorkloadNodeSync;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'arm-legacy-'));
  // Operations end only when a test ends them (completePendingOperations).
  world = new AzureWorld({ operationMs: 3_600_000, subscriptions: [SUB] });
  arm = await startArmServer({
    world,
    stateDir: dir,
    tokens: { [TOKEN]: [SUB] },
  });
  sync = await WorkloadNodeSync.start({
    world,
    server: testCluster(),
    log: () => {},
  });
});

after(async () => {
  sync?.stop();
  // The sync's Nodes live on the shared test cluster: remove them.
  await apiRequest(
    testCluster(),
    'DELETE',
    `/api/v1/nodes?labelSelector=${encodeURIComponent(
      `${OWNER_LABEL}=${sync.owner}`,
    )}`,
  );
  world?.close();
  await arm?.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(
  path: string,
  method = 'GET',
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${arm.url}${path}`,
      {
        method,
        ca: arm.caPem,
        agent: false,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
      },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const vmssPath = (nodeRg: string, v = '2024-03-01') =>
  `/subscriptions/${SUB}/resourceGroups/${nodeRg}/providers/Microsoft.Compute/virtualMachineScaleSets?api-version=${v}`;
const vmsPath = (nodeRg: string, vmss: string) =>
  vmssPath(nodeRg).replace('?', `/${vmss}/virtualMachines?`);

/** What CAPZ does with the answers: the pool's VMSS by tag, then `azure://` + each VM id, group lower-cased, sorted. */
async function capzProviderIds(nodeRg: string, pool: string) {
  const list = await get(vmssPath(nodeRg));
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.nextLink, undefined);
  const vmss = list.body.value.find(
    (s: any) =>
      s.tags?.poolName === pool || s.tags?.['aks-managed-poolName'] === pool,
  );
  if (!vmss) return undefined;
  const vms = await get(vmsPath(nodeRg, vmss.name));
  assert.equal(vms.status, 200, JSON.stringify(vms.body));
  return vms.body.value
    .map((vm: any) =>
      `azure://${vm.id}`.replace(
        /\/resourceGroups\/([^/]+)\//,
        (_: string, rg: string) => `/resourceGroups/${rg.toLowerCase()}/`,
      ),
    )
    .sort() as string[];
}

/** The providerIDs of the pool's Nodes on the workload server (what CAPI keys its nodeRefs by). */
async function nodeProviderIds(nodeRg: string, pool: string) {
  await sync.settled();
  const r = await apiRequest(
    testCluster(),
    'GET',
    `/api/v1/nodes?labelSelector=${encodeURIComponent(
      `${OWNER_LABEL}=${sync.owner},kubernetes.azure.com/agentpool=${pool},kubernetes.azure.com/cluster=${nodeRg}`,
    )}`,
  );
  return (JSON.parse(r.body).items as any[])
    .map(n => n.spec.providerID as string)
    .sort();
}

const instanceIdsOf = (ids: string[]) =>
  ids.map(id => Number(id.split('/').pop()));

test("the legacy path finds each pool's VMSS by its aks-managed-poolName tag and lists exactly the VMs the Nodes are", async () => {
  world.putResourceGroup(SUB, 'rg-legacy', { location: 'westeurope' });
  const { cluster } = world.putManagedCluster(SUB, 'rg-legacy', 'legacy1', {
    location: 'westeurope',
    agentPoolProfiles: [
      { name: 'pool0', count: 2, mode: 'System' },
      { name: 'pool1', count: 1, mode: 'User', availabilityZones: ['1', '2'] },
    ],
  });
  world.completePendingOperations();
  const nodeRg = cluster.nodeResourceGroup;
  assert.equal(nodeRg, 'MC_rg-legacy_legacy1_westeurope');

  const list = await get(vmssPath(nodeRg));
  assert.deepEqual(
    list.body.value.map((s: any) => [
      s.tags['aks-managed-poolName'],
      s.sku.capacity,
      s.type,
    ]),
    [
      ['pool0', 2, 'Microsoft.Compute/virtualMachineScaleSets'],
      ['pool1', 1, 'Microsoft.Compute/virtualMachineScaleSets'],
    ],
  );
  // The VMSS id names the node resource group as AKS spells it; CAPZ lower-cases it in the providerID.
  assert.match(
    list.body.value[0].id,
    /^\/subscriptions\/[^/]+\/resourceGroups\/MC_rg-legacy_legacy1_westeurope\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/aks-pool0-\d{8}-vmss$/,
  );
  // Case-insensitive, as ARM: CAPZ sends the node resource group as AKS reported it, any case works.
  assert.equal(
    (await get(vmssPath(nodeRg.toLowerCase()))).body.value.length,
    2,
  );

  for (const pool of ['pool0', 'pool1']) {
    const fromArm = await capzProviderIds(nodeRg, pool);
    assert.deepEqual(fromArm, await nodeProviderIds(nodeRg, pool));
    assert.match(
      fromArm![0],
      /^azure:\/\/\/subscriptions\/.*\/resourceGroups\/mc_rg-legacy_legacy1_westeurope\//,
    );
  }
  const vms = await get(vmsPath(nodeRg, list.body.value[1].name));
  assert.deepEqual(
    vms.body.value.map((v: any) => [
      v.instanceId,
      v.zones,
      v.properties.osProfile.computerName.endsWith('vmss000000'),
    ]),
    [['0', ['1'], true]],
  );

  // Scale out, in, out again: new ids, the highest removed first, none reused; ARM and the Nodes agree each time.
  const scale = async (count: number) => {
    world.putAgentPool(SUB, 'rg-legacy', 'legacy1', 'pool0', { count });
    world.completePendingOperations();
    const ids = (await capzProviderIds(nodeRg, 'pool0'))!;
    assert.deepEqual(ids, await nodeProviderIds(nodeRg, 'pool0'));
    return instanceIdsOf(ids);
  };
  assert.deepEqual(await scale(3), [0, 1, 2]);
  assert.deepEqual(await scale(1), [0]);
  assert.deepEqual(await scale(2), [0, 3]);

  // A pool being deleted has no VMSS any more (CAPZ retries after 20 s: AgentPoolVMSSNotFoundError), nor Nodes.
  world.deleteAgentPool(SUB, 'rg-legacy', 'legacy1', 'pool1');
  assert.equal(await capzProviderIds(nodeRg, 'pool1'), undefined);
  assert.deepEqual(await nodeProviderIds(nodeRg, 'pool1'), []);
  const gone = await get(vmsPath(nodeRg, list.body.value[1].name));
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, 'ResourceNotFound');
  world.completePendingOperations();
});

test('VMSS routes: 2024-03-01 only, a node resource group nobody has is ResourceGroupNotFound', async () => {
  const wrong = await get(vmssPath('MC_nope', '2025-08-01'));
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error.code, 'NoRegisteredProviderFound');
  assert.match(
    wrong.body.error.message,
    /type 'virtualMachineScaleSets'.*'2024-03-01'/,
  );
  const missing = await get(vmssPath('MC_nope'));
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'ResourceGroupNotFound');
  assert.deepEqual(
    arm.apiVersionsSeen()[
      'GET Microsoft.Compute/virtualMachineScaleSets 2024-03-01'
    ] > 0,
    true,
  );
});

test('virtual networks and subnets as ASO writes them for the legacy control plane (2020-11-01), gone with their group', async () => {
  world.putResourceGroup(SUB, 'rg-net', { location: 'westeurope' });
  const vnet = `/subscriptions/${SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/net1`;
  const put = await get(`${vnet}?api-version=2020-11-01`, 'PUT', {
    location: 'westeurope',
    tags: { a: 'b' },
    properties: { addressSpace: { addressPrefixes: ['10.0.0.0/8'] } },
  });
  assert.equal(put.status, 201);
  assert.equal(put.body.properties.provisioningState, 'Succeeded');
  const sn = await get(`${vnet}/subnets/sn1?api-version=2020-11-01`, 'PUT', {
    properties: { addressPrefix: '10.240.0.0/16' },
  });
  assert.equal(sn.status, 201);
  assert.equal(sn.body.id, `${vnet}/subnets/sn1`);
  // A VNet re-PUT without subnets keeps them; the GET shows them with their ids (CAPZ reads status.id).
  await get(`${vnet}?api-version=2020-11-01`, 'PUT', {
    location: 'westeurope',
    properties: { addressSpace: { addressPrefixes: ['10.0.0.0/8'] } },
  });
  const got = await get(`${vnet}?api-version=2020-11-01`);
  assert.deepEqual(
    got.body.properties.subnets.map((s: any) => [
      s.id,
      s.properties.addressPrefix,
    ]),
    [[`${vnet}/subnets/sn1`, '10.240.0.0/16']],
  );
  assert.equal(
    (await get(`${vnet}/subnets/sn1?api-version=2020-11-01`, 'DELETE')).status,
    200,
  );
  assert.equal(
    (await get(`${vnet}/subnets/sn1?api-version=2020-11-01`)).status,
    404,
  );
  world.deleteResourceGroup(SUB, 'rg-net');
  assert.equal(world.networkCounters.deleted.virtualNetworks, 1);
  assert.equal((await get(`${vnet}?api-version=2020-11-01`)).status, 404);
});

test('a persisted world restored with a new Node sync (the demo restarting) keeps ARM VMs and Nodes the same machines', async () => {
  world.putResourceGroup(SUB, 'rg-restart', { location: 'westeurope' });
  const { cluster } = world.putManagedCluster(SUB, 'rg-restart', 'restart1', {
    location: 'westeurope',
    agentPoolProfiles: [{ name: 'sys', count: 3, mode: 'System' }],
  });
  world.completePendingOperations();
  world.putAgentPool(SUB, 'rg-restart', 'restart1', 'sys', { count: 1 });
  world.completePendingOperations();
  const nodeRg = cluster.nodeResourceGroup;
  assert.deepEqual(instanceIdsOf((await capzProviderIds(nodeRg, 'sys'))!), [0]);
  await sync.settled();

  // Restart: the world from its snapshot, a new sync with the same owner label (the demo keeps it stable).
  sync.stop();
  const restored = AzureWorld.restore(world.snapshot(), {
    operationMs: 3_600_000,
  });
  const restarted = await WorkloadNodeSync.start({
    world: restored,
    server: testCluster(),
    owner: sync.owner,
    log: () => {},
  });
  try {
    restored.putAgentPool(SUB, 'rg-restart', 'restart1', 'sys', { count: 2 });
    restored.completePendingOperations();
    await restarted.settled();
    // Ids 1 and 2 were given out before the restart: a VMSS does not reuse them.
    const vms = restored
      .runningInstances(
        restored.getManagedCluster(SUB, 'rg-restart', 'restart1')!,
        restored.getAgentPool(SUB, 'rg-restart', 'restart1', 'sys')!,
      )
      .sort();
    assert.deepEqual(vms, [0, 3]);
    const r = await apiRequest(
      testCluster(),
      'GET',
      `/api/v1/nodes?labelSelector=${encodeURIComponent(
        `${OWNER_LABEL}=${sync.owner},kubernetes.azure.com/cluster=${nodeRg}`,
      )}`,
    );
    assert.deepEqual(
      instanceIdsOf(
        (JSON.parse(r.body).items as any[])
          .map(n => n.spec.providerID as string)
          .sort(),
      ),
      [0, 3],
    );
  } finally {
    restarted.stop();
    restored.close();
  }
});
