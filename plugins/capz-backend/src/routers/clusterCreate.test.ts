/**
 * POST /clusters with a scripted API server (an in-memory ClusterCreateClient): what no real API server here produces on
 * demand. A refusal in the dry-run pass is a 400 before anything is written; a failure half way names what was
 * written; derived names are measured on the rendered objects; a second request for a cluster being created is a 409;
 * a credential Secret without ASO's keys (the CAPI kubeconfig Secret) is a 400. The region and subscription are
 * checked through the real AksDiscovery against the simulated ARM and Entra ID (HTTPS, their own CAs).
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type {
  CreateClusterRequest,
  KubeObject,
  ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import { ConfigReader } from '@backstage/config';
import {
  ARM_RESOURCE,
  AzureWorld,
  entraAuthorizer,
  startArmServer,
  startEntraSim,
  type ArmServer,
  type EntraSim,
} from '@internal/capz-sim/azure';
import {
  AuthorizeResult,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import express from 'express';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { AksDiscovery } from '../azure/AksDiscovery';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import type { ClusterCreateClient } from '../cluster/clientViews';
import { createClusterInputErrors } from '../create/checks';
import {
  ClusterCreateRouterOptions,
  createClusterCreateRouter,
} from './clusterCreateRouter';

const auth = { Authorization: mockCredentials.user.header() };
const body = (o: Partial<CreateClusterRequest> = {}): CreateClusterRequest => ({
  managementCluster: 'east',
  namespace: 'team-a',
  name: 'alpha',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
  ],
  ...o,
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** An ASO credential Secret as the API server returns it (base64 values). */
const ASO_SECRET = {
  type: 'Opaque',
  data: {
    AZURE_SUBSCRIPTION_ID: b64('00000000-0000-0000-0000-000000000001'),
    AZURE_TENANT_ID: b64('00000000-0000-0000-0000-000000000002'),
    AZURE_CLIENT_ID: b64('00000000-0000-0000-0000-000000000003'),
    AZURE_CLIENT_SECRET: b64('client-secret-value'),
  },
};

/**
 * An API server with the namespace and Secret (every Secret is `secret`, default an ASO credential), nothing else;
 * `onApply` may refuse or stall an apply.
 */
