/**
 * POST /clusters against the real API server and the real CAPI/CAPZ CRDs, with the backend running as a
 * ServiceAccount bound to nothing but rbac/create.yaml's ClusterRole (so every call here proves that RBAC is enough):
 * a dry run writes nothing, a create writes every object under the field manager capz-backstage, a second create is
 * a 409 that writes nothing, a bad name is a 400 and a caller without capz.cluster.create a 403, both before any
 * request to the API server. The Kubernetes version is checked against what AKS offers in the region through the
 * simulated ARM and Entra ID (in process, with the namespace's credential Secret, as the backend's AKS discovery
 * reads them): a version it does not offer is a 400 before any request that writes or validates.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  generateAksAsoClusterManifests,
  kinds,
  type CreateClusterRequest,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import type { ManagementClusterConfig } from '../config/managementClusters';
import {
  applyManifest,
  deleteTestNamespace,
  kube,
  loadClientForTests,
  serviceAccountToken,
  testClusterInfo,
} from '../testing/realCluster';
import {
  startSimulatedAzure,
  type SimulatedAzure,
} from '../testing/simulatedAzure';
import {
  clusterCreateClient,
  type ClusterCreateClient,
} from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';
import { createClusterCreateRouter } from './clusterCreateRouter';

const info = testClusterInfo();
// Not team-*: the test stage simulates the demo world in those namespaces, and its controllers would change the objects.
const ns = `capz-create-${randomBytes(3).toString('hex')}`;
const SA = 'capz-create-test';
const auth = { Authorization: mockCredentials.user.header() };

/** Every object the rendered cluster consists of, with its collection path on the API server. */
const collection = (apiVersion: string, kind: string) => {
  const k = Object.values(kinds).find(x => x.kind === kind)!;
  return `/apis/${apiVersion}/namespaces/${ns}/${k.plural}`;
};

const body = (o: Partial<CreateClusterRequest> = {}): CreateClusterRequest => ({
  managementCluster: 'local',
  namespace: ns,
  name: 'fresh',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
    { name: 'pool1', mode: 'User', vmSize: 'Standard_D4s_v3', replicas: 0 },
  ],
  ...o,
});

let decision: PolicyDecision = { result: AuthorizeResult.ALLOW };
const audits: Array<{ meta: any; outcome?: string }> = [];
/** Every request the backend made to the API server through its client, as `verb kind/name`. */
const apiCalls: string[] = [];
let app: express.Express;
/** The simulated Azure: ARM's listKubernetesVersions offers what simulated AKS runs (1.31 to 1.33, 1.34 preview). */
const SUB = randomUUID();
let azure: SimulatedAzure;

/** The objects of a cluster named `name` as the API server has them (undefined where absent). */
async function live(name: string) {
  const objects = generateAksAsoClusterManifests({ ...body(), name });
  return Promise.all(
    objects.map(async o => {
      const res = await kube(
        info,
        'GET',
        `${collection(o.apiVersion, o.kind)}/${o.metadata.name}`,
      );
      return res.status === 404 ? undefined : res.body;
    }),
  );
}

beforeAll(async () => {
  azure = await startSimulatedAzure(info, SUB);
  const role = YAML.parseAllDocuments(
    readFileSync(join(__dirname, '..', '..', 'rbac', 'create.yaml'), 'utf8'),
  )
    .map(d => d.toJS())
    .filter(d => d.kind === 'ClusterRole');
  await applyManifest(info, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capz-system' } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: SA, namespace: 'capz-system' },
    },
    ...role,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: SA },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'capz-backstage-create',
      },
      subjects: [
        { kind: 'ServiceAccount', name: SA, namespace: 'capz-system' },
      ],
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  ]);
  const secret = await kube(info, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential' },
    stringData: azure.credentialData,
  });
  if (secret.status !== 201)
    throw new Error(
      `create Secret: ${secret.status} ${JSON.stringify(secret.body)}`,
    );
  const token = await serviceAccountToken(info, 'capz-system', SA);
  const mc: ManagementClusterConfig = {
    name: 'local',
    authMethod: 'serviceAccountToken',
    url: info.url,
    caData: info.caPem,
    serviceAccountToken: token,
  };
  const real = clusterCreateClient(
    await ManagementClusterClient.create(mc, undefined, loadClientForTests),
  );
  const recording: ClusterCreateClient = {
    get: ref => {
      apiCalls.push(`get ${ref.kind}/${ref.name}`);
      return real.get(ref);
    },
    apply: (obj, o) => {
      apiCalls.push(
        `apply${o.dryRun ? '(dryRun)' : ''} ${obj.kind}/${obj.metadata.name}`,
      );
      return real.apply(obj, o);
    },
  };
  const logger = mockServices.logger.mock();
  app = express()
    .use(
      await createClusterCreateRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: mockServices.permissions.mock({
          authorizeConditional: async reqs => reqs.map(() => decision),
        }),
        auditor: mockServices.auditor.mock({
          createEvent: async (e: { meta?: unknown }) => {
            const entry: { meta: any; outcome?: string } = { meta: e.meta };
            audits.push(entry);
            return {
              success: async () => void (entry.outcome = 'success'),
              fail: async (f: { error: Error }) =>
                void (entry.outcome = `fail: ${f.error.message}`),
            };
          },
        }),
        managementClusters: [mc],
        client: async () => recording,
        // AKS discovery as the backend builds it, reading the credential Secret from the API server.
        azure: azure.discovery({ logger }),
        validateResponses: true,
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
}, 60_000);

