/**
 * The adoption errors of docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#adopt-agent-pool and
 * docs/capz-aso-facts.md#adoption-order, with the messages the controllers report, and that adoption resumes once the
 * precondition holds (every create ignores AlreadyExists).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K } from '../src/runtime/kinds.ts';
import { azureOnlyCluster } from '../src/scenarios/seed.ts';
import {
  credentialSecret,
  namespaceFor,
  obj,
  ready,
  simulatorForFile,
  SUB,
  until,
} from './helpers.ts';

const env = simulatorForFile();

const ADOPT = { 'sigs.k8s.io/cluster-api-provider-azure-adopt': 'true' };
const credential = {
  'serviceoperator.azure.com/credential-from': 'aso-credential',
};
const pools = [
  {
    name: 'pool0',
    mode: 'System' as const,
    count: 1,
    vmSize: 'Standard_D2s_v3',
  },
];

const managedCluster = (ns: string, name: string, rg: string) =>
  obj(
    'ManagedCluster',
    ns,
    name,
    {
      owner: { name: rg },
      location: 'westeurope',
      agentPoolProfiles: pools.map(p => ({ ...p })),
    },
    { annotations: { ...credential, ...ADOPT } },
  );

test('a ManagedCluster adopted before its ResourceGroup object exists fails until the group is created', async t => {
  const ns = await namespaceFor(t, 'adopt-no-rg');
  azureOnlyCluster(env.world, SUB, 'rg-norg', 'aks-norg', { pools });
  await env.kube.create(K.Secret, credentialSecret(ns, 'aso-credential'));
  await env.kube.create(
    K.ManagedCluster,
    managedCluster(ns, 'aks-norg', 'rg-norg'),
  );

  const error = await until('the adoption error', async () =>
    env.sim.adoption.lastError.get(`ManagedCluster/${ns}/aks-norg`),
  );
  assert.equal(
    error,
    `failed to get ResourceGroup ${ns}/rg-norg: resourcegroups.resources.azure.com "rg-norg" not found`,
  );
  // Step 2 already happened (the Cluster), steps 4 and 6 did not.
  assert.ok(await env.kube.get(K.Cluster, ns, 'aks-norg'));
  assert.equal(
    await env.kube.get(K.AzureASOManagedControlPlane, ns, 'aks-norg'),
    undefined,
  );
  // ASO itself waits on the owner, with its own reason.
  const waiting = await until('ASO to report WaitingForOwner', async () => {
    const c = (
      await env.kube.get(K.ManagedCluster, ns, 'aks-norg')
    )?.status?.conditions?.find((x: { type: string }) => x.type === 'Ready');
    return c?.reason === 'WaitingForOwner' ? c : undefined;
  });
  assert.equal(waiting.severity, 'Warning');

  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-norg',
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await until('the adoption to resume and create the control plane', () =>
    env.kube.get(K.AzureASOManagedControlPlane, ns, 'aks-norg'),
  );
  await until(
    'the error to clear',
    async () =>
      !env.sim.adoption.lastError.has(`ManagedCluster/${ns}/aks-norg`),
  );
});

test('an agent pool adopted before its ManagedCluster is owned by an AzureASOManagedControlPlane fails until it is', async t => {
  const ns = await namespaceFor(t, 'adopt-pool-first');
  azureOnlyCluster(env.world, SUB, 'rg-poolfirst', 'aks-poolfirst', { pools });
  await env.kube.create(K.Secret, credentialSecret(ns, 'aso-credential'));
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      'rg-poolfirst',
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await until('the ResourceGroup to be Ready', async () =>
    ready(await env.kube.get(K.ResourceGroup, ns, 'rg-poolfirst')),
  );
  // The ManagedCluster exists but is not annotated for adoption yet: nothing owns it.
  const mc = managedCluster(ns, 'aks-poolfirst', 'rg-poolfirst');
  mc.metadata.annotations = credential;
  await env.kube.create(K.ManagedCluster, mc);
  await env.kube.create(
    K.ManagedClustersAgentPool,
    obj(
      'ManagedClustersAgentPool',
      ns,
      'aks-poolfirst-pool0',
      {
        azureName: 'pool0',
        owner: { name: 'aks-poolfirst' },
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        count: 1,
        type: 'VirtualMachineScaleSets',
      },
      { annotations: { ...credential, ...ADOPT } },
    ),
  );

  const error = await until('the agent pool adoption error', async () =>
    env.sim.adoption.lastError.get(
      `ManagedClustersAgentPool/${ns}/aks-poolfirst-pool0`,
    ),
  );
  assert.equal(
    error,
    `ManagedCluster ${ns}/aks-poolfirst is not owned by any AzureASOManagedControlPlane`,
  );
  assert.equal(
    await env.kube.get(K.MachinePool, ns, 'aks-poolfirst-pool0'),
    undefined,
  );

  // Annotating the ManagedCluster (an update that changes the adopt annotation) adopts it; then the pool follows.
  await env.kube.mergePatch(K.ManagedCluster, ns, 'aks-poolfirst', {
    metadata: { annotations: ADOPT },
  });
  const mp = await until(
    'the MachinePool once the control plane owns the ManagedCluster',
    () => env.kube.get(K.MachinePool, ns, 'aks-poolfirst-pool0'),
  );
  assert.equal(mp.spec.clusterName, 'aks-poolfirst');
  assert.equal(
    mp.spec.replicas,
    1,
    'count moved from the pool to the MachinePool',
  );
  const amp = await until('the AzureASOManagedMachinePool', () =>
    env.kube.get(K.AzureASOManagedMachinePool, ns, 'aks-poolfirst-pool0'),
  );
  assert.equal(
    amp.spec.resources[0].spec.count,
    undefined,
    'count is removed from the embedded copy',
  );
});

test('the API server itself rejects an agent pool without an owner (the CRD requires spec.owner)', async t => {
  const ns = await namespaceFor(t, 'adopt-no-owner');
  await assert.rejects(
    env.kube.create(
      K.ManagedClustersAgentPool,
      obj(
        'ManagedClustersAgentPool',
        ns,
        'orphan',
        { azureName: 'orphan', mode: 'User' },
        { annotations: ADOPT },
      ),
    ),
    /spec.owner: Required value/,
  );
});
