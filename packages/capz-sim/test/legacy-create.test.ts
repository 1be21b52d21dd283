/**
 * The legacy controllers creating a new AKS cluster (docs/capz-aso-facts.md#legacy-agent-pool-profiles,
 * docs/capz-aso-facts.md#legacy-aso-objects): the pools go into the ManagedCluster spec until the cluster exists in
 * Azure, even when the control plane is reconciled before its pools exist.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { azureResourceState } from '../src/azure/model.ts';
import { K } from '../src/runtime/kinds.ts';
import { legacyCluster } from '../src/scenarios/seed.ts';
import {
  condition,
  namespaceFor,
  obj,
  ready,
  simulatorForFile,
  SUB,
  until,
} from './helpers.ts';

const env = simulatorForFile();
const CAPZ = 'infrastructure.cluster.x-k8s.io';

test('a control plane written before its pools still gets its AKS cluster created once the pools appear', async t => {
  const ns = await namespaceFor(t, 'legacy-new');
  const name = 'late-pools';
  env.world.putResourceGroup(SUB, 'rg-late-pools', { location: 'westeurope' });
  await env.kube.create(
    K.Cluster,
    obj('Cluster', ns, name, {
      controlPlaneRef: {
        apiGroup: CAPZ,
        kind: 'AzureManagedControlPlane',
        name,
      },
      infrastructureRef: { apiGroup: CAPZ, kind: 'AzureManagedCluster', name },
    }),
  );
  await env.kube.create(
    K.AzureManagedCluster,
    obj('AzureManagedCluster', ns, name, {}),
  );
  await env.kube.create(
    K.AzureManagedControlPlane,
    obj('AzureManagedControlPlane', ns, name, {
      identityRef: {
        apiVersion: `${CAPZ}/v1beta1`,
        kind: 'AzureClusterIdentity',
        name: 'cluster-identity',
        namespace: ns,
      },
      location: 'westeurope',
      resourceGroupName: 'rg-late-pools',
      subscriptionID: SUB,
      version: 'v1.33.2',
    }),
  );
  // No pool yet: the first ManagedCluster goes out without pools, and AKS refuses it.
  const refused = await until(
    'AKS to refuse the pool-less ManagedCluster',
    async () => {
      const mc = await env.kube.get(K.ManagedCluster, ns, name);
      return condition(mc, 'Ready')?.status === 'False' &&
        /agent pool/.test(condition(mc, 'Ready')?.message ?? '')
        ? mc
        : undefined;
    },
  );
  assert.deepEqual(refused.spec.agentPoolProfiles ?? [], []);
  assert.equal(
    env.world.getManagedCluster(SUB, 'rg-late-pools', name),
    undefined,
  );

  const pool = `${name}-system`;
  await env.kube.create(
    K.MachinePool,
    obj('MachinePool', ns, pool, {
      clusterName: name,
      replicas: 2,
      template: {
        spec: {
          clusterName: name,
          bootstrap: { dataSecretName: '' },
          infrastructureRef: {
            apiGroup: CAPZ,
            kind: 'AzureManagedMachinePool',
            name: pool,
          },
          version: 'v1.33.2',
        },
      },
    }),
  );
  await env.kube.create(
    K.AzureManagedMachinePool,
    obj('AzureManagedMachinePool', ns, pool, {
      mode: 'System',
      name: 'system',
      sku: 'Standard_D2s_v3',
    }),
  );

  await until(
    'the legacy Cluster to be Available',
    async () =>
      condition(await env.kube.get(K.Cluster, ns, name), 'Available')
        ?.status === 'True',
    90_000,
  );
  const aks = env.world.getManagedCluster(SUB, 'rg-late-pools', name);
  assert.deepEqual(Object.keys(aks?.agentPools ?? {}), ['system']);
  // Once the cluster exists the pools leave the ManagedCluster spec again
  // (docs/capz-aso-facts.md#legacy-agent-pool-profiles).
  await until(
    'the pools to be stripped from the spec',
    async () =>
      (
        await env.kube.get(K.ManagedCluster, ns, name)
      )?.spec.agentPoolProfiles === undefined,
  );
});

test('the legacy controllers write labels, taints and tags as CAPZ does, so their PUTs leave Azure as it was', async t => {
  const ns = await namespaceFor(t, 'legacy-fields');
  const name = 'tagged-lake';
  const rg = 'rg-tagged-lake';
  const updatedBefore = env.world.counters.updated.managedClusters;
  await legacyCluster(env.kube, env.world, {
    namespace: ns,
    name,
    subscription: SUB,
    resourceGroup: rg,
    resourceGroupTags: { 'cost-center': 'data' },
    additionalTags: { environment: 'production' },
    pools: [
      {
        name: 'system',
        mode: 'System',
        count: 1,
        nodeTaints: ['CriticalAddonsOnly=true:NoSchedule'],
      },
      {
        name: 'spark',
        mode: 'User',
        count: 2,
        nodeLabels: { workload: 'spark' },
        nodeTaints: ['workload=spark:NoSchedule'],
        tags: { team: 'spark' },
        maxPods: 50,
      },
    ],
  });
  await until(
    'Azure to finish creating the seeded cluster',
    async () =>
      env.world.getManagedCluster(SUB, rg, name)?.provisioningState ===
      'Succeeded',
  );
  const seeded = azureResourceState(env.world.snapshot(), {
    resourceGroup: rg,
  });
  await until(
    'the legacy Cluster to be Available',
    async () =>
      condition(await env.kube.get(K.Cluster, ns, name), 'Available')
        ?.status === 'True',
    90_000,
  );
  const spark = await until(
    'the spark pool object managed and Ready',
    async () => {
      const o = ready(
        await env.kube.get(K.ManagedClustersAgentPool, ns, `${name}-spark`),
      );
      return o?.metadata.annotations?.[
        'serviceoperator.azure.com/reconcile-policy'
      ] === 'manage'
        ? o
        : undefined;
    },
  );
  // azure/scope/managedmachinepool.go buildAgentPoolSpec: nodeLabels, taints as key=value:Effect, additionalTags.
  assert.deepEqual(
    [
      spark.spec.nodeLabels,
      spark.spec.nodeTaints,
      spark.spec.tags,
      spark.spec.maxPods,
      spark.spec.enableAutoScaling,
    ],
    [
      { workload: 'spark' },
      ['workload=spark:NoSchedule'],
      { team: 'spark' },
      50,
      false,
    ],
  );
  const mc = (await env.kube.get(K.ManagedCluster, ns, name))!;
  assert.deepEqual(mc.spec.tags, {
    environment: 'production',
    Name: name,
    'sigs.k8s.io_cluster-api-provider-azure_cluster_tagged-lake': 'owned',
    'sigs.k8s.io_cluster-api-provider-azure_role': 'common',
  });
  // The group was not made by CAPZ (no owned tag in Azure): it stays on skip, and its Azure tags are its own.
  const group = (await env.kube.get(K.ResourceGroup, ns, rg))!;
  assert.equal(
    group.metadata.annotations?.['serviceoperator.azure.com/reconcile-policy'],
    'skip',
  );
  assert.deepEqual(group.status.tags, { 'cost-center': 'data' });
  await until('every Azure operation to be over', async () => {
    const aks = env.world.getManagedCluster(SUB, rg, name)!;
    return (
      aks.provisioningState === 'Succeeded' &&
      Object.values(aks.agentPools).every(
        p => p.provisioningState === 'Succeeded',
      )
    );
  });
  assert.deepEqual(
    azureResourceState(env.world.snapshot(), { resourceGroup: rg }),
    seeded,
    'the legacy PUTs changed nothing in Azure',
  );
  assert.ok(
    env.world.counters.updated.managedClusters > updatedBefore,
    'and there were PUTs',
  );
});
