import { mockServices } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import type { JobRequest, StepPlan } from '@capz-backstage/plugin-capz-common';
import { azureClaimKeys } from './claims';
import { JobConflictError } from './conflicts';
import { DatabaseJobStore, unreachableReason } from './DatabaseJobStore';
import { JobDatabaseUnavailableError, type JobStore } from './JobStore';
import { storeDatabases } from '../testing/storeDatabases';
import knexFactory from 'knex';
import { createServer } from 'node:net';

/**
 * The claims (one owner per AKS cluster) on both databases: one adoption or migration per Azure cluster and resource group, whatever
 * the namespace; decided by the database (concurrent inserts), kept while the job can still run (failed, paused),
 * released with its final state in the same transaction. The integration test (claims.integration.test.ts) runs
 * the same through two backend replicas.
 */
const databases = storeDatabases();

const SUB = '00000000-0000-0000-0000-0000000000aa';
const adopt = (
  namespace: string,
  clusterName = 'analytics-aks',
  resourceGroup = 'rg-analytics',
): JobRequest => ({
  type: 'adopt',
  params: {
    managementCluster: 'east',
    namespace,
    credentialSecret: 'aso-credential',
    subscriptionId: SUB,
    resourceGroup,
    clusterName,
  },
});
const plan: StepPlan[] = [
  {
    id: 'adopt-resource-group',
    title: 'Adopt',
    description: '',
    preconditions: [],
    actions: [],
    waitFor: [],
    timeoutSeconds: 10,
  },
];

function insert(store: JobStore, id: string, request: JobRequest) {
  const p = request.params as {
    namespace: string;
    clusterName: string;
    subscriptionId: string;
    resourceGroup: string;
  };
  return store.insert({
    id,
    request,
    target: {
      managementCluster: 'east',
      namespace: p.namespace,
      name: p.clusterName,
    },
    plan,
    createdBy: 'user:default/tester',
    claims: azureClaimKeys({
      subscriptionId: p.subscriptionId,
      resourceGroup: p.resourceGroup,
      name: p.clusterName,
    }),
  });
}

