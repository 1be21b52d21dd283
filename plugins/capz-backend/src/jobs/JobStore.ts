import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { ConflictError, NotFoundError } from '@backstage/errors';
import type {
  Job,
  JobLogLine,
  JobRequest,
  JobResult,
  JobState,
  JobStepStatus,
  JobTarget,
  StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { Knex } from 'knex';
import { describeClaimKey } from './claims';

const migrationsDir = resolvePackagePath(
  '@capz-backstage/plugin-capz-backend',
  'migrations',
);

const JOBS = 'capz_jobs';
const LOG = 'capz_job_log';
const CLAIMS = 'capz_job_claims';
/** What GET /jobs/:id carries; older lines stay in the database. */
export const LOG_TAIL = 500;

/** Final states release the cluster: another job may start on it. Failed and paused jobs keep it (they resume). */
export const FINAL_STATES: readonly JobState[] = ['succeeded', 'cancelled'];

interface JobRow {
  id: string;
  type: string;
  management_cluster: string;
  namespace: string;
  name: string;
  active_key: string | null;
  params: string;
  plan: string;
  steps: string;
  result: string | null;
  created_by: string;
  state: string;
  requested: string | null;
  current_step: string | null;
  error: string | null;
  left_behind: string | null;
  lease_owner: string | null;
  lease_expires_at: string | number | null;
  created_at: string | number;
  updated_at: string | number;
  finished_at: string | number | null;
}

/** A job with the plan it runs. */
export interface StoredJob extends Job {
  plan: StepPlan[];
}

/** What a runner may change on a job it holds the lease of. */
export interface JobUpdate {
  state?: JobState;
  currentStep?: string | null;
  steps?: JobStepStatus[];
  error?: string | null;
  leftBehind?: string | null;
  result?: JobResult | null;
  requested?: null;
}

const ms = (v: string | number | null | undefined) =>
  v === null || v === undefined ? undefined : Number(v);
const iso = (v: string | number | null | undefined) =>
  v === null || v === undefined ? undefined : new Date(Number(v)).toISOString();
const activeKey = (t: JobTarget) =>
  `${t.managementCluster}/${t.namespace}/${t.name}`;

/** Why a second job on a cluster is refused, naming the job that holds it. */
export const activeJobMessage = (
  target: JobTarget,
  active: Pick<Job, 'id' | 'state' | 'type'>,
) =>
  `${activeKey(target)} already has a ${active.state} ${active.type} job (${
    active.id
  }); finish, resume or cancel it first`;

/** Why a job is refused because another one holds a claim on the same Azure resource, naming that job. */
export const claimMessage = (
  key: string,
  holder: Pick<Job, 'id' | 'state' | 'type' | 'target'>,
) =>
  `${describeClaimKey(key)} is claimed by the ${holder.state} ${
    holder.type
  } job ${holder.id} on ${activeKey(holder.target)}: ` +
  'one job at a time may adopt or migrate an AKS cluster; let that job finish, or cancel it, first';

/** A 409 that names the job in the way (the router answers with its id). */
export class JobConflictError extends ConflictError {
  constructor(message: string, readonly jobId: string) {
    super(message);
  }
}

/** A held claim: its key and the job holding it. */
export interface ClaimHolder {
  key: string;
  job: StoredJob;
}

function toJob(r: JobRow): StoredJob {
  return {
    id: r.id,
    type: r.type as Job['type'],
    target: {
      managementCluster: r.management_cluster,
      namespace: r.namespace,
      name: r.name,
    },
    params: JSON.parse(r.params),
    createdBy: r.created_by,
    state: r.state as JobState,
    ...(r.requested ? { requested: r.requested as 'pause' | 'cancel' } : {}),
    ...(r.current_step ? { currentStep: r.current_step } : {}),
    steps: JSON.parse(r.steps),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    ...(r.finished_at ? { finishedAt: iso(r.finished_at) } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.left_behind ? { leftBehind: r.left_behind } : {}),
    ...(r.result ? { result: JSON.parse(r.result) } : {}),
    plan: JSON.parse(r.plan),
  };
}

/**
 * Jobs in the plugin's database. Every write a runner makes is fenced by its lease (`WHERE lease_owner = me`): a
 * replica that lost its lease (paused by a long GC, partitioned) can no longer move a job another replica now runs.
 * Times come from the replicas' clocks; the lease is long against any sane clock skew.
 */
export class JobStore {
  static async create(options: {
    database: DatabaseService;
  }): Promise<JobStore> {
    const db = await options.database.getClient();
    if (!options.database.migrations?.skip) {
      await db.migrate.latest({ directory: migrationsDir });
    }
    return new JobStore(db);
  }

  constructor(private readonly db: Knex) {}

  /**
   * Inserts a queued job with its claims (azureClaimKeys) in one transaction. A {@link JobConflictError} naming the
   * job in the way when the cluster already has an active job or another job holds one of the claims: the unique
   * active_key and the claims' primary key decide a race between replicas, whatever the caches showed.
   */
  async insert(job: {
    id: string;
    request: JobRequest;
    target: JobTarget;
    plan: StepPlan[];
    createdBy: string;
    result?: JobResult;
    claims?: string[];
  }): Promise<StoredJob> {
    const now = Date.now();
    const row: JobRow = {
      id: job.id,
      type: job.request.type,
      management_cluster: job.target.managementCluster,
      namespace: job.target.namespace,
      name: job.target.name,
      active_key: activeKey(job.target),
      params: JSON.stringify(job.request.params),
      plan: JSON.stringify(job.plan),
      steps: JSON.stringify(
        job.plan.map(
          (s): JobStepStatus => ({
            id: s.id,
            title: s.title,
            state: 'pending',
            attempts: 0,
          }),
        ),
      ),
      result: job.result ? JSON.stringify(job.result) : null,
      created_by: job.createdBy,
      state: 'queued',
      requested: null,
      current_step: null,
      error: null,
      left_behind: null,
      lease_owner: null,
      lease_expires_at: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
    const claims = [...new Set(job.claims ?? [])].sort();
    try {
      await this.db.transaction(async tx => {
        await tx<JobRow>(JOBS).insert(row);
        if (claims.length)
          await tx(CLAIMS).insert(
            claims.map(claim_key => ({
              claim_key,
              job_id: job.id,
              created_at: now,
            })),
          );
      });
    } catch (e) {
      // The transaction is rolled back: nothing of this job is stored. Say which job is in the way.
      const active = await this.db<JobRow>(JOBS)
        .where({ active_key: activeKey(job.target) })
        .first();
      if (active) {
        throw new JobConflictError(
          activeJobMessage(job.target, {
            id: active.id,
            state: active.state as JobState,
            type: active.type as Job['type'],
          }),
          active.id,
        );
      }
      const [held] = await this.claimHolders(claims);
      if (held)
        throw new JobConflictError(
          claimMessage(held.key, held.job),
          held.job.id,
        );
      throw e;
    }
    return toJob(row);
  }

  /** The jobs holding any of these claims (keys from azureClaimKeys), in key order. */
  async claimHolders(keys: string[]): Promise<ClaimHolder[]> {
    if (!keys.length) return [];
    const rows: Array<{ claim_key: string; job_id: string }> = await this.db(
      CLAIMS,
    )
      .whereIn('claim_key', keys)
      .orderBy('claim_key');
    const out: ClaimHolder[] = [];
    for (const r of rows) {
      const job = await this.db<JobRow>(JOBS).where({ id: r.job_id }).first();
      if (job) out.push({ key: r.claim_key, job: toJob(job) });
    }
    return out;
  }

  /** The claims a job holds. */
  async claimsOf(jobId: string): Promise<string[]> {
    const rows: Array<{ claim_key: string }> = await this.db(CLAIMS)
      .where({ job_id: jobId })
      .orderBy('claim_key');
    return rows.map(r => r.claim_key);
  }

  async get(id: string): Promise<StoredJob> {
    const row = await this.db<JobRow>(JOBS).where({ id }).first();
    if (!row) throw new NotFoundError(`No job ${id}`);
    return toJob(row);
  }

  /** Newest first. */
  async list(
    filter: Partial<JobTarget> & { active?: boolean; limit?: number },
  ): Promise<StoredJob[]> {
    const q = this.db<JobRow>(JOBS)
      .orderBy('created_at', 'desc')
      .limit(filter.limit ?? 100);
    if (filter.managementCluster)
      q.where('management_cluster', filter.managementCluster);
    if (filter.namespace) q.where('namespace', filter.namespace);
    if (filter.name) q.where('name', filter.name);
    if (filter.active) q.whereNotIn('state', FINAL_STATES as JobState[]);
    return (await q).map(toJob);
  }

  /** Jobs that should run but no live replica holds: queued ones, and running ones whose lease expired. */
  async orphaned(now = Date.now()): Promise<string[]> {
    const rows = await this.db<JobRow>(JOBS)
      .select('id')
      .whereIn('state', ['queued', 'running'])
      .andWhere(q =>
        q.whereNull('lease_owner').orWhere('lease_expires_at', '<', now),
      )
      .orderBy('created_at', 'asc');
    return rows.map(r => r.id);
  }

  /**
   * Takes (or renews) the lease of a runnable job. One conditional UPDATE: of two replicas racing for the same job,
   * exactly one sees a changed row (a row lock in PostgreSQL, the database lock in SQLite).
   */
  async claim(
    id: string,
    owner: string,
    ttlMs: number,
    now = Date.now(),
  ): Promise<boolean> {
    const n = await this.db<JobRow>(JOBS)
      .where({ id })
      .whereIn('state', ['queued', 'running'])
      .andWhere(q =>
        q
          .whereNull('lease_owner')
          .orWhere('lease_expires_at', '<', now)
          .orWhere('lease_owner', owner),
      )
      .update({
        lease_owner: owner,
        lease_expires_at: now + ttlMs,
        updated_at: now,
      });
    return n === 1;
  }

  /** Extends the lease; false when it is no longer ours. */
  async heartbeat(id: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const n = await this.db<JobRow>(JOBS)
      .where({ id, lease_owner: owner })
      .update({ lease_expires_at: now + ttlMs });
    return n === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.db<JobRow>(JOBS)
      .where({ id, lease_owner: owner })
      .update({ lease_owner: null, lease_expires_at: null });
  }

  /** A runner's write, fenced by its lease; false when the lease is gone (the runner must stop). */
  async update(id: string, owner: string, u: JobUpdate): Promise<boolean> {
    const now = Date.now();
    const patch: Partial<JobRow> = { updated_at: now };
    if (u.state !== undefined) {
      patch.state = u.state;
      if (FINAL_STATES.includes(u.state)) {
        patch.active_key = null;
        patch.finished_at = now;
      }
      if (u.state === 'failed') patch.finished_at = now;
    }
    if (u.currentStep !== undefined) patch.current_step = u.currentStep;
    if (u.steps !== undefined) patch.steps = JSON.stringify(u.steps);
    if (u.error !== undefined) patch.error = u.error;
    if (u.leftBehind !== undefined) patch.left_behind = u.leftBehind;
    if (u.result !== undefined)
      patch.result = u.result ? JSON.stringify(u.result) : null;
    if (u.requested !== undefined) patch.requested = null;
    const final = u.state !== undefined && FINAL_STATES.includes(u.state);
    if (!final) {
      const n = await this.db<JobRow>(JOBS)
        .where({ id, lease_owner: owner })
        .update(patch);
      return n === 1;
    }
    // A final state releases the job's claims in the same transaction: never a finished job still holding them,
    // never a claim released while the job could still run.
    return this.db.transaction(async tx => {
      const n = await tx<JobRow>(JOBS)
        .where({ id, lease_owner: owner })
        .update(patch);
      if (n === 1) await tx(CLAIMS).where({ job_id: id }).delete();
      return n === 1;
    });
  }

  /**
   * A user's pause or cancel. A job nobody runs right now (queued without a live lease, paused, failed) changes at
   * once; a running one gets the request, which its runner honours at the next step boundary or during a wait.
   * Returns the job after the change, or undefined when the state does not allow it.
   */
  async request(
    id: string,
    action: 'pause' | 'cancel',
    leftBehind: (job: StoredJob) => string | undefined,
  ): Promise<StoredJob | undefined> {
    return this.db.transaction(async tx => {
      const row = await tx<JobRow>(JOBS)
        .where({ id })
        .modify(q => this.lockRow(q))
        .first();
      if (!row) throw new NotFoundError(`No job ${id}`);
      const job = toJob(row);
      const now = Date.now();
      const leased =
        !!row.lease_owner && (ms(row.lease_expires_at) ?? 0) >= now;
      const idle =
        job.state === 'paused' ||
        job.state === 'failed' ||
        (job.state === 'queued' && !leased);
      if (action === 'pause') {
        if (job.state === 'queued' && !leased) {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({ state: 'paused', requested: null, updated_at: now });
        } else if (job.state === 'running' || job.state === 'queued') {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({ requested: 'pause', updated_at: now });
        } else return undefined;
      } else {
        if (idle) {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({
              state: 'cancelled',
              requested: null,
              active_key: null,
              finished_at: now,
              updated_at: now,
              left_behind: leftBehind({ ...job, state: 'cancelled' }) ?? null,
            });
          await tx(CLAIMS).where({ job_id: id }).delete();
        } else if (job.state === 'running' || job.state === 'queued') {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({ requested: 'cancel', updated_at: now });
        } else return undefined;
      }
      return toJob((await tx<JobRow>(JOBS).where({ id }).first())!);
    });
  }

  /** Paused or failed -> queued again; a failed step starts over (steps are idempotent). */
  async resume(id: string): Promise<StoredJob | undefined> {
    return this.db.transaction(async tx => {
      const row = await tx<JobRow>(JOBS)
        .where({ id })
        .modify(q => this.lockRow(q))
        .first();
      if (!row) throw new NotFoundError(`No job ${id}`);
      if (row.state !== 'paused' && row.state !== 'failed') return undefined;
      const steps: JobStepStatus[] = JSON.parse(row.steps).map(
        (s: JobStepStatus) =>
          s.state === 'failed' || s.state === 'running'
            ? { ...s, state: 'pending' }
            : s,
      );
      await tx<JobRow>(JOBS)
        .where({ id })
        .update({
          state: 'queued',
          requested: null,
          error: null,
          left_behind: null,
          finished_at: null,
          steps: JSON.stringify(steps),
          updated_at: Date.now(),
        });
      return toJob((await tx<JobRow>(JOBS).where({ id }).first())!);
    });
  }

  /** Row locks where the database has them (PostgreSQL); SQLite serialises writers anyway and warns on FOR UPDATE. */
  private lockRow(q: Knex.QueryBuilder): void {
    const client = String(
      (this.db.client as { config?: { client?: unknown } }).config?.client ??
        '',
    );
    if (client === 'pg' || client.includes('postgres')) q.forUpdate();
  }

  async appendLog(
    jobId: string,
    lines: Array<Omit<JobLogLine, 'at'> & { at?: string }>,
  ): Promise<void> {
    if (!lines.length) return;
    await this.db(LOG).insert(
      lines.map(l => ({
        job_id: jobId,
        at: l.at ? Date.parse(l.at) : Date.now(),
        level: l.level,
        step: l.step ?? null,
        message: l.message,
      })),
    );
  }

  /** The newest `limit` lines, oldest first. */
  async readLog(jobId: string, limit = LOG_TAIL): Promise<JobLogLine[]> {
    const rows = await this.db(LOG)
      .where({ job_id: jobId })
      .orderBy('id', 'desc')
      .limit(limit);
    return rows
      .reverse()
      .map(
        (r: {
          at: string | number;
          level: string;
          step: string | null;
          message: string;
        }) => ({
          at: iso(r.at)!,
          level: r.level as JobLogLine['level'],
          ...(r.step ? { step: r.step } : {}),
          message: r.message,
        }),
      );
  }
}
