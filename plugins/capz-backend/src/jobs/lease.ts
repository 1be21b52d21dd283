import type { LoggerService } from '@backstage/backend-plugin-api';
import type { JobStore } from './JobStore';

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
  logger: Pick<LoggerService, 'warn'>;
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

  /** One renewal (the timer calls it; exposed for tests). */
  async renew(): Promise<void> {
    const { store, jobId, owner, ttlMs, abort, logger } = this.o;
    try {
      if (!(await store.heartbeat(jobId, owner, ttlMs))) {
        this.lostFlag = true;
        abort.abort(LEASE_LOST);
        return;
      }
      await this.o.onRenewed?.();
    } catch (e) {
      logger.warn(`job ${jobId}: heartbeat failed: ${(e as Error).message}`);
    }
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
