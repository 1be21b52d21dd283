import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { Job } from '@capz-backstage/plugin-capz-common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobClient } from '../cluster/clientViews';
import type { FaultHook } from './faults';
import type { JobGit } from './gitSteps';
import { JobDatabaseUnavailableError, type JobStore } from './JobStore';
import { JobRun } from './JobRun';
import { Lease, LEASE_LOST } from './lease';
import {
  StepInterruptedError,
  type AzureChecker,
  type ChangeWaker,
} from './StepRunner';

export type { FaultHook, FaultPoint } from './faults';

export interface JobEngineOptions {
  store: JobStore;
  logger: LoggerService;
  client: (managementCluster: string) => Promise<JobClient>;
  waker: (managementCluster: string) => ChangeWaker;
  azure?: AzureChecker;
  /** Told after every change of a job's state or step (the live-progress signal). */
  notify?: (job: Job) => void;
  /**
   * Told once when a run moves a job to another state, by the replica whose fenced write did it (the owners'
   * notifications): `from` is the state before.
   */
  onStateChange?: (job: Job, from: Job['state']) => void;
  leaseMs?: number;
  /** How often a wait re-checks without a change event. */
  recheckMs?: number;
  /** How often every replica looks for jobs nobody runs (queued, or with an expired lease). */
  pickupSeconds?: number;
  replicaId?: string;
  /**
   * How long one call of a run waits for an unreachable job database before the run stops (default four leases: 2
   * min with the default lease). The job then resumes at its current step when the database is back.
   */
  databaseWaitMs?: number;
  faults?: FaultHook;
  /** Every configured management cluster with its client (the one-owner check reads all of them). */
  clusters?: () => Promise<Array<{ name: string; client: JobClient }>>;
  /** The Git edge for jobs in Git mode (docs/flux-facts.md#job-git-mode); absent when proposals are off. */
  git?: JobGit;
}

/** Says once that the job database went away and once that it is back (the runs and the pickup all report here). */
class OutageLog {
  private since?: number;

  constructor(
    private readonly logger: LoggerService,
    private readonly waitMs: number,
  ) {}

  down(e: JobDatabaseUnavailableError): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.logger.warn(
      `the job database cannot be reached (${
        e.reason
      }); running jobs wait up to ${Math.round(
        this.waitMs / 1000,
      )} s for it, then stop and resume when it is back`,
    );
  }

  up(): void {
    if (this.since === undefined) return;
    this.logger.info(
      `the job database is reachable again after ${(
        (Date.now() - this.since) /
        1000
      ).toFixed(1)} s`,
    );
    this.since = undefined;
  }
}

/**
 * Runs jobs step by step under a lease (docs/architecture.md#flow-jobs). Any replica may run any job: the one whose
 * conditional UPDATE takes the lease runs it, renews the lease while it works, and every write it makes is fenced
 * by that lease. A replica that dies mid-job leaves an expiring lease; the next pickup on any replica resumes the
 * job at its first unfinished step, which re-checks the live cluster before doing anything (steps are idempotent).
 * A database that goes away (a PostgreSQL restart or failover) is waited for, never recorded as the job's failure
 * (docs/job-guarantees.md#database-restart).
 */
export class JobEngine {
  readonly replicaId: string;
  private readonly leaseMs: number;
  private readonly running = new Map<
    string,
    { abort: AbortController; done: Promise<void> }
  >();
  private stopped = false;
  private readonly databaseWaitMs: number;
  private readonly outage: OutageLog;

