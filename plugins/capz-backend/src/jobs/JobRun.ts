import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  gitopsResumeOnCancel,
  type Job,
  type JobResult,
  type JobStepStatus,
  type StepPlan,
} from '@capz-backstage/plugin-capz-common';
import type { JobClient } from '../cluster/clientViews';
import type { FaultHook } from './faults';
import { resumeSuspendedBy, type JobGit } from './gitSteps';
import type { JobStore, StoredJob } from './JobStore';
import { Lease, LEASE_LOST } from './lease';
import { describeLeftBehind } from './leftBehind';
import { PatientClusterClient } from './patientClient';
import {
  AzureChecker,
  ChangeWaker,
  evaluateLive,
  runStep,
  StepContext,
  StepFailedError,
  StepInterruptedError,
} from './StepRunner';
import { fail, honourRequest, JobUpdate, start, succeed } from './transitions';

type Level = 'info' | 'warn' | 'error';

/** What one run needs from the engine. */
export interface JobRunDeps {
  store: JobStore;
  logger: LoggerService;
  client: (managementCluster: string) => Promise<JobClient>;
  waker: (managementCluster: string) => ChangeWaker;
  azure?: AzureChecker;
  notify?: (job: Job) => void;
  /** Told once per change of the job's state this run writes (JobEngineOptions.onStateChange). */
  onStateChange?: (job: Job, from: Job['state']) => void;
  recheckMs?: number;
  faults?: FaultHook;
  clusters?: () => Promise<Array<{ name: string; client: JobClient }>>;
  /** The Git edge for jobs in Git mode (docs/flux-facts.md#job-git-mode). */
  git?: JobGit;
  /** Whether the engine is shutting down (checked at every step boundary). */
  stopping: () => boolean;
  /**
   * How long the run waits for its management cluster to answer again before the step fails (one outage; default
   * DEFAULT_UNREACHABLE_WAIT_MS, 10 minutes).
   */
  unreachableWaitMs?: number;
}

/**
 * One run of one job on this replica, under a lease the engine holds: start or resume it, re-check what its finished
 * steps established, then run its unfinished steps in order, honouring a user's pause or cancel at each boundary and
 * during waits. Every write goes through {@link JobRun.save}, fenced by the lease.
 */
export class JobRun {
  /** The job as last written. */
  private job!: StoredJob;
  /** The step running now and its progress message as last written (an outage's notice replaces it for a while). */
  private running?: { i: number; attempts: number; message: string };

  constructor(
    private readonly deps: JobRunDeps,
    private readonly jobId: string,
    private readonly me: string,
    private readonly lease: Lease,
    private readonly signal: AbortSignal,
  ) {}

  async execute(): Promise<void> {
    this.job = await this.deps.store.get(this.jobId);
    // A cancel queued for a runner (decideRequest's requeue): honoured before anything else runs.
    if (this.job.requested) {
      await this.honour(this.job.requested, this.job);
      return;
    }
    if (!(await this.begin())) return;
    const client = this.patient(
      await this.deps.client(this.job.target.managementCluster),
    );
    try {
      if (await this.refuseIfWorldMoved(client)) return;
    } catch (e) {
      // The re-check met a management cluster that did not answer: interrupted while waiting, or waited too long.
      if (e instanceof StepInterruptedError) {
        if (e.why === 'pause' || e.why === 'cancel')
          await this.honour(e.why, this.job);
        return;
      }
      if (!(e instanceof StepFailedError)) throw e;
      const message = `Re-checking what the finished steps established: ${e.message}`;
      await this.save(fail(message, describeLeftBehind(this.job)));
      await this.log('error', message);
      return;
    }
    for (let i = 0; i < this.job.plan.length; i++) {
      const state = this.job.steps[i].state;
      if (state === 'succeeded' || state === 'skipped') continue;
      if (!(await this.atBoundary())) return;
      if (!(await this.runStepAt(i, client))) return;
    }
    await this.save(succeed());
    await this.log('info', 'job succeeded');
  }

  /** Marks a queued job running, or says where a running one resumes. False when the lease is gone. */
  private async begin(): Promise<boolean> {
    if (this.job.state === 'queued') {
      if (!(await this.save(start()))) return false;
      await this.log('info', `started on replica ${this.me}`);
      return true;
    }
    await this.log(
      'info',
      `resumed on replica ${this.me}${
        this.job.currentStep ? ` at step ${this.job.currentStep}` : ''
      }`,
    );
    return true;
  }

  /**
   * The management cluster's client, waiting while it does not answer (patientClient.ts): the job's log says so once
   * per outage, and so does the running step's message until the cluster answers again.
   */
  private patient(client: JobClient): PatientClusterClient {
    const step = () =>
      this.running ? this.job.plan[this.running.i]?.id : undefined;
    return new PatientClusterClient(client, {
      managementCluster: this.job.target.managementCluster,
      signal: this.signal,
      maxWaitMs: this.deps.unreachableWaitMs,
      onWaiting: async message => {
        await this.log('warn', message, step());
        const r = this.running;
        if (r)
          await this.saveStep(r.i, {
            state: 'running',
            attempts: r.attempts,
            message,
          });
      },
      onBack: async message => {
        await this.log('info', message, step());
        const r = this.running;
        if (r)
          await this.saveStep(r.i, {
            state: 'running',
            attempts: r.attempts,
            message: r.message || undefined,
          });
      },
    });
  }

