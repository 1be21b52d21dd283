/**
 * The catalog entity of a CAPZ cluster makes the stock Kubernetes plugin list that cluster's workloads, end to
 * end, every part real but Azure:
 * - the simulated Azure (capz-sim's startSimulatedAzure: Entra ID, ARM, and the workload API server of its AKS
 *   clusters, a real kube-apiserver that accepts the Entra ID's tokens for the AKS server application);
 * - a real management cluster with an Entra ID cluster's CAPI/CAPZ objects and the ASO ManagedCluster that reports the
 *   AKS cluster's FQDN and ARM id (as ASO does);
 * - in one test backend: this plugin (its watch cache, and the API server it reads from ARM once for that FQDN), the
 *   catalog with this repository's CAPZ entity provider (plugins/catalog-backend-module-capz), and the stock
 *   `@backstage/plugin-kubernetes-backend` with the `catalog` cluster locator.
 * A user's `aks` token (from the simulated Entra ID, audience the AKS server application) then lists the Deployment
 * created on the workload API server, through the plugin's services route and its proxy.
 */
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { schedulerServiceFactory } from '@backstage/backend-defaults/scheduler';
import { generateAksAsoClusterManifests } from '@capz-backstage/plugin-capz-common';
import {
  startSimulatedAzure,
  type SimulatedAzure,
} from '@internal/capz-sim/simulated-azure';
import { AKS_SERVER_APPLICATION_ID } from '@internal/capz-sim/entra';
import {
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '@internal/mgmt-cluster';
import { testStateDir } from '@internal/mgmt-cluster/testing';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { dirname, join, resolve as resolvePath } from 'node:path';
import request from 'supertest';
import { capzPlugin } from '../plugin';
import { createObjects, until } from '../testing/realCluster';

// The plugin loads client-node with a native import(), which Jest cannot run; give it Jest's require instead.
jest.mock('../cluster/kubeConfig', () => ({
  ...jest.requireActual('../cluster/kubeConfig'),
  loadClientNode: async () => require('@kubernetes/client-node'),
}));

/**
 * The stock Kubernetes backend loads client-node with `await import(...)`, which Jest cannot run without
 * --experimental-vm-modules (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG). Its files that do are loaded with that one
 * expression replaced by Jest's require of the same client-node (its own 1.4.0): the substitution the mock above makes
 * for this plugin; nothing else of the stock code changes.
 */
function requireKubernetesBackend() {
  const root = dirname(
    require.resolve('@backstage/plugin-kubernetes-backend/package.json'),
  );
  const files = [
    'dist/auth/ServiceAccountStrategy.cjs.js',
    'dist/service/KubernetesFetcher.cjs.js',
    'dist/service/KubernetesConnection.cjs.js',
    'dist/service/KubernetesProxy.cjs.js',
  ].map(f => join(root, f));
  for (const file of files) {
    jest.doMock(file, () => {
      const dir = dirname(file);
      const req = (id: string) =>
        require(id.startsWith('.')
          ? resolvePath(dir, id)
          : require.resolve(id, { paths: [dir] }));
      const source = readFileSync(file, 'utf8');
      const patched = source.replace(
        /await import\('@kubernetes\/client-node'\)/g,
        `req('@kubernetes/client-node')`,
      );
      if (patched === source) throw new Error(`no dynamic import in ${file}`);
      const m = { exports: {} as Record<string, unknown> };
      // eslint-disable-next-line no-new-func
      new Function('require', 'req', 'module', 'exports', patched)(
        req,
        req,
        m,
        m.exports,
      );
      return m.exports;
    });
  }
  return require('@backstage/plugin-kubernetes-backend').default;
}

const SUBSCRIPTION = randomUUID();
const ns = 'team-k8s';
const CLUSTER = 'shop';
const APP = 'shop-web';

let tmp: string;
let azure: SimulatedAzure;
let mgmt: ClusterInfo;
let backend: Awaited<ReturnType<typeof startTestBackend>>;
let userToken: string;

const must = async (
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
  method: string,
  path: string,
  body?: unknown,
) => {
  const res = await apiRequest(info, method, path, body);
  if (res.status >= 300)
    throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body}`);
  return JSON.parse(res.body);
};

/** A token of a user principal for the AKS server application, as kubelogin or the Kubernetes frontend gets one. */
function aksToken(clientId: string, clientSecret: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      scope: `${AKS_SERVER_APPLICATION_ID}/.default`,
    }).toString();
    const req = httpsRequest(
      `${azure.entra.url}/${azure.servicePrincipal.tenantId}/oauth2/v2.0/token`,
      {
        method: 'POST',
        ca: azure.entra.caPem,
        agent: false,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      },
      res => {
        let text = '';
        res.on('data', d => (text += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(JSON.parse(text).access_token)
            : reject(new Error(text)),
        );
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

beforeAll(async () => {
  tmp = testStateDir('capz-k8s-plugin-');
  azure = await startSimulatedAzure({
    stateDir: join(tmp, 'azure'),
    subscriptions: [SUBSCRIPTION],
    operationMs: 50,
    workload: {
      name: `k8s-plugin-workload-${process.pid}`,
      ephemeral: true,
      entraIdTokens: true,
    },
  });
  // The AKS cluster in Azure, Entra ID only, as CAPZ and ASO would have made it.
  azure.world.putResourceGroup(SUBSCRIPTION, CLUSTER, {
    location: 'westeurope',
  });
  const { cluster: aks } = azure.world.putManagedCluster(
    SUBSCRIPTION,
    CLUSTER,
    CLUSTER,
    {
      location: 'westeurope',
      dnsPrefix: CLUSTER,
      aadProfile: { managed: true, enableAzureRBAC: true },
      disableLocalAccounts: true,
      agentPoolProfiles: [
        { name: 'system', mode: 'System', count: 1, vmSize: 'Standard_D2s_v3' },
      ],
    } as never,
  );

  // The workload: a user (its own principal), allowed to view, and a Deployment of the app on the workload server.
  const user = { clientId: randomUUID(), clientSecret: randomUUID() };
  const oid = azure.entra.addServicePrincipal({
    tenantId: azure.servicePrincipal.tenantId,
    ...user,
  });
  const w = azure.workload.info;
  // A reader role of its own: the workload server runs no aggregation controller, so the built-in `view` is empty.
  await must(w, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'k8s-plugin-reader' },
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  await must(
    w,
    'POST',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'k8s-plugin-user-view' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'k8s-plugin-reader',
      },
      // AKS names a principal by its object id (README: Entra ID auth to a management cluster).
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: oid },
      ],
    },
  );
  await must(w, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop' },
  });
  await must(w, 'POST', '/apis/apps/v1/namespaces/shop/deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      labels: { 'backstage.io/kubernetes-id': APP },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
  });
  userToken = await aksToken(user.clientId, user.clientSecret);

  // The management cluster: the cluster's CAPI/CAPZ objects, its credential Secret, and the ASO ManagedCluster with
  // the status ASO writes (fqdn, ARM id).
  mgmt = await startManagementCluster({
    name: `k8s-plugin-${process.pid}`,
    stateDir: join(tmp, 'mgmt'),
    ephemeral: true,
    crds: true,
  });
  await must(mgmt, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  const sp = azure.servicePrincipal;
  await must(mgmt, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential' },
    stringData: {
      AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
      AZURE_TENANT_ID: sp.tenantId,
      AZURE_CLIENT_ID: sp.clientId,
      AZURE_CLIENT_SECRET: sp.clientSecret,
    },
  });
  const manifests = generateAksAsoClusterManifests({
    name: CLUSTER,
    namespace: ns,
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    entraOnly: true,
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
    ],
  });
  await createObjects(mgmt, ns, manifests);
  const embedded = (
    manifests.find(o => o.kind === 'AzureASOManagedControlPlane')!.spec!
      .resources as Array<{ kind: string; spec: unknown; apiVersion: string }>
  ).find(r => r.kind === 'ManagedCluster')!;
  const mcPath = `/apis/containerservice.azure.com/v1api20240901/namespaces/${ns}/managedclusters`;
  const created = await must(mgmt, 'POST', mcPath, {
    apiVersion: 'containerservice.azure.com/v1api20240901',
    kind: 'ManagedCluster',
    metadata: {
      name: CLUSTER,
      annotations: {
        'serviceoperator.azure.com/credential-from': 'aso-credential',
      },
    },
    spec: embedded.spec,
  });
  await must(mgmt, 'PUT', `${mcPath}/${CLUSTER}/status`, {
    ...created,
    status: {
      fqdn: aks.fqdn,
      id: `/subscriptions/${SUBSCRIPTION}/resourceGroups/${CLUSTER}/providers/Microsoft.ContainerService/managedClusters/${CLUSTER}`,
      aadProfile: { managed: true, enableAzureRBAC: true },
    },
  });

  // A Component whose workloads the Kubernetes plugin looks for, as a catalog file location.
  const componentFile = join(tmp, 'component.yaml');
  writeFileSync(
    componentFile,
    [
      'apiVersion: backstage.io/v1alpha1',
      'kind: Component',
      'metadata:',
      `  name: ${APP}`,
      '  annotations:',
      `    backstage.io/kubernetes-id: ${APP}`,
      'spec: {type: service, lifecycle: production, owner: group:default/platform}',
      '',
    ].join('\n'),
  );

  backend = await startTestBackend({
    features: [
      capzPlugin,
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@backstage/plugin-catalog-backend').default,
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@capz-backstage/plugin-catalog-backend-module-capz').default,
      requireKubernetesBackend(),
      // The real scheduler: the catalog provider refreshes every refreshSeconds (the mock one runs a task once).
      schedulerServiceFactory,
      mockServices.rootLogger.factory({ level: 'error' }),
      mockServices.rootConfig.factory({
        data: {
          capz: {
            managementClusters: [
              {
                name: 'local',
                url: mgmt.url,
                caData: mgmt.caPem,
                serviceAccountToken: mgmt.adminToken,
                namespaces: [ns],
              },
            ],
            azureDiscovery: {
              resourceManagerEndpoint: azure.arm.url,
              authorityHost: azure.entra.url,
              disableInstanceDiscovery: true,
              caData: `${azure.arm.caPem.trim()}\n${azure.entra.caPem.trim()}\n`,
            },
          },
          catalog: {
            rules: [{ allow: ['Component', 'Resource', 'Location'] }],
            locations: [{ type: 'file', target: componentFile }],
            providers: { capz: { refreshSeconds: 2, liveUpdates: false } },
          },
          kubernetes: {
            serviceLocatorMethod: { type: 'multiTenant' },
            // The workload API server listens on 127.0.0.1, which the locator refuses unless allowed.
            clusterLocatorMethods: [
              { type: 'catalog', dangerouslyAllowClusterUrls: ['127.0.0.1'] },
            ],
          },
        },
      }),
    ],
  });
}, 300_000);

afterAll(async () => {
  // Each one stopped even when another one's stop fails: a failed run must leave no process behind.
  const stops = await Promise.allSettled([
    (async () => backend?.stop())(),
    (async () => mgmt && stopManagementCluster(mgmt))(),
    (async () => azure?.close())(),
  ]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  const failed = stops.filter(s => s.status === 'rejected');
  if (failed.length) throw (failed[0] as PromiseRejectedResult).reason;
}, 120_000);

const user = () => mockCredentials.user.header();

describe("the stock Kubernetes plugin on a CAPZ cluster's catalog entity", () => {
  it("lists the cluster's workloads with the user's aks token", async () => {
    // The backend reads the API server from ARM once the ManagedCluster reports its FQDN; the summary carries it.
    await until(
      "the cluster's summary with its API server",
      async () => {
        const res = await request(backend.server)
          .get('/api/capz/clusters')
          .set('Authorization', user());
        const s = res.body?.items?.find((c: any) => c.name === CLUSTER);
        if (!s?.apiServer || !s.entraId)
          throw new Error(`HTTP ${res.status}, summary ${JSON.stringify(s)}`);
        return s;
      },
      120_000,
    );
    // The pages' list leaves the CA out (~1.5 KB a cluster); the catalog module asks for it.
    const list = async (query: string) =>
      (
        await request(backend.server)
          .get(`/api/capz/clusters${query}`)
          .set('Authorization', user())
      ).body.items.find((c: any) => c.name === CLUSTER);
    expect((await list('')).apiServer).toEqual({
      url: expect.stringMatching(/^https:/),
    });
    expect(
      (await list('?include=certificateAuthority')).apiServer
        .certificateAuthorityData,
    ).toMatch(/^[A-Za-z0-9+/=]{100,}$/);
    // The entity carries the three annotations.
    const entity = await until(
      'the cluster entity with the Kubernetes annotations',
      async () => {
        const res = await request(backend.server)
          .get(
            '/api/catalog/entities/by-name/resource/default/local-team-k8s-shop',
          )
          .set('Authorization', user());
        const a = res.body?.metadata?.annotations ?? {};
        if (!a['kubernetes.io/auth-provider']) {
          const all = await request(backend.server)
            .get('/api/catalog/entities?fields=kind,metadata.name')
            .set('Authorization', user());
          throw new Error(
            `HTTP ${res.status}, annotations ${JSON.stringify(
              a,
            )}; catalog: ${JSON.stringify(all.body)}`,
          );
        }
        return res.body;
      },
      120_000,
    );
    expect(entity.metadata.annotations).toMatchObject({
      'kubernetes.io/api-server': azure.workload.kubeconfig.server,
      'kubernetes.io/api-server-certificate-authority': Buffer.from(
        azure.workload.kubeconfig.caPem,
      ).toString('base64'),
      'kubernetes.io/auth-provider': 'aks',
    });

    // The catalog locator finds it.
    const clusters = await request(backend.server)
      .get('/api/kubernetes/clusters')
      .set('Authorization', user());
    expect(clusters.status).toBe(200);
    expect(clusters.body.items).toContainEqual(
      expect.objectContaining({
        name: 'local-team-k8s-shop',
        authProvider: 'aks',
      }),
    );

    // The Component's workloads, as the entity page asks for them.
    const component = await until(
      'the component in the catalog',
      async () => {
        const res = await request(backend.server)
          .get(`/api/catalog/entities/by-name/component/default/${APP}`)
          .set('Authorization', user());
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        return res.body;
      },
      60_000,
    );
    const objects = await request(backend.server)
      .post(`/api/kubernetes/services/${APP}`)
      .set('Authorization', user())
      .send({ entity: component, auth: { aks: userToken } });
    expect(objects.status).toBe(200);
    const items = objects.body.items as Array<{
      cluster: { name: string };
      errors: unknown[];
      resources: Array<{ type: string; resources: any[] }>;
    }>;
    const shop = items.find(i => i.cluster.name === 'local-team-k8s-shop');
    expect(shop).toBeDefined();
    const deployments = shop!.resources.find(r => r.type === 'deployments');
    expect(deployments?.resources.map(d => d.metadata.name)).toEqual(['web']);

    // The user's token is what grants access: one the workload API server does not accept is refused there.
    const forged = await request(backend.server)
      .post(`/api/kubernetes/services/${APP}`)
      .set('Authorization', user())
      .send({ entity: component, auth: { aks: `${userToken}x` } });
    expect(forged.status).toBe(200);
    const refused = (
      forged.body.items as Array<{
        cluster: { name: string };
        errors: Array<{ errorType: string }>;
        resources: Array<{ type: string; resources: any[] }>;
      }>
    ).find(i => i.cluster.name === 'local-team-k8s-shop');
    expect(refused?.errors.map(e => e.errorType)).toContain(
      'UNAUTHORIZED_ERROR',
    );
  }, 300_000);

  it('reads the API server from ARM once for the FQDN, not per page view', async () => {
    const reads = () =>
      Object.entries(azure.arm.apiVersionsSeen())
        .filter(([k]) =>
          /^POST Microsoft.ContainerService\/managedClusters /.test(k),
        )
        .reduce((n, [, v]) => n + v, 0);
    const before = reads();
    expect(before).toBe(1);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await request(backend.server)
            .get('/api/capz/clusters')
            .set('Authorization', user())
        ).status,
      ).toBe(200);
    expect(reads()).toBe(before);
  });
});
