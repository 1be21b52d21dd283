/**
 * PostgreSQL restarted under a running migration (docs/job-guarantees.md#database-restart): a real backend process
 * (packages/backend) on a PostgreSQL server of this test's own (the test command's shared one serves other tests and
 * stays up), a legacy cluster of its own on a real kube-apiserver with `capz-sim run` simulating Azure, ASO, CAPZ and
 * CAPI. Mid-way through the migration (its `adopt-managed-cluster` step waiting, seen through the jobs API) the
 * server is stopped, kept down until the backend says it lost the database and its job's next write waits on it,
 * then started again on the same port and data:
 *  - a short outage: the run waits and carries on; no step runs twice;
 *  - an outage longer than a run waits (a crash, `-m immediate`): the run stops without another write and the job
 *    resumes at that step once the database is back, the step running once more (idempotent, Azure untouched).
 * Both times the backend process lives on (Backstage's knex pools reconnect), the job page answers 503 in words
 * while the database is away, the job succeeds, and the simulated Azure is what it was: no resource created or
 * deleted, the cluster, its pools and tags as before.
 */
import { BackendDatabase, BackendProcess } from '../testing/backendProcess';
import {
  condition,
  makeAzureResourceGroup,
  writeLegacyCluster,
} from '../testing/jobFixtures';
import {
  everyStep,
  JobsWorld,
  logTail,
  messages,
  system,
  user,
} from '../testing/jobsWorld';
import { PostgresServer, startPostgresServer } from '../testing/postgresServer';
import { until } from '../testing/realCluster';

const w = new JobsWorld('pgrestart');
const { say } = w;
let pg: PostgresServer | undefined;
let b: BackendProcess;
/** Set if the backend process ends while the test runs (it must not). */
let died: { code: number | null; signal: string | null } | undefined;

const LEGACY = {
  short: {
    namespace: 'pgr-short-src',
    name: 'pgr-short',
    target: 'pgr-short-aso',
    resourceGroup: 'rg-pgr-short',
    pools: [system(1), user('batch', 2)],
  },
  long: {
    namespace: 'pgr-long-src',
    name: 'pgr-long',
    target: 'pgr-long-aso',
    resourceGroup: 'rg-pgr-long',
    pools: [
      system(1),
      user('ingest', 2, { enableAutoScaling: true, minCount: 1, maxCount: 4 }),
    ],
  },
};
/** The step the database goes away in: mid-way through the migration's eleven, the one whose wait ASO answers. */
const STEP = 'adopt-managed-cluster';
/** Azure busy on the new ManagedCluster until the test lets go: the step is certainly waiting when the server stops. */
const AZURE_BUSY = {
  reason: 'OperationNotAllowed',
  severity: 'Warning' as const,
  message:
    "Operation is not allowed because there's an in progress operation on the managed cluster (held by the test until the database is down)",
};
/** The backend's lease: a run waits four of them (16 s) for the database, far above the short outage (~1 s). */
const LEASE_SECONDS = 4;

beforeAll(async () => {
  // The server first: afterAll stops whatever of it and of the world was started, also when this fails half-way.
  pg = await startPostgresServer('pgrestart');
  say(`PostgreSQL of this test on port ${pg.port}`);
  await w.start({ scenarios: 'none' });
  const { c, arm } = w;
  const db: BackendDatabase = {
    client: 'pg',
    connection: pg.connection,
    prefix: `capz_pgr_${process.pid}_`,
  };
  const starting = w.backend('pg-restart', db, {}, false, LEASE_SECONDS);
  starting.catch(() => undefined);
  await w.namespaceWithCredential('fixtures');
  for (const l of Object.values(LEGACY)) {
    await makeAzureResourceGroup(c, {
      scratchNamespace: 'fixtures',
      credentialSecret: 'aso-credential',
      resourceGroup: l.resourceGroup,
    });
    await c.createNamespace(l.namespace);
    await writeLegacyCluster(c, { ...l, subscription: arm.subscription });
  }
  for (const l of Object.values(LEGACY))
    await w.waitFor(
      `legacy cluster ${l.namespace}/${l.name} to be ready to migrate`,
      () => w.legacyReady(l.namespace, l.name),
      120_000,
    );
  b = await starting;
  void b.exited.then(e => (died = e));
  await until('the simulated Azure to hold every fixture', () => {
    const names = w.azure().managedClusters.map(m => m.name);
    return Object.values(LEGACY).every(x => names.includes(x.name));
  });
  w.markBaseline();
}, 600_000);

