/**
 * The migration procedure of CAPZ's book (docs/migration-procedure.md), walked step by
 * step with plain API calls, and the danger its disarm step guards against.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K, type KindName } from '../src/runtime/kinds.ts';
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

const ADOPT = { 'sigs.k8s.io/cluster-api-provider-azure-adopt': 'true' };
const POLICY = 'serviceoperator.azure.com/reconcile-policy';
const BLOCK_MOVE = 'clusterctl.cluster.x-k8s.io/block-move';
const pools = [
  {
    name: 'pool0',
    mode: 'System' as const,
    count: 2,
    vmSize: 'Standard_D2s_v3',
  },
  { name: 'pool1', mode: 'User' as const, count: 3, vmSize: 'Standard_D4s_v3' },
];

async function runningLegacyCluster(
  ns: string,
  name: string,
  rg: string,
): Promise<void> {
  await legacyCluster(env.kube, env.world, {
    namespace: ns,
    name,
    subscription: SUB,
    resourceGroup: rg,
    pools,
  });
  await until(
    'the legacy Cluster to be Available',
    async () =>
      condition(await env.kube.get(K.Cluster, ns, name), 'Available')
        ?.status === 'True',
    90_000,
  );
  for (const p of pools) {
    await until(
      `the legacy agent pool ${p.name} to be Ready and managed`,
      async () => {
        const ap = ready(
          await env.kube.get(
            K.ManagedClustersAgentPool,
            ns,
            `${name}-${p.name}`,
          ),
        );
        return ap?.metadata.annotations?.[POLICY] === 'manage';
      },
    );
  }
}

const oldAsoObjects = (name: string): Array<[KindName, string]> => [
  ...pools.map(
    p =>
      ['ManagedClustersAgentPool', `${name}-${p.name}`] as [KindName, string],
  ),
  ['ManagedCluster', name],
  ['ResourceGroup', 'rg-' + name],
];

test('migrating an AzureManagedControlPlane cluster by the documented procedure keeps every Azure resource', async t => {
  const oldNs = await namespaceFor(t, 'mig-old');
  const name = 'legacy-1';
  await runningLegacyCluster(oldNs, name, `rg-${name}`);
  const start = structuredClone(env.world.counters);
  const startNetwork = structuredClone(env.world.networkCounters);

  // 1. Pause. 2. Wait for block-move to disappear from the control plane and every machine pool.
  await env.kube.mergePatch(K.Cluster, oldNs, name, { spec: { paused: true } });
  for (const [kind, n] of [
    ['AzureManagedControlPlane', name],
    ...pools.map(p => ['AzureManagedMachinePool', `${name}-${p.name}`]),
  ] as Array<[KindName, string]>) {
    await until(
      `block-move gone from ${kind} ${n}`,
      async () =>
        (
          await env.kube.get(K[kind], oldNs, n)
        )?.metadata.annotations?.[BLOCK_MOVE] === undefined,
    );
  }

  // 3. Disarm the old ASO objects: reconcile-policy skip, finalizers null. ASO adds its finalizer back on its next
  // reconcile, whatever the policy (generic_reconciler.go createOrUpdate -> claimResource); under skip its delete
  // removes it again without touching Azure, which is why step 7 still deletes nothing in Azure.
  for (const [kind, n] of oldAsoObjects(name)) {
    await env.kube.mergePatch(K[kind], oldNs, n, {
      metadata: { annotations: { [POLICY]: 'skip' }, finalizers: null },
    });
    const rearmed = await until(
      `ASO's finalizer back on the disarmed ${kind} ${n}`,
      async () => {
        const o = await env.kube.get(K[kind], oldNs, n);
        return o?.metadata.finalizers?.includes(
          'serviceoperator.azure.com/finalizer',
        )
          ? o
          : undefined;
      },
    );
    assert.equal(rearmed.metadata.annotations?.[POLICY], 'skip');
  }

  // 4. A new namespace. 5. The credential Secret copied, with metadata reduced to name and namespace.
  const newNs = await namespaceFor(t, 'mig-new');
  const oldMc = (await env.kube.get(K.ManagedCluster, oldNs, name))!;
  const secretName =
    oldMc.metadata.annotations!['serviceoperator.azure.com/credential-from'];
  const secret = (await env.kube.get(K.Secret, oldNs, secretName))!;
  assert.ok(
    secret.metadata.ownerReferences?.length,
    'the legacy credential Secret is owned by the old control plane',
  );
  await env.kube.create(K.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName, namespace: newNs },
    type: secret.type,
    data: secret.data,
  });
  const credential = {
    'serviceoperator.azure.com/credential-from': secretName,
  };

  // 6.1 The ResourceGroup, pointing at the existing group.
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      newNs,
      `rg-${name}`,
      { azureName: `rg-${name}`, location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await until('the new ResourceGroup to be Ready', async () =>
    ready(await env.kube.get(K.ResourceGroup, newNs, `rg-${name}`)),
  );
  // 6.2 The ManagedCluster, with agentPoolProfiles from the old object's status (its spec has none).
  assert.equal(
    oldMc.spec.agentPoolProfiles,
    undefined,
    'the legacy controller stripped pools from the spec',
  );
  const agentPoolProfiles = oldMc.status.agentPoolProfiles.map((p: any) => ({
    name: p.name,
    mode: p.mode,
    vmSize: p.vmSize,
    count: p.count,
    type: 'VirtualMachineScaleSets',
  }));
  await env.kube.create(
    K.ManagedCluster,
    obj(
      'ManagedCluster',
      newNs,
      name,
      {
        azureName: name,
        owner: { name: `rg-${name}` },
        location: 'westeurope',
        dnsPrefix: oldMc.spec.dnsPrefix,
        kubernetesVersion: oldMc.spec.kubernetesVersion,
        identity: { type: 'SystemAssigned' },
        agentPoolProfiles,
      },
      { annotations: { ...credential, ...ADOPT } },
    ),
  );
  await until('the new ManagedCluster to be Ready', async () =>
    ready(await env.kube.get(K.ManagedCluster, newNs, name)),
  );
  for (const kind of [
    'Cluster',
    'AzureASOManagedCluster',
    'AzureASOManagedControlPlane',
  ] as const)
    await until(`the new ${kind}`, () => env.kube.get(K[kind], newNs, name));
  // 6.3 One agent pool per node pool.
  for (const p of pools) {
    await env.kube.create(
      K.ManagedClustersAgentPool,
      obj(
        'ManagedClustersAgentPool',
        newNs,
        `${name}-${p.name}`,
        {
          azureName: p.name,
          owner: { name },
          mode: p.mode,
          vmSize: p.vmSize,
          count: p.count,
          type: 'VirtualMachineScaleSets',
        },
        { annotations: { ...credential, ...ADOPT } },
      ),
    );
  }
  for (const p of pools)
    await until(
      `the new AzureASOManagedMachinePool ${p.name}`,
      async () =>
        (
          await env.kube.get(
            K.AzureASOManagedMachinePool,
            newNs,
            `${name}-${p.name}`,
          )
        )?.status?.ready,
    );
  // 6.4 The new Cluster is Available.
  await until(
    'the new Cluster to be Available',
    async () =>
      condition(await env.kube.get(K.Cluster, newNs, name), 'Available')
        ?.status === 'True',
  );

  // 7. Force-delete the old objects, then clear finalizers in the documented order.
  const old: Array<[KindName, string]> = [
    ['Cluster', name],
    ['AzureManagedCluster', name],
    ['AzureManagedControlPlane', name],
    ...pools.flatMap(
      p =>
        [
          ['MachinePool', `${name}-${p.name}`],
          ['AzureManagedMachinePool', `${name}-${p.name}`],
        ] as Array<[KindName, string]>,
    ),
  ];
  for (const [kind, n] of old) await env.kube.delete(K[kind], oldNs, n);
  for (const [kind, n] of [
    ...pools.map(p => ['AzureManagedMachinePool', `${name}-${p.name}`]),
    ...pools.map(p => ['MachinePool', `${name}-${p.name}`]),
    ['AzureManagedControlPlane', name],
    ['Cluster', name],
  ] as Array<[KindName, string]>) {
    await env.kube
      .mergePatch(K[kind], oldNs, n, { metadata: { finalizers: null } })
      .catch(() => undefined);
  }
  for (const [kind, n] of [...old, ...oldAsoObjects(name)]) {
    await until(
      `old ${kind} ${n} to be gone from Kubernetes`,
      async () => (await env.kube.get(K[kind], oldNs, n)) === undefined,
    );
  }
  // The Azure resources remain, and nothing was deleted or created in Azure.
  assert.ok(
    env.world.getManagedCluster(SUB, `rg-${name}`, name),
    'the AKS cluster still exists',
  );
  assert.equal(
    Object.keys(
      env.world.getManagedCluster(SUB, `rg-${name}`, name)!.agentPools,
    ).length,
    2,
  );
  assert.deepEqual(env.world.counters.deleted, start.deleted);
  assert.deepEqual(env.world.counters.created, start.created);
  // The legacy control plane's VNet and subnet too: paused, CAPZ set their objects to skip, so the garbage collector
  // taking them with the old control plane leaves Azure alone (docs/real-controllers.md#findings, finding 10).
  for (const [kind, n] of [
    ['VirtualNetworksSubnet', `${name}-${name}`],
    ['VirtualNetwork', name],
  ] as Array<[KindName, string]>)
    await until(
      `old ${kind} ${n} to be gone from Kubernetes`,
      async () => (await env.kube.get(K[kind], oldNs, n)) === undefined,
    );
  assert.deepEqual(
    Object.keys(
      env.world.getVirtualNetwork(SUB, `rg-${name}`, name)?.subnets ?? {},
    ),
    [name],
  );
  assert.deepEqual(env.world.networkCounters.deleted, startNetwork.deleted);
  // The copied Secret has no owner references (a garbage collection of the old control plane cannot take it).
  assert.equal(
    (await env.kube.get(K.Secret, newNs, secretName))?.metadata.ownerReferences,
    undefined,
  );
});

for (const disarm of [false, true]) {
  test(`deleting an old AzureManagedMachinePool ${
    disarm ? 'after pausing and disarming' : 'without the disarm step'
  } ${disarm ? 'keeps' : 'deletes'} the Azure agent pool`, async t => {
    const ns = await namespaceFor(t, disarm ? 'danger-disarmed' : 'danger');
    const name = disarm ? 'legacy-safe' : 'legacy-danger';
    await runningLegacyCluster(ns, name, `rg-${name}`);
    const before = env.world.counters.deleted.agentPools;
    const poolObj = `${name}-pool1`;
    if (disarm) {
      // Steps 1-3 of the procedure: pause, wait for block-move to go, disarm.
      await env.kube.mergePatch(K.Cluster, ns, name, {
        spec: { paused: true },
      });
      await until(
        'block-move gone',
        async () =>
          (
            await env.kube.get(K.AzureManagedMachinePool, ns, poolObj)
          )?.metadata.annotations?.[BLOCK_MOVE] === undefined,
      );
      await env.kube.mergePatch(K.ManagedClustersAgentPool, ns, poolObj, {
        metadata: { annotations: { [POLICY]: 'skip' }, finalizers: null },
      });
    }
    await env.kube.delete(K.AzureManagedMachinePool, ns, poolObj);
    // Step 7: a paused object keeps its finalizer; it is removed by hand.
    if (disarm)
      await env.kube.mergePatch(K.AzureManagedMachinePool, ns, poolObj, {
        metadata: { finalizers: null },
      });
    if (disarm) {
      // The garbage collector drops the dangling reference to the AzureManagedMachinePool but keeps the object: ASO
      // made its ManagedCluster an owner too (ASO v2.18.0 internal/reconcilers/common.go ApplyOwnership). Deleting it
      // by hand, disarmed, still deletes nothing in Azure.
      await until(
        'the old agent pool object to lose its AzureManagedMachinePool owner',
        async () => {
          const refs = (
            await env.kube.get(K.ManagedClustersAgentPool, ns, poolObj)
          )?.metadata.ownerReferences;
          return (
            !!refs &&
            !refs.some(r => r.kind === 'AzureManagedMachinePool') &&
            refs.some(r => r.kind === 'ManagedCluster')
          );
        },
      );
      await env.kube.delete(K.ManagedClustersAgentPool, ns, poolObj);
    }
    await until(
      'the old agent pool object to be gone from Kubernetes',
      async () =>
        (await env.kube.get(K.ManagedClustersAgentPool, ns, poolObj)) ===
        undefined,
    );
    if (disarm) {
      assert.equal(
        env.world.counters.deleted.agentPools,
        before,
        'no Azure deletion',
      );
      assert.ok(
        env.world.getAgentPool(SUB, `rg-${name}`, name, 'pool1'),
        'the Azure agent pool still exists',
      );
    } else {
      await until(
        'ASO to delete the Azure agent pool',
        async () => !env.world.getAgentPool(SUB, `rg-${name}`, name, 'pool1'),
      );
      assert.equal(
        env.world.counters.deleted.agentPools,
        before + 1,
        'the deletion counter moved',
      );
    }
  });
}
