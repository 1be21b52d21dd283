/** The simulated ASO's documented behaviours (azure-side 2.1, 4.1, 4.3) against the real API server. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AzureWorld } from '../src/azure/model.ts';
import { K } from '../src/runtime/kinds.ts';
import type { Kube } from '../src/runtime/kube.ts';
import type { Simulator } from '../src/simulator.ts';
import { condition, credentialSecret, namespaceFor, obj, ready, startSimulator, SUB, until } from './helpers.ts';

let sim: Simulator;
let world: AzureWorld;
let kube: Kube;
before(async () => ({ sim, world, kube } = await startSimulator()));
after(() => sim.stop());

const POLICY = 'serviceoperator.azure.com/reconcile-policy';
const credential = { 'serviceoperator.azure.com/credential-from': 'cred' };

for (const [policy, deletesInAzure] of [['manage', true], ['detach-on-delete', false], ['skip', false]] as const) {
  test(`deleting a ResourceGroup object with reconcile-policy ${policy} ${deletesInAzure ? 'deletes' : 'keeps'} the Azure group`, async t => {
    const ns = await namespaceFor(t, `policy-${policy}`);
    const rg = `rg-policy-${policy}`;
    world.putResourceGroup(SUB, rg, { location: 'westeurope' }); // exists already: the object adopts it (4.2)
    await kube.create(K.Secret, credentialSecret(ns, 'cred'));
    await kube.create(K.ResourceGroup, obj('ResourceGroup', ns, rg, { location: 'westeurope' }, { annotations: { ...credential, [POLICY]: policy } }));
    const live = await until('Ready', async () => ready(await kube.get(K.ResourceGroup, ns, rg)));
    assert.equal((live.metadata.finalizers ?? []).includes('serviceoperator.azure.com/finalizer'), policy !== 'skip');
    const before = world.counters.deleted.resourceGroups;
    await kube.delete(K.ResourceGroup, ns, rg);
    await until('the object to be gone', async () => (await kube.get(K.ResourceGroup, ns, rg)) === undefined);
    assert.equal(world.counters.deleted.resourceGroups - before, deletesInAzure ? 1 : 0);
    assert.equal(Boolean(world.getResourceGroup(SUB, rg)), !deletesInAzure);
  });
}

test('a missing credential Secret is Ready=False SecretNotFound until the Secret is created', async t => {
  const ns = await namespaceFor(t, 'no-secret');
  await kube.create(K.ResourceGroup, obj('ResourceGroup', ns, 'rg-nosecret', { location: 'westeurope' }, { annotations: credential }));
  const c = await until('SecretNotFound', async () => {
    const x = condition(await kube.get(K.ResourceGroup, ns, 'rg-nosecret'), 'Ready');
    return x?.reason === 'SecretNotFound' ? x : undefined;
  });
  assert.equal(c.status, 'False');
  assert.equal(c.severity, 'Warning');
  assert.match(c.message, new RegExp(`credential secret "${ns}/cred" not found`));
  assert.equal(world.getResourceGroup(SUB, 'rg-nosecret'), undefined, 'nothing was created in Azure');
  await kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await until('Ready once the Secret exists', async () => ready(await kube.get(K.ResourceGroup, ns, 'rg-nosecret')));
  assert.ok(world.getResourceGroup(SUB, 'rg-nosecret'));
});

test('reconcile-policy skip on a resource missing in Azure is AzureResourceNotFound and creates nothing', async t => {
  const ns = await namespaceFor(t, 'skip-missing');
  await kube.create(K.Secret, credentialSecret(ns, 'cred'));
  const created = world.counters.created.resourceGroups;
  await kube.create(K.ResourceGroup, obj('ResourceGroup', ns, 'rg-missing', { location: 'westeurope' }, { annotations: { ...credential, [POLICY]: 'skip' } }));
  const c = await until('AzureResourceNotFound', async () => {
    const x = condition(await kube.get(K.ResourceGroup, ns, 'rg-missing'), 'Ready');
    return x?.reason === 'AzureResourceNotFound' ? x : undefined;
  });
  assert.equal(c.severity, 'Warning');
  assert.equal(world.counters.created.resourceGroups, created);
});

test('a forced failure shows as the Ready condition with its reason and severity, and clears', async t => {
  const ns = await namespaceFor(t, 'forced');
  await kube.create(K.Secret, credentialSecret(ns, 'cred'));
  await kube.create(K.ResourceGroup, obj('ResourceGroup', ns, 'rg-forced', { location: 'westeurope' }, { annotations: credential }));
  await until('Ready', async () => ready(await kube.get(K.ResourceGroup, ns, 'rg-forced')));
  sim.aso.forceFailure('ResourceGroup', ns, 'rg-forced', { reason: 'Failed', severity: 'Error', message: 'simulated failure' });
  const c = await until('the forced failure', async () => {
    const x = condition(await kube.get(K.ResourceGroup, ns, 'rg-forced'), 'Ready');
    return x?.reason === 'Failed' ? x : undefined;
  });
  assert.deepEqual([c.status, c.severity, c.message], ['False', 'Error', 'simulated failure']);
  sim.aso.forceFailure('ResourceGroup', ns, 'rg-forced', undefined);
  await until('Ready again', async () => ready(await kube.get(K.ResourceGroup, ns, 'rg-forced')));
});