afterAll(async () => {
  try {
    await w.stop();
  } finally {
    await pg?.destroy();
  }
}, 180_000);

/** What Azure holds of one cluster and its group: tags, pools, counts (the state a migration must leave as it was). */
function azureOf(l: (typeof LEGACY)[keyof typeof LEGACY]) {
  const a = w.azure();
  const mc = a.managedClusters.find(
    m => m.resourceGroup === l.resourceGroup && m.name === l.name,
  );
  const rg = a.resourceGroups.find(g => g.name === l.resourceGroup);
  return {
    cluster: mc && {
      tags: mc.tags,
      pools: Object.fromEntries(
        Object.entries(mc.agentPools).map(([n, p]) => [n, p.count]),
      ),
    },
    group: rg && { tags: rg.tags, location: rg.location },
  };
}

/** Polls the job API until the step is running and waiting (its wait unmet); returns the job. */
async function waitingIn(id: string): Promise<any> {
  let job: any;
  await until(
    `job ${id} to wait in step ${STEP}`,
    async () => {
      job = await w.job(b, id);
      if (['failed', 'cancelled', 'succeeded'].includes(job.state))
        throw new Error(
          `job ${id} is ${job.state} before ${STEP}: ${job.error}\n${logTail(
            job,
          )}`,
        );
      const step = job.steps.find((s: any) => s.id === STEP);
      return (
        job.currentStep === STEP &&
        step.state === 'running' &&
        /^waiting for/.test(step.message ?? '')
      );
    },
    180_000,
  );
  return job;
}

/** Waits until the backend's log holds `text` (after `from` characters); fails naming the log's tail. */
async function logged(
  what: string,
  text: string,
  from: number,
  ms = 60_000,
): Promise<void> {
  await until(what, () => b.log().slice(from).includes(text), ms).catch(e => {
    throw new Error(
      `${e.message}\n--- last lines of ${b.logFile}:\n${b
        .log()
        .split('\n')
        .slice(-30)
        .join('\n')}`,
    );
  });
}

/**
 * The job page once the database is away: polled until it no longer answers 200 (the backend met the missing
 * database), then that answer must be a 503 that says so in words, not a 500 with a stack. With the permission
 * framework on, the page's permission check comes first and meets the same database (the auth backend's user info,
 * which the app's policy reads): then its own 503 says the check cannot be made. Returns how long it took.
 */
async function jobPageWhileAway(id: string): Promise<number> {
  const t0 = Date.now();
  let r: { status: number; body: any } | undefined;
  await until(
    'the job page to show that the database is away',
    async () => {
      r = await b.request('GET', `capz/jobs/${id}`);
      return r.status !== 200;
    },
    60_000,
  );
  expect({ status: r!.status, message: r!.body?.error?.message }).toEqual({
    status: 503,
    message: expect.stringMatching(
      /^(The job database cannot be reached right now \(.+\)\. Running jobs wait for it and carry on when it is back; try again in a moment\.|The permission check cannot be made right now \(.+\)\. Nothing was read or changed; try again in a moment\.)$/,
    ),
  });
  expect(r!.body.error.stack).toBeUndefined();
  return Date.now() - t0;
}

/** Lets Azure go on with the new ManagedCluster and waits until it is Ready: the step's wait holds from here. */
async function letAzureGo(l: (typeof LEGACY)[keyof typeof LEGACY]) {
  await w.forceAsoFailure('ManagedCluster', l.target, l.name, null);
  await w.waitFor(
    `ManagedCluster ${l.target}/${l.name} to be Ready`,
    async () => {
      const mc = await w.c.get('ManagedCluster', l.target, l.name);
      return (
        condition(mc, 'Ready')?.status === 'True' ||
        `Ready: ${JSON.stringify(condition(mc, 'Ready'))}`
      );
    },
  );
}

