/**
 * The jobs issue's "Done when", through real backend processes (packages/backend, started as `backstage-cli package
 * start` would) against a real kube-apiserver of the test's own, with `capz-sim run` simulating Azure, ASO, CAPZ and
 * CAPI on it (scenarios legacy-to-migrate and azure-only, plus clusters this file makes for itself):
 *  - migration end to end (docs/migration-procedure.md) and adoption end to end
 *    (docs/capz-aso-facts.md#adoption-order), Azure untouched;
 *  - refusals that change nothing;
 *  - a backend SIGKILLed at every crash point of every step of a migration and of an adoption (after its actions, in
 *    its first unmet wait, after its record), restarted until the job is done with Azure untouched;
 *  - two replicas on one PostgreSQL database running each job exactly once.
 * Every wait is on a condition (the job's state, an object on the API server); timings are printed.
 */
import {
  BackendDatabase,
  BackendProcess,
  postgresConnection,
} from '../testing/backendProcess';
import {
  condition,
  makeAzureOnlyCluster,
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
import { until } from '../testing/realCluster';

const w = new JobsWorld('jobs');
const { say } = w;
let main: BackendProcess;

/** Extra clusters beyond the seeded scenarios, one per test that needs a cluster of its own. */
const LEGACY = {
  crash: {
    namespace: 'crash-src',
    name: 'crash-lake',
    resourceGroup: 'rg-crash-lake',
    pools: [
      system(2),
      user('ingest', 2, { enableAutoScaling: true, minCount: 2, maxCount: 6 }),
    ],
  },
  replica: {
    namespace: 'replica-src',
    name: 'replica-lake',
    resourceGroup: 'rg-replica-lake',
    pools: [system(1), user('batch', 2)],
  },
};
const AZURE_ONLY = {
  crash: {
    resourceGroup: 'rg-crash-aks',
    name: 'crash-aks',
    pools: [system(1), user('web', 2)],
  },
  replica1: {
    resourceGroup: 'rg-replica-aks-1',
    name: 'replica-aks-1',
    pools: [system(1)],
  },
  replica2: {
    resourceGroup: 'rg-replica-aks-2',
    name: 'replica-aks-2',
    pools: [system(1), user('api', 1)],
    entraOnly: true,
  },
};

beforeAll(async () => {
  await w.start({ scenarios: 'legacy-to-migrate,azure-only' });
  const { c, arm } = w;
  // The clusters of this file's own, made while the main backend starts.
  const backendStarting = w.backend('main', w.sqlite('main'));
  backendStarting.catch(() => undefined);
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
  // A legacy cluster whose AKS cluster cannot be created (over quota, forced in the simulated ASO before the object
  // exists): its ManagedCluster is never Ready, so the cluster is not healthy. (A resource group that does not exist
  // would not do: real CAPZ flips its ResourceGroup to manage on ASO's AzureResourceNotFound and ASO creates it; CAPZ
  // v1.26.0 azure/services/aso/aso.go lines 117-131.)
  await c.createNamespace('broken-src');
  await w.forceAsoFailure('ManagedCluster', 'broken-src', 'broken', {
    // Retryable, so a Warning (ASO v2.18.0 internal/reconcilers/arm/errorclassification/error_classifier.go).
    reason: 'ResourceQuotaExceeded',
    severity: 'Warning',
    message:
      'Operation could not be completed as it results in exceeding approved standardDSv3Family Cores quota.',
  });
  await writeLegacyCluster(c, {
    namespace: 'broken-src',
    name: 'broken',
    subscription: arm.subscription,
    resourceGroup: 'rg-broken',
    pools: [system(1)],
  });
  for (const a of Object.values(AZURE_ONLY)) {
    await makeAzureOnlyCluster(c, {
      scratchNamespace: 'fixtures',
      credentialSecret: 'aso-credential',
      ...a,
    });
  }
  for (const [ns, name] of [
    ['team-data', 'data-lake'],
    ['team-data', 'data-secure'],
    ...Object.values(LEGACY).map(l => [l.namespace, l.name]),
  ]) {
    await w.waitFor(
      `legacy cluster ${ns}/${name} to be ready to migrate`,
      () => w.legacyReady(ns, name),
      120_000,
    );
  }
  await w.waitFor(
    'the broken cluster to report its failing ManagedCluster',
    async () => {
      const mc = (await c.list('ManagedCluster', 'broken-src'))[0];
      return condition(mc, 'Ready')?.reason === 'ResourceQuotaExceeded'
        ? true
        : `ManagedCluster: ${JSON.stringify(condition(mc, 'Ready'))}`;
    },
  );
  main = await backendStarting;
  // Every fixture is settled: from here on no job may create or delete anything in Azure.
  await until('the simulated Azure to hold every fixture', () => {
    const names = w.azure().managedClusters.map(m => m.name);
    return [...Object.values(LEGACY), ...Object.values(AZURE_ONLY)].every(x =>
      names.includes(x.name),
    );
  });
  w.markBaseline();
}, 600_000);

afterAll(() => w.stop(), 120_000);

// ---- the tests ----
// The assertions of the end states live in the helpers above (azureUntouched, adoptedCluster, migrated, everyStep).
/* eslint-disable jest/expect-expect */

const DATA_LAKE = [
  system(3),
  user('spark', 5),
  user('ingest', 2, { enableAutoScaling: true, minCount: 2, maxCount: 8 }),
];
const DATA_SECURE = [system(2), user('jobs', 2)];

describe('refusals change nothing', () => {
  /** POST /jobs is refused with this status and message; the cluster and the job list are as before. */
  async function refused(
    body: any,
    status: number,
    message: RegExp,
    namespaces: string[],
  ): Promise<any> {
    const before = await w.c.snapshot(namespaces);
    const jobsBefore = (await main.request('GET', 'capz/jobs')).body.items
      .length;
    const r = await main.request('POST', 'capz/jobs', body);
    expect({ status: r.status, message: r.body?.error?.message }).toEqual({
      status,
      message: expect.stringMatching(message),
    });
    expect(await w.c.snapshot(namespaces)).toEqual(before);
    expect((await main.request('GET', 'capz/jobs')).body.items.length).toBe(
      jobsBefore,
    );
    return r.body;
  }

  it('an unhealthy cluster is not migrated', async () => {
    const body = await refused(
      w.migrate('broken-src', 'broken', 'broken-new'),
      422,
      /healthy/i,
      ['broken-src'],
    );
    expect(body.preflight.find((p: any) => p.id === 'healthy')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/ManagedCluster|not Available/),
    });
    expect(await w.c.namespaceExists('broken-new')).toBe(false);
  }, 60_000);

  it('a migration into a namespace that exists is refused', async () => {
    await refused(
      w.migrate('team-data', 'data-lake', 'fixtures'),
      422,
      /Namespace fixtures already exists/,
      ['team-data', 'fixtures'],
    );
  }, 60_000);

  it('an adoption without the credential Secret is refused', async () => {
    await w.c.createNamespace('adopt-nosecret');
    await refused(
      w.adopt('adopt-nosecret', {
        resourceGroup: 'rg-analytics',
        name: 'analytics-aks',
      }),
      422,
      /Secret adopt-nosecret\/aso-credential does not exist/,
      ['adopt-nosecret'],
    );
  }, 60_000);
});