describe.each(databases.eachSupportedId())(
  'DatabaseJobStore claims on %p',
  databaseId => {
    async function setup() {
      const knex = await databases.init(databaseId);
      return {
        knex,
        store: await DatabaseJobStore.create({
          database: mockServices.database({ knex }),
        }),
      };
    }

    it('refuses a second job on the same AKS cluster in another namespace, names the holder, stores nothing of it', async () => {
      const { store } = await setup();
      await insert(store, 'job-1', adopt('team-payments'));
      // Azure compares names case-insensitively: another spelling is the same cluster.
      const err = await insert(
        store,
        'job-2',
        adopt('team-search', 'Analytics-AKS', 'RG-Analytics'),
      ).catch(e => e);
      expect(err).toBeInstanceOf(JobConflictError);
      expect(err.jobId).toBe('job-1');
      expect(err.message).toBe(
        `AKS cluster ${SUB}/rg-analytics/analytics-aks is claimed by the queued adopt job job-1 on east/team-payments/analytics-aks: ` +
          'one job at a time may adopt or migrate an AKS cluster; let that job finish, or cancel it, first',
      );
      expect((await store.list({})).map(j => j.id)).toEqual(['job-1']);
      expect(await store.claimsOf('job-2')).toEqual([]);
      // Another cluster in the same resource group: the group is claimed too (two ResourceGroup objects on one group).
      const sameGroup = await insert(
        store,
        'job-3',
        adopt('team-other', 'other-aks'),
      ).catch(e => e);
      expect(sameGroup.message).toMatch(
        new RegExp(
          `^resource group ${SUB}/rg-analytics is claimed by the queued adopt job job-1`,
        ),
      );
    });

    it('lets exactly one of concurrent inserts through (the database decides)', async () => {
      const { store } = await setup();
      const results = await Promise.allSettled(
        ['a', 'b', 'c', 'd'].map(n =>
          insert(store, `job-${n}`, adopt(`team-${n}`)),
        ),
      );
      const won = results.filter(r => r.status === 'fulfilled');
      const lost = results.filter(
        (r): r is PromiseRejectedResult => r.status === 'rejected',
      );
      expect(won).toHaveLength(1);
      const winner = (won[0] as PromiseFulfilledResult<{ id: string }>).value
        .id;
      expect(
        lost.map(r => [r.reason instanceof JobConflictError, r.reason.jobId]),
      ).toEqual([
        [true, winner],
        [true, winner],
        [true, winner],
      ]);
      expect((await store.list({})).map(j => j.id)).toEqual([winner]);
    });

    it('keeps the claims while the job can resume and releases them with its final state', async () => {
      const { store } = await setup();
      await insert(store, 'job-1', adopt('team-payments'));
      const keys = await store.claimsOf('job-1');
      expect(keys).toEqual([
        `aks:${SUB}/rg-analytics/analytics-aks`,
        `rg:${SUB}/rg-analytics`,
      ]);
      expect(await store.claim('job-1', 'r1', 10_000)).toBe(true);
      expect(await store.update('job-1', 'r1', { state: 'running' })).toBe(
        true,
      );
      expect(
        await store.update('job-1', 'r1', { state: 'failed', error: 'boom' }),
      ).toBe(true);
      expect(await store.claimsOf('job-1')).toEqual(keys);
      // A replica that lost the lease (expired; r2 took it) cannot finish the job, nor release its claims.
      await store.resume('job-1');
      expect(
        await store.claim('job-1', 'r2', 60_000, Date.now() + 20_000),
      ).toBe(true);
      expect(await store.update('job-1', 'r1', { state: 'succeeded' })).toBe(
        false,
      );
      expect(await store.claimsOf('job-1')).toEqual(keys);
      expect(await store.update('job-1', 'r2', { state: 'succeeded' })).toBe(
        true,
      );
      expect(await store.claimsOf('job-1')).toEqual([]);
      await insert(store, 'job-2', adopt('team-search'));
      expect(await store.claimsOf('job-2')).toEqual(keys);
    });

    it('releases the claims of an idle job cancelled by a user, not of a paused one', async () => {
      const { store } = await setup();
      await insert(store, 'job-1', adopt('team-payments'));
      await store.request('job-1', 'pause', () => undefined);
      expect((await store.get('job-1')).state).toBe('paused');
      expect(
        await store.claimHolders(
          azureClaimKeys({
            subscriptionId: SUB,
            resourceGroup: 'rg-analytics',
            name: 'analytics-aks',
          }),
        ),
      ).toHaveLength(2);
      await store.request('job-1', 'cancel', () => undefined);
      expect((await store.get('job-1')).state).toBe('cancelled');
      expect(await store.claimsOf('job-1')).toEqual([]);
      await insert(store, 'job-2', adopt('team-search'));
    });

    it('gives the unfinished jobs of before the migration their claims, the oldest first', async () => {
      const knex = await databases.init(databaseId);
      const directory = resolvePackagePath(
        '@capz-backstage/plugin-capz-backend',
        'migrations',
      );
      await knex.migrate.up({ directory }); // condition history
      await knex.migrate.up({ directory }); // jobs
      const row = (
        id: string,
        state: string,
        createdAt: number,
        request: JobRequest,
        p: unknown = plan,
      ) => ({
        id,
        type: request.type,
        management_cluster: 'east',
        namespace: (request.params as { namespace: string }).namespace,
        name: id,
        active_key: state === 'succeeded' ? null : `east/${id}`,
        params: JSON.stringify(request.params),
        plan: JSON.stringify(p),
        steps: '[]',
        created_by: 'user:default/tester',
        state,
        created_at: createdAt,
        updated_at: createdAt,
      });
      const migration: JobRequest = {
        type: 'migrate',
        params: {
          managementCluster: 'east',
          namespace: 'team-data',
          name: 'data-lake',
          targetNamespace: 'data-lake-aso',
        },
      };
      const verify = [
        {
          ...plan[0],
          id: 'verify',
          preconditions: [
            {
              type: 'azure-cluster-exists',
              subscriptionId: SUB,
              resourceGroup: 'RG-Data-Lake',
              name: 'data-lake',
              credential: { apiVersion: 'v1', kind: 'Secret', name: 's' },
              description: '',
            },
          ],
        },
      ];
      await knex('capz_jobs').insert([
        row('old-done', 'succeeded', 1, adopt('a')),
        row('old-first', 'running', 2, adopt('b')),
        row('old-second', 'queued', 3, adopt('c')), // the double owner of before: keeps running, without claims
        row('old-migrate', 'failed', 4, migration, verify),
      ]);
      const store = await DatabaseJobStore.create({
        database: mockServices.database({ knex }),
      });
      expect(await store.claimsOf('old-done')).toEqual([]);
      expect(await store.claimsOf('old-first')).toEqual([
        `aks:${SUB}/rg-analytics/analytics-aks`,
        `rg:${SUB}/rg-analytics`,
      ]);
      expect(await store.claimsOf('old-second')).toEqual([]);
      expect(await store.claimsOf('old-migrate')).toEqual([
        `aks:${SUB}/rg-data-lake/data-lake`,
        `rg:${SUB}/rg-data-lake`,
      ]);
    });
  },
);

