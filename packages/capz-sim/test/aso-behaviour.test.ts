/** The simulated ASO's documented behaviours (docs/capz-aso-facts.md#aso-credential-scope, docs/capz-aso-facts.md#reconcile-policy, docs/capz-aso-facts.md#aso-conditions) against the real API server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K } from '../src/runtime/kinds.ts';
import {
  condition,
  credentialSecret,
  namespaceFor,
  obj,
  ready,
  simulatorForFile,
  SUB,
  until,
} from './helpers.ts';

const env = simulatorForFile();

const POLICY = 'serviceoperator.azure.com/reconcile-policy';
const FINALIZER = 'serviceoperator.azure.com/finalizer';
const credential = { 'serviceoperator.azure.com/credential-from': 'cred' };

for (const [policy, deletesInAzure] of [
  ['manage', true],
  ['detach-on-delete', false],
  ['skip', false],
] as const) {
  test(`deleting a ResourceGroup object with reconcile-policy ${policy} ${
    deletesInAzure ? 'deletes' : 'keeps'
  } the Azure group`, async t => {
    const ns = await namespaceFor(t, `policy-${policy}`);
    const rg = `rg-policy-${policy}`;
    // Exists already: the object adopts it (docs/capz-aso-facts.md#aso-adoption).
    env.world.putResourceGroup(SUB, rg, { location: 'westeurope' });
    await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
    await env.kube.create(
      K.ResourceGroup,
      obj(
        'ResourceGroup',
        ns,
        rg,
        { location: 'westeurope' },
        { annotations: { ...credential, [POLICY]: policy } },
      ),
    );
    const live = await until('Ready', async () =>
      ready(await env.kube.get(K.ResourceGroup, ns, rg)),
    );
    // Whatever the policy: claimResource adds it before the policy is read (generic_reconciler.go createOrUpdate).
    assert.ok((live.metadata.finalizers ?? []).includes(FINALIZER));
    const before = env.world.counters.deleted.resourceGroups;
    await env.kube.delete(K.ResourceGroup, ns, rg);
    await until(
      'the object to be gone',
      async () => (await env.kube.get(K.ResourceGroup, ns, rg)) === undefined,
    );
    assert.equal(
      env.world.counters.deleted.resourceGroups - before,
      deletesInAzure ? 1 : 0,
    );
    assert.equal(Boolean(env.world.getResourceGroup(SUB, rg)), !deletesInAzure);
  });
}

test("disarmed (skip, finalizers null), an object gets ASO's finalizer back, and deleting it leaves Azure untouched", async t => {
  // generic_reconciler.go: createOrUpdate -> claimResource adds the finalizer before mergeReconcilePolicy; delete
  // under a policy that does not AllowsDelete() removes it without calling Azure.
  const ns = await namespaceFor(t, 'disarm');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-disarm',
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await env.kube.create(
    K.ManagedCluster,
    obj(
      'ManagedCluster',
      ns,
      'aks-disarm',
      {
        owner: { name: 'rg-disarm' },
        location: 'westeurope',
        dnsPrefix: 'aks-disarm',
        agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
      },
      { annotations: credential },
    ),
  );
  for (const [kind, name] of [
    ['ResourceGroup', 'rg-disarm'],
    ['ManagedCluster', 'aks-disarm'],
  ] as const) {
    await until(`${kind} Ready with the finalizer`, async () => {
      const o = ready(await env.kube.get(K[kind], ns, name));
      return o?.metadata.finalizers?.includes(FINALIZER) ? o : undefined;
    });
  }
  const deleted = structuredClone(env.world.counters.deleted);
  for (const [kind, name] of [
    ['ManagedCluster', 'aks-disarm'],
    ['ResourceGroup', 'rg-disarm'],
  ] as const) {
    await env.kube.mergePatch(K[kind], ns, name, {
      metadata: { annotations: { [POLICY]: 'skip' }, finalizers: null },
    });
    const back = await until(
      `ASO to add its finalizer to the disarmed ${kind} again`,
      async () => {
        const o = await env.kube.get(K[kind], ns, name);
        return o?.metadata.finalizers?.includes(FINALIZER) ? o : undefined;
      },
    );
    assert.equal(back.metadata.annotations?.[POLICY], 'skip');
  }
  await env.kube.delete(K.ManagedCluster, ns, 'aks-disarm');
  await env.kube.delete(K.ResourceGroup, ns, 'rg-disarm');
  for (const [kind, name] of [
    ['ManagedCluster', 'aks-disarm'],
    ['ResourceGroup', 'rg-disarm'],
  ] as const) {
    await until(
      `the ${kind} to be gone from Kubernetes`,
      async () => (await env.kube.get(K[kind], ns, name)) === undefined,
    );
  }
  assert.deepEqual(env.world.counters.deleted, deleted, 'no Azure deletion');
  assert.equal(
    env.world.getManagedCluster(SUB, 'rg-disarm', 'aks-disarm')
      ?.provisioningState,
    'Succeeded',
  );
});

test('an object blocked on its owner or its credential is not claimed: no finalizer yet', async t => {
  const ns = await namespaceFor(t, 'unclaimed');
  await env.kube.create(
    K.ManagedCluster,
    obj(
      'ManagedCluster',
      ns,
      'orphan',
      { owner: { name: 'rg-missing' }, location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-nocred',
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  const mc = await until('WaitingForOwner', async () => {
    const o = await env.kube.get(K.ManagedCluster, ns, 'orphan');
    return condition(o, 'Ready')?.reason === 'WaitingForOwner' ? o : undefined;
  });
  // Real ASO reports a missing credential Secret as a generic failure (docs/real-controllers.md#findings, finding 6).
  const rg = await until('Failed (credential missing)', async () => {
    const o = await env.kube.get(K.ResourceGroup, ns, 'rg-nocred');
    return condition(o, 'Ready')?.reason === 'Failed' ? o : undefined;
  });
  assert.equal(mc.metadata.finalizers, undefined);
  assert.equal(rg.metadata.finalizers, undefined);
  // Real ASO's words (internal/reconcilers/common.go ClaimResource; docs/real-controllers.md#findings, finding 7) and
  // its message for a missing credential-from Secret (finding 6).
  assert.equal(
    condition(mc, 'Ready')?.message,
    'Owner "rg-missing, Group/Kind: resources.azure.com/ResourceGroup" cannot be found. Progress is blocked until the owner is created.',
  );
  assert.equal(condition(rg, 'Ready')?.severity, 'Warning');
  // ASO marks every object it reconciles with its own namespace (generic_reconciler.go takeOwnership; finding 8).
  for (const o of [mc, rg])
    assert.equal(
      o.metadata.annotations?.['serviceoperator.azure.com/operator-namespace'],
      'capz-system',
    );
  assert.match(
    condition(rg, 'Ready')?.message,
    /^.+\/[^ ]+ does not exist \(credential secret not found: Secret "[^"]+" not found\)$/,
  );
});

test('ASO PUTs the spec as it is and status follows Azure: tags, labels and taints a spec drops are gone from both', async t => {
  const ns = await namespaceFor(t, 'replace');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-replace',
      {
        location: 'westeurope',
        tags: { 'cost-center': 'data', owner: 'team' },
      },
      { annotations: credential },
    ),
  );
  await env.kube.create(
    K.ManagedCluster,
    obj(
      'ManagedCluster',
      ns,
      'aks-replace',
      {
        owner: { name: 'rg-replace' },
        location: 'westeurope',
        dnsPrefix: 'aks-replace',
        tags: { env: 'prod' },
        agentPoolProfiles: [
          {
            name: 'system',
            mode: 'System',
            count: 1,
            nodeTaints: ['CriticalAddonsOnly=true:NoSchedule'],
            nodeLabels: { tier: 'system' },
            tags: { t: '1' },
          },
        ],
      },
      { annotations: credential },
    ),
  );
  const mc = await until('the ManagedCluster Ready', async () =>
    ready(await env.kube.get(K.ManagedCluster, ns, 'aks-replace')),
  );
  // ASO v1api20240901 status names (ManagedClusterAgentPoolProfile_STATUS).
  const profile = mc.status.agentPoolProfiles[0];
  assert.deepEqual(
    [
      profile.nodeTaints,
      profile.nodeLabels,
      profile.tags,
      profile.osSKU,
      profile.osDiskSizeGB,
      profile.maxPods,
      profile.osType,
    ],
    [
      ['CriticalAddonsOnly=true:NoSchedule'],
      { tier: 'system' },
      { t: '1' },
      'Ubuntu',
      128,
      30,
      'Linux',
    ],
  );
  assert.deepEqual(mc.status.tags, { env: 'prod' });
  // A pool object for the same Azure pool that leaves labels, taints and tags out: ASO's PUT removes them in Azure.
  await env.kube.create(
    K.ManagedClustersAgentPool,
    obj(
      'ManagedClustersAgentPool',
      ns,
      'aks-replace-system',
      {
        azureName: 'system',
        owner: { name: 'aks-replace' },
        mode: 'System',
        count: 1,
      },
      { annotations: credential },
    ),
  );
  const pool = await until('the agent pool Ready without labels', async () => {
    const o = ready(
      await env.kube.get(K.ManagedClustersAgentPool, ns, 'aks-replace-system'),
    );
    return o && o.status.nodeLabels === undefined ? o : undefined;
  });
  assert.deepEqual(
    [pool.status.nodeTaints, pool.status.tags, pool.status.properties_type],
    [undefined, undefined, 'VirtualMachineScaleSets'],
  );
  assert.deepEqual(
    env.world.getAgentPool(SUB, 'rg-replace', 'aks-replace', 'system')!
      .nodeTaints,
    [],
  );
  // The group's tags: a spec with fewer tags replaces them, and status loses the dropped one.
  await env.kube.mergePatch(K.ResourceGroup, ns, 'rg-replace', {
    spec: { tags: { 'cost-center': null } },
  });
  await until('the group status to show the replaced tags', async () => {
    const o = await env.kube.get(K.ResourceGroup, ns, 'rg-replace');
    return (
      ready(o) &&
      JSON.stringify(o!.status.tags) === JSON.stringify({ owner: 'team' })
    );
  });
  assert.deepEqual(env.world.getResourceGroup(SUB, 'rg-replace')!.tags, {
    owner: 'team',
  });
});

test('a missing credential Secret is Ready=False Failed (Warning), worded as real ASO words it, until the Secret is created', async t => {
  const ns = await namespaceFor(t, 'no-secret');
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-nosecret',
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  const c = await until('Failed', async () => {
    const x = condition(
      await env.kube.get(K.ResourceGroup, ns, 'rg-nosecret'),
      'Ready',
    );
    return x?.reason === 'Failed' ? x : undefined;
  });
  assert.equal(c.status, 'False');
  assert.equal(c.severity, 'Warning');
  // As the real ASO v2.18.0 wrote it for CAPZ's aks-aso template (docs/real-controllers.md#findings, finding 6).
  assert.equal(
    c.message,
    `${ns}/cred does not exist (credential secret not found: Secret "cred" not found)`,
  );
  assert.equal(
    env.world.getResourceGroup(SUB, 'rg-nosecret'),
    undefined,
    'nothing was created in Azure',
  );
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await until('Ready once the Secret exists', async () =>
    ready(await env.kube.get(K.ResourceGroup, ns, 'rg-nosecret')),
  );
  assert.ok(env.world.getResourceGroup(SUB, 'rg-nosecret'));
});

test('reconcile-policy skip on a resource missing in Azure is AzureResourceNotFound and creates nothing', async t => {
  const ns = await namespaceFor(t, 'skip-missing');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  const created = env.world.counters.created.resourceGroups;
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-missing',
      { location: 'westeurope' },
      { annotations: { ...credential, [POLICY]: 'skip' } },
    ),
  );
  const c = await until('AzureResourceNotFound', async () => {
    const x = condition(
      await env.kube.get(K.ResourceGroup, ns, 'rg-missing'),
      'Ready',
    );
    return x?.reason === 'AzureResourceNotFound' ? x : undefined;
  });
  assert.equal(c.severity, 'Warning');
  assert.equal(env.world.counters.created.resourceGroups, created);
});

test('a forced failure shows as the Ready condition with its reason and severity, and clears', async t => {
  const ns = await namespaceFor(t, 'forced');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-forced',
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await until('Ready', async () =>
    ready(await env.kube.get(K.ResourceGroup, ns, 'rg-forced')),
  );
  env.sim.aso.forceFailure('ResourceGroup', ns, 'rg-forced', {
    reason: 'Failed',
    severity: 'Error',
    message: 'simulated failure',
  });
  const c = await until('the forced failure', async () => {
    const x = condition(
      await env.kube.get(K.ResourceGroup, ns, 'rg-forced'),
      'Ready',
    );
    return x?.reason === 'Failed' ? x : undefined;
  });
  assert.deepEqual(
    [c.status, c.severity, c.message],
    ['False', 'Error', 'simulated failure'],
  );
  env.sim.aso.forceFailure('ResourceGroup', ns, 'rg-forced', undefined);
  await until('Ready again', async () =>
    ready(await env.kube.get(K.ResourceGroup, ns, 'rg-forced')),
  );
});
