import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { NotFoundError } from '@backstage/errors';
import type {
  Job,
  JobLogLine,
  JobState,
  JobStepStatus,
} from '@capz-backstage/plugin-capz-common';
import { Knex } from 'knex';
import {
  activeJobMessage,
  activeKey,
  claimMessage,
  JobConflictError,
} from './conflicts';
import type { ClaimHolder, JobStore, NewJob, StoredJob } from './JobStore';
import { JobDatabaseUnavailableError, LOG_TAIL } from './JobStore';
import {
  canResume,
  decideRequest,
  FINAL_STATES,
  JobUpdate,
  resumeChange,
  resumedSteps,
  stateEffects,
} from './transitions';

const migrationsDir = resolvePackagePath(
  '@capz-backstage/plugin-capz-backend',
  'migrations',
);

const JOBS = 'capz_jobs';
const LOG = 'capz_job_log';
const CLAIMS = 'capz_job_claims';

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

const ms = (v: string | number | null | undefined) =>
  v === null || v === undefined ? undefined : Number(v);
const iso = (v: string | number | null | undefined) =>
  v === null || v === undefined ? undefined : new Date(Number(v)).toISOString();

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

/** The row of a new, queued job. */
function newRow(job: NewJob, now: number): JobRow {
  return {
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
}

/** The columns a runner's update writes (the state's effects included: a final state frees the cluster). */
function patchOf(u: JobUpdate, now: number): Partial<JobRow> {
  const patch: Partial<JobRow> = { updated_at: now };
  if (u.state !== undefined) {
    patch.state = u.state;
    const effects = stateEffects(u.state);
    if (effects.releasesCluster) patch.active_key = null;
    if (effects.finished) patch.finished_at = now;
  }
  if (u.currentStep !== undefined) patch.current_step = u.currentStep;
  if (u.steps !== undefined) patch.steps = JSON.stringify(u.steps);
  if (u.error !== undefined) patch.error = u.error;
  if (u.leftBehind !== undefined) patch.left_behind = u.leftBehind;
  if (u.result !== undefined)
    patch.result = u.result ? JSON.stringify(u.result) : null;
  if (u.requested !== undefined) patch.requested = null;
  return patch;
}

/** Socket errors of a connection that could not be made or was cut, in a user's words. */
const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EAI_AGAIN: 'name lookup failed',
};

/**
 * PostgreSQL's error codes for a server going away or not there yet (SQLSTATE, PostgreSQL appendix A "Class 57 -
 * Operator Intervention", "Class 08 - Connection Exception"): a restart ends every session with admin_shutdown, and
 * a starting server refuses connections with cannot_connect_now until its recovery is done.
 */
const SERVER_ERRORS: Record<string, string> = {
  '57P01': 'the database server is shutting down',
  '57P02': 'the database server crashed',
  '57P03': 'the database server is starting up or shutting down',
  '53300': 'the database server has too many connections',
};

/**
 * Why the database cannot be reached right now, or undefined when the error is about something else (a constraint,
 * a missing row, bad SQL). Recognised: socket errors of node-postgres' connection (also inside the AggregateError
 * Node raises when it tries several addresses), PostgreSQL's connection and shutdown codes, node-postgres' messages
 * for a connection that ended under a query ("Connection terminated unexpectedly", lib/client.js), and knex's pool
 * timeout (KnexTimeoutError). The reason never carries the error's message: knex prefixes the SQL to it (with its
 * bindings: job data).
 */
export function unreachableReason(e: unknown): string | undefined {
  // Duck-typed, not `instanceof Error`: errors made by Node's own modules come from another realm under Jest.
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, name, message, errors } = e as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (SOCKET_ERRORS[code]) return `${SOCKET_ERRORS[code]}, ${code}`;
    if (SERVER_ERRORS[code]) return SERVER_ERRORS[code];
    if (/^08[0-9A-Z]{3}$/.test(code)) return `connection error ${code}`;
  }
  if (Array.isArray(errors))
    for (const inner of errors) {
      const r = unreachableReason(inner);
      if (r) return r;
    }
  if (name === 'KnexTimeoutError')
    return 'no database connection became free in time';
  if (
    typeof message === 'string' &&
    /Connection terminated|Connection ended unexpectedly|connection error and is not queryable/.test(
      message,
    )
  )
    return 'the connection was cut';
  return undefined;
}

