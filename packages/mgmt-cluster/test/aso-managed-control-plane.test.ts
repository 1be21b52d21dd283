import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testNamespace } from '../src/testing.ts';
import { CAPZ, customObjects } from './helpers.ts';

// The embedded ManagedCluster is a literal ASO object (docs/capz-aso-facts.md#spec-resources): spec.resources is a list
// of RawExtension with x-kubernetes-preserve-unknown-fields, so every field must survive the round trip.
const managedCluster = {
  apiVersion: 'containerservice.azure.com/v1api20240901',
  kind: 'ManagedCluster',
  metadata: {
    name: 'aks-one',
    annotations: {
      'serviceoperator.azure.com/credential-from': 'aso-credential',
    },
  },
  spec: {
    dnsPrefix: 'aks-one',
    identity: { type: 'SystemAssigned' },
    location: 'westeurope',
    networkProfile: { networkPlugin: 'azure' },
    owner: { name: 'aks-one' },
    servicePrincipalProfile: { clientId: 'msi' },
  },
};

test('an AzureASOManagedControlPlane (v1beta1) embedding a ManagedCluster round-trips through the real API server', async t => {
  const namespace = await testNamespace(t, 'aso-cp');
  const api = customObjects();
  const created = await api.createNamespacedCustomObject({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    body: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      metadata: { name: 'aks-one' },
      spec: { version: 'v1.33.2', resources: [managedCluster] },
    },
  });
  assert.ok(created.metadata.uid, 'the server assigns a uid');

  const read = await api.getNamespacedCustomObject({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    name: 'aks-one',
  });
  assert.equal(read.apiVersion, 'infrastructure.cluster.x-k8s.io/v1beta1');
  assert.equal(read.spec.version, 'v1.33.2');
  assert.deepEqual(read.spec.resources, [managedCluster]);

  // v1alpha1 is still served with the identical schema (docs/capz-aso-facts.md#aso-managed-versions); the same object
  // reads back there.
  const alpha = await api.getNamespacedCustomObject({
    group: CAPZ.group,
    version: 'v1alpha1',
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    name: 'aks-one',
  });
  assert.equal(alpha.apiVersion, 'infrastructure.cluster.x-k8s.io/v1alpha1');
  assert.deepEqual(alpha.spec.resources, [managedCluster]);
});

test('the status subresource of AzureASOManagedControlPlane takes ready/initialized/version/resources', async t => {
  const namespace = await testNamespace(t, 'aso-status');
  const api = customObjects();
  await api.createNamespacedCustomObject({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    body: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      metadata: { name: 'cp' },
      spec: { resources: [managedCluster] },
    },
  });
  const status = {
    initialized: true,
    ready: true,
    version: 'v1.33.2',
    resources: [
      {
        resource: {
          group: 'containerservice.azure.com',
          version: 'v1api20240901',
          kind: 'ManagedCluster',
          name: 'aks-one',
        },
        ready: true,
      },
    ],
  };
  const current = await api.getNamespacedCustomObject({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    name: 'cp',
  });
  const updated = await api.replaceNamespacedCustomObjectStatus({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    name: 'cp',
    body: { ...current, status },
  });
  assert.deepEqual(updated.status, status);
  // A status write through the main resource is ignored: status is a subresource.
  const ignored = await api.replaceNamespacedCustomObject({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    name: 'cp',
    body: { ...updated, status: { ready: false } },
  });
  assert.equal(ignored.status.ready, true);
});
