/**
 * Workload clusters (docs/real-controllers.md#workload-clusters): each simulated AKS cluster's credentials point at
 * one shared local kube-apiserver holding a Node per VMSS instance, read here as CAPI and CAPZ read it, through the
 * kubeconfig `listClusterAdminCredential` returns.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AuthenticationV1Api,
  CoreV1Api,
  KubeConfig,
  type V1Node,
} from '@kubernetes/client-node';
import { until } from '@internal/mgmt-cluster/testing';
import { AzureWorld } from '../src/azure/model.ts';
import {
  startWorkloadApiServer,
  WorkloadNodeSync,
  type WorkloadApiServer,
} from '../src/workload/index.ts';
import { SUB } from './helpers.ts';

let server: WorkloadApiServer;
let world: AzureWorld;
let sync: WorkloadNodeSync;

before(async () => {
  server = await startWorkloadApiServer({
    name: `workload-test-${process.pid}`,
    ephemeral: true,
  });
  world = new AzureWorld({
    operationMs: 20,
    subscriptions: [SUB],
    kubeconfigFor: () => server.kubeconfig,
  });
  sync = await WorkloadNodeSync.start({
    world,
    server: server.info,
    log: process.env.CAPZ_SIM_LOG ? undefined : () => {},
  });
});

after(async () => {
  sync?.stop();
  world?.close();
  await server?.stop();
});

/** A client of the cluster's workload API server built from its admin kubeconfig, as CAPI builds one from `<cluster>-kubeconfig`. */
function clientOf(rg: string, name: string) {
  const kc = new KubeConfig();
  kc.loadFromString(world.listClusterCredentials(SUB, rg, name, 'admin'));
  return {
    core: kc.makeApiClient(CoreV1Api),
    auth: kc.makeApiClient(AuthenticationV1Api),
  };
}

/** The Nodes CAPZ's AzureASOManagedMachinePool controller would list for this pool (its expectedNodeLabels). */
async function poolNodes(
  rg: string,
  name: string,
  pool: string,
): Promise<V1Node[]> {
  const mc = world.getManagedCluster(SUB, rg, name)!;
  const { items } = await clientOf(rg, name).core.listNode({
    labelSelector: `kubernetes.azure.com/agentpool=${pool},kubernetes.azure.com/cluster=${mc.nodeResourceGroup}`,
  });
  return items;
}

async function clusterNodes(rg: string, name: string): Promise<V1Node[]> {
  const mc = world.getManagedCluster(SUB, rg, name)!;
  const { items } = await clientOf(rg, name).core.listNode({
    labelSelector: `kubernetes.azure.com/cluster=${mc.nodeResourceGroup}`,
  });
  return items;
}

const ready = (n: V1Node) =>
  n.status?.conditions?.find(c => c.type === 'Ready')?.status === 'True';

const userPool = (count: number) => ({
  mode: 'User' as const,
  count,
  vmSize: 'Standard_D2s_v3',
  orchestratorVersion: '1.32.6',
  nodeLabels: { team: 'payments' },
  nodeTaints: ['dedicated=payments:NoSchedule'],
});

function createCluster(rg: string, name: string, location = 'westeurope') {
  world.putResourceGroup(SUB, rg, { location });
  world.putManagedCluster(SUB, rg, name, {
    location,
    kubernetesVersion: '1.33.2',
    agentPoolProfiles: [
      {
        name: 'system',
        mode: 'System',
        count: 2,
        vmSize: 'Standard_D4s_v3',
        availabilityZones: ['1', '2'],
      },
      { name: 'user', ...userPool(1) },
    ],
  });
}