/** Runs one store operation; an unreachable database becomes a {@link JobDatabaseUnavailableError}. */
async function reachable<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    if (e instanceof JobDatabaseUnavailableError) throw e;
    const reason = unreachableReason(e);
    if (reason) throw new JobDatabaseUnavailableError(reason);
    throw e;
  }
}

/**
 * {@link JobStore} in the plugin's database (SQLite or PostgreSQL). Every write a runner makes is fenced by its lease
 * (`WHERE lease_owner = me`): a replica that lost its lease (paused by a long GC, partitioned) can no longer move a
 * job another replica now runs. Times come from the replicas' clocks; the lease is long against any sane clock skew.
 */
export class DatabaseJobStore implements JobStore {
  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseJobStore> {
    const db = await options.database.getClient();
    if (!options.database.migrations?.skip) {
      await db.migrate.latest({ directory: migrationsDir });
    }
    return new DatabaseJobStore(db);
  }

  constructor(private readonly db: Knex) {}

  async insert(job: NewJob): Promise<StoredJob> {
    return reachable(async () => {
      const row = newRow(job, Date.now());
      const claims = [...new Set(job.claims ?? [])].sort();
      try {
        await this.db.transaction(async tx => {
          await tx<JobRow>(JOBS).insert(row);
          if (claims.length)
            await tx(CLAIMS).insert(
              claims.map(claim_key => ({
                claim_key,
                job_id: job.id,
                created_at: row.created_at,
              })),
            );
        });
      } catch (e) {
        // The transaction is rolled back: nothing of this job is stored. Say which job is in the way.
        throw (await this.conflictOf(job, claims)) ?? e;
      }
      return toJob(row);
    });
  }

  /** The job in the way of a refused insert: the cluster's active job, else the holder of one of its claims. */
  private async conflictOf(
    job: NewJob,
    claims: string[],
  ): Promise<JobConflictError | undefined> {
    const active = await this.db<JobRow>(JOBS)
      .where({ active_key: activeKey(job.target) })
      .first();
    if (active) {
      return new JobConflictError(
        activeJobMessage(job.target, {
          id: active.id,
          state: active.state as JobState,
          type: active.type as Job['type'],
        }),
        active.id,
      );
    }
    const [held] = await this.claimHolders(claims);
    return held
      ? new JobConflictError(claimMessage(held.key, held.job), held.job.id)
      : undefined;
  }

  async claimHolders(keys: string[]): Promise<ClaimHolder[]> {
    return reachable(async () => {
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
    });
  }

  async claimsOf(jobId: string): Promise<string[]> {
    return reachable(async () => {
      const rows: Array<{ claim_key: string }> = await this.db(CLAIMS)
        .where({ job_id: jobId })
        .orderBy('claim_key');
      return rows.map(r => r.claim_key);
    });
  }

  async get(id: string): Promise<StoredJob> {
    return reachable(async () => {
      const row = await this.db<JobRow>(JOBS).where({ id }).first();
      if (!row) throw new NotFoundError(`No job ${id}`);
      return toJob(row);
    });
  }

  async list(filter: Parameters<JobStore['list']>[0]): Promise<StoredJob[]> {
    return reachable(async () => {
      const q = this.db<JobRow>(JOBS)
        .orderBy('created_at', 'desc')
        .limit(filter.limit ?? 100);
      if (filter.managementCluster)
        q.where('management_cluster', filter.managementCluster);
      if (filter.namespace) q.where('namespace', filter.namespace);
      if (filter.name) q.where('name', filter.name);
      if (filter.active) q.whereNotIn('state', FINAL_STATES as JobState[]);
      return (await q).map(toJob);
    });
  }

  async orphaned(now = Date.now()): Promise<string[]> {
    return reachable(async () => {
      const rows = await this.db<JobRow>(JOBS)
        .select('id')
        .whereIn('state', ['queued', 'running'])
        .andWhere(q =>
          q.whereNull('lease_owner').orWhere('lease_expires_at', '<', now),
        )
        .orderBy('created_at', 'asc');
      return rows.map(r => r.id);
    });
  }

