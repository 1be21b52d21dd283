import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { Job } from '@capz-backstage/plugin-capz-common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ClusterClient } from './ClusterClient';
import type { FaultHook } from './faults';
import type { JobStore } from './JobStore';
import { JobRun } from './JobRun';
import { Lease } from './lease';
import type { AzureChecker, ChangeWaker } from './StepRunner';

export type { FaultHook, FaultPoint } from './faults';

export interface JobEngineOptions {
  store: JobStore;
  logger: LoggerService;
  client: (managementCluster: string) => Promise<ClusterClient>;
  waker: (managementCluster: string) => ChangeWaker;
  azure?: AzureChecker;
  /** Told after every change of a job's state or step (the live-progress signal). */
  notify?: (job: Job) => void;
  leaseMs?: number;
  /** How often a wait re-checks without a change event. */
  recheckMs?: number;
  /** How often every replica looks for jobs nobody runs (queued, or with an expired lease). */
  pickupSeconds?: number;
  replicaId?: string;
  faults?: FaultHook;
  /** Every configured management cluster with its client (the one-owner check reads all of them). */
  clusters?: () => Promise<Array<{ name: string; client: ClusterClient }>>;
}

/**
 * Runs jobs step by step under a lease (docs/architecture.md#flow-jobs). Any replica may run any job: the one whose
 * conditional UPDATE takes the lease runs it, renews the lease while it works, and every write it makes is fenced
 * by that lease. A replica that dies mid-job leaves an expiring lease; the next pickup on any replica resumes the
 * job at its first unfinished step, which re-checks the live cluster before doing anything (steps are idempotent).
 */
export class JobEngine {
  readonly replicaId: string;
  private readonly leaseMs: number;
  private readonly running = new Map<
    string,
    { abort: AbortController; done: Promise<void> }
  >();
  private stopped = false;

  constructor(private readonly o: JobEngineOptions) {
    this.replicaId =
      o.replicaId ??
      `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.leaseMs = o.leaseMs ?? 30_000;
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

  /** Starts whatever runnable job nobody holds. */
  async pickup(): Promise<void> {
    if (this.stopped) return;
    for (const id of await this.o.store.orphaned()) this.kick(id);
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

  /** One run under a lease: nothing when another replica holds the job; the lease is given back at the end. */
  private async run(jobId: string, abort: AbortController): Promise<void> {
    const { store, logger } = this.o;
    const lease = await Lease.acquire({
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
    });
    if (!lease) {
      this.running.delete(jobId);
      return;
    }
    try {
      await new JobRun(
        { ...this.o, stopping: () => this.stopped },
        jobId,
        this.replicaId,
        lease,
        abort.signal,
      ).execute();
    } finally {
      await lease.end();
    }
  }
}