/** The rest of the store's contract on both databases: reads, the lease, fenced writes, the user's actions, the log. */
describe.each(databases.eachSupportedId())(
  'DatabaseJobStore on %p',
  databaseId => {
    const migrate = (name: string): JobRequest => ({
      type: 'migrate',
      params: {
        managementCluster: 'east',
        namespace: 'team-a',
        name,
        targetNamespace: `${name}-aso`,
      },
    });
    const two: StepPlan[] = [plan[0], { ...plan[0], id: 'second' }];

    async function setup() {
      const knex = await databases.init(databaseId);
      const store: JobStore = await DatabaseJobStore.create({
        database: mockServices.database({ knex }),
      });
      const add = (id: string, name = id) =>
        store.insert({
          id,
          request: migrate(name),
          target: { managementCluster: 'east', namespace: 'team-a', name },
          plan: two,
          createdBy: 'user:default/tester',
        });
      return { store, add };
    }

    it('stores a queued job with pending steps, and lists newest first with filters', async () => {
      const { store, add } = await setup();
      const a = await add('a');
      expect(a).toMatchObject({
        id: 'a',
        type: 'migrate',
        state: 'queued',
        target: { managementCluster: 'east', namespace: 'team-a', name: 'a' },
        steps: [
          { id: 'adopt-resource-group', state: 'pending', attempts: 0 },
          { id: 'second', state: 'pending', attempts: 0 },
        ],
        plan: two,
      });
      expect(await store.get('a')).toEqual(a);
      await new Promise(r => setTimeout(r, 5));
      await add('b');
      expect((await store.list({})).map(j => j.id)).toEqual(['b', 'a']);
      expect((await store.list({ name: 'a' })).map(j => j.id)).toEqual(['a']);
      expect((await store.list({ limit: 1 })).map(j => j.id)).toEqual(['b']);
      await expect(store.get('nope')).rejects.toThrow('No job nope');
    });

    it('refuses a second active job on a cluster, naming it, and frees the cluster with a final state', async () => {
      const { store, add } = await setup();
      await add('a', 'alpha');
      const err = await add('b', 'alpha').catch(e => e);
      expect(err).toBeInstanceOf(JobConflictError);
      expect(err.jobId).toBe('a');
      expect(err.message).toBe(
        'east/team-a/alpha already has a queued migrate job (a); finish, resume or cancel it first',
      );
      expect(await store.claim('a', 'r1', 60_000)).toBe(true);
      expect(await store.update('a', 'r1', { state: 'succeeded' })).toBe(true);
      const done = await store.get('a');
      expect(done.finishedAt).toBeDefined();
      expect((await store.list({ active: true })).map(j => j.id)).toEqual([]);
      await add('b', 'alpha');
    });

    it('gives a lease to one replica, fences writes by it, and lets another take it once expired', async () => {
      const { store, add } = await setup();
      await add('a');
      expect(await store.orphaned()).toEqual(['a']);
      expect(await store.claim('a', 'r1', 60_000)).toBe(true);
      expect(await store.claim('a', 'r2', 60_000)).toBe(false);
      expect(await store.orphaned()).toEqual([]);
      expect(await store.update('a', 'r2', { state: 'running' })).toBe(false);
      expect(await store.update('a', 'r1', { state: 'running' })).toBe(true);
      expect(await store.heartbeat('a', 'r1', 60_000)).toBe(true);
      expect(await store.heartbeat('a', 'r2', 60_000)).toBe(false);
      // r1 stalls past its lease: r2 takes the job and r1's writes no longer land.
      const later = Date.now() + 120_000;
      expect(await store.orphaned(later)).toEqual(['a']);
      expect(await store.claim('a', 'r2', 60_000, later)).toBe(true);
      expect(await store.update('a', 'r1', { currentStep: 'x' })).toBe(false);
      expect(await store.heartbeat('a', 'r1', 60_000)).toBe(false);
      await store.release('a', 'r1'); // not r1's any more: nothing changes
      expect(await store.claim('a', 'r3', 60_000)).toBe(false);
      await store.release('a', 'r2');
      expect(await store.claim('a', 'r3', 60_000)).toBe(true);
    });

    it('pauses or cancels an idle job at once, and flags a running one for its runner', async () => {
      const { store, add } = await setup();
      await add('idle');
      expect((await store.request('idle', 'pause', () => 'x'))?.state).toBe(
        'paused',
      );
      // Pausing a paused job is refused; cancelling it is not, with what it left.
      expect(await store.request('idle', 'pause', () => 'x')).toBeUndefined();
      const cancelled = await store.request(
        'idle',
        'cancel',
        j => `${j.state}!`,
      );
      expect(cancelled).toMatchObject({
        state: 'cancelled',
        leftBehind: 'cancelled!',
      });
      expect(cancelled?.finishedAt).toBeDefined();
      expect(await store.request('idle', 'cancel', () => 'x')).toBeUndefined();
      expect(await store.resume('idle')).toBeUndefined();

      await add('busy');
      await store.claim('busy', 'r1', 60_000);
      await store.update('busy', 'r1', { state: 'running' });
      const flagged = await store.request('busy', 'pause', () => 'x');
      expect(flagged).toMatchObject({ state: 'running', requested: 'pause' });
      expect(
        (await store.request('busy', 'cancel', () => 'x'))?.requested,
      ).toBe('cancel');
      // The runner honours it and clears the flag.
      await store.update('busy', 'r1', { state: 'paused', requested: null });
      const paused = await store.get('busy');
      expect(paused.state).toBe('paused');
      expect(paused.requested).toBeUndefined();
    });

    it('resumes a failed job: queued again, its failed step pending, error and account cleared', async () => {
      const { store, add } = await setup();
      const job = await add('a');
      await store.claim('a', 'r1', 60_000);
      await store.update('a', 'r1', {
        state: 'failed',
        error: 'boom',
        leftBehind: 'half',
        steps: [
          { ...job.steps[0], state: 'succeeded', attempts: 1 },
          { ...job.steps[1], state: 'failed', attempts: 1 },
        ],
      });
      expect((await store.get('a')).finishedAt).toBeDefined();
      const resumed = await store.resume('a');
      expect(resumed).toMatchObject({ state: 'queued' });
      expect(resumed?.steps.map(s => s.state)).toEqual([
        'succeeded',
        'pending',
      ]);
      expect(resumed?.error).toBeUndefined();
      expect(resumed?.leftBehind).toBeUndefined();
      expect(resumed?.finishedAt).toBeUndefined();
      await expect(store.resume('nope')).rejects.toThrow('No job nope');
    });

    it('keeps the log in order and returns its newest lines', async () => {
      const { store, add } = await setup();
      await add('a');
      await store.appendLog('a', [
        { level: 'info', message: 'one' },
        { level: 'warn', message: 'two', step: 'second' },
        { level: 'error', message: 'three', at: '2030-01-01T00:00:00.000Z' },
      ]);
      await store.appendLog('a', []);
      const log = await store.readLog('a');
      expect(log.map(l => [l.level, l.message, l.step])).toEqual([
        ['info', 'one', undefined],
        ['warn', 'two', 'second'],
        ['error', 'three', undefined],
      ]);
      expect(log[2].at).toBe('2030-01-01T00:00:00.000Z');
      expect((await store.readLog('a', 2)).map(l => l.message)).toEqual([
        'two',
        'three',
      ]);
    });
  },
);

