/**
 * The legacy controllers creating a new AKS cluster (capz-ground-truth 4.3, 5.2): the pools go into the ManagedCluster
 * spec until the cluster exists in Azure, even when the control plane is reconciled before its pools exist.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K } from '../src/runtime/kinds.ts';
import { condition, namespaceFor, obj, simulatorForFile, SUB, until } from './helpers.ts';

const env = simulatorForFile();
const CAPZ = 'infrastructure.cluster.x-k8s.io';

test('a control plane written before its pools still gets its AKS cluster created once the pools appear', async t => {
  const ns = await namespaceFor(t, 'legacy-new');
  const name = 'late-pools';
  env.world.putResourceGroup(SUB, 'rg-late-pools', { location: 'westeurope' });
  await env.kube.create(K.Cluster, obj('Cluster', ns, name, {
    controlPlaneRef: { apiGroup: CAPZ, kind: 'AzureManagedControlPlane', name },
    infrastructureRef: { apiGroup: CAPZ, kind: 'AzureManagedCluster', name },
  }));
  await env.kube.create(K.AzureManagedCluster, obj('AzureManagedCluster', ns, name, {}));
  await env.kube.create(K.AzureManagedControlPlane, obj('AzureManagedControlPlane', ns, name, {
    identityRef: { apiVersion: `${CAPZ}/v1beta1`, kind: 'AzureClusterIdentity', name: 'cluster-identity', namespace: ns },
    location: 'westeurope', resourceGroupName: 'rg-late-pools', subscriptionID: SUB, version: 'v1.33.2',
  }));
  // No pool yet: the first ManagedCluster goes out without pools, and AKS refuses it.
  const refused = await until('AKS to refuse the pool-less ManagedCluster', async () => {
    const mc = await env.kube.get(K.ManagedCluster, ns, name);
    return condition(mc, 'Ready')?.status === 'False' && /agent pool/.test(condition(mc, 'Ready')?.message ?? '') ? mc : undefined;
  });
  assert.deepEqual(refused.spec.agentPoolProfiles ?? [], []);
  assert.equal(env.world.getManagedCluster(SUB, 'rg-late-pools', name), undefined);

  const pool = `${name}-system`;
  await env.kube.create(K.MachinePool, obj('MachinePool', ns, pool, {
    clusterName: name,
    replicas: 2,
    template: { spec: { clusterName: name, bootstrap: { dataSecretName: '' }, infrastructureRef: { apiGroup: CAPZ, kind: 'AzureManagedMachinePool', name: pool }, version: 'v1.33.2' } },
  }));
  await env.kube.create(K.AzureManagedMachinePool, obj('AzureManagedMachinePool', ns, pool, { mode: 'System', name: 'system', sku: 'Standard_D2s_v3' }));

  await until('the legacy Cluster to be Available', async () => condition(await env.kube.get(K.Cluster, ns, name), 'Available')?.status === 'True', 30_000);
  const aks = env.world.getManagedCluster(SUB, 'rg-late-pools', name);
  assert.deepEqual(Object.keys(aks?.agentPools ?? {}), ['system']);
  // Once the cluster exists the pools leave the ManagedCluster spec again (4.3).
  await until('the pools to be stripped from the spec', async () => (await env.kube.get(K.ManagedCluster, ns, name))?.spec.agentPoolProfiles === undefined);
});