function scripted(
  onApply: (obj: KubeObject, dryRun: boolean) => Promise<void> | void = () =>
    undefined,
  secret: { type?: string; data?: Record<string, string> } = ASO_SECRET,
) {
  const written: string[] = [];
  const client: ClusterCreateClient = {
    get: async (ref: ObjectRef) => {
      if (ref.kind === 'Namespace')
        return { metadata: { name: ref.name } } as KubeObject;
      if (ref.kind === 'Secret')
        return { metadata: { name: ref.name }, ...secret } as KubeObject;
      return undefined;
    },
    apply: async (obj, o) => {
      await onApply(obj, o.dryRun);
      if (!o.dryRun) written.push(`${obj.kind}/${obj.metadata.name}`);
      return {
        ...obj,
        metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}` },
      };
    },
  };
  return { client, written };
}

async function app(
  client: ClusterCreateClient,
  azure?: ClusterCreateRouterOptions['azure'],
  decision?: PolicyDecision,
) {
  const logger = mockServices.logger.mock();
  return express()
    .use(
      await createClusterCreateRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: decision
          ? mockServices.permissions.mock({
              authorizeConditional: async () => [decision],
            })
          : mockServices.permissions(),
        auditor: mockServices.auditor.mock(),
        defaultOwner: 'group:default/platform',
        managementClusters: [
          {
            name: 'east',
            authMethod: 'serviceAccountToken',
            url: 'https://east.example',
            serviceAccountToken: 't',
          },
        ],
        client: async () => client,
        azure,
        validateResponses: true,
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
}

describe('POST /clusters', () => {
  it('meets an IS_CLUSTER_OWNER condition with the owner the new cluster will have, the default one when it names none', async () => {
    const ownedBy = (claims: string[]): PolicyDecision => ({
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'capz',
      resourceType: 'capz-cluster',
      conditions: {
        rule: 'IS_CLUSTER_OWNER',
        resourceType: 'capz-cluster',
        params: { claims },
      },
    });
    const { client, written } = scripted();
    const team = await app(
      client,
      undefined,
      ownedBy(['group:default/team-a']),
    );
    const refused = await request(team)
      .post('/clusters')
      .set(auth)
      .send(body({ owner: 'group:default/team-b' }));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/capz\.cluster\.create/);
    // No owner named: the default owner's, which is not the team's.
    expect(
      (await request(team).post('/clusters').set(auth).send(body())).status,
    ).toBe(403);
    expect(written).toEqual([]);
    const created = await request(team)
      .post('/clusters')
      .set(auth)
      .send(body({ owner: 'group:default/team-a' }));
    expect(created.status).toBe(201);
    expect(written).toContain('Cluster/alpha');
  });

  it('answers 400 naming the object when the API server refuses it in the dry-run pass, and writes nothing', async () => {
    const { client, written } = scripted((obj, dryRun) => {
      if (dryRun && obj.kind === 'MachinePool')
        throw new KubeRequestError(
          422,
          'validating MachinePool team-a/alpha-pool0: spec.replicas: Invalid value',
        );
    });
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body());
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'The API server rejected validating MachinePool team-a/alpha-pool0: spec.replicas: Invalid value',
    );
    expect(written).toEqual([]);
  });

  it('names what it created when an apply fails half way', async () => {
    const { client, written } = scripted((obj, dryRun) => {
      if (!dryRun && obj.kind === 'MachinePool')
        throw new KubeRequestError(
          0,
          'applying MachinePool team-a/alpha-pool0: socket hang up',
        );
    });
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body());
    expect(res.status).toBe(500);
    expect(res.body.error.message).toBe(
      'applying MachinePool team-a/alpha-pool0: socket hang up; already created: Cluster team-a/alpha, AzureASOManagedControlPlane team-a/alpha, AzureASOManagedCluster team-a/alpha',
    );
    expect(written).toEqual([
      'Cluster/alpha',
      'AzureASOManagedControlPlane/alpha',
      'AzureASOManagedCluster/alpha',
    ]);
  });

  it('refuses a second request for a cluster while the first is being created (409), then serves the next', async () => {
    let release!: () => void;
    let reached!: () => void;
    const stalled = new Promise<void>(r => (release = r));
    const inside = new Promise<void>(r => (reached = r));
    const { client } = scripted(async (obj, dryRun) => {
      if (dryRun && obj.kind === 'Cluster') {
        reached();
        await stalled;
      }
    });
    const served = await app(client);
    const first = request(served)
      .post('/clusters')
      .set(auth)
      .send(body())
      .then(r => r);
    await inside; // the first request holds the cluster: it is waiting on its first dry-run apply
    const second = await request(served)
      .post('/clusters')
      .set(auth)
      .send(body());
    expect(second.status).toBe(409);
    expect(second.body.error.message).toBe(
      'A create of cluster east/team-a/alpha is already running',
    );
    release();
    expect((await first).status).toBe(201);
    // Released when done: the next request gets past the lock (and meets the objects, in a real API server).
    expect(
      (await request(served).post('/clusters').set(auth).send(body())).status,
    ).toBe(201);
  });

  it('answers 400 naming the field for an unknown management cluster', async () => {
    const { client, written } = scripted();
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body({ managementCluster: 'west' }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'managementCluster: no management cluster named "west" is configured',
    );
    expect(written).toEqual([]);
  });
});

describe('POST /clusters: what a person reads', () => {
  it('names a missing pool field as the sender wrote it, with what to put there', async () => {
    const { client, written } = scripted();
    const { replicas: _replicas, ...pool } = body().pools[0];
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send({ ...body(), pools: [pool] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'pools[0].replicas is missing: set it to a whole number from 0 to 1000',
    );
    expect(written).toEqual([]);
  });

  it('names unknown fields and the value refused, with the allowed ones', async () => {
    const { client } = scripted();
    const served = await app(client);
    const extra = await request(served)
      .post('/clusters')
      .set(auth)
      .send({ ...body(), pools: [{ ...body().pools[0], count: 3 }] });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toBe(
      '"count" is not a field of pools[0]: remove it (the fields are name, mode, osType, vmSize, replicas, autoscaling)',
    );
    const mode = await request(served)
      .post('/clusters')
      .set(auth)
      .send({ ...body(), pools: [{ ...body().pools[0], mode: 'system' }] });
    expect(mode.status).toBe(400);
    expect(mode.body.error.message).toBe(
      'pools[0].mode is "system": it must be one of System, User',
    );
  });

  it('takes kubernetesVersion 1.33.2 for v1.33.2 and writes v1.33.2', async () => {
    const versions: unknown[] = [];
    const { client, written } = scripted(obj => {
      if (obj.kind === 'MachinePool')
        versions.push(
          (obj.spec as { template: { spec: { version: unknown } } }).template
            .spec.version,
        );
    });
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body({ kubernetesVersion: '1.33.2' }));
    expect(res.status).toBe(201);
    expect(written).toContain('MachinePool/alpha-pool0');
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set(['v1.33.2']));
  });

  it('still refuses a version that is not one, naming the field', async () => {
    const { client, written } = scripted();
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body({ kubernetesVersion: '1.33' }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Invalid cluster: kubernetesVersion: "1.33" must be a version like v1.33.2',
    );
    expect(written).toEqual([]);
  });
});

describe('POST /clusters: the version AKS offers in the region (ARM)', () => {
  /** ARM's listKubernetesVersions, scripted: the region's versions, or ARM's failure. */
  const arm = (answer: string[] | Error) => {
    const asked: unknown[] = [];
    const azure: ClusterCreateRouterOptions['azure'] = {
      listKubernetesVersions: async q => {
        asked.push(q);
        if (answer instanceof Error) throw answer;
        return {
          subscriptionId: 'sub',
          location: q.location,
          previewsHidden: 0,
          items: answer.map(version => ({
            version,
            minor: version.slice(1, 5),
            isDefault: false,
            supportPlans: [],
          })),
        };
      },
    };
    return { azure, asked };
  };

  it('refuses v1.29.0, which the region does not offer, naming the version, the region and the versions offered; nothing is applied, not even as a dry run', async () => {
    const applied: string[] = [];
    const { client } = scripted((obj, dryRun) => {
      applied.push(`${dryRun ? 'dry ' : ''}${obj.kind}`);
    });
    const { azure, asked } = arm(['v1.33.2', 'v1.33.1', 'v1.32.6']);
    for (const dryRun of [true, false]) {
      const res = await request(await app(client, azure))
        .post('/clusters')
        .set(auth)
        .send(body({ kubernetesVersion: '1.29.0', dryRun }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        'Invalid cluster: kubernetesVersion: AKS does not offer v1.29.0 in westeurope; it offers v1.33.2, v1.33.1, v1.32.6',
      );
    }
    expect(applied).toEqual([]);
    // With the request's own credential Secret, in its namespace.
    expect(asked[0]).toEqual({
      managementCluster: 'east',
      namespace: 'team-a',
      credentialSecret: 'aso-credential',
      location: 'westeurope',
    });
  });

  it('creates with an offered version and no warning', async () => {
    const { client, written } = scripted();
    const res = await request(await app(client, arm(['v1.33.2']).azure))
      .post('/clusters')
      .set(auth)
      .send(body());
    expect(res.status).toBe(201);
    expect(res.body.warnings).toBeUndefined();
    expect(written).toContain('Cluster/alpha');
  });

  it('when ARM cannot be asked, goes on and says in the answer that the version was not checked, and why', async () => {
    const { client } = scripted();
    const res = await request(
      await app(
        client,
        arm(
          new Error(
            'the credential Secret team-a/aso-credential has no client secret',
          ),
        ).azure,
      ),
    )
      .post('/clusters')
      .set(auth)
      .send(body({ dryRun: true }));
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      'kubernetesVersion: v1.33.2 was not checked against the versions AKS offers in westeurope: the credential Secret team-a/aso-credential has no client secret. AKS refuses a version it does not offer (AgentPoolK8sVersionNotSupported) only after the objects are written.',
    ]);
  });

  it('without Azure discovery, goes on and says so', async () => {
    const { client } = scripted();
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body({ dryRun: true }));
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      expect.stringContaining(
        'was not checked against the versions AKS offers in westeurope: Azure discovery is not configured on this backend (capz.azureDiscovery)',
      ),
    ]);
  });
});

describe('POST /clusters: the credential Secret holds what ASO reads (key names only)', () => {
  it('refuses the CAPI kubeconfig Secret as the ASO credential (400 saying what it is and what an ASO credential holds), without Azure discovery too, and applies nothing', async () => {
    const applied: string[] = [];
    const { client } = scripted(
      obj => {
        applied.push(obj.kind);
      },
      {
        type: 'cluster.x-k8s.io/secret',
        data: {
          value: b64('apiVersion: v1\nusers: [{user: {token: sekret}}]'),
        },
      },
    );
    for (const dryRun of [true, false]) {
      const res = await request(await app(client))
        .post('/clusters')
        .set(auth)
        .send(body({ credentialSecretName: 'beta-kubeconfig', dryRun }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        'credentialSecretName: Secret team-a/beta-kubeconfig is the Cluster API kubeconfig Secret of cluster beta (type cluster.x-k8s.io/secret, key value), not an ASO credential: an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID, and AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE (with neither, ASO uses workload identity)',
      );
      expect(res.body.warnings).toBeUndefined();
      expect(JSON.stringify(res.body)).not.toContain('sekret');
    }
    expect(applied).toEqual([]);
  });

  it('names the keys ASO requires that a credential Secret lacks (400), never a value', async () => {
    const { client, written } = scripted(undefined, {
      type: 'Opaque',
      data: {
        AZURE_CLIENT_ID: b64('client'),
        AZURE_CLIENT_SECRET: b64('sekret'),
      },
    });
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body());
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      /^credentialSecretName: ASO credential Secret team-a\/aso-credential has no AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID: an ASO credential Secret holds /,
    );
    expect(JSON.stringify(res.body)).not.toContain('sekret');
    expect(written).toEqual([]);
  });

  it('takes a workload-identity Secret (the three ids, no secret or certificate) as ASO does', async () => {
    const { client, written } = scripted(undefined, {
      type: 'Opaque',
      data: {
        AZURE_SUBSCRIPTION_ID: b64('s'),
        AZURE_TENANT_ID: b64('t'),
        AZURE_CLIENT_ID: b64('c'),
      },
    });
    const res = await request(await app(client))
      .post('/clusters')
      .set(auth)
      .send(body());
    expect(res.status).toBe(201);
    expect(written).toContain('Cluster/alpha');
  });
});

describe('POST /clusters: the region and subscription through the real AksDiscovery and the simulated ARM', () => {
  const SUB = randomUUID();
  const TENANT = randomUUID();
  const SP = {
    tenantId: TENANT,
    clientId: randomUUID(),
    clientSecret: `sp-${randomBytes(8).toString('hex')}`,
  };
  let stateDir: string;
  let world: AzureWorld;
  let entra: EntraSim;
  let arm: ArmServer;
  /** The decoded data of the Secrets discovery reads, by name. */
  const secrets: Record<string, Record<string, string>> = {};
  const discovery = (resourceManagerEndpoint = arm.url) =>
    new AksDiscovery({
      config: new ConfigReader({
        capz: {
          azureDiscovery: {
            resourceManagerEndpoint,
            authorityHost: entra.url,
            disableInstanceDiscovery: true,
            caData: `${arm.caPem}\n${entra.caPem}`,
          },
        },
      }),
      logger: mockServices.logger.mock(),
      readSecret: async (_mc, _ns, name) => secrets[name],
      managedClusters: () => [],
    });

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'capz-create-arm-'));
    world = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
    entra = await startEntraSim({
      stateDir,
      applications: [ARM_RESOURCE],
      servicePrincipals: [SP],
    });
    arm = await startArmServer({
      world,
      authorize: entraAuthorizer(entra, { [SP.clientId]: [SUB] }),
      stateDir,
    });
    const ids = {
      AZURE_TENANT_ID: TENANT,
      AZURE_CLIENT_ID: SP.clientId,
      AZURE_CLIENT_SECRET: SP.clientSecret,
    };
    secrets['aso-credential'] = { AZURE_SUBSCRIPTION_ID: SUB, ...ids };
    secrets['gone-subscription'] = {
      AZURE_SUBSCRIPTION_ID: '00000000-0000-0000-0000-00000000dead',
      ...ids,
    };
  });

  afterAll(async () => {
    await arm?.close();
    await entra?.close();
    world?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('refuses a region that does not exist (400 listing the regions ARM offers), dry run or not, and applies nothing', async () => {
    const applied: string[] = [];
    const { client } = scripted(obj => {
      applied.push(obj.kind);
    });
    const served = await app(client, discovery());
    for (const dryRun of [true, false]) {
      const res = await request(served)
        .post('/clusters')
        .set(auth)
        .send(body({ location: 'nowhere', dryRun }));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        `Invalid cluster: location: "nowhere" is not a region of subscription ${SUB} (ARM: NoRegisteredProviderFound); its regions are australiasoutheast, eastus, northeurope, swedencentral, uksouth, westeurope, westus2`,
      );
    }
    expect(applied).toEqual([]);
  });

  it("refuses a credential whose subscription ARM does not know (400 naming the Secret's field)", async () => {
    const { client, written } = scripted();
    const res = await request(await app(client, discovery()))
      .post('/clusters')
      .set(auth)
      .send(body({ credentialSecretName: 'gone-subscription', dryRun: true }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      /^Invalid cluster: credentialSecretName: The subscription is not one the credential can see \(ARM answered SubscriptionNotFound while listing the Kubernetes versions of westeurope in subscription 00000000-0000-0000-0000-00000000dead with credential Secret team-a\/gone-subscription .*\): The subscription '00000000-0000-0000-0000-00000000dead' could not be found\.$/,
    );
    expect(written).toEqual([]);
  });

  it('creates in a region ARM offers, with no warning', async () => {
    const { client, written } = scripted();
    const res = await request(await app(client, discovery()))
      .post('/clusters')
      .set(auth)
      .send(body({ location: 'swedencentral' }));
    expect(res.status).toBe(201);
    expect(res.body.warnings).toBeUndefined();
    expect(written).toContain('Cluster/alpha');
  });

  it('only when ARM cannot be reached goes on, with a warning saying why', async () => {
    const { client } = scripted();
    // A port nothing listens on: connection refused.
    const closed = await new Promise<number>(resolve => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const res = await request(
      await app(client, discovery(`https://127.0.0.1:${closed}`)),
    )
      .post('/clusters')
      .set(auth)
      .send(body({ location: 'nowhere', dryRun: true }));
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(
        /^kubernetesVersion: v1\.33\.2 was not checked against the versions AKS offers in nowhere: Could not reach ARM while .*ECONNREFUSED/,
      ),
    ]);
  });
});

