/**
 * POST /clusters with a scripted API server (an in-memory ApplyClient): what no real API server here produces on
 * demand. A refusal in the dry-run pass is a 400 before anything is written; a failure half way names what was
 * written; derived names are measured on the rendered objects; a second request for a cluster being created is a 409.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type {
  CreateClusterRequest,
  KubeObject,
  ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import request from 'supertest';
import { ApplyError } from '../cluster/KubeObjectClient';
import {
  ApplyClient,
  ClusterCreateRouterOptions,
  createClusterCreateRouter,
  createClusterInputErrors,
} from './clusterCreate';

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

/** An API server with the namespace and Secret, nothing else; `onApply` may refuse or stall an apply. */
function scripted(
  onApply: (obj: KubeObject, dryRun: boolean) => Promise<void> | void = () =>
    undefined,
) {
  const written: string[] = [];
  const client: ApplyClient = {
    get: async (ref: ObjectRef) =>
      ref.kind === 'Namespace' || ref.kind === 'Secret'
        ? ({ metadata: { name: ref.name } } as KubeObject)
        : undefined,
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
  client: ApplyClient,
  azure?: ClusterCreateRouterOptions['azure'],
) {
  const logger = mockServices.logger.mock();
  return express()
    .use(
      await createClusterCreateRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: mockServices.permissions(),
        auditor: mockServices.auditor.mock(),
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
  it('answers 400 naming the object when the API server refuses it in the dry-run pass, and writes nothing', async () => {
    const { client, written } = scripted((obj, dryRun) => {
      if (dryRun && obj.kind === 'MachinePool')
        throw new ApplyError(
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
        throw new ApplyError(
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