describe('migration end to end', () => {
  it('migrates data-lake (three pools, one autoscaling) and refuses a second job on it', async () => {
    const first = await w.submit(
      main,
      w.migrate('team-data', 'data-lake', 'data-lake-aso'),
    );
    // A second job on the same cluster while the first is active: 409 naming the first, and nothing stored or created.
    const second = await main.request(
      'POST',
      'capz/jobs',
      w.migrate('team-data', 'data-lake', 'data-lake-other'),
    );
    expect({
      status: second.status,
      message: second.body?.error?.message,
    }).toEqual({ status: 409, message: expect.stringContaining(first.id) });
    const job = await w.finished(main, first.id);
    const listed = (
      await main.request(
        'GET',
        `capz/jobs?managementCluster=${w.mcName}&namespace=team-data&name=data-lake`,
      )
    ).body.items;
    expect(listed.map((j: any) => j.id)).toEqual([first.id]);
    expect(await w.c.namespaceExists('data-lake-other')).toBe(false);
    everyStep(job);
    await w.migrated(
      'team-data',
      'data-lake-aso',
      'data-lake',
      'rg-data-lake',
      DATA_LAKE,
    );
  }, 300_000);

  it('migrates data-secure (Entra-only)', async () => {
    const job = await w.finished(
      main,
      (
        await w.submit(
          main,
          w.migrate('team-data', 'data-secure', 'data-secure-aso'),
        )
      ).id,
    );
    everyStep(job);
    await w.migrated(
      'team-data',
      'data-secure-aso',
      'data-secure',
      'rg-data-secure',
      DATA_SECURE,
      { entraOnly: true },
    );
  }, 300_000);
});

