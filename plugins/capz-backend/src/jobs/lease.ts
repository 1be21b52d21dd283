import type { LoggerService } from '@backstage/backend-plugin-api';
import { JobDatabaseUnavailableError, type JobStore } from './JobStore';

/** Why a run was interrupted by its lease. */
export const LEASE_LOST = 'lease lost';

export interface LeaseOptions {
  store: Pick<JobStore, 'claim' | 'heartbeat' | 'release'>;
  jobId: string;
  /** This replica's id (the lease owner). */
  owner: string;
  ttlMs: number;
  /** Aborted with {@link LEASE_LOST} when a renewal finds the lease taken. */
  abort: AbortController;
  logger: Pick<LoggerService, 'warn' | 'info'>;
  /** Run after every successful renewal (the engine looks for a user's request there). */
  onRenewed?: () => Promise<void>;
}

/**
 * A runner's hold on one job: taken with one conditional UPDATE, renewed every third of its time-to-live while the
 * job runs, given back at the end unless it was lost. A renewal that finds the lease gone (another replica took the
 * job after this one stalled) aborts the run: the runner must stop writing.
 */
export class Lease {
  /** The lease, or undefined when another replica holds the job (or it is not runnable). */
  static async acquire(o: LeaseOptions): Promise<Lease | undefined> {
    if (!(await o.store.claim(o.jobId, o.owner, o.ttlMs))) return undefined;
    return new Lease(o);
  }

  private lostFlag = false;
  private readonly timer: ReturnType<typeof setInterval>;
  /** A renewal still waiting on the database: the timer starts no second one beside it. */
  private renewing = false;
  /** Renewals that failed in a row (a database outage); said once when it starts and once when it ends. */
  private failedRenewals = 0;

  private constructor(private readonly o: LeaseOptions) {
    this.timer = setInterval(
      () => void this.renew(),
      Lease.renewEveryMs(o.ttlMs),
    );
  }

  /** How often a held lease is renewed. */
  static renewEveryMs(ttlMs: number): number {
    return Math.max(200, Math.floor(ttlMs / 3));
  }

  /** Whether the lease was found taken (a renewal or a fenced write failed). */
  get lost(): boolean {
    return this.lostFlag;
  }

  /** A fenced write found the lease gone: the run must stop, and the lease is not ours to give back. */
  markLost(): void {
    this.lostFlag = true;
  }

  /**
   * One renewal (the timer calls it; exposed for tests). A renewal that fails (the database is away) leaves the lease
   * as it is: the next one tries again, and the lease stays this replica's in the database until it expires there.
   * The first failure of a run of them is logged, and the renewal that works again.
   */
  async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      if (!(await this.confirm())) return;
      await this.o.onRenewed?.();
    } catch (e) {
      if (this.failedRenewals++ === 0)
        this.o.logger.warn(
          `job ${this.o.jobId}: heartbeat failed: ${
            e instanceof JobDatabaseUnavailableError
              ? `the job database cannot be reached (${e.reason})`
              : (e as Error).message
          } (tried again every ${Lease.renewEveryMs(this.o.ttlMs)} ms)`,
        );
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Renews the lease now, and says whether it is still this replica's: false when another replica holds it (the run
   * is aborted with {@link LEASE_LOST}). Throws when the database cannot be reached. A run calls it after waiting
   * for the database, before it does anything else: the lease may have expired and been taken meanwhile.
   */
  async confirm(): Promise<boolean> {
    const { store, jobId, owner, ttlMs, abort, logger } = this.o;
    if (!(await store.heartbeat(jobId, owner, ttlMs))) {
      this.lostFlag = true;
      abort.abort(LEASE_LOST);
      return false;
    }
    if (this.failedRenewals > 0) {
      logger.info(
        `job ${jobId}: lease renewed again after ${this.failedRenewals} failed heartbeat(s)`,
      );
      this.failedRenewals = 0;
    }
    return true;
  }

  /** Stops renewing and gives the lease back, unless it was lost. */
  async end(): Promise<void> {
    clearInterval(this.timer);
    if (!this.lostFlag)
      await this.o.store
        .release(this.o.jobId, this.o.owner)
        .catch(() => undefined);
  }
}
