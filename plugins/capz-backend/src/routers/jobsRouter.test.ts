/**
 * The jobs router's permission checks: without capz.cluster.migrate / capz.cluster.adopt (or without read access to
 * the target) every mutation is a 403 before anything is planned, stored, kicked or changed. The store is the real
 * JobStore on SQLite; the planner and engine are spies that must not be called.
 */
import {
  mockCredentials,
  mockServices,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import {
  AuthorizeResult,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import type { JobRequest, StepPlan } from '@capz-backstage/plugin-capz-common';
import express from 'express';
import request from 'supertest';
import type { ManagementClusterConfig } from '../config/managementClusters';
import type { JobEngine } from '../jobs/JobEngine';
import type { AksLister, JobPlanner } from '../jobs/JobPlanner';
import { DatabaseJobStore } from '../jobs/DatabaseJobStore';
import type { JobStore } from '../jobs/JobStore';
import { createJobsRouter } from './jobsRouter';

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const mcs: ManagementClusterConfig[] = [
  {
    name: 'east',
    authMethod: 'serviceAccountToken',
    url: 'https://east.example',
    serviceAccountToken: 't',
  },
];
const auth = { Authorization: mockCredentials.user.header() };

const migrate: JobRequest = {
  type: 'migrate',
  params: {
    managementCluster: 'east',
    namespace: 'team-a',
    name: 'alpha',
    targetNamespace: 'team-a-aso',
  },
};
const adopt: JobRequest = {
  type: 'adopt',
  params: {
    managementCluster: 'east',
    namespace: 'team-b',
    credentialSecret: 'aso-credential',
    subscriptionId: 'sub',
    resourceGroup: 'rg',
    clusterName: 'beta',
  },
};
const plan: StepPlan[] = [
  {
    id: 'pause',
    title: 'Pause',
    description: '',
    preconditions: [],
    actions: [],
    waitFor: [],
    timeoutSeconds: 10,
  },
];

async function setup(o: {
  jobDecision: AuthorizeResult.ALLOW | AuthorizeResult.DENY;
  read?: PolicyDecision;
}) {
  const knex = await databases.init('SQLITE_3');
  const store = await DatabaseJobStore.create({
    database: mockServices.database({ knex }),
  });
  const planner = { preview: jest.fn() };
  const engine = { kick: jest.fn(), interrupt: jest.fn() };
  const client = jest.fn();
  const audits: string[] = [];
  const logger = mockServices.logger.mock();
  const router = await createJobsRouter({
    logger,
    httpAuth: mockServices.httpAuth(),
    permissions: mockServices.permissions.mock({
      authorize: async reqs => reqs.map(() => ({ result: o.jobDecision })),
      authorizeConditional: async reqs =>
        reqs.map(() => o.read ?? { result: AuthorizeResult.ALLOW }),
    }),
    auditor: mockServices.auditor.mock({
      createEvent: async (e: { meta?: unknown }) => {
        audits.push(JSON.stringify(e.meta));
        return { success: async () => undefined, fail: async () => undefined };
      },
    }),
    managementClusters: mcs,
    cache: { list: () => [] },
    store,
    engine: engine as unknown as JobEngine,
    planner: planner as unknown as JobPlanner,
    client,
  });
  const app = express()
    .use(router)
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
  /** Nothing was planned, read from a cluster, stored, kicked or audited as done. */
  const nothingHappened = async () => {
    expect(planner.preview).not.toHaveBeenCalled();
    expect(client).not.toHaveBeenCalled();
    expect(engine.kick).not.toHaveBeenCalled();
    expect(engine.interrupt).not.toHaveBeenCalled();
    expect(audits).toEqual([]);
  };
  return { app, store, nothingHappened };
}

describe('jobs router permissions', () => {
  it('refuses a migration without capz.cluster.migrate: 403 and nothing stored', async () => {
    const { app, store, nothingHappened } = await setup({
      jobDecision: AuthorizeResult.DENY,
    });
    for (const path of ['/jobs', '/jobs/preview']) {
      const res = await request(app).post(path).set(auth).send(migrate);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe(
        'Not allowed to migrate clusters (capz.cluster.migrate)',
      );
    }
    expect(await store.list({})).toEqual([]);
    await nothingHappened();
  });

  it('refuses an adoption without capz.cluster.adopt: 403 and nothing stored', async () => {
    const { app, store, nothingHappened } = await setup({
      jobDecision: AuthorizeResult.DENY,
    });
    const res = await request(app).post('/jobs').set(auth).send(adopt);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      'Not allowed to adopt clusters (capz.cluster.adopt)',
    );
    expect(
      (
        await request(app)
          .get(
            '/azure/clusters?managementCluster=east&namespace=team-b&credentialSecret=aso-credential',
          )
          .set(auth)
      ).status,
    ).toBe(403);
    expect(await store.list({})).toEqual([]);
    await nothingHappened();
  });

  it('refuses a job on a namespace the read policy excludes, even with the job permission', async () => {
    const read: PolicyDecision = {
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'capz',
      resourceType: 'capz-cluster',
      conditions: {
        rule: 'IS_IN_NAMESPACE',
        resourceType: 'capz-cluster',
        params: { namespaces: ['team-z'] },
      },
    };
    const { app, store, nothingHappened } = await setup({
      jobDecision: AuthorizeResult.ALLOW,
      read,
    });
    const res = await request(app).post('/jobs').set(auth).send(migrate);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      'Not allowed to read clusters in east/team-a',
    );
    expect(await store.list({})).toEqual([]);
    await nothingHappened();
  });

  it('refuses pause, resume and cancel without the permission and leaves the job as it was', async () => {
    const { app, store, nothingHappened } = await setup({
      jobDecision: AuthorizeResult.DENY,
    });
    await store.insert({
      id: 'job-1',
      request: migrate,
      target: { managementCluster: 'east', namespace: 'team-a', name: 'alpha' },
      plan,
      createdBy: 'user:default/other',
    });
    const before = await store.get('job-1');
    for (const action of ['pause', 'resume', 'cancel']) {
      const res = await request(app).post(`/jobs/job-1/${action}`).set(auth);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe(
        'Not allowed to migrate clusters (capz.cluster.migrate)',
      );
    }
    expect(await store.get('job-1')).toEqual(before);
    expect(await store.readLog('job-1')).toEqual([]);
    // Reading is a different permission: the job stays visible.
    expect((await request(app).get('/jobs/job-1').set(auth)).body.state).toBe(
      'queued',
    );
    await nothingHappened();
  });
});