describe('adoption end to end', () => {
  it.each([
    ['analytics-aks', 'rg-analytics', [system(2), user('etl', 3)], false],
    ['identity-aks', 'rg-identity', [system(3)], true],
  ] as const)(
    'adopts %s',
    async (name, resourceGroup, pools, entraOnly) => {
      const ns = `adopt-${name}`;
      await w.c.createNamespace(ns);
      await w.createCredentialSecret(ns);
      const job = await w.finished(
        main,
        (
          await w.submit(main, w.adopt(ns, { resourceGroup, name }))
        ).id,
      );
      everyStep(job);
      await w.adoptedCluster(ns, name, [...pools], { entraOnly });
      await w.azureUntouched(
        resourceGroup,
        name,
        pools.map(p => p.name),
      );
      const updated = w.azure().counters.updated;
      say(
        `after adopting ${name}: Azure updated ${JSON.stringify(
          updated,
        )} (PUTs onto existing resources, counted, never creations)`,
      );
    },
    300_000,
  );
});

describe('a backend killed at every point of every step', () => {
  /** The ASO object the `:wait` faults' step waits on (kind, namespace, name). */
  type AsoObject = [
    'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool',
    string,
    string,
  ];
  /** A retryable Azure error as ASO reports it while AKS is busy with another operation on the cluster. */
  const AZURE_BUSY = {
    reason: 'OperationNotAllowed',
    severity: 'Warning' as const,
    message:
      "Operation is not allowed because there's an in progress operation on the managed cluster (held by the test until its backend is killed mid-wait)",
  };

  /** Waits until this backend killed itself at its fault; fails if the job fails instead. */
  async function killedByFault(b: BackendProcess, id: string): Promise<void> {
    let dead = false;
    let ended = '';
    void b.exited.then(() => (dead = true));
    await until(
      `${b.name} to kill itself at its fault`,
      async () => {
        if (dead) return true;
        const r = await b
          .request('GET', `capz/jobs/${id}`)
          .catch(() => undefined);
        if (
          r?.status === 200 &&
          ['failed', 'cancelled', 'succeeded'].includes(r.body.state)
        ) {
          ended = `job ${id} is ${r.body.state} before the fault fired: ${
            r.body.error
          }\n${logTail(r.body)}`;
          return true;
        }
        return false;
      },
      120_000,
    );
    if (ended) throw new Error(ended);
    const exit = await b.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(b.log()).toContain('CAPZ_JOBS_FAULT: killing the process');
  }

  /** Where one kill point's time went (ms): the held wait, the backend's start, its run to the fault. */
  interface PointTiming {
    fault: string;
    holdMs: number;
    startMs: number;
    phases: Readonly<Record<string, number>>;
    /** From ready (or from its death during the start) to its death at the fault. */
    toFaultMs: number;
    totalMs: number;
  }

  const phaseLine = (p: Readonly<Record<string, number>>) =>
    Object.entries(p)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
      .join(', ');

  /**
   * The kill points' backend processes, one after the other: the lighter backend (the CAPZ plugin with auth only,
   * src/testing/testBackend.ts), each spawned while the one before it runs, so that it has loaded its modules when it
   * is started with its fault; or, with CAPZ_JOBS_CRASH_BACKEND=backend, packages/backend itself started cold each time
   * (the same plugin, four times the CPU per start).
   */
  function killPointBackends(
    label: string,
    db: BackendDatabase,
  ): (
    env: Record<string, string>,
    mayExitDuringStart: boolean,
    last?: boolean,
  ) => Promise<BackendProcess> {
    if (process.env.CAPZ_JOBS_CRASH_BACKEND === 'backend')
      return (env, mayExitDuringStart) =>
        w.backend(label, db, env, mayExitDuringStart);
    const prepare = () => {
      const p = w.prepareBackend(label, db);
      p.catch(() => undefined); // awaited when it is started
      return p;
    };
    let next = prepare();
    return async (env, mayExitDuringStart, last = false) => {
      const starting = w.startPrepared(await next, env, mayExitDuringStart);
      starting.catch(() => undefined); // awaited below
      // The next one loads while this one starts and runs to its fault.
      if (!last) next = prepare();
      return starting;
    };
  }

  /** Runs a job through backends that each die at the next fault, then one without a fault; returns the job. */
  async function throughCrashes(
    db: BackendDatabase,
    label: string,
    body: any,
    faults: string[],
    waitingOn: AsoObject,
  ): Promise<{ job: any; starts: number[]; points: PointTiming[] }> {
    const starts: number[] = [];
    const points: PointTiming[] = [];
    const startBackend = killPointBackends(label, db);
    let id = '';
    for (const [i, fault] of faults.entries()) {
      const t0 = Date.now();
      // A kill mid-wait needs the wait unmet: Azure is held busy on the awaited object until the kill, so the wait
      // cannot already hold at its first check (it did once on a fast simulator, and the job ran to its end).
      const holdWait = fault.endsWith(':wait');
      if (holdWait) await w.forceAsoFailure(...waitingOn, AZURE_BUSY);
      const held = Date.now();
      // From the second start on, the resumed job may reach the fault before the backend is even ready.
      const b = await startBackend({ CAPZ_JOBS_FAULT: fault }, i > 0);
      const ready = Date.now();
      starts.push(b.startMs);
      if (i === 0) id = (await w.submit(b, body)).id;
      await killedByFault(b, id);
      const died = Date.now();
      if (holdWait) await w.forceAsoFailure(...waitingOn, null);
      const point = {
        fault,
        holdMs: held - t0,
        startMs: b.startMs,
        phases: b.phases,
        toFaultMs: died - ready,
        totalMs: Date.now() - t0,
      };
      points.push(point);
      say(
        `${b.name} died at ${fault}: ${(point.totalMs / 1000).toFixed(
          1,
        )} s (start ${(b.startMs / 1000).toFixed(1)} s [${phaseLine(
          b.phases,
        )}], then ${(point.toFaultMs / 1000).toFixed(1)} s to the fault)`,
      );
    }
    const last = await startBackend({}, false, true);
    starts.push(last.startMs);
    const job = await w.finished(last, id);
    await last.kill();
    return { job, starts, points };
  }

  /**
   * Every crash point of every step, in the order a run meets them: the first unmet wait (where asked), right after
   * the step's actions and before its record (`actions`), and right after the last step's record (`after`). Each kill
   * is a SIGKILL of the backend at that point; the next backend resumes the job and dies at the next point.
   * A step's own `after` is left out for the others: the resume it tests (every step before recorded, the next one not
   * started) is the one the next step's `actions` kill tests too, which then also finds that step's writes.
   */
  const crashPoints = (steps: string[], waits: string[]) => [
    ...steps.flatMap(s => [
      ...(waits.includes(s) ? [`${s}:wait`] : []),
      `${s}:actions`,
    ]),
    `${steps[steps.length - 1]}:after`,
  ];

  /** A step killed at `actions` runs once more; one killed at its wait too: its attempts. */
  const attemptsAfter = (faults: string[]) => (id: string) =>
    1 + faults.filter(f => f === `${id}:actions` || f === `${id}:wait`).length;

  async function crashEverywhere(
    label: string,
    body: any,
    waits: string[],
    waitingOn: AsoObject,
  ): Promise<{ job: any; faults: string[] }> {
    const preview = await main.request('POST', 'capz/jobs/preview', body);
    expect(preview.status).toBe(200);
    const steps: string[] = preview.body.plan.map((s: any) => s.id);
    const faults = crashPoints(steps, waits);
    const started = Date.now();
    const { job, starts, points } = await throughCrashes(
      w.sqlite(label),
      label,
      body,
      faults,
      waitingOn,
    );
    const mean = starts.reduce((x, y) => x + y, 0) / starts.length / 1000;
    say(
      `${label}: ${steps.length} steps, ${faults.length} kills (${faults.join(
        ' ',
      )}), ${starts.length} backend starts (mean ${mean.toFixed(1)} s), ${(
        (Date.now() - started) /
        1000
      ).toFixed(0)} s in all`,
    );
    const sum = (f: (p: PointTiming) => number) =>
      (points.reduce((x, p) => x + f(p), 0) / 1000).toFixed(0);
    say(
      `${label}: of the kill points' ${sum(p => p.totalMs)} s, ${sum(
        p => p.startMs,
      )} s in backend starts (to config ${sum(
        p => p.phases.config ?? 0,
      )} s), ${sum(p => p.toFaultMs)} s from ready to the fault, ${sum(
        p => p.holdMs,
      )} s holding waits`,
    );
    everyStep(job, attemptsAfter(faults));
    expect(messages(job, /^started on replica/)).toHaveLength(1);
    expect(messages(job, /^resumed on replica/)).toHaveLength(faults.length);
    expect(messages(job, /^job succeeded/)).toHaveLength(1);
    // Every create repeated after a kill found its own object (a precondition accepts what its step left).
    const repeated = messages(
      job,
      /already exists \(created by this job before\)/,
    ).map((l: any) => l.step);
    say(
      `${label}: creates that found their own object after a kill: ${repeated.join(
        ', ',
      )}`,
    );
    return { job, faults };
  }

  it('a migration resumes after a kill at every point of every step', async () => {
    const l = LEGACY.crash;
    const { job } = await crashEverywhere(
      'crash-migrate',
      w.migrate(l.namespace, l.name, 'crash-lake-aso'),
      ['adopt-managed-cluster'],
      ['ManagedCluster', 'crash-lake-aso', l.name],
    );
    // The window a crash can hit: the namespace created, the step not yet recorded.
    expect(
      messages(
        job,
        /^Namespace crash-lake-aso already exists \(created by this job before\)/,
      ),
    ).toHaveLength(1);
    await w.migrated(
      l.namespace,
      'crash-lake-aso',
      l.name,
      l.resourceGroup,
      l.pools,
    );
  }, 1_800_000);

  it('an adoption resumes after a kill at every point of every step', async () => {
    const a = AZURE_ONLY.crash;
    await w.namespaceWithCredential('adopt-crash');
    const { job } = await crashEverywhere(
      'crash-adopt',
      w.adopt('adopt-crash', a),
      ['adopt-managed-cluster'],
      ['ManagedCluster', 'adopt-crash', a.name],
    );
    // Killed at its wait and after its actions.
    expect(
      messages(job, /^resumed on replica .* at step adopt-managed-cluster/),
    ).toHaveLength(2);
    await w.adoptedCluster('adopt-crash', a.name, a.pools);
    await w.azureUntouched(
      a.resourceGroup,
      a.name,
      a.pools.map(p => p.name),
    );
  }, 900_000);
});

