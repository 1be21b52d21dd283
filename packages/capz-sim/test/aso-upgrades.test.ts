/**
 * What ASO shows of the simulated AKS's version lifecycle, against the real API server: an auto-upgrade channel moving
 * the cluster's version (docs/azure-facts.md#aks-auto-upgrade) reaches the ManagedCluster's status, and an upgrade AKS
 * fails (docs/azure-facts.md#aks-upgrade-failed) reaches its Ready condition as every ARM error does
 * (docs/capz-aso-facts.md#aso-conditions).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K } from '../src/runtime/kinds.ts';
import type { Obj } from '../src/runtime/types.ts';
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
const credential = { 'serviceoperator.azure.com/credential-from': 'cred' };

/** A ResourceGroup and a ManagedCluster on `version`, both Ready. */
async function readyCluster(
  ns: string,
  name: string,
  version: string,
  extra: Record<string, unknown> = {},
): Promise<Obj> {
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      `rg-${name}`,
      { location: 'westeurope' },
      { annotations: credential },
    ),
  );
  await env.kube.create(
    K.ManagedCluster,
    obj(
      'ManagedCluster',
      ns,
      name,
      {
        owner: { name: `rg-${name}` },
        location: 'westeurope',
        dnsPrefix: name,
        kubernetesVersion: version,
        agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
        ...extra,
      },
      { annotations: credential },
    ),
  );
  return until(`ManagedCluster ${name} Ready`, async () =>
    ready(await env.kube.get(K.ManagedCluster, ns, name)),
  );
}

test("an auto-upgrade channel moves the cluster's version in Azure, and ASO's status follows", async t => {
  const ns = await namespaceFor(t, 'auto-upgrade');
  const before = await readyCluster(ns, 'aks-auto', '1.32.5', {
    autoUpgradeProfile: { upgradeChannel: 'patch' },
  });
  assert.equal(before.status.currentKubernetesVersion, '1.32.5');
  assert.deepEqual(before.status.autoUpgradeProfile, {
    upgradeChannel: 'patch',
  });
  const started = env.world.autoUpgradeNow();
  assert.deepEqual(
    started.map(u => [u.name, u.from, u.to]),
    [['aks-auto', '1.32.5', '1.32.6']],
  );
  env.world.completePendingOperations();
  const after = await until('the status to show 1.32.6', async () => {
    const o = ready(await env.kube.get(K.ManagedCluster, ns, 'aks-auto'));
    return o?.status?.currentKubernetesVersion === '1.32.6' ? o : undefined;
  });
  assert.equal(after.status.kubernetesVersion, '1.32.6');
  assert.equal(
    after.status.agentPoolProfiles[0].currentOrchestratorVersion,
    '1.32.6',
  );
  assert.equal(
    env.world.getManagedCluster(SUB, 'rg-aks-auto', 'aks-auto')
      ?.currentKubernetesVersion,
    '1.32.6',
  );
});

test('an upgrade AKS fails on demand: Ready False with UpgradeFailed and its message, the version kept; lifted, the next spec change upgrades', async t => {
  const ns = await namespaceFor(t, 'upgrade-fails');
  await readyCluster(ns, 'aks-fail', '1.32.6');
  env.world.failUpgrade({ version: '1.33.2', cluster: 'aks-fail' });
  t.after(() => env.world.clearUpgradeFailures());
  await env.kube.mergePatch(K.ManagedCluster, ns, 'aks-fail', {
    spec: { kubernetesVersion: '1.33.2' },
  });
  const failed = await until('Ready False UpgradeFailed', async () => {
    const o = await env.kube.get(K.ManagedCluster, ns, 'aks-fail');
    const r = condition(o, 'Ready');
    return r?.status === 'False' &&
      r.reason === 'UpgradeFailed' &&
      r.observedGeneration === o?.metadata.generation
      ? o
      : undefined;
  });
  const r = condition(failed, 'Ready');
  assert.equal(r.severity, 'Error');
  assert.match(r.message, /^Drain node aks-system-.* Pod Disruption Budget/);
  assert.equal(failed.status.currentKubernetesVersion, '1.32.6');
  const mc = env.world.getManagedCluster(SUB, 'rg-aks-fail', 'aks-fail')!;
  assert.equal(mc.provisioningState, 'Failed');
  assert.equal(mc.currentKubernetesVersion, '1.32.6');

  env.world.clearUpgradeFailures();
  await env.kube.mergePatch(K.ManagedCluster, ns, 'aks-fail', {
    spec: { tags: { retry: '1' } },
  });
  const upgraded = await until('Ready on 1.33.2', async () => {
    const o = ready(await env.kube.get(K.ManagedCluster, ns, 'aks-fail'));
    return o?.status?.currentKubernetesVersion === '1.33.2' ? o : undefined;
  });
  assert.equal(upgraded.status.provisioningState, 'Succeeded');
});
