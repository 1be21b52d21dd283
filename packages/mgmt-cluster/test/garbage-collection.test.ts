import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testNamespace } from '../src/testing.ts';
import { CAPI, CAPZ, customObjects, eventually, statusOf } from './helpers.ts';

async function clusterWithOwnedControlPlane(namespace: string, name = 'c1') {
  const api = customObjects();
  const owner = await api.createNamespacedCustomObject({
    ...CAPI,
    namespace,
    plural: 'clusters',
    body: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name },
      spec: {
        controlPlaneRef: {
          apiGroup: CAPZ.group,
          kind: 'AzureASOManagedControlPlane',
          name,
        },
        infrastructureRef: {
          apiGroup: CAPZ.group,
          kind: 'AzureASOManagedCluster',
          name,
        },
      },
    },
  });
  await api.createNamespacedCustomObject({
    ...CAPZ,
    namespace,
    plural: 'azureasomanagedcontrolplanes',
    body: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      metadata: {
        name,
        ownerReferences: [
          {
            apiVersion: 'cluster.x-k8s.io/v1beta2',
            kind: 'Cluster',
            name,
            uid: owner.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: { resources: [] },
    },
  });
  return api;
}

const readControlPlane = (
  api: ReturnType<typeof customObjects>,
  namespace: string,
  name = 'c1',
) =>
  api
    .getNamespacedCustomObject({
      ...CAPZ,
      namespace,
      plural: 'azureasomanagedcontrolplanes',
      name,
    })
    .then(
      o => o,
      e => {
        if (statusOf(e).code === 404) return null;
        throw e;
      },
    );

test('the garbage collector deletes a dependent when its owner is deleted', async t => {
  const namespace = await testNamespace(t, 'gc');
  const api = await clusterWithOwnedControlPlane(namespace);
  await api.deleteNamespacedCustomObject({
    ...CAPI,
    namespace,
    plural: 'clusters',
    name: 'c1',
    propagationPolicy: 'Background',
  });
  await eventually(
    'the owned AzureASOManagedControlPlane to be deleted',
    async () =>
      (await readControlPlane(api, namespace)) === null ? true : undefined,
  );
});

test('with propagationPolicy Orphan the garbage collector keeps the dependent and drops the owner reference', async t => {
  const namespace = await testNamespace(t, 'gc-orphan');
  const api = await clusterWithOwnedControlPlane(namespace);
  // The garbage collector must know the dependent before the owner goes: had it not seen c1's control plane when it
  // handled the orphan finalizer, it would find no dependent to orphan, let the owner go, and then delete the control
  // plane as the dependent of an owner that no longer exists. A second pair, made after it and deleted in the
  // background, is the fence: the collector deletes probe's control plane only after it has handled its creation,
  // which its informer of that kind delivers after c1's (kube-controller-manager's source: docs/real-controllers.md#gc-orphan).
  await clusterWithOwnedControlPlane(namespace, 'probe');
  await api.deleteNamespacedCustomObject({
    ...CAPI,
    namespace,
    plural: 'clusters',
    name: 'probe',
    propagationPolicy: 'Background',
  });
  await eventually(
    "the garbage collector to delete probe's control plane",
    async () =>
      (await readControlPlane(api, namespace, 'probe')) === null
        ? true
        : undefined,
  );
  await api.deleteNamespacedCustomObject({
    ...CAPI,
    namespace,
    plural: 'clusters',
    name: 'c1',
    propagationPolicy: 'Orphan',
  });
  // The orphan finalizer is processed by the garbage collector: the owner goes only after the reference is gone.
  const orphaned = await eventually(
    'the owner reference to be removed',
    async () => {
      const cp = await readControlPlane(api, namespace);
      return cp && !(cp.metadata.ownerReferences ?? []).length ? cp : undefined;
    },
  );
  assert.equal(orphaned.metadata.name, 'c1');
  await eventually('the owner to be gone', async () =>
    api
      .getNamespacedCustomObject({
        ...CAPI,
        namespace,
        plural: 'clusters',
        name: 'c1',
      })
      .then(
        () => undefined,
        e => (statusOf(e).code === 404 ? true : undefined),
      ),
  );
});