  /** Fails the job, changing nothing on the cluster, when what its finished steps established no longer holds. */
  private async refuseIfWorldMoved(client: JobClient): Promise<boolean> {
    const moved = await worldMoved(this.job, client, this.deps.azure);
    if (!moved) return false;
    await this.save(fail(moved, describeLeftBehind(this.job)));
    await this.log('error', moved);
    return true;
  }

  /** The step boundary: a user's request is honoured here, and a shutdown stops here. False: stop the run. */
  private async atBoundary(): Promise<boolean> {
    const fresh = await this.deps.store.get(this.jobId);
    if (fresh.requested) {
      await this.honour(fresh.requested, fresh);
      return false;
    }
    return !this.deps.stopping();
  }

  /** Runs step i and records its outcome. False: the run stops (failed, interrupted, lease lost). */
  private async runStepAt(i: number, client: JobClient): Promise<boolean> {
    const plan = this.job.plan[i];
    this.deps.faults?.(this.jobId, plan.id, 'before');
    const attempts = this.job.steps[i].attempts + 1;
    const started = await this.saveStep(
      i,
      {
        state: 'running',
        attempts,
        startedAt: new Date().toISOString(),
        finishedAt: undefined,
        message: undefined,
      },
      { currentStep: plan.id },
    );
    if (!started) return false;
    await this.log(
      'info',
      `step "${plan.title}" started (attempt ${attempts})`,
      plan.id,
    );
    this.running = { i, attempts, message: '' };
    try {
      await runStep(plan, this.stepContext(i, attempts, client));
    } catch (e) {
      if (e instanceof StepInterruptedError)
        await this.stepInterrupted(i, attempts, e.why);
      else await this.stepFailed(i, attempts, (e as Error).message);
      return false;
    } finally {
      this.running = undefined;
    }
    const done = await this.saveStep(i, {
      state: 'succeeded',
      attempts,
      finishedAt: new Date().toISOString(),
      message: undefined,
    });
    if (!done) return false;
    await this.log('info', `step "${plan.title}" done`, plan.id);
    this.deps.faults?.(this.jobId, plan.id, 'after');
    return true;
  }

  /** What a step sees: the cluster, the abort signal, and its log and progress (written only when it changes). */
  private stepContext(
    i: number,
    attempts: number,
    client: JobClient,
  ): StepContext {
    const plan = this.job.plan[i];
    const { managementCluster } = this.job.target;
    const clusters = this.deps.clusters;
    return {
      jobId: this.jobId,
      managementCluster,
      client,
      azure: this.deps.azure,
      waker: this.deps.waker(managementCluster),
      signal: this.signal,
      recheckMs: this.deps.recheckMs,
      git: this.deps.git,
      result: () => this.job.result,
      saveResult: async result => {
        if (!(await this.save({ result })))
          throw new StepInterruptedError(LEASE_LOST);
      },
      log: (level, message) => this.log(level, message, plan.id),
      progress: async message => {
        const r = this.running;
        if (!r || message === r.message) return;
        r.message = message;
        await this.saveStep(i, { state: 'running', attempts, message });
      },
      onWaiting: () => this.deps.faults?.(this.jobId, plan.id, 'wait'),
      onActionsDone: () => this.deps.faults?.(this.jobId, plan.id, 'actions'),
      // The job's own management cluster through the waiting client; another one that does not answer fails the
      // one-owner check (it may hold the owner), as before.
      clusters: clusters
        ? async () =>
            (await clusters()).map(c =>
              c.name === managementCluster ? { name: c.name, client } : c,
            )
        : undefined,
    };
  }

  /**
   * A wait was interrupted: by a lost lease or a shutdown (the step starts over wherever the job resumes), or by a
   * user's pause or cancel (the step goes back to pending and the request is honoured now).
   */
  private async stepInterrupted(
    i: number,
    attempts: number,
    why: string,
  ): Promise<void> {
    const plan = this.job.plan[i];
    if (this.lease.lost || why === LEASE_LOST || why === 'shutdown') {
      await this.log(
        'warn',
        `step "${plan.title}" interrupted (${why}); it starts over when the job resumes`,
        plan.id,
      );
      return;
    }
    await this.saveStep(i, {
      state: 'pending',
      attempts,
      message: `interrupted by ${why}`,
    });
    await this.honour(why as 'pause' | 'cancel', this.job);
  }

