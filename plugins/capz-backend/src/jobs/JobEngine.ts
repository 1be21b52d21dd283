import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { Job, JobStepStatus } from '@capz-backstage/plugin-capz-common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ClusterClient } from './ClusterClient';
import { describeLeftBehind } from './leftBehind';
import type { JobStore, StoredJob } from './JobStore';
import {
  AzureChecker,
  ChangeWaker,
  evaluateLive,
  runStep,
  StepContext,
  StepInterruptedError,
} from './StepRunner';

/**
 * Where a test may stop the process: before a step, between its actions and its record (`actions`: the actions are
 * done, the step is not yet recorded as done), at its first unmet wait, or after it is recorded.
 */
export type FaultPoint = 'before' | 'actions' | 'wait' | 'after';
export type FaultHook = (
  jobId: string,
  stepId: string,
  point: FaultPoint,
) => void;

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
 * Runs jobs step by step under a lease (DESIGN.md "Data flow" 5). Any replica may run any job: the one whose
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

  private async run(jobId: string, abort: AbortController): Promise<void> {
    const { store, logger } = this.o;
    const me = this.replicaId;
    if (!(await store.claim(jobId, me, this.leaseMs))) {
      this.running.delete(jobId);
      return;
    }
    let lost = false;
    const heartbeat = setInterval(() => {
      void (async () => {
        try {
          if (!(await store.heartbeat(jobId, me, this.leaseMs))) {
            lost = true;
            abort.abort('lease lost');
            return;
          }
          const fresh = await store.get(jobId);
          if (fresh.requested) abort.abort(fresh.requested);
        } catch (e) {
          logger.warn(
            `job ${jobId}: heartbeat failed: ${(e as Error).message}`,
          );
        }
      })();
    }, Math.max(200, Math.floor(this.leaseMs / 3)));
    try {
      // One holder, read by the closures below: the job as last written.
      const cur = { job: await store.get(jobId) };
      const log = (
        level: 'info' | 'warn' | 'error',
        message: string,
        step?: string,
      ) => store.appendLog(jobId, [{ level, message, step }]);
      /** Writes under the lease; false means another replica owns the job now and this one must stop. */
      const save = async (u: Parameters<JobStore['update']>[2]) => {
        const ok = await store.update(jobId, me, u);
        if (!ok) lost = true;
        else {
          cur.job = await store.get(jobId);
          this.o.notify?.(cur.job);
        }
        return ok;
      };
      if (cur.job.state === 'queued') {
        if (!(await save({ state: 'running' }))) return;
        await log('info', `started on replica ${me}`);
      } else {
        await log(
          'info',
          `resumed on replica ${me}${
            cur.job.currentStep ? ` at step ${cur.job.currentStep}` : ''
          }`,
        );
      }
      const client = await this.o.client(cur.job.target.managementCluster);
      const moved = await this.worldMoved(cur.job, client);
      if (moved) {
        await save({
          state: 'failed',
          error: moved,
          leftBehind: describeLeftBehind(cur.job),
        });
        await log('error', moved);
        return;
      }
      for (let i = 0; i < cur.job.plan.length; i++) {
        const plan = cur.job.plan[i];
        if (
          cur.job.steps[i].state === 'succeeded' ||
          cur.job.steps[i].state === 'skipped'
        )
          continue;
        // The step boundary: a user's request is honoured here.
        const fresh = await store.get(jobId);
        if (fresh.requested) {
          await this.finishRequested(fresh, fresh.requested, save, log);
          return;
        }
        if (this.stopped) return;
        this.o.faults?.(jobId, plan.id, 'before');
        const steps = (status: Partial<JobStepStatus>) =>
          cur.job.steps.map((s, j) => (j === i ? { ...s, ...status } : s));
        const attempts = cur.job.steps[i].attempts + 1;
        if (
          !(await save({
            currentStep: plan.id,
            steps: steps({
              state: 'running',
              attempts,
              startedAt: new Date().toISOString(),
              finishedAt: undefined,
              message: undefined,
            }),
          }))
        )
          return;
        await log(
          'info',
          `step "${plan.title}" started (attempt ${attempts})`,
          plan.id,
        );
        let lastProgress = '';
        const ctx: StepContext = {
          jobId,
          managementCluster: cur.job.target.managementCluster,
          client,
          azure: this.o.azure,
          waker: this.o.waker(cur.job.target.managementCluster),
          signal: abort.signal,
          recheckMs: this.o.recheckMs,
          log: (level, message) => log(level, message, plan.id),
          progress: async message => {
            if (message === lastProgress) return;
            lastProgress = message;
            await save({
              steps: steps({ state: 'running', attempts, message }),
            });
          },
          onWaiting: () => this.o.faults?.(jobId, plan.id, 'wait'),
          onActionsDone: () => this.o.faults?.(jobId, plan.id, 'actions'),
          clusters: this.o.clusters,
        };
        try {
          await runStep(plan, ctx);
        } catch (e) {
          if (e instanceof StepInterruptedError) {
            const why = e.why;
            if (lost || why === 'lease lost' || why === 'shutdown') {
              await log(
                'warn',
                `step "${plan.title}" interrupted (${why}); it starts over when the job resumes`,
                plan.id,
              );
              return;
            }
            await save({
              steps: steps({
                state: 'pending',
                attempts,
                message: `interrupted by ${why}`,
              }),
            });
            await this.finishRequested(
              cur.job,
              why as 'pause' | 'cancel',
              save,
              log,
            );
            return;
          }
          const message = (e as Error).message;
          await save({
            steps: steps({
              state: 'failed',
              attempts,
              finishedAt: new Date().toISOString(),
              message,
            }),
          });
          await save({
            state: 'failed',
            error: `${plan.title}: ${message}`,
            leftBehind: describeLeftBehind(cur.job),
          });
          await log(
            'error',
            `step "${plan.title}" failed: ${message}`,
            plan.id,
          );
          return;
        }
        if (
          !(await save({
            steps: steps({
              state: 'succeeded',
              attempts,
              finishedAt: new Date().toISOString(),
              message: undefined,
            }),
          }))
        )
          return;
        await log('info', `step "${plan.title}" done`, plan.id);
        this.o.faults?.(jobId, plan.id, 'after');
      }
      await save({ state: 'succeeded', currentStep: null, requested: null });
      await log('info', 'job succeeded');
    } finally {
      clearInterval(heartbeat);
      if (!lost) await store.release(jobId, me).catch(() => undefined);
    }
  }

  /**
   * A job that resumes (after a crash, a pause or a failure) first re-checks, live, what its finished steps
   * established (e.g. the old Cluster is still paused, the old ASO objects still on skip). If someone changed that
   * meanwhile, going on could leave two controllers on one AKS cluster: the job stops and says what moved.
   */
  private async worldMoved(
    job: StoredJob,
    client: ClusterClient,
  ): Promise<string | undefined> {
    const finished = job.plan.filter(
      (_, i) => job.steps[i]?.state === 'succeeded',
    );
    const ctx = {
      jobId: job.id,
      managementCluster: job.target.managementCluster,
      client,
      azure: this.o.azure,
    } as StepContext;
    const problems: string[] = [];
    for (const step of finished) {
      for (const c of step.invariants ?? []) {
        const r = await evaluateLive(c, ctx);
        if (!r.holds)
          problems.push(
            `${c.description}, established by step "${step.title}", no longer holds (now: ${r.observed})`,
          );
      }
    }
    if (!problems.length) return undefined;
    return `The cluster changed since the job's finished steps: ${problems.join(
      '; ',
    )}. Nothing was changed by this resume; restore that state (or cancel the job and read what it left), then resume.`;
  }

  private async finishRequested(
    job: StoredJob,
    what: 'pause' | 'cancel',
    save: (u: Parameters<JobStore['update']>[2]) => Promise<boolean>,
    log: (level: 'info' | 'warn' | 'error', message: string) => Promise<void>,
  ): Promise<void> {
    if (what === 'pause') {
      await save({ state: 'paused', requested: null });
      await log(
        'info',
        'paused by request; resume to continue at the same step',
      );
    } else {
      await save({
        state: 'cancelled',
        requested: null,
        leftBehind: describeLeftBehind(job),
      });
      await log('warn', 'cancelled by request');
    }
  }
}