describe('jobs router: one job per AKS cluster (claims)', () => {
  const SUB = 'sub';
  const claimsOf = (rg: string, name: string) => [
    `aks:${SUB}/${rg}/${name}`,
    `rg:${SUB}/${rg}`,
  ];
  const adoptInto = (namespace: string): JobRequest => ({
    type: 'adopt',
    params: { ...(adopt.params as object), namespace } as never,
  });
  const preview = (r: JobRequest) => ({
    type: 'adopt',
    target: {
      managementCluster: 'east',
      namespace: (r.params as { namespace: string }).namespace,
      name: 'beta',
    },
    preflight: [
      {
        id: 'not-managed',
        title: 'Nothing manages it yet',
        status: 'pass',
        message: 'ok',
      },
    ],
    plan,
  });

  it('refuses a second adoption of the same AKS cluster (other namespace, other spelling) with 409 before any preflight', async () => {
    const { store } = await setup({ jobDecision: AuthorizeResult.ALLOW });
    const { app, planner } = await setupWithPlanner(store, preview);
    await store.insert({
      id: 'job-1',
      request: adopt,
      target: { managementCluster: 'east', namespace: 'team-b', name: 'beta' },
      plan,
      createdBy: 'user:default/other',
      claims: claimsOf('rg', 'beta'),
    });
    const other = adoptInto('team-c');
    (other.params as { resourceGroup: string }).resourceGroup = 'RG';
    const res = await request(app).post('/jobs').set(auth).send(other);
    expect(res.status).toBe(409);
    expect(res.body.jobId).toBe('job-1');
    expect(res.body.error.message).toBe(
      'AKS cluster sub/rg/beta is claimed by the queued adopt job job-1 on east/team-b/beta: one job at a time may adopt or migrate an AKS cluster; let that job finish, or cancel it, first',
    );
    expect((await store.list({})).map(j => j.id)).toEqual(['job-1']);
    expect(planner.preview).not.toHaveBeenCalled();
  });

  it('answers a race lost at the database with 409 naming the winner, and stores nothing of the loser', async () => {
    const { store } = await setup({ jobDecision: AuthorizeResult.ALLOW });
    // The other replica's job lands while this request runs its preflight, after the early check found no claim.
    const { app, planner } = await setupWithPlanner(store, async r => {
      await store.insert({
        id: 'winner',
        request: adoptInto('team-z'),
        target: {
          managementCluster: 'east',
          namespace: 'team-z',
          name: 'beta',
        },
        plan,
        createdBy: 'user:default/other',
        claims: claimsOf('rg', 'beta'),
      });
      return preview(r);
    });
    const res = await request(app)
      .post('/jobs')
      .set(auth)
      .send(adoptInto('team-c'));
    expect(planner.preview).toHaveBeenCalledTimes(1);
    expect({ status: res.status, jobId: res.body.jobId }).toEqual({
      status: 409,
      jobId: 'winner',
    });
    expect(res.body.error.message).toMatch(
      /^AKS cluster sub\/rg\/beta is claimed by the queued adopt job winner on east\/team-z\/beta/,
    );
    expect((await store.list({})).map(j => j.id)).toEqual(['winner']);
  });

  it('shows a held claim as a failed check in the preview', async () => {
    const { store } = await setup({ jobDecision: AuthorizeResult.ALLOW });
    await store.insert({
      id: 'job-1',
      request: adopt,
      target: { managementCluster: 'east', namespace: 'team-b', name: 'beta' },
      plan,
      createdBy: 'user:default/other',
      claims: claimsOf('rg', 'beta'),
    });
    const { app } = await setupWithPlanner(store, preview);
    const res = await request(app)
      .post('/jobs/preview')
      .set(auth)
      .send(adoptInto('team-c'));
    expect(res.status).toBe(200);
    expect(res.body.preflight[0]).toMatchObject({
      id: 'no-other-job',
      status: 'fail',
      message: expect.stringContaining('adopt job job-1 on east/team-b/beta'),
    });
  });
});