test('a cluster with pools of 2 and 1 has 3 Ready Nodes, labelled and with providerIDs as AKS gives them', async () => {
  createCluster('rg-one', 'one');
  const mc = world.getManagedCluster(SUB, 'rg-one', 'one')!;
  await until('3 Ready Nodes of cluster one', async () => {
    const n = await clusterNodes('rg-one', 'one');
    return n.length === 3 && n.every(ready);
  });

  // The kubeconfig's identity is AKS's admin client certificate, not the sync's token.
  const review = await clientOf('rg-one', 'one').auth.createSelfSubjectReview({
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  assert.equal(review.status?.userInfo?.username, 'masterclient');
  assert.ok(review.status?.userInfo?.groups?.includes('system:masters'));

  const system = await poolNodes('rg-one', 'one', 'system');
  const user = await poolNodes('rg-one', 'one', 'user');
  assert.equal(system.length, 2);
  assert.equal(user.length, 1);
  const rgLower = mc.nodeResourceGroup.toLowerCase();
  assert.equal(mc.nodeResourceGroup, 'MC_rg-one_one_westeurope');
  const names = system.map(n => n.metadata!.name!).sort();
  const vmss = /^(aks-system-\d{8}-vmss)000000$/.exec(names[0])?.[1];
  assert.ok(vmss, names[0]);
  assert.deepEqual(names, [`${vmss}000000`, `${vmss}000001`]);
  assert.deepEqual(
    system.map(n => n.spec!.providerID).sort(),
    [0, 1].map(
      i =>
        `azure:///subscriptions/${SUB}/resourceGroups/${rgLower}/providers/Microsoft.Compute/virtualMachineScaleSets/${vmss}/virtualMachines/${i}`,
    ),
  );
  // One number per cluster, shared by its pools.
  assert.equal(
    user[0].metadata!.name,
    `${vmss.replace('aks-system-', 'aks-user-')}000000`,
  );

  const s0 = system.find(n => n.metadata!.name === names[0])!;
  const labels = s0.metadata!.labels!;
  assert.equal(labels['kubernetes.azure.com/agentpool'], 'system');
  assert.equal(labels['kubernetes.azure.com/cluster'], mc.nodeResourceGroup);
  assert.equal(labels['kubernetes.azure.com/mode'], 'system');
  assert.equal(labels['kubernetes.io/os'], 'linux');
  assert.equal(labels['node.kubernetes.io/instance-type'], 'Standard_D4s_v3');
  assert.equal(labels['topology.kubernetes.io/region'], 'westeurope');
  assert.equal(labels['topology.kubernetes.io/zone'], 'westeurope-1');
  assert.equal(s0.status!.nodeInfo!.kubeletVersion, 'v1.33.2');
  // The API server's TaintNodesByCondition added node.kubernetes.io/not-ready on create; no node lifecycle
  // controller runs there, so the sync removed it: a System pool without taints has none.
  assert.deepEqual(s0.spec!.taints ?? [], []);

  const u = user[0];
  assert.equal(u.metadata!.labels!['kubernetes.azure.com/mode'], 'user');
  assert.equal(u.metadata!.labels!.team, 'payments');
  assert.equal(u.status!.nodeInfo!.kubeletVersion, 'v1.32.6');
  assert.deepEqual(
    u.spec!.taints!.map(t => `${t.key}=${t.value}:${t.effect}`),
    ['dedicated=payments:NoSchedule'],
  );
});

test('scaling a pool 1→3 adds Nodes with new instance ids; deleting the pool removes its Nodes', async () => {
  await until(
    'cluster one settled',
    () =>
      world.getManagedCluster(SUB, 'rg-one', 'one')?.provisioningState ===
      'Succeeded',
  );
  world.putAgentPool(SUB, 'rg-one', 'one', 'user', userPool(3));
  const after3 = await until('5 Ready Nodes', async () => {
    const n = await clusterNodes('rg-one', 'one');
    return n.length === 5 && n.every(ready) && n;
  });
  const user = after3
    .filter(
      n => n.metadata!.labels!['kubernetes.azure.com/agentpool'] === 'user',
    )
    .map(n => n.spec!.providerID!.split('/').pop())
    .sort();
  assert.deepEqual(user, ['0', '1', '2']);

  // Scale-in removes the highest instance id first; a later scale-out never reuses it.
  await until(
    'pool settled',
    () =>
      world.getAgentPool(SUB, 'rg-one', 'one', 'user')?.provisioningState ===
      'Succeeded',
  );
  world.putAgentPool(SUB, 'rg-one', 'one', 'user', userPool(2));
  await until(
    'user pool at 2',
    async () => (await poolNodes('rg-one', 'one', 'user')).length === 2,
  );
  await until(
    'pool settled',
    () =>
      world.getAgentPool(SUB, 'rg-one', 'one', 'user')?.provisioningState ===
      'Succeeded',
  );
  world.putAgentPool(SUB, 'rg-one', 'one', 'user', userPool(3));
  const ids = await until('user pool back at 3', async () => {
    const n = await poolNodes('rg-one', 'one', 'user');
    return (
      n.length === 3 && n.map(x => x.spec!.providerID!.split('/').pop()).sort()
    );
  });
  assert.deepEqual(ids, ['0', '1', '3']);

  await until(
    'pool settled',
    () =>
      world.getAgentPool(SUB, 'rg-one', 'one', 'user')?.provisioningState ===
      'Succeeded',
  );
  world.deleteAgentPool(SUB, 'rg-one', 'one', 'user');
  await until(
    'the user pool Nodes gone',
    async () => (await poolNodes('rg-one', 'one', 'user')).length === 0,
  );
  assert.equal((await clusterNodes('rg-one', 'one')).length, 2);

  // Settled: a pass over an unchanged world reads the Nodes once and writes nothing.
  await sync.settled();
  const before = sync.requests;
  await sync.settled();
  assert.equal(sync.requests - before, 1);
});

test('two clusters on the one server: Nodes kept apart by kubernetes.azure.com/cluster; deleting a cluster removes only its Nodes', async () => {
  createCluster('rg-two', 'two', 'eastus');
  const two = await until('3 Nodes of cluster two', async () => {
    const n = await clusterNodes('rg-two', 'two');
    return n.length === 3 && n;
  });
  const one = await clusterNodes('rg-one', 'one');
  assert.equal(one.length, 2);
  // Both clusters' kubeconfigs name the same server, and their Nodes are told apart only by the label and providerID.
  const server1 = /server: (\S+)/.exec(
    world.listClusterCredentials(SUB, 'rg-one', 'one', 'admin'),
  )![1];
  const server2 = /server: (\S+)/.exec(
    world.listClusterCredentials(SUB, 'rg-two', 'two', 'admin'),
  )![1];
  assert.equal(server1, server2);
  const oneNames = new Set(one.map(n => n.metadata!.name));
  assert.ok(two.every(n => !oneNames.has(n.metadata!.name)));
  assert.ok(
    two.every(n =>
      n.spec!.providerID!.includes('/resourceGroups/mc_rg-two_two_eastus/'),
    ),
  );
  assert.equal((await poolNodes('rg-two', 'two', 'system')).length, 2);
  assert.equal((await poolNodes('rg-one', 'one', 'system')).length, 2);

  await until(
    'cluster two settled',
    () =>
      world.getManagedCluster(SUB, 'rg-two', 'two')?.provisioningState ===
      'Succeeded',
  );
  world.deleteManagedCluster(SUB, 'rg-two', 'two');
  const client = clientOf('rg-one', 'one').core;
  await until('the Nodes of cluster two gone', async () => {
    const { items } = await client.listNode({
      labelSelector: 'kubernetes.azure.com/cluster=MC_rg-two_two_eastus',
    });
    return items.length === 0;
  });
  assert.equal((await clusterNodes('rg-one', 'one')).length, 2);
});