describe('createClusterInputErrors', () => {
  it("accepts the longest name the region's node resource group allows and refuses one more, naming the field", () => {
    // MC_<name>_<name>_westeurope <= 80 characters: at most 32.
    const pools = [
      { name: 'p', mode: 'System' as const, vmSize: 'x', replicas: 1 },
    ];
    expect(
      createClusterInputErrors(body({ name: 'a'.repeat(32), pools })),
    ).toEqual([]);
    const errors = createClusterInputErrors(
      body({ name: 'a'.repeat(33), pools }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^name: "a{33}" makes AKS's node resource group "MC_a{33}_a{33}_westeurope" 81 characters, above Azure's 80/,
    );
    expect(
      createClusterInputErrors(body({ name: 'a'.repeat(55), pools }))[0],
    ).toMatch(/^name: "a{55}" is 55 characters; it is the AKS dnsPrefix/);
  });

  it('names the pool whose MachinePool name would be longer than a DNS label', () => {
    const name = 'a'.repeat(52);
    const errors = createClusterInputErrors(
      body({
        name,
        location: 'x',
        pools: [
          { name: 'sys', mode: 'System', vmSize: 'x', replicas: 1 },
          { name: 'averylongpoo', mode: 'User', vmSize: 'x', replicas: 0 },
        ],
      }),
    );
    // (The node resource group limit bites first for any region; both are reported.)
    expect(errors).toContain(
      `pools[1].name: "${name}" with pool "averylongpoo" makes the object name "${name}-averylongpoo" (65 characters), above the 63 a Kubernetes name allows: shorten the cluster or the pool name`,
    );
  });

  it('passes the parameter rules through (capz-common)', () => {
    expect(createClusterInputErrors(body({ name: 'Bad' }))[0]).toMatch(
      /^name: "Bad" must be lowercase letters/,
    );
    expect(
      createClusterInputErrors(
        body({
          pools: [
            {
              name: 'win',
              mode: 'System',
              osType: 'Windows',
              vmSize: 'Standard_D2s_v3',
              replicas: 1,
            },
          ],
        }),
      ),
    ).toEqual(['pools[0].osType: pool "win": a System pool must run Linux']);
  });
});