/** The router over an existing store with a planner answering `preview`. */
async function setupWithPlanner(
  store: JobStore,
  preview: (r: JobRequest) => unknown,
) {
  const planner = { preview: jest.fn(async (r: JobRequest) => preview(r)) };
  const logger = mockServices.logger.mock();
  const router = await createJobsRouter({
    logger,
    httpAuth: mockServices.httpAuth(),
    permissions: mockServices.permissions.mock({
      authorize: async reqs =>
        reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
      authorizeConditional: async reqs =>
        reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
    }),
    auditor: mockServices.auditor.mock({
      createEvent: async () => ({
        success: async () => undefined,
        fail: async () => undefined,
      }),
    }),
    managementClusters: mcs,
    cache: { list: () => [] },
    store,
    engine: { kick: jest.fn(), interrupt: jest.fn() } as unknown as JobEngine,
    planner: planner as unknown as JobPlanner,
    client: jest.fn(),
  });
  const app = express()
    .use(router)
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
  return { app, planner };
}

describe('jobs router: the OpenAPI document and one error shape', () => {
  async function app(o: { preflight?: 'pass' | 'fail' } = {}) {
    const knex = await databases.init('SQLITE_3');
    const store = await DatabaseJobStore.create({
      database: mockServices.database({ knex }),
    });
    const planner = {
      preview: jest.fn(async (r: JobRequest) => ({
        type: r.type,
        target: {
          managementCluster: 'east',
          namespace: 'team-a',
          name: 'alpha',
        },
        preflight: [
          {
            id: 'target-free',
            title: 'Target namespace is free',
            status: o.preflight ?? 'pass',
            message: 'team-a-aso exists',
          },
        ],
        plan,
      })),
    };
    const logger = mockServices.logger.mock();
    const router = await createJobsRouter({
      logger,
      httpAuth: mockServices.httpAuth(),
      permissions: mockServices.permissions.mock({
        authorize: async reqs =>
          reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
        authorizeConditional: async reqs =>
          reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
      }),
      auditor: mockServices.auditor.mock({
        createEvent: async () => ({
          success: async () => undefined,
          fail: async () => undefined,
        }),
      }),
      managementClusters: mcs,
      cache: { list: () => [] },
      store,
      engine: { kick: jest.fn(), interrupt: jest.fn() } as unknown as JobEngine,
      planner: planner as unknown as JobPlanner,
      client: jest.fn(),
      validateResponses: true,
    });
    return {
      store,
      planner,
      app: express()
        .use(router)
        .use(
          MiddlewareFactory.create({
            config: mockServices.rootConfig(),
            logger,
          }).error(),
        ),
    };
  }

  it('refuses invalid input with a 400 naming the field, before any check', async () => {
    const { app: a, planner } = await app();
    const bad = await request(a)
      .post('/jobs')
      .set(auth)
      .send({
        type: 'migrate',
        params: { ...migrate.params, namespace: 'Team_A' },
      });
    expect(bad.status).toBe(400);
    expect(bad.body.error.name).toBe('InputError');
    expect(bad.body.error.message).toMatch(
      /^Namespace "Team_A" is not a Kubernetes namespace name: /,
    );
    const extra = await request(a)
      .post('/jobs/preview')
      .set(auth)
      .send({ type: 'migrate', params: { ...migrate.params, force: true } });
    expect(extra.status).toBe(400);
    const unknownType = await request(a)
      .post('/jobs')
      .set(auth)
      .send({ type: 'delete', params: {} });
    expect(unknownType.status).toBe(400);
    const badQuery = await request(a)
      .get('/credential-secrets?managementCluster=east&namespace=Team_A')
      .set(auth);
    expect(badQuery.status).toBe(400);
    expect(planner.preview).not.toHaveBeenCalled();
  });

  it('starts a job (201, the job as documented) and answers a second start with 409 naming it', async () => {
    const { app: a } = await app();
    // An upgrade manages no other AKS cluster than its own: no claims, only the cluster's one active job.
    const upgrade: JobRequest = {
      type: 'upgrade-api-version',
      params: { managementCluster: 'east', namespace: 'team-a', name: 'alpha' },
    };
    const first = await request(a).post('/jobs').set(auth).send(upgrade);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      type: 'upgrade-api-version',
      state: 'queued',
    });
    const again = await request(a).post('/jobs').set(auth).send(upgrade);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: {
        name: 'ConflictError',
        message: `east/team-a/alpha already has a queued upgrade-api-version job (${first.body.id}); finish, resume or cancel it first`,
        jobId: first.body.id,
      },
      request: { method: 'POST', url: '/jobs' },
      response: { statusCode: 409 },
      jobId: first.body.id,
    });
    const listed = await request(a).get('/jobs?active=true').set(auth);
    expect(listed.body.items.map((j: { id: string }) => j.id)).toEqual([
      first.body.id,
    ]);
  });

  it('answers an action the state refuses with 409 naming the job, in the same shape', async () => {
    const { app: a, store } = await app();
    await store.insert({
      id: 'job-1',
      request: migrate,
      target: { managementCluster: 'east', namespace: 'team-a', name: 'alpha' },
      plan,
      createdBy: 'user:default/other',
    });
    const paused = await request(a)
      .post('/jobs/job-1/pause')
      .set(auth)
      .send({});
    expect(paused.status).toBe(200);
    expect(paused.body.state).toBe('paused');
    const again = await request(a).post('/jobs/job-1/pause').set(auth);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      error: {
        name: 'ConflictError',
        message: 'Cannot pause job job-1: it is paused',
      },
      response: { statusCode: 409 },
      jobId: 'job-1',
    });
    expect(
      (await request(a).post('/jobs/job-1/resume').set(auth)).body.state,
    ).toBe('queued');
    expect((await request(a).get('/jobs/nope').set(auth)).status).toBe(404);
  });

  it('answers a failed preflight with 422 and every check, storing nothing', async () => {
    const { app: a, store } = await app({ preflight: 'fail' });
    const res = await request(a).post('/jobs').set(auth).send(migrate);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      error: {
        name: 'PreflightFailedError',
        message:
          'Preflight failed: Target namespace is free: team-a-aso exists',
      },
      response: { statusCode: 422 },
      preflight: [{ id: 'target-free', status: 'fail' }],
    });
    expect(await store.list({})).toEqual([]);
  });
});