/** A loopback port nothing listens on (taken, then given back). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('DatabaseJobStore when PostgreSQL cannot be reached', () => {
  it("answers every call with a 503 in the user's terms: no address, no SQL, no stack", async () => {
    const port = await closedPort();
    const knex = knexFactory({
      client: 'pg',
      connection: `postgresql://postgres@127.0.0.1:${port}/capz`,
    });
    try {
      const store = new DatabaseJobStore(knex);
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['get', () => store.get('job-1')],
        ['list', () => store.list({ active: true })],
        ['orphaned', () => store.orphaned()],
        ['claim', () => store.claim('job-1', 'me', 1000)],
        ['heartbeat', () => store.heartbeat('job-1', 'me', 1000)],
        ['update', () => store.update('job-1', 'me', { state: 'succeeded' })],
        [
          'appendLog',
          () =>
            store.appendLog('job-1', [
              { level: 'info', message: 'secret-ish text' },
            ]),
        ],
        ['readLog', () => store.readLog('job-1')],
        ['insert', () => insert(store, 'job-1', adopt('team-a'))],
        ['request', () => store.request('job-1', 'pause', () => undefined)],
        ['resume', () => store.resume('job-1')],
      ];
      for (const [name, call] of calls) {
        const e = await call().then(
          () => new Error(`${name} worked`),
          x => x,
        );
        expect({ name, error: e }).toEqual({
          name,
          error: expect.any(JobDatabaseUnavailableError),
        });
        expect({ name, message: e.message }).toEqual({
          name,
          message:
            'The job database cannot be reached right now (connection refused, ECONNREFUSED). Running jobs wait for it and carry on when it is back; try again in a moment.',
        });
        // What Backstage's error handler answers with (MiddlewareFactory getStatusCode: ServiceUnavailableError).
        expect(e.name).toBe('ServiceUnavailableError');
        expect(e.stack).toBeUndefined();
      }
    } finally {
      await knex.destroy();
    }
  });
});

describe.each(databases.eachSupportedId())(
  'DatabaseJobStore errors that are not an outage on %p',
  databaseId => {
    it('a constraint violation is not an outage (it reaches the caller as it was)', async () => {
      const knex = await databases.init(databaseId);
      const store = await DatabaseJobStore.create({
        database: mockServices.database({ knex }),
      });
      await expect(
        store.appendLog('no-such-job', [{ level: 'info', message: 'x' }]),
      ).rejects.not.toBeInstanceOf(JobDatabaseUnavailableError);
      const err = await knex('capz_job_log')
        .insert({ job_id: null })
        .catch(e => e);
      // The driver's own error (better-sqlite3's SqliteError comes from another realm than Jest's Error: not
      // instanceof it), naming the constraint, and not taken for an outage.
      expect(String(err?.message)).toMatch(/NOT NULL|null value/i);
      expect(unreachableReason(err)).toBeUndefined();
    });
  },
);

describe.each(
  databases.eachSupportedId().filter(([id]) => id.startsWith('POSTGRES')),
)('DatabaseJobStore when PostgreSQL ends its session on %p', databaseId => {
  it('a session ended by the server (as a restart ends every session) is an outage', async () => {
    const knex = await databases.init(databaseId);
    const admin = knexFactory(knex.client.config);
    try {
      // A restart ends every session with admin_shutdown (57P01); pg_terminate_backend ends one the same way.
      let sleeping: (pid: number) => void = () => undefined;
      const pid = new Promise<number>(r => (sleeping = r));
      const victim = knex
        .transaction(async tx => {
          const [row] = (await tx.raw('select pg_backend_pid() as pid'))
            .rows as Array<{ pid: number }>;
          sleeping(row.pid);
          await tx.raw('select pg_sleep(30)');
        })
        .then(
          () => new Error('the session was not ended'),
          e => e,
        );
      await admin.raw('select pg_terminate_backend(?)', [await pid]);
      const err = await victim;
      // The server sends admin_shutdown and closes the socket: the client reads the message, sees the end of the
      // stream, or (under load, when the close overtakes its read) a reset. Each is the same outage.
      expect(unreachableReason(err)).toMatch(
        /^(the database server is shutting down|the connection was cut|connection reset, ECONNRESET)$/,
      );
    } finally {
      await admin.destroy();
    }
  });
});