  /**
   * One conditional UPDATE: of two replicas racing for the same job, exactly one sees a changed row (a row lock in
   * PostgreSQL, the database lock in SQLite).
   */
  async claim(
    id: string,
    owner: string,
    ttlMs: number,
    now = Date.now(),
  ): Promise<boolean> {
    return reachable(async () => {
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
    });
  }

  async heartbeat(id: string, owner: string, ttlMs: number): Promise<boolean> {
    return reachable(async () => {
      const now = Date.now();
      const n = await this.db<JobRow>(JOBS)
        .where({ id, lease_owner: owner })
        .update({ lease_expires_at: now + ttlMs });
      return n === 1;
    });
  }

  async release(id: string, owner: string): Promise<void> {
    return reachable(async () => {
      await this.db<JobRow>(JOBS)
        .where({ id, lease_owner: owner })
        .update({ lease_owner: null, lease_expires_at: null });
    });
  }

  async update(id: string, owner: string, u: JobUpdate): Promise<boolean> {
    return reachable(async () => {
      const patch = patchOf(u, Date.now());
      if (u.state === undefined || !stateEffects(u.state).releasesCluster) {
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
    });
  }

  /**
   * A job nobody runs right now (queued without a live lease, paused, failed) changes at once; a running one gets the
   * request, which its runner honours at the next step boundary or during a wait.
   */
  async request(
    id: string,
    action: 'pause' | 'cancel',
    leftBehind: (job: StoredJob) => string | undefined,
    cancelWrites?: (job: StoredJob) => boolean,
  ): Promise<StoredJob | undefined> {
    return reachable(async () => {
      return this.db.transaction(async tx => {
        const row = await this.lockedRow(tx, id);
        const job = toJob(row);
        const now = Date.now();
        const leased =
          !!row.lease_owner && (ms(row.lease_expires_at) ?? 0) >= now;
        const decision = decideRequest(
          {
            state: job.state,
            leased,
            cancelWrites: action === 'cancel' && !!cancelWrites?.(job),
          },
          action,
        );
        if (decision.kind === 'refused') return undefined;
        if (decision.kind === 'requeue') {
          await tx<JobRow>(JOBS).where({ id }).update({
            state: 'queued',
            requested: decision.requested,
            lease_owner: null,
            lease_expires_at: null,
            updated_at: now,
          });
        } else if (decision.kind === 'request') {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({ requested: decision.requested, updated_at: now });
        } else if (decision.state === 'paused') {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({ state: 'paused', requested: null, updated_at: now });
        } else {
          await tx<JobRow>(JOBS)
            .where({ id })
            .update({
              ...patchOf({ state: 'cancelled', requested: null }, now),
              left_behind: leftBehind({ ...job, state: 'cancelled' }) ?? null,
            });
          await tx(CLAIMS).where({ job_id: id }).delete();
        }
        return toJob((await tx<JobRow>(JOBS).where({ id }).first())!);
      });
    });
  }

  async resume(id: string): Promise<StoredJob | undefined> {
    return reachable(async () => {
      return this.db.transaction(async tx => {
        const row = await this.lockedRow(tx, id);
        if (!canResume(row.state as JobState)) return undefined;
        await tx<JobRow>(JOBS)
          .where({ id })
          .update({
            ...patchOf(
              { ...resumeChange, steps: resumedSteps(JSON.parse(row.steps)) },
              Date.now(),
            ),
            finished_at: null,
          });
        return toJob((await tx<JobRow>(JOBS).where({ id }).first())!);
      });
    });
  }

  /** The job's row, locked for the transaction where the database has row locks; a NotFoundError when absent. */
  private async lockedRow(tx: Knex.Transaction, id: string): Promise<JobRow> {
    const row = await tx<JobRow>(JOBS)
      .where({ id })
      .modify(q => this.lockRow(q))
      .first();
    if (!row) throw new NotFoundError(`No job ${id}`);
    return row;
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
    lines: Parameters<JobStore['appendLog']>[1],
  ): Promise<void> {
    return reachable(async () => {
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
    });
  }

  async readLog(jobId: string, limit = LOG_TAIL): Promise<JobLogLine[]> {
    return reachable(async () => {
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
    });
  }
}
