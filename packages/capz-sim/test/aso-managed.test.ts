/**
 * New clusters on the ASO-managed API (docs/capz-aso-facts.md#aso-managed-versions,
 * docs/capz-aso-facts.md#aks-aso-flavor): created from the aks-aso flavor's objects, at v1beta1 and at the deprecated
 * v1alpha1; pause; and CAPI's documented gap that MachinePools do not feed Available
 * (docs/capz-aso-facts.md#cluster-available).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K } from '../src/runtime/kinds.ts';
import { asoManagedCluster } from '../src/scenarios/seed.ts';
import {
  condition,
  credentialSecret,
  namespaceFor,
  simulatorForFile,
  SUB,
  until,
} from './helpers.ts';

const env = simulatorForFile();
const pools = [
  { name: 'system', mode: 'System' as const, count: 2 },
  {
    name: 'batch',
    mode: 'User' as const,
    count: 1,
    enableAutoScaling: true,
    minCount: 1,
    maxCount: 4,
  },
];

async function newCluster(
  t: { after(fn: () => unknown): void },
  name: string,
  apiVersion: 'v1beta1' | 'v1alpha1' = 'v1beta1',
) {
  const ns = await namespaceFor(t, name);
  await env.kube.create(K.Secret, credentialSecret(ns, 'aso-credential'));
  await asoManagedCluster(env.kube, {
    namespace: ns,
    name,
    credentialSecret: 'aso-credential',
    pools,
    apiVersion,
  });
  await until(
    `${name} to be Available`,
    async () =>
      condition(await env.kube.get(K.Cluster, ns, name), 'Available')
        ?.status === 'True',
    90_000,
  );
  // Cluster Available ignores machine pools (CAPI's gap, docs/capz-aso-facts.md#cluster-available): wait for every pool
  // as well.
  for (const p of pools) {
    await until(
      `pool ${p.name} to be ready`,
      async () =>
        (
          await env.kube.get(
            K.AzureASOManagedMachinePool,
            ns,
            `${name}-${p.name}`,
          )
        )?.status?.ready,
      90_000,
    );
  }
  return ns;
}

for (const apiVersion of ['v1beta1', 'v1alpha1'] as const) {
  test(`a new ASO-managed cluster written at ${apiVersion} is created in Azure and becomes Available`, async t => {
    const created = structuredClone(env.world.counters.created);
    const name = `new-${apiVersion}`;
    const ns = await newCluster(t, name, apiVersion);
    // ASO created the group, the cluster (with its pools from the machine pools: the initial-create mutator) in Azure.
    assert.equal(
      env.world.counters.created.resourceGroups - created.resourceGroups,
      1,
    );
    assert.equal(
      env.world.counters.created.managedClusters - created.managedClusters,
      1,
    );
    const aks = env.world.getManagedCluster(SUB, name, name)!;
    assert.deepEqual(Object.keys(aks.agentPools).sort(), ['batch', 'system']);
    assert.equal(
      aks.kubernetesVersion,
      '1.33.2',
      'from AzureASOManagedControlPlane.spec.version without the v',
    );
    const cp = (await env.kube.get(K.AzureASOManagedControlPlane, ns, name))!;
    assert.equal(cp.status.version, 'v1.33.2');
    assert.deepEqual([cp.status.ready, cp.status.initialized], [true, true]);
    assert.equal(cp.status.controlPlaneEndpoint.host, aks.fqdn);
    assert.match(
      cp.metadata.annotations![
        'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds'
      ],
      /^ManagedCluster\.v1api20240901\.containerservice\.azure\.com$/,
    );
    assert.equal(
      cp.metadata.annotations!['clusterctl.cluster.x-k8s.io/block-move'],
      'true',
    );
    const mc = (await env.kube.get(K.ManagedCluster, ns, name))!;
    // CAPZ's controller reference, and the one ASO adds to spec.owner (ASO v2.18.0 internal/reconcilers/common.go
    // ApplyOwnership: no controller, no blockOwnerDeletion).
    assert.deepEqual(
      mc.metadata.ownerReferences?.map(r => [
        r.kind,
        r.name,
        r.controller,
        r.blockOwnerDeletion,
      ]),
      [
        ['AzureASOManagedControlPlane', name, true, true],
        ['ResourceGroup', mc.spec.owner.name, undefined, undefined],
      ],
    );
    // Cluster Available ignores machine pools (CAPI's gap, docs/capz-aso-facts.md#cluster-available): wait for the pool
    // itself.
    const amp = await until('the system pool to be ready', async () => {
      const x = await env.kube.get(
        K.AzureASOManagedMachinePool,
        ns,
        `${name}-system`,
      );
      return x?.status?.ready && x.spec.providerIDList?.length ? x : undefined;
    });
    assert.equal(amp.status.replicas, 2);
    assert.equal(amp.spec.providerIDList.length, 2);
    const infra = (await env.kube.get(K.AzureASOManagedCluster, ns, name))!;
    assert.equal(
      infra.spec.controlPlaneEndpoint.host,
      aks.fqdn,
      'copied from the control plane',
    );
    if (apiVersion === 'v1alpha1') {
      const alpha = await env.kube.get(
        { ...K.AzureASOManagedControlPlane, version: 'v1alpha1' },
        ns,
        name,
      );
      assert.equal(
        alpha?.apiVersion,
        'infrastructure.cluster.x-k8s.io/v1alpha1',
      );
    }
  });
}

test('pausing an ASO-managed cluster sets its ASO objects to skip and then removes block-move', async t => {
  const name = 'pause-me';
  const ns = await newCluster(t, name);
  await env.kube.mergePatch(K.Cluster, ns, name, { spec: { paused: true } });
  for (const kind of [
    'AzureASOManagedControlPlane',
    'AzureASOManagedCluster',
  ] as const) {
    await until(
      `block-move gone from ${kind}`,
      async () =>
        (
          await env.kube.get(K[kind], ns, name)
        )?.metadata.annotations?.['clusterctl.cluster.x-k8s.io/block-move'] ===
        undefined,
    );
  }
  for (const [kind, n] of [
    ['ManagedCluster', name],
    ['ResourceGroup', name],
    ['ManagedClustersAgentPool', `${name}-system`],
  ] as const) {
    const o = await until(`${kind} ${n} set to skip`, async () => {
      const x = await env.kube.get(K[kind], ns, n);
      return x?.metadata.annotations?.[
        'serviceoperator.azure.com/reconcile-policy'
      ] === 'skip'
        ? x
        : undefined;
    });
    assert.ok(o);
  }
  assert.equal(
    condition(await env.kube.get(K.Cluster, ns, name), 'Paused')?.status,
    'True',
  );
});

test('a failing agent pool leaves its MachinePool unavailable while the Cluster stays Available (CAPI gap)', async t => {
  const name = 'gap';
  const ns = await newCluster(t, name);
  env.sim.aso.forceFailure('ManagedClustersAgentPool', ns, `${name}-batch`, {
    reason: 'ReconciliationFailedPermanently',
    severity: 'Error',
    message: 'quota exceeded',
  });
  await until(
    'the AzureASOManagedMachinePool to be not ready',
    async () =>
      (
        await env.kube.get(K.AzureASOManagedMachinePool, ns, `${name}-batch`)
      )?.status?.ready === false,
  );
  const mp = await until('the MachinePool to be unavailable', async () => {
    const x = await env.kube.get(K.MachinePool, ns, `${name}-batch`);
    return condition(x, 'Available')?.status === 'False' ? x : undefined;
  });
  assert.ok(mp);
  const cluster = (await env.kube.get(K.Cluster, ns, name))!;
  assert.equal(
    condition(cluster, 'WorkersAvailable')?.status,
    'True',
    'MachinePools do not feed WorkersAvailable',
  );
  assert.equal(condition(cluster, 'Available')?.status, 'True');
});
