/**
 * Helpers for the integration tests that run against the real local management cluster (packages/mgmt-cluster):
 * its connection facts, raw requests as its admin, and the one way these tests wait: on a condition.
 */
import { kinds } from '@capz-backstage/plugin-capz-common';
import https from 'node:https';
// Test-only helpers (used by *.integration.test.ts alone): the dev dependency is enough.
// eslint-disable-next-line @backstage/no-undeclared-imports
import type { ClusterInfo } from '@internal/mgmt-cluster';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { testCluster, until } from '@internal/mgmt-cluster/testing';

export type { ClusterInfo };
// The run's cluster and the one condition wait, shared with the node:test suites rather than written again.
export { until };
export const testClusterInfo = testCluster;

/** client-node is ESM-only; Jest loads it through its own require (see src/cluster/kubeConfig.ts). */
export const loadClientForTests = async () =>
  require('@kubernetes/client-node');

/** A client-node KubeConfig (from `loadClientForTests`) that reaches the cluster as its admin. */
export function adminKubeConfig(
  k8s: any,
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
): any {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'test',
        server: info.url,
        caData: Buffer.from(info.caPem).toString('base64'),
      },
    ],
    users: [{ name: 'test-admin', token: info.adminToken }],
    contexts: [{ name: 'test', cluster: 'test', user: 'test-admin' }],
    currentContext: 'test',
  });
  return kc;
}

/** A raw JSON request as the cluster's admin; resolves with status and parsed body (raw text if not JSON). */
export function kube(
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${info.url}${path}`,
      {
        method,
        ca: info.caPem,
        // A fresh connection each time: a kept-alive one may be dead after an API-server restart.
        agent: false,
        headers: {
          Authorization: `Bearer ${info.adminToken}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': contentType }),
        },
      },
      res => {
        let text = '';
        res.on('data', d => (text += d));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}

/** Every namespaced kind a test may leave objects of, for cleanup. */
const CLEANUP_COLLECTIONS = [
  '/apis/cluster.x-k8s.io/v1beta2/{ns}/clusters',
  '/apis/cluster.x-k8s.io/v1beta2/{ns}/machinepools',
  '/apis/infrastructure.cluster.x-k8s.io/v1beta1/{ns}/azureasomanagedclusters',
  '/apis/infrastructure.cluster.x-k8s.io/v1beta1/{ns}/azureasomanagedcontrolplanes',
  '/apis/infrastructure.cluster.x-k8s.io/v1beta1/{ns}/azureasomanagedmachinepools',
  '/apis/infrastructure.cluster.x-k8s.io/v1beta1/{ns}/azuremanagedclusters',
  '/apis/infrastructure.cluster.x-k8s.io/v1beta1/{ns}/azuremanagedcontrolplanes',
  '/apis/infrastructure.cluster.x-k8s.io/v1beta1/{ns}/azuremanagedmachinepools',
  '/apis/resources.azure.com/v1api20200601/{ns}/resourcegroups',
  '/apis/containerservice.azure.com/v1api20240901/{ns}/managedclusters',
  '/apis/containerservice.azure.com/v1api20240901/{ns}/managedclustersagentpools',
];

/**
 * Deletes a test namespace for good. The namespace controller deletes the ASO credential Secret as early as the
 * objects that need it, and (like real ASO) the simulated ASO then cannot finish deleting them: so, after asking
 * for the deletion, the finalizers of what is left are removed, as an operator would.
 */
export async function deleteTestNamespace(
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  ns: string,
): Promise<void> {
  await kube(info, 'DELETE', `/api/v1/namespaces/${ns}`);
  await until(
    `namespace ${ns} to be gone`,
    async () => {
      for (const template of CLEANUP_COLLECTIONS) {
        const path = template.replace('{ns}', `namespaces/${ns}`);
        const list = await kube(info, 'GET', path);
        for (const item of list.body?.items ?? []) {
          if (item.metadata.finalizers?.length) {
            await kube(
              info,
              'PATCH',
              `${path}/${item.metadata.name}`,
              { metadata: { finalizers: null } },
              'application/merge-patch+json',
            );
          }
        }
      }
      return (
        (await kube(info, 'GET', `/api/v1/namespaces/${ns}`)).status === 404
      );
    },
    60_000,
  );
}

const COLLECTION: Record<string, (ns?: string) => string> = {
  Namespace: () => '/api/v1/namespaces',
  ServiceAccount: ns => `/api/v1/namespaces/${ns}/serviceaccounts`,
  ClusterRole: () => '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  ClusterRoleBinding: () =>
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  RoleBinding: ns =>
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`,
};

/** Creates the objects of a manifest (the kinds above), leaving those that exist already. */
export async function applyManifest(
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  objects: any[],
): Promise<void> {
  for (const o of objects) {
    const collection = COLLECTION[o.kind];
    if (!collection)
      throw new Error(`applyManifest: no collection known for ${o.kind}`);
    const res = await kube(info, 'POST', collection(o.metadata.namespace), o);
    if (res.status !== 201 && res.status !== 409)
      throw new Error(
        `create ${o.kind}/${o.metadata.name}: ${res.status} ${JSON.stringify(
          res.body,
        )}`,
      );
  }
}

/** A token for a ServiceAccount through the TokenRequest API, as a deployment would mount one. */
export async function serviceAccountToken(
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  namespace: string,
  name: string,
): Promise<string> {
  const res = await kube(
    info,
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  );
  if (res.status !== 201)
    throw new Error(
      `token for ${namespace}/${name}: ${res.status} ${JSON.stringify(
        res.body,
      )}`,
    );
  return res.body.status.token;
}

/**
 * Creates objects of the kinds the plugins know (capz-common `kinds`) in a namespace, at the apiVersion each object is
 * written at, as `fieldManager` (e.g. `kubectl-client-side-apply`) when given; throws on anything but 201.
 */
export async function createObjects(
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  namespace: string,
  objects: Array<{
    apiVersion: string;
    kind: string;
    metadata: { name: string };
  }>,
  fieldManager?: string,
): Promise<void> {
  for (const o of objects) {
    const [group, version] = o.apiVersion.includes('/')
      ? o.apiVersion.split('/')
      : ['', o.apiVersion];
    const kind = Object.values(kinds).find(
      k => k.kind === o.kind && k.group === group,
    );
    if (!kind)
      throw new Error(`createObjects: unknown kind ${o.apiVersion} ${o.kind}`);
    const query = fieldManager
      ? `?fieldManager=${encodeURIComponent(fieldManager)}`
      : '';
    const res = await kube(
      info,
      'POST',
      `/apis/${group}/${version}/namespaces/${namespace}/${kind.plural}${query}`,
      o,
    );
    if (res.status !== 201)
      throw new Error(
        `create ${o.kind}/${o.metadata.name}: ${res.status} ${JSON.stringify(
          res.body,
        )}`,
      );
  }
}
