/** The simulated ASO's documented behaviours (azure-side 2.1, 4.1, 4.3) against the real API server. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K } from '../src/runtime/kinds.ts';
import { condition, credentialSecret, namespaceFor, obj, ready, simulatorForFile, SUB, until } from './helpers.ts';

const env = simulatorForFile();

const POLICY = 'serviceoperator.azure.com/reconcile-policy';
const credential = { 'serviceoperator.azure.com/credential-from': 'cred' };

for (const [policy, deletesInAzure] of [['manage', true], ['detach-on-delete', false], ['skip', false]] as const) {
  test(`deleting a ResourceGroup object with reconcile-policy ${policy} ${deletesInAzure ? 'deletes' : 'keeps'} the Azure group`, async t => {
    const ns = await namespaceFor(t, `policy-${policy}`);
    const rg = `rg-policy-${policy}`;
    env.world.putResourceGroup(SUB, rg, { location: 'westeurope' }); // exists already: the object adopts it (4.2)
    await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
    await env.kube.create(K.ResourceGroup, obj('ResourceGroup', ns, rg, { location: 'westeurope' }, { annotations: { ...credential, [POLICY]: policy } }));
    const live = await until('Ready', async () => ready(await env.kube.get(K.ResourceGroup, ns, rg)));
    assert.equal((live.metadata.finalizers ?? []).includes('serviceoperator.azure.com/finalizer'), policy !== 'skip');
    const before = env.world.counters.deleted.resourceGroups;
    await env.kube.delete(K.ResourceGroup, ns, rg);
    await until('the object to be gone', async () => (await env.kube.get(K.ResourceGroup, ns, rg)) === undefined);
    assert.equal(env.world.counters.deleted.resourceGroups - before, deletesInAzure ? 1 : 0);
    assert.equal(Boolean(env.world.getResourceGroup(SUB, rg)), !deletesInAzure);
  });
}

test('a missing credential Secret is Ready=False SecretNotFound until the Secret is created', async t => {
  const ns = await namespaceFor(t, 'no-secret');
  await env.kube.create(K.ResourceGroup, obj('ResourceGroup', ns, 'rg-nosecret', { location: 'westeurope' }, { annotations: credential }));
  const c = await until('SecretNotFound', async () => {
    const x = condition(await env.kube.get(K.ResourceGroup, ns, 'rg-nosecret'), 'Ready');
    return x?.reason === 'SecretNotFound' ? x : undefined;
  });
  assert.equal(c.status, 'False');
  assert.equal(c.severity, 'Warning');
  assert.match(c.message, new RegExp(`credential secret "${ns}/cred" not found`));
  assert.equal(env.world.getResourceGroup(SUB, 'rg-nosecret'), undefined, 'nothing was created in Azure');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await until('Ready once the Secret exists', async () => ready(await env.kube.get(K.ResourceGroup, ns, 'rg-nosecret')));
  assert.ok(env.world.getResourceGroup(SUB, 'rg-nosecret'));
});

test('reconcile-policy skip on a resource missing in Azure is AzureResourceNotFound and creates nothing', async t => {
  const ns = await namespaceFor(t, 'skip-missing');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  const created = env.world.counters.created.resourceGroups;
  await env.kube.create(K.ResourceGroup, obj('ResourceGroup', ns, 'rg-missing', { location: 'westeurope' }, { annotations: { ...credential, [POLICY]: 'skip' } }));
  const c = await until('AzureResourceNotFound', async () => {
    const x = condition(await env.kube.get(K.ResourceGroup, ns, 'rg-missing'), 'Ready');
    return x?.reason === 'AzureResourceNotFound' ? x : undefined;
  });
  assert.equal(c.severity, 'Warning');
  assert.equal(env.world.counters.created.resourceGroups, created);
});

test('a forced failure shows as the Ready condition with its reason and severity, and clears', async t => {
  const ns = await namespaceFor(t, 'forced');
  await env.kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await env.kube.create(K.ResourceGroup, obj('ResourceGroup', ns, 'rg-forced', { location: 'westeurope' }, { annotations: credential }));
  await until('Ready', async () => ready(await env.kube.get(K.ResourceGroup, ns, 'rg-forced')));
  env.sim.aso.forceFailure('ResourceGroup', ns, 'rg-forced', { reason: 'Failed', severity: 'Error', message: 'simulated failure' });
  const c = await until('the forced failure', async () => {
    const x = condition(await env.kube.get(K.ResourceGroup, ns, 'rg-forced'), 'Ready');
    return x?.reason === 'Failed' ? x : undefined;
  });
  assert.deepEqual([c.status, c.severity, c.message], ['False', 'Error', 'simulated failure']);
  env.sim.aso.forceFailure('ResourceGroup', ns, 'rg-forced', undefined);
  await until('Ready again', async () => ready(await env.kube.get(K.ResourceGroup, ns, 'rg-forced')));
});
