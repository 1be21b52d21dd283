import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testNamespace } from '../src/testing.ts';
import { CAPZ, customObjects, statusOf } from './helpers.ts';

test('the real CAPZ CRD schema rejects an invalid AzureASOManagedControlPlane with the API server message', async t => {
  const namespace = await testNamespace(t, 'schema');
  const err = await customObjects()
    .createNamespacedCustomObject({
      ...CAPZ,
      namespace,
      plural: 'azureasomanagedcontrolplanes',
      body: {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'AzureASOManagedControlPlane',
        metadata: { name: 'bad' },
        spec: { resources: 'not-a-list' },
      },
    })
    .then(
      () => undefined,
      e => statusOf(e),
    );
  assert.ok(err, 'the create must fail');
  assert.equal(err.code, 422);
  assert.match(
    err.message,
    /AzureASOManagedControlPlane.infrastructure.cluster.x-k8s.io "bad" is invalid/,
  );
  assert.match(
    err.message,
    /spec.resources: Invalid value: "string": spec.resources in body must be of type array/,
  );
});

test('the real ASO CRD schema rejects a ManagedCluster with a wrongly typed field', async t => {
  const namespace = await testNamespace(t, 'schema-aso');
  const err = await customObjects()
    .createNamespacedCustomObject({
      group: 'containerservice.azure.com',
      version: 'v1api20240901',
      namespace,
      plural: 'managedclusters',
      body: {
        apiVersion: 'containerservice.azure.com/v1api20240901',
        kind: 'ManagedCluster',
        metadata: { name: 'bad' },
        spec: {
          location: 'westeurope',
          owner: { name: 'rg' },
          agentPoolProfiles: [
            { name: 'pool0', count: 'three', mode: 'System' },
          ],
        },
      },
    })
    .then(
      () => undefined,
      e => statusOf(e),
    );
  assert.ok(err, 'the create must fail');
  assert.equal(err.code, 422);
  assert.match(
    err.message,
    /spec.agentPoolProfiles\[0\].count: Invalid value: "string": spec.agentPoolProfiles\[0\].count in body must be of type integer/,
  );
});

test('the same ManagedCluster with the right types is accepted', async t => {
  const namespace = await testNamespace(t, 'schema-ok');
  const created = await customObjects().createNamespacedCustomObject({
    group: 'containerservice.azure.com',
    version: 'v1api20240901',
    namespace,
    plural: 'managedclusters',
    body: {
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedCluster',
      metadata: { name: 'good' },
      spec: {
        location: 'westeurope',
        owner: { name: 'rg' },
        agentPoolProfiles: [
          {
            name: 'pool0',
            count: 3,
            mode: 'System',
            vmSize: 'Standard_D2s_v3',
          },
        ],
      },
    },
  });
  assert.equal(created.spec.agentPoolProfiles[0].count, 3);
});