  constructor(private readonly o: JobEngineOptions) {
    this.replicaId =
      o.replicaId ??
      `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.databaseWaitMs = o.databaseWaitMs ?? 4 * this.leaseMs;
    this.outage = new OutageLog(o.logger, this.databaseWaitMs);
  }

  /** Schedules the pickup on this replica (each replica looks; the lease decides who runs). */
  async start(scheduler: SchedulerService): Promise<void> {
    await scheduler.scheduleTask({
      id: 'capz-jobs-pickup',
      scope: 'local',
      frequency: {
        seconds:
          this.o.pickupSeconds ?? Math.max(1, Math.round(this.leaseMs / 3000)),
      },
      timeout: { minutes: 1 },
      initialDelay: { seconds: 0 },
      fn: () => this.pickup(),
    });
  }

  /** Starts whatever runnable job nobody holds. While the database is away, looks again next time. */
  async pickup(): Promise<void> {
    if (this.stopped) return;
    let ids: string[];
    try {
      ids = await this.o.store.orphaned();
    } catch (e) {
      if (!(e instanceof JobDatabaseUnavailableError)) throw e;
      this.outage.down(e);
      return;
    }
    this.outage.up();
    for (const id of ids) this.kick(id);
  }

  /** Tries to run a job now (after creation or resume). Returns at once; the job runs in the background. */
  kick(jobId: string): void {
    if (this.stopped || this.running.has(jobId)) return;
    const abort = new AbortController();
    const entry = { abort, done: Promise.resolve() };
    this.running.set(jobId, entry);
    entry.done = this.run(jobId, abort)
      .catch(e =>
        this.o.logger.error(`job ${jobId}: ${(e as Error).stack ?? e}`),
      )
      .finally(() => this.running.delete(jobId));
  }

  /** A user's pause or cancel reached this replica: a job it runs stops waiting at once. */
  interrupt(jobId: string, why: 'pause' | 'cancel'): void {
    this.running.get(jobId)?.abort.abort(why);
  }

  /** Stops running jobs at their next wait or boundary and gives their leases back (another replica resumes). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const r of this.running.values()) r.abort.abort('shutdown');
    await Promise.all([...this.running.values()].map(r => r.done));
  }

  /** Resolves when the job is no longer running on this replica (tests). */
  async settled(jobId: string): Promise<void> {
    await this.running.get(jobId)?.done;
  }

  /**
   * One run under a lease: nothing when another replica holds the job; the lease is given back at the end. The run
   * sees the store through {@link patientStore}: it waits out a database outage up to `databaseWaitMs`, then stops
   * without another write, and the job resumes at its current step when the database is back.
   */
  private async run(jobId: string, abort: AbortController): Promise<void> {
    const { store, logger } = this.o;
    let lease: Lease | undefined;
    const patient = patientStore({
      store,
      jobId,
      waitMs: this.databaseWaitMs,
      signal: abort.signal,
      lease: () => lease,
      outage: this.outage,
      logger,
    });
    try {
      lease = await patient.call(() =>
        Lease.acquire({
          store,
          jobId,
          owner: this.replicaId,
          ttlMs: this.leaseMs,
          abort,
          logger,
          // A user's pause or cancel reaches a run on another replica here (interrupt() reaches this one's directly).
          onRenewed: async () => {
            const fresh = await store.get(jobId);
            if (fresh.requested) abort.abort(fresh.requested);
          },
        }),
      );
      if (!lease) return;
      await new JobRun(
        { ...this.o, store: patient.store, stopping: () => this.stopped },
        jobId,
        this.replicaId,
        lease,
        abort.signal,
      ).execute();
    } catch (e) {
      if (e instanceof JobDatabaseUnavailableError) {
        const waited = abort.signal.aborted
          ? `stopped (${abort.signal.reason}) while waiting`
          : `stopped after waiting ${Math.round(this.databaseWaitMs / 1000)} s`;
        logger.warn(
          `job ${jobId}: ${waited} for the job database (${e.reason}); the job resumes at its current step when the database is back`,
        );
        return;
      }
      if (e instanceof StepInterruptedError && e.why === LEASE_LOST) {
        logger.warn(
          `job ${jobId}: stopped: another replica took its lease while the database was away`,
        );
        return;
      }
      throw e;
    } finally {
      await lease?.end();
    }
  }
}

/**
 * The store as one run sees it. A call that finds the database unreachable is tried again (100 ms, doubling to 2 s)
 * for up to `waitMs`; every retry first renews the run's lease (which also probes the database), because the lease
 * may have expired and been taken by another replica meanwhile: then the run stops with {@link LEASE_LOST} before
 * anything else of it is written or done. Past `waitMs`, or when the run is aborted (shutdown), the run gives up: the
 * call throws its {@link JobDatabaseUnavailableError}, and so does every later call of the run, so that no write
 * follows (the run cannot record a step as failed over an outage). Retrying a write whose answer was lost is safe:
 * the runner's updates are fenced and idempotent, and a log line is at worst written twice.
 */
function patientStore(o: {
  store: JobStore;
  jobId: string;
  waitMs: number;
  signal: AbortSignal;
  lease: () => Lease | undefined;
  outage: OutageLog;
  logger: LoggerService;
}): { store: JobStore; call: <T>(op: () => Promise<T>) => Promise<T> } {
  let gaveUp: JobDatabaseUnavailableError | undefined;
  const call = async <T>(op: () => Promise<T>): Promise<T> => {
    if (gaveUp) throw gaveUp;
    const deadline = Date.now() + o.waitMs;
    let delay = 100;
    let failures = 0;
    for (;;) {
      try {
        const lease = o.lease();
        if (failures > 0 && lease && !(await lease.confirm()))
          throw new StepInterruptedError(LEASE_LOST);
        const result = await op();
        o.outage.up();
        return result;
      } catch (e) {
        if (!(e instanceof JobDatabaseUnavailableError)) throw e;
        o.outage.down(e);
        if (failures++ === 0)
          o.logger.info(
            `job ${o.jobId}: waiting for the job database (${e.reason})`,
          );
        const left = deadline - Date.now();
        if (left <= 0 || o.signal.aborted) {
          gaveUp = e;
          throw e;
        }
        await sleep(Math.min(delay, left), o.signal);
        delay = Math.min(delay * 2, 2000);
      }
    }
  };
  const store = new Proxy(o.store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function'
        ? (...args: unknown[]) => call(() => v.apply(target, args))
        : v;
    },
  });
  return { store, call };
}

/** Resolves after `ms`, or at once when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const done = () => {
      timers.forEach(clearTimeout);
      signal.removeEventListener('abort', done);
      resolve();
    };
    timers.push(setTimeout(done, ms));
    signal.addEventListener('abort', done);
  });
}
