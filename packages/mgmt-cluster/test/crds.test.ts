import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiGet } from '../src/cluster.ts';
import { loadCrds, patchCrd, type Crd } from '../src/crds.ts';
import { testCluster } from '../src/testing.ts';

/** What the README promises: version -> [served, stored]. */
const expected: Record<string, Record<string, string>> = {
  'cluster.x-k8s.io': { clusters: 'v1beta2', machinepools: 'v1beta2' },
  'infrastructure.cluster.x-k8s.io': {
    azureasomanagedclusters: 'v1beta1',
    azureasomanagedcontrolplanes: 'v1beta1',
    azureasomanagedmachinepools: 'v1beta1',
    azuremanagedclusters: 'v1beta1',
    azuremanagedcontrolplanes: 'v1beta1',
    azuremanagedmachinepools: 'v1beta1',
  },
  'containerservice.azure.com': {
    managedclusters: 'v1api20240901',
    managedclustersagentpools: 'v1api20240901',
  },
  'resources.azure.com': { resourcegroups: 'v1api20200601' },
  // The legacy control plane's VNet and subnet (docs/real-controllers.md#findings, 10).
  'network.azure.com': {
    virtualnetworks: 'v1api20201101',
    virtualnetworkssubnets: 'v1api20201101',
  },
};

test('every kind the plugins use is served and stored at the documented version', async () => {
  const info = testCluster();
  const crds = JSON.parse(
    (
      await apiGet(
        info,
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      )
    ).body,
  ).items as Crd[];
  for (const [group, plurals] of Object.entries(expected)) {
    for (const [plural, stored] of Object.entries(plurals)) {
      const crd = crds.find(c => c.metadata.name === `${plural}.${group}`);
      assert.ok(crd, `${plural}.${group} is installed`);
      assert.deepEqual(
        (crd as any).status.storedVersions,
        [stored],
        `${plural}.${group} stores ${stored}`,
      );
      assert.equal(crd.spec.conversion?.strategy, 'None');
    }
  }
  const aso = crds.find(
    c =>
      c.metadata.name ===
      'azureasomanagedcontrolplanes.infrastructure.cluster.x-k8s.io',
  )!;
  assert.deepEqual(
    aso.spec.versions.map(v => [v.name, v.served]),
    [
      ['v1alpha1', true],
      ['v1beta1', true],
    ],
  );
  assert.equal(
    aso.metadata.labels?.['cluster.x-k8s.io/v1beta1'],
    'v1beta1',
    'CAPI contract label from the kustomize patch',
  );
});

test('patchCrd disables webhook conversion and moves the storage version', () => {
  const crd = loadCrds().find(
    c => c.metadata.name === 'resourcegroups.resources.azure.com',
  )!;
  const input = structuredClone(crd);
  input.spec.conversion = {
    strategy: 'Webhook',
    webhook: { clientConfig: { service: { name: 'x' } } },
  };
  input.metadata.annotations = { 'cert-manager.io/inject-ca-from': 'ns/cert' };
  const out = patchCrd(input, {
    storage: { 'resourcegroups.resources.azure.com': 'v1api20200601storage' },
  });
  assert.deepEqual(out.spec.conversion, { strategy: 'None' });
  assert.equal(out.metadata.annotations, undefined);
  assert.deepEqual(
    out.spec.versions.filter(v => v.storage).map(v => v.name),
    ['v1api20200601storage'],
  );
  assert.throws(
    () =>
      patchCrd(input, {
        storage: { 'resourcegroups.resources.azure.com': 'v9' },
      }),
    /does not serve v9/,
  );
});
