import type {
  Job,
  JobLogLine,
  JobRequest,
  JobResult,
  ClusterPlace,
  StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { ServiceUnavailableError } from '@backstage/errors';
import type { JobUpdate } from './transitions';

export type { JobUpdate } from './transitions';

/** What GET /jobs/:id carries; older lines stay in the database. */
export const LOG_TAIL = 500;

/**
 * The job database could not be reached (refused, cut, restarting): nothing says the operation did or did not
 * happen, only that the database is away for now. A 503 to a user; the job engine waits for the database and the job
 * resumes when it is back (docs/job-guarantees.md#database-restart). `reason` says what went wrong in a few words,
 * without addresses, SQL or data.
 */
export class JobDatabaseUnavailableError extends ServiceUnavailableError {
  constructor(readonly reason: string) {
    super(
      `The job database cannot be reached right now (${reason}). Running jobs wait for it and carry on when it is back; try again in a moment.`,
    );
    // An expected condition, not a bug: its stack (the store's call site) tells a reader nothing.
    delete this.stack;
  }
}

/** A job with the plan it runs. */
export interface StoredJob extends Job {
  plan: StepPlan[];
}

/** A held claim: its key and the job holding it. */
export interface ClaimHolder {
  key: string;
  job: StoredJob;
}

/** A job to insert: queued, with its plan and the claims it holds (azureClaimKeys). */
export interface NewJob {
  id: string;
  request: JobRequest;
  target: ClusterPlace;
  plan: StepPlan[];
  createdBy: string;
  result?: JobResult;
  claims?: string[];
}

/**
 * Durable jobs (implemented by {@link DatabaseJobStore}). Every write a runner makes is fenced by its lease: a
 * replica that lost its lease can no longer move a job another replica now runs. What each state allows comes from
 * ./transitions; the store applies it atomically. Any method throws a {@link JobDatabaseUnavailableError} when the
 * database cannot be reached; the store does not retry (a user's request answers 503 at once, the engine decides how
 * long a run waits).
 */
export interface JobStore {
  /**
   * Inserts a queued job with its claims in one transaction. Throws a {@link JobConflictError} naming the job in the
   * way when the cluster already has an active job or another job holds one of the claims (the database decides a
   * race between replicas, whatever the caches showed).
   */
  insert(job: NewJob): Promise<StoredJob>;
  /** The jobs holding any of these claims (keys from azureClaimKeys), in key order. */
  claimHolders(keys: string[]): Promise<ClaimHolder[]>;
  /** The claims a job holds. */
  claimsOf(jobId: string): Promise<string[]>;
  /** The job; a NotFoundError when there is none. */
  get(id: string): Promise<StoredJob>;
  /** Newest first (at most `limit`, default 100); `active` leaves out final states. */
  list(
    filter: Partial<ClusterPlace> & { active?: boolean; limit?: number },
  ): Promise<StoredJob[]>;
  /** Jobs that should run but no live replica holds: queued ones, and running ones whose lease expired. */
  orphaned(now?: number): Promise<string[]>;
  /** Takes (or renews) the lease of a runnable job; of two replicas racing, exactly one gets true. */
  claim(
    id: string,
    owner: string,
    ttlMs: number,
    now?: number,
  ): Promise<boolean>;
  /** Extends the lease; false when it is no longer ours. */
  heartbeat(id: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease back (another replica may take the job). */
  release(id: string, owner: string): Promise<void>;
  /**
   * A runner's write, fenced by its lease; false when the lease is gone (the runner must stop). A final state
   * releases the job's claims in the same transaction.
   */
  update(id: string, owner: string, u: JobUpdate): Promise<boolean>;
  /**
   * A user's pause or cancel (see transitions' decideRequest): an idle job changes at once, a running one gets the
   * request, and an idle one whose cancel must still write to the cluster (`cancelWrites`) is queued with it for a
   * runner. Returns the job after the change, or undefined when its state does not allow it.
   */
  request(
    id: string,
    action: 'pause' | 'cancel',
    leftBehind: (job: StoredJob) => string | undefined,
    cancelWrites?: (job: StoredJob) => boolean,
  ): Promise<StoredJob | undefined>;
  /** Paused or failed -> queued again; undefined when the state does not allow it. */
  resume(id: string): Promise<StoredJob | undefined>;
  appendLog(
    jobId: string,
    lines: Array<Omit<JobLogLine, 'at'> & { at?: string }>,
  ): Promise<void>;
  /** The newest `limit` lines (default {@link LOG_TAIL}), oldest first. */
  readLog(jobId: string, limit?: number): Promise<JobLogLine[]>;
}
