import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { AzureError } from '../src/azure/errors.ts';
import { AzureWorld } from '../src/azure/model.ts';

const SUB = 'sub-1';
const pools = [{ name: 'system', mode: 'System' as const, count: 2 }, { name: 'user', mode: 'User' as const, count: 1 }];

async function settled(w: AzureWorld, check: () => boolean) {
  while (!check()) await once(w, 'change');
}

test('a managed cluster goes Creating -> Succeeded, and AKS refuses changes while it is busy', async () => {
  const w = new AzureWorld({ operationMs: 5, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  const { created, cluster } = w.putManagedCluster(SUB, 'rg', 'aks', { location: 'westeurope', agentPoolProfiles: pools });
  assert.equal(created, true);
  assert.equal(cluster.provisioningState, 'Creating');
  assert.throws(() => w.putAgentPool(SUB, 'rg', 'aks', 'extra', { count: 1 }), (e: AzureError) => e.code === 'OperationNotAllowed' && e.status === 409);
  await settled(w, () => cluster.provisioningState === 'Succeeded');
  assert.equal(cluster.nodeResourceGroup, 'MC_rg_aks_westeurope');
  assert.match(cluster.fqdn, /^aks-[0-9a-f]{8}\.hcp\.westeurope\.azmk8s\.io$/);
  assert.deepEqual(Object.keys(cluster.agentPools), ['system', 'user']);
  assert.deepEqual(w.counters.created, { resourceGroups: 1, managedClusters: 1, agentPools: 2 });
  w.close();
});

test('AKS errors have ARM codes: missing group, missing pools on create, last system pool', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  assert.throws(() => w.putManagedCluster(SUB, 'nope', 'aks', { location: 'x', agentPoolProfiles: pools }), (e: AzureError) => e.code === 'ResourceGroupNotFound');
  assert.throws(() => w.getResourceGroup('other', 'rg'), (e: AzureError) => e.code === 'SubscriptionNotFound');
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  assert.throws(() => w.putManagedCluster(SUB, 'rg', 'aks', { location: 'westeurope' }), (e: AzureError) => e.code === 'InvalidParameter' && e.status === 400);
  w.putManagedCluster(SUB, 'rg', 'aks', { location: 'westeurope', agentPoolProfiles: [pools[0]] });
  await settled(w, () => w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded');
  assert.throws(() => w.deleteAgentPool(SUB, 'rg', 'aks', 'system'), /last system agent pool/);
  w.close();
});

test('deleting a resource group deletes what is in it, and every deletion is counted', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', { location: 'westeurope', agentPoolProfiles: pools });
  await settled(w, () => w.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState === 'Succeeded');
  assert.equal(w.deleteResourceGroup(SUB, 'RG'), true, 'names are case-insensitive, as in ARM');
  assert.deepEqual(w.counters.deleted, { resourceGroups: 1, managedClusters: 1, agentPools: 2 });
  assert.equal(w.getResourceGroup(SUB, 'rg'), undefined);
  w.close();
});

test('admin credentials are refused when local accounts are disabled; user credentials carry kubelogin', async () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'entra', { location: 'westeurope', disableLocalAccounts: true, aadProfile: { managed: true }, agentPoolProfiles: pools });
  assert.throws(() => w.listClusterCredentials(SUB, 'rg', 'entra', 'admin'), /Getting static credential is not allowed/);
  assert.match(w.listClusterCredentials(SUB, 'rg', 'entra', 'user'), /command: kubelogin/);
  w.close();
});

test('a snapshot restores the world with in-flight operations completed and counters kept', async () => {
  const w = new AzureWorld({ operationMs: 10_000, subscriptions: [SUB] });
  w.putResourceGroup(SUB, 'rg', { location: 'westeurope' });
  w.putManagedCluster(SUB, 'rg', 'aks', { location: 'westeurope', agentPoolProfiles: pools });
  const snapshot = JSON.parse(JSON.stringify(w.snapshot()));
  w.close();
  const r = AzureWorld.restore(snapshot);
  assert.equal(r.getManagedCluster(SUB, 'rg', 'aks')!.provisioningState, 'Succeeded');
  assert.deepEqual(r.counters.created, { resourceGroups: 1, managedClusters: 1, agentPools: 2 });
  r.close();
});

test('a forced failure is returned once, for the named resource only', () => {
  const w = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  w.failNext(`/subscriptions/${SUB}/resourceGroups/rg`, new AzureError(429, 'TooManyRequests', 'throttled'));
  assert.throws(() => w.putResourceGroup(SUB, 'rg', { location: 'westeurope' }), /throttled/);
  assert.equal(w.putResourceGroup(SUB, 'rg', { location: 'westeurope' }).created, true);
  w.close();
});