/**
 * One migration with the database taken away in its STEP: `outage` stops the server and brings it back (after the
 * conditions it waits for); returns the finished job. The server runs again and Azure is let go afterwards, also
 * when the outage's checks failed (the next test needs both).
 */
async function migrateThrough(
  l: (typeof LEGACY)[keyof typeof LEGACY],
  outage: (id: string) => Promise<void>,
): Promise<any> {
  const before = azureOf(l);
  expect(before.cluster).toBeDefined();
  await w.forceAsoFailure('ManagedCluster', l.target, l.name, AZURE_BUSY);
  const created = await w.submit(b, w.migrate(l.namespace, l.name, l.target));
  await waitingIn(created.id);
  const t0 = Date.now();
  try {
    await outage(created.id);
  } finally {
    if (!pg!.running) await pg!.start();
    await w.forceAsoFailure('ManagedCluster', l.target, l.name, null);
  }
  const job = await w.finished(b, created.id);
  say(
    `${l.name}: from the server's stop to the job's success ${(
      (Date.now() - t0) /
      1000
    ).toFixed(1)} s`,
  );
  // The backend lived through it: the same process answered all along.
  expect(died).toBeUndefined();
  expect(messages(job, /^started on replica/)).toHaveLength(1);
  expect(messages(job, /^job succeeded/)).toHaveLength(1);
  await w.migrated(l.namespace, l.target, l.name, l.resourceGroup, l.pools);
  expect(azureOf(l)).toEqual(before);
  return job;
}

/* eslint-disable jest/expect-expect -- the end-state assertions are in migrateThrough and JobsWorld.migrated */

it('a short restart mid-step: the run waits for the database and carries on, no step runs twice, Azure untouched', async () => {
  const l = LEGACY.short;
  const job = await migrateThrough(l, async id => {
    const from = b.log().length;
    let t = Date.now();
    await pg!.stop('fast');
    say(`server stopped (fast) in ${Date.now() - t} ms`);
    say(`the job page said so after ${await jobPageWhileAway(id)} ms`);
    // Azure is let go while the database is away: the step's wait comes to hold, and what the run writes next (the
    // wait's progress, the step's record) meets the missing database, as do the lease's renewals.
    await letAzureGo(l);
    await logged(
      "the job's lease renewal to fail",
      `job ${id}: heartbeat failed`,
      from,
    );
    await logged(
      "the job's next write to wait for the database",
      `job ${id}: waiting for the job database`,
      from,
    );
    t = Date.now();
    await pg!.start();
    say(`server started again in ${Date.now() - t} ms`);
  });
  everyStep(job);
  expect(messages(job, /^resumed on replica/)).toHaveLength(0);
}, 600_000);

it('a crash longer than a run waits: the run stops without a write and the job resumes at its step, Azure untouched', async () => {
  const l = LEGACY.long;
  const job = await migrateThrough(l, async id => {
    const from = b.log().length;
    let t = Date.now();
    await pg!.stop('immediate');
    say(`server stopped (immediate) in ${Date.now() - t} ms`);
    await jobPageWhileAway(id);
    t = Date.now();
    await letAzureGo(l);
    await logged(
      'the run to stop after waiting four leases for the database',
      `job ${id}: stopped after waiting ${
        4 * LEASE_SECONDS
      } s for the job database`,
      from,
    );
    say(`the run stopped ${Date.now() - t} ms after Azure was let go`);
    // Still away: the job page says so, the job is not failed.
    await jobPageWhileAway(id);
    t = Date.now();
    await pg!.start();
    say(`server started again (crash recovery) in ${Date.now() - t} ms`);
  });
  // The step the run stopped in ran once more when the job resumed; every other step once.
  everyStep(job, s => (s === STEP ? 2 : 1));
  expect(
    messages(job, /^resumed on replica .* at step adopt-managed-cluster$/),
  ).toHaveLength(1);
  expect(messages(job, /^step ".*" failed:/)).toHaveLength(0);
}, 600_000);