describe('two replicas on one PostgreSQL database', () => {
  it('run every job exactly once', async () => {
    const connection = postgresConnection();
    if (!connection) {
      throw new Error(
        'no PostgreSQL: set BACKSTAGE_TEST_DATABASE_POSTGRES<major>_CONNECTION_STRING (scripts/test.sh ensure_postgres does)',
      );
    }
    const db: BackendDatabase = {
      client: 'pg',
      connection,
      prefix: `capz_jobs_${process.pid}_`,
    };
    // One after the other: the first creates the databases and runs the migrations.
    const r1 = await w.backend('replica-1', db, {}, false, 15);
    const r2 = await w.backend('replica-2', db, {}, false, 15);
    for (const ns of ['adopt-replica-1', 'adopt-replica-2']) {
      await w.c.createNamespace(ns);
      await w.createCredentialSecret(ns);
    }
    const l = LEGACY.replica;
    // Submitted alternately: each replica kicks what it created, and both look for jobs nobody runs.
    const jobs = [
      await w.submit(r1, w.adopt('adopt-replica-1', AZURE_ONLY.replica1)),
      await w.submit(r2, w.adopt('adopt-replica-2', AZURE_ONLY.replica2)),
      await w.submit(r1, w.migrate(l.namespace, l.name, 'replica-lake-aso')),
    ];
    const done = [];
    for (const [i, j] of jobs.entries())
      done.push(await w.finished(i % 2 ? r1 : r2, j.id));
    for (const job of done) {
      everyStep(job);
      expect(messages(job, /^started on replica/)).toHaveLength(1);
      expect(messages(job, /^resumed on replica/)).toHaveLength(0);
      say(`job ${job.id}: ${messages(job, /^started on replica/)[0].message}`);
    }
    await w.adoptedCluster(
      'adopt-replica-1',
      AZURE_ONLY.replica1.name,
      AZURE_ONLY.replica1.pools,
    );
    await w.adoptedCluster(
      'adopt-replica-2',
      AZURE_ONLY.replica2.name,
      AZURE_ONLY.replica2.pools,
      { entraOnly: true },
    );
    await w.migrated(
      l.namespace,
      'replica-lake-aso',
      l.name,
      l.resourceGroup,
      l.pools,
    );
    await Promise.all([r1.kill(), r2.kill()]);
  }, 600_000);
});