afterAll(async () => {
  await deleteTestNamespace(info, ns);
  await kube(
    info,
    'DELETE',
    `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${SA}`,
  );
  await azure?.stop();
}, 90_000);

beforeEach(() => {
  decision = { result: AuthorizeResult.ALLOW };
  apiCalls.length = 0;
  audits.length = 0;
});

describe('POST /clusters on the real API server', () => {
  it('creates an Entra-only, owned, tagged cluster with autoscaled and Windows pools as the form sends it', async () => {
    const res = await request(app)
      .post('/clusters')
      .set(auth)
      .send(
        body({
          name: 'entra',
          entraOnly: true,
          adminGroupObjectIDs: ['6f2c1a4e-1b0f-4c1e-9d8a-3f0c2b1a0e9d'],
          owner: 'group:default/team-a',
          tags: { environment: 'dev' },
          pools: [
            {
              name: 'system',
              mode: 'System',
              vmSize: 'Standard_D2s_v3',
              replicas: 2,
              autoscaling: { minCount: 1, maxCount: 4 },
            },
            {
              name: 'win',
              mode: 'User',
              osType: 'Windows',
              vmSize: 'Standard_D4s_v3',
              replicas: 1,
            },
          ],
        }),
      );
    expect(res.status).toBe(201);
    const get = async (kind: string, apiVersion: string, n: string) =>
      (await kube(info, 'GET', `${collection(apiVersion, kind)}/${n}`)).body;
    const cluster = await get('Cluster', 'cluster.x-k8s.io/v1beta2', 'entra');
    expect(cluster.metadata.annotations['capz.io/owner']).toBe(
      'group:default/team-a',
    );
    const cp = await get(
      'AzureASOManagedControlPlane',
      'infrastructure.cluster.x-k8s.io/v1beta1',
      'entra',
    );
    expect(cp.spec.resources[0].spec).toMatchObject({
      aadProfile: { managed: true, enableAzureRBAC: true },
      disableLocalAccounts: true,
      operatorSpec: {
        secrets: {
          userCredentials: { name: 'entra-user-kubeconfig', key: 'value' },
        },
      },
      tags: { environment: 'dev' },
    });
    const win = await get(
      'AzureASOManagedMachinePool',
      'infrastructure.cluster.x-k8s.io/v1beta1',
      'entra-win',
    );
    expect(win.spec.resources[0].spec).toMatchObject({
      azureName: 'win',
      osType: 'Windows',
    });
  });

  it('validates every object with dryRun=All and writes nothing', async () => {
    const res = await request(app)
      .post('/clusters')
      .set(auth)
      .send(body({ name: 'dry', dryRun: true }));
    expect(res.status).toBe(200);
    expect(res.body.dryRun).toBe(true);
    // The version was checked against ARM's list for the region: nothing left unchecked.
    expect(res.body.warnings).toBeUndefined();
    expect(res.body.path).toBe(`/capz/clusters/local/${ns}/dry`);
    expect(res.body.objects.map((o: any) => `${o.kind}/${o.name}`)).toEqual([
      'Cluster/dry',
      'AzureASOManagedControlPlane/dry',
      'AzureASOManagedCluster/dry',
      'MachinePool/dry-pool0',
      'AzureASOManagedMachinePool/dry-pool0',
      'MachinePool/dry-pool1',
      'AzureASOManagedMachinePool/dry-pool1',
    ]);
    expect(apiCalls.filter(c => c.startsWith('apply'))).toHaveLength(7);
    expect(
      apiCalls
        .filter(c => c.startsWith('apply'))
        .every(c => c.startsWith('apply(dryRun)')),
    ).toBe(true);
    expect(await live('dry')).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(audits).toEqual([
      {
        meta: {
          target: { managementCluster: 'local', namespace: ns, name: 'dry' },
          dryRun: true,
        },
        outcome: 'success',
      },
    ]);
  });

  it('refuses v1.29.0, which AKS does not offer in the region (ARM), with 400 naming the version, the region and the versions offered; dry run or not, nothing is validated or written', async () => {
    for (const dryRun of [true, false]) {
      const res = await request(app)
        .post('/clusters')
        .set(auth)
        .send(body({ name: 'old', kubernetesVersion: 'v1.29.0', dryRun }));
      expect({ status: res.status, message: res.body.error?.message }).toEqual({
        status: 400,
        message:
          'Invalid cluster: kubernetesVersion: AKS does not offer v1.29.0 in westeurope; it offers v1.33.2, v1.33.1, v1.32.6, v1.32.5, v1.31.10, v1.31.9',
      });
    }
    expect(apiCalls.filter(c => c.startsWith('apply'))).toEqual([]);
    expect(await live('old')).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(audits.map(a => a.outcome)).toEqual([
      expect.stringMatching(/^fail: .*AKS does not offer v1\.29\.0/),
      expect.stringMatching(/^fail: .*AKS does not offer v1\.29\.0/),
    ]);
  });

  it('refuses a namespace or credential Secret that does not exist with 400 naming the field, and writes nothing', async () => {
    const noNamespace = await request(app)
      .post('/clusters')
      .set(auth)
      .send(body({ name: 'lost', namespace: `${ns}-absent` }));
    expect(noNamespace.status).toBe(400);
    expect(noNamespace.body.error.message).toBe(
      `namespace: there is no namespace "${ns}-absent" on management cluster local`,
    );
    const noSecret = await request(app)
      .post('/clusters')
      .set(auth)
      .send(body({ name: 'lost', credentialSecretName: 'nothing-here' }));
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.error.message).toMatch(
      /^credentialSecretName: there is no Secret "nothing-here" in namespace /,
    );
    expect(apiCalls.filter(c => c.startsWith('apply'))).toEqual([]);
    expect(await live('lost')).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('refuses the CAPI kubeconfig Secret as the credential and a nowhere region with 400, dry run or not, and writes nothing', async () => {
    // The Secret CAPI writes for a workload cluster: `<cluster>-kubeconfig`, type cluster.x-k8s.io/secret, key value.
    const kubeconfigSecret = await kube(
      info,
      'POST',
      `/api/v1/namespaces/${ns}/secrets`,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'other-kubeconfig' },
        type: 'cluster.x-k8s.io/secret',
        stringData: { value: 'apiVersion: v1\nkind: Config\n# sekret' },
      },
    );
    expect(kubeconfigSecret.status).toBe(201);
    const before = apiCalls.filter(c => c.startsWith('apply')).length;
    for (const dryRun of [true, false]) {
      const capi = await request(app)
        .post('/clusters')
        .set(auth)
        .send(
          body({
            name: 'wrongcred',
            credentialSecretName: 'other-kubeconfig',
            dryRun,
          }),
        );
      expect(capi.status).toBe(400);
      expect(capi.body.error.message).toBe(
        `credentialSecretName: Secret ${ns}/other-kubeconfig is the Cluster API kubeconfig Secret of cluster other (type cluster.x-k8s.io/secret, key value), not an ASO credential: an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID, and AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE (with neither, ASO uses workload identity)`,
      );
      expect(JSON.stringify(capi.body)).not.toContain('sekret');
      const nowhere = await request(app)
        .post('/clusters')
        .set(auth)
        .send(body({ name: 'nowhere', location: 'nowhere', dryRun }));
      expect(nowhere.status).toBe(400);
      expect(nowhere.body.error.message).toMatch(
        /^Invalid cluster: location: "nowhere" is not a region of subscription [0-9a-f-]+ \(ARM: NoRegisteredProviderFound\); its regions are .*westeurope/,
      );
      expect(nowhere.body.warnings).toBeUndefined();
    }
    expect(apiCalls.filter(c => c.startsWith('apply')).length).toBe(before);
    expect(await live('wrongcred')).toEqual(Array(7).fill(undefined));
    expect(await live('nowhere')).toEqual(Array(7).fill(undefined));
  });

  it('creates every object with server-side apply under the field manager capz-backstage', async () => {
    const res = await request(app).post('/clusters').set(auth).send(body());
    expect(res.status).toBe(201);
    expect(res.body.path).toBe(`/capz/clusters/local/${ns}/fresh`);
    const objects = await live('fresh');
    expect(objects.every(Boolean)).toBe(true);
    for (const o of objects) {
      const managers = (o.metadata.managedFields ?? []).map(
        (f: any) => `${f.manager} ${f.operation}`,
      );
      expect(managers).toContain('capz-backstage Apply');
    }
    expect(res.body.objects.map((o: any) => o.uid)).toEqual(
      objects.map(o => o.metadata.uid),
    );
    // The objects are what capz-common renders (the API server's defaults aside).
    expect(objects[0].spec.controlPlaneRef).toEqual({
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'AzureASOManagedControlPlane',
      name: 'fresh',
    });
    expect(objects[1].spec.resources[0].spec.dnsPrefix).toBe('fresh');
    // Validated as a whole before the first write: seven dry-run applies, then seven applies.
    const applies = apiCalls.filter(c => c.startsWith('apply'));
    expect(applies.slice(0, 7).every(c => c.startsWith('apply(dryRun)'))).toBe(
      true,
    );
    expect(applies.slice(7).every(c => !c.startsWith('apply(dryRun)'))).toBe(
      true,
    );
    expect(applies).toHaveLength(14);
    expect(audits[0].outcome).toBe('success');
  });

  it('refuses a second create of the same name with 409, naming what exists, and writes nothing', async () => {
    const before = await live('fresh');
    const res = await request(app)
      .post('/clusters')
      .set(auth)
      .send(
        body({
          pools: [
            {
              name: 'pool0',
              mode: 'System',
              vmSize: 'Standard_D8s_v3',
              replicas: 5,
            },
          ],
        }),
      );
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(
      new RegExp(
        `^name: cluster fresh cannot be created, these objects exist already: Cluster ${ns}/fresh, `,
      ),
    );
    expect(apiCalls.filter(c => c.startsWith('apply'))).toEqual([]);
    const after = await live('fresh');
    expect(after.map(o => o.metadata.resourceVersion)).toEqual(
      before.map(o => o.metadata.resourceVersion),
    );
    expect(audits[0].outcome).toMatch(
      /^fail: name: cluster fresh cannot be created/,
    );
  });

  it('refuses with 409 when only an ASO object CAPZ would create exists (a ResourceGroup of that name)', async () => {
    const rg = await kube(
      info,
      'POST',
      collection(
        `resources.azure.com/${kinds.ResourceGroup.version}`,
        'ResourceGroup',
      ),
      {
        apiVersion: `resources.azure.com/${kinds.ResourceGroup.version}`,
        kind: 'ResourceGroup',
        metadata: { name: 'taken' },
        spec: { location: 'westeurope' },
      },
    );
    expect(rg.status).toBe(201);
    const res = await request(app)
      .post('/clusters')
      .set(auth)
      .send(body({ name: 'taken' }));
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe(
      `name: cluster taken cannot be created, these objects exist already: ResourceGroup ${ns}/taken`,
    );
    expect(await live('taken')).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("refuses a name whose dnsPrefix exceeds CAPZ's 54 characters with 400 naming the field, before any request", async () => {
    const name = 'a'.repeat(55);
    const res = await request(app)
      .post('/clusters')
      .set(auth)
      .send(
        body({
          name,
          pools: [
            {
              name: 'p',
              mode: 'System',
              vmSize: 'Standard_D2s_v3',
              replicas: 1,
            },
          ],
        }),
      );
    expect(res.status).toBe(400);
    // Every limit the name passes is named (capz-common clusterRules): the dnsPrefix, and AKS's node resource group.
    expect(res.body.error.message).toMatch(
      new RegExp(
        `^Invalid cluster: name: "${name}" is 55 characters; it is the AKS dnsPrefix, which is limited to 54; name: "${name}" makes AKS's node resource group "MC_${name}_${name}_westeurope" 125 characters, above Azure's 80`,
      ),
    );
    expect(apiCalls).toEqual([]);
    // (The name cannot be rendered, so its objects are looked up by the names they would have.)
    const names = [
      name,
      name,
      name,
      `${name}-pool0`,
      `${name}-pool0`,
      `${name}-pool1`,
      `${name}-pool1`,
    ];
    const objects = generateAksAsoClusterManifests(body());
    const found = await Promise.all(
      objects.map(async (o, i) => {
        const got = await kube(
          info,
          'GET',
          `${collection(o.apiVersion, o.kind)}/${names[i]}`,
        );
        return got.status === 404 ? undefined : got.body;
      }),
    );
    expect(found).toEqual(objects.map(() => undefined));
  });

  it('refuses a caller without capz.cluster.create (or outside the namespaces a policy allows) with 403, before any request', async () => {
    decision = { result: AuthorizeResult.DENY };
    const denied = await request(app)
      .post('/clusters')
      .set(auth)
      .send(body({ name: 'nope' }));
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(
      `Not allowed to create clusters in local/${ns} (capz.cluster.create)`,
    );
    decision = {
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'capz',
      resourceType: 'capz-cluster',
      conditions: {
        rule: 'IS_IN_NAMESPACE',
        resourceType: 'capz-cluster',
        params: { namespaces: ['team-other'] },
      },
    };
    const elsewhere = await request(app)
      .post('/clusters')
      .set(auth)
      .send(body({ name: 'nope' }));
    expect(elsewhere.status).toBe(403);
    expect(apiCalls).toEqual([]);
    expect(audits).toEqual([]);
    expect(await live('nope')).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