/**
 * A name that is not one of its kind is refused at the edge with the form's words, and nothing behind the
 * route is asked: no Secret read (a Secret name of "." is a list of every Secret in the namespace to the API server),
 * no ARM call, no plan. The recorders are the router's Kubernetes and Azure edges.
 */
describe('jobs router: names and fields checked at the edge', () => {
  const SECRET_RULE =
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 253 characters";
  const CLUSTER_RULE =
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 63 characters";

  async function app() {
    const knex = await databases.init('SQLITE_3');
    const store = await DatabaseJobStore.create({
      database: mockServices.database({ knex }),
    });
    /** Every call that would reach the API server or ARM. */
    const calls: string[] = [];
    const planner = {
      preview: jest.fn(async (r: JobRequest) => {
        calls.push(`plan ${JSON.stringify(r.params)}`);
        throw new Error('not planned here');
      }),
    };
    const logger = mockServices.logger.mock();
    const router = await createJobsRouter({
      logger,
      httpAuth: mockServices.httpAuth(),
      permissions: mockServices.permissions.mock({
        authorize: async reqs =>
          reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
        authorizeConditional: async reqs =>
          reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
      }),
      auditor: mockServices.auditor.mock({
        createEvent: async () => ({
          success: async () => undefined,
          fail: async () => undefined,
        }),
      }),
      managementClusters: mcs,
      cache: { list: () => [] },
      store,
      engine: { kick: jest.fn(), interrupt: jest.fn() } as unknown as JobEngine,
      planner: planner as unknown as JobPlanner,
      client: async mc => {
        calls.push(`client ${mc}`);
        throw new Error('no cluster here');
      },
      readSecret: async (mc, ns, name) => {
        calls.push(`get secret ${mc}/${ns}/${name}`);
        return undefined;
      },
      aks: {
        listClusters: async (q: { credentialSecret: string }) => {
          calls.push(`arm ${q.credentialSecret}`);
          return { subscriptionId: 's', items: [] };
        },
        resourceGroup: async () => undefined,
      } as unknown as AksLister,
    });
    return {
      calls,
      store,
      app: express()
        .use(router)
        .use(
          MiddlewareFactory.create({
            config: mockServices.rootConfig(),
            logger,
          }).error(),
        ),
    };
  }

  it('reads no Secret for a Secret name that is not one (GET /credential-secrets?name=.)', async () => {
    const { app: a, calls } = await app();
    for (const name of ['.', '..', '../kube-system', 'A']) {
      const res = await request(a)
        .get('/credential-secrets')
        .query({ managementCluster: 'east', namespace: 'team-payments', name })
        .set(auth);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        `Secret name ${JSON.stringify(
          name,
        )} is not a Kubernetes Secret name: ${SECRET_RULE}`,
      );
    }
    expect(calls).toEqual([]);
    // The recorder does record: a name that is one is read (by name, never listed).
    const ok = await request(a)
      .get('/credential-secrets')
      .query({
        managementCluster: 'east',
        namespace: 'team-payments',
        name: 'my.secret',
      })
      .set(auth);
    expect(ok.status).toBe(200);
    expect(calls).toEqual([
      'get secret east/team-payments/aso-credential',
      'get secret east/team-payments/my.secret',
    ]);
  });

  it('asks ARM nothing for a credential Secret name that is not one (GET /azure/clusters)', async () => {
    const { app: a, calls } = await app();
    const res = await request(a)
      .get('/azure/clusters')
      .query({
        managementCluster: 'east',
        namespace: 'team-payments',
        credentialSecret: '.',
      })
      .set(auth);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      `Credential Secret name "." is not a Kubernetes Secret name: ${SECRET_RULE}`,
    );
    expect(calls).toEqual([]);
  });

  it("plans nothing for an adoption's credential Secret or a cluster name that is not one", async () => {
    const { app: a, calls, store } = await app();
    for (const path of ['/jobs', '/jobs/preview']) {
      const secret = await request(a)
        .post(path)
        .set(auth)
        .send({
          ...adopt,
          params: { ...adopt.params, credentialSecret: '..' },
        });
      expect(secret.status).toBe(400);
      expect(secret.body.error.message).toBe(
        `Credential Secret name ".." is not a Kubernetes Secret name: ${SECRET_RULE}`,
      );
      for (const name of ['.', '..', '../x']) {
        const res = await request(a)
          .post(path)
          .set(auth)
          .send({ ...migrate, params: { ...migrate.params, name } });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe(
          `Cluster name ${JSON.stringify(
            name,
          )} is not a Cluster API Cluster name: ${CLUSTER_RULE}`,
        );
      }
      const upgrade = await request(a)
        .post(path)
        .set(auth)
        .send({
          type: 'upgrade-api-version',
          params: { managementCluster: 'east', namespace: 'team-a', name: '.' },
        });
      expect(upgrade.status).toBe(400);
    }
    expect(calls).toEqual([]);
    expect(await store.list({})).toEqual([]);
  });

  it('refuses a field the job does not take, at the top as in its params', async () => {
    const { app: a, calls } = await app();
    const top = await request(a)
      .post('/jobs/preview')
      .set(auth)
      .send({ ...migrate, dryRun: true });
    expect(top.status).toBe(400);
    expect(top.body.error.message).toBe(
      'Unknown field "dryRun" for the migrate job: it takes only type, params',
    );
    const inParams = await request(a)
      .post('/jobs')
      .set(auth)
      .send({ ...migrate, params: { ...migrate.params, force: true } });
    expect(inParams.status).toBe(400);
    expect(inParams.body.error.message).toBe(
      '"force" is not a field of params: remove it (the fields are managementCluster, namespace, name, targetNamespace)',
    );
    expect(calls).toEqual([]);
  });
});