  /** A step threw: it and the job are failed (resumable), saying what is left on the cluster. */
  private async stepFailed(
    i: number,
    attempts: number,
    message: string,
  ): Promise<void> {
    const plan = this.job.plan[i];
    await this.saveStep(i, {
      state: 'failed',
      attempts,
      finishedAt: new Date().toISOString(),
      message,
    });
    await this.save(
      fail(`${plan.title}: ${message}`, describeLeftBehind(this.job)),
    );
    await this.log('error', `step "${plan.title}" failed: ${message}`, plan.id);
  }

  /**
   * A user's pause or cancel, honoured: paused (resumable at the same step) or cancelled with what it left. A cancel
   * first gives back the Kustomization the job suspended when Git and the cluster agree (gitopsResumeOnCancel).
   */
  private async honour(
    what: 'pause' | 'cancel',
    job: StoredJob,
  ): Promise<void> {
    const resumed =
      what === 'cancel' ? await this.resumeGitopsOnCancel(job) : undefined;
    const account = resumed
      ? { ...job, result: { ...job.result, gitopsResumed: resumed } }
      : job;
    const { update, log } = honourRequest(what, () =>
      describeLeftBehind(account),
    );
    await this.save(resumed ? { ...update, result: account.result } : update);
    await this.log(log.level, log.message);
  }

  /** Resumes the job's suspended Kustomization on cancel when that is safe; what it did goes to the job's log. */
  private async resumeGitopsOnCancel(
    job: StoredJob,
  ): Promise<JobResult['gitopsResumed']> {
    const due = gitopsResumeOnCancel(job);
    if (!due) return undefined;
    const k = due.kustomization;
    const name = `Flux's Kustomization ${k.namespace}/${k.name}`;
    try {
      // The plain client, not the run's patient one: the cancel has aborted the run's signal.
      const client = await this.deps.client(job.target.managementCluster);
      const outcome = await resumeSuspendedBy(client, this.jobId, k);
      if (outcome === 'not-suspended') {
        // What the job left must not say "suspended by this job" of a Kustomization that runs.
        await this.log(
          'info',
          `${name} is no longer suspended (resumed by this cancel before an interruption, or by someone else); nothing to resume`,
        );
        return {
          kustomization: `${k.namespace}/${k.name}`,
          why: due.why,
          at: new Date().toISOString(),
          found: true,
        };
      }
      if (outcome !== 'resumed') {
        await this.log(
          'warn',
          outcome === 'absent'
            ? `${name} is gone; nothing to resume`
            : `${name} no longer carries this job's mark (someone else resumed or suspended it); left as it is`,
        );
        return undefined;
      }
      await this.log(
        'info',
        `resumed ${name}, which this job had suspended: ${
          due.why === 'merged'
            ? 'the repository holds the merged change'
            : "none of the job's own steps had started"
        }`,
      );
      return {
        kustomization: `${k.namespace}/${k.name}`,
        why: due.why,
        at: new Date().toISOString(),
      };
    } catch (e) {
      await this.log(
        'warn',
        `could not resume ${name} (${
          (e as Error).message
        }); it stays suspended, and what the job left says when resuming it is safe`,
      );
      return undefined;
    }
  }

  /** Writes step i's status (and whatever else `also` says, e.g. the job's current step) in one fenced write. */
  private saveStep(
    i: number,
    status: Partial<JobStepStatus>,
    also: JobUpdate = {},
  ) {
    return this.save({
      ...also,
      steps: this.job.steps.map((s, j) => (j === i ? { ...s, ...status } : s)),
    });
  }

  /** Writes under the lease; false means another replica owns the job now and this one must stop. */
  private async save(u: JobUpdate): Promise<boolean> {
    const ok = await this.deps.store.update(this.jobId, this.me, u);
    if (!ok) {
      this.lease.markLost();
      return false;
    }
    const from = this.job.state;
    this.job = await this.deps.store.get(this.jobId);
    this.deps.notify?.(this.job);
    if (this.job.state !== from) this.deps.onStateChange?.(this.job, from);
    return true;
  }

  private log(level: Level, message: string, step?: string) {
    return this.deps.store.appendLog(this.jobId, [{ level, message, step }]);
  }
}

/**
 * A job that resumes (after a crash, a pause or a failure) first re-checks, live, what its finished steps
 * established (e.g. the old Cluster is still paused, the old ASO objects still on skip). If someone changed that
 * meanwhile, going on could leave two controllers on one AKS cluster: the job stops and says what moved.
 */
export async function worldMoved(
  job: StoredJob,
  client: JobClient,
  azure?: AzureChecker,
): Promise<string | undefined> {
  const succeeded = (i: number) => job.steps[i]?.state === 'succeeded';
  // A step's invariants end once the step named in its invariantsUntil has succeeded (a suspend, then its resume).
  const ended = (s: StepPlan) =>
    s.invariantsUntil !== undefined &&
    job.plan.some((p, i) => p.id === s.invariantsUntil && succeeded(i));
  const finished: StepPlan[] = job.plan.filter(
    (s, i) => succeeded(i) && !ended(s),
  );
  const ctx = {
    jobId: job.id,
    managementCluster: job.target.managementCluster,
    client,
    azure,
    result: () => job.result,
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
