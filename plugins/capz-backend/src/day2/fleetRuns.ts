/**
 * Fleet runs (POST /fleet-runs): a previewed fleet upgrade carried out stage by stage, kept in the database and
 * advanced by the scheduler on one replica at a time. The decisions are capz-common's (`fleet/run.ts`); this module
 * reads what they need (each running cluster's progress and health from the watch cache), makes the writes a run owes
 * through the single-cluster upgrade (`Day2Service.act`: its rules checked live, a preview, then the confirm with that
 * preview's digest), and records them. A write is recorded after it is made: a crash between the two makes the next
 * advance make it again, which the upgrade answers as a change of nothing (the version is already asked for).
 */
import type {
  AuditorService,
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { ConflictError, InputError } from '@backstage/errors';
import type { PolicyDecision } from '@backstage/plugin-permission-common';
import {
  advanceFleetRun,
  capzClusterMigratePermission,
  capzClusterUpgradePermission,
  commandFleetRun,
  day2Progress,
  isFleetJobStep,
  newFleetRun,
  recordFleetStepWrite,
  type ClusterPlace,
  type Day2Action,
  type Day2Plan,
  type FleetClusterObservation,
  type FleetRunCluster,
  type FleetRunCommand,
  type FleetRunNotice,
  type FleetRunOptions,
  type FleetRunSpec,
  type FleetStepProposal,
  type FleetStepStart,
  type Health,
  type Job,
  type JobRequest,
  type ObjectChange,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { createHash, randomUUID } from 'node:crypto';
import { decisionFilter } from '../permissions/readAccess';
import type { ClusterOwnerOf } from '../permissions/rules';
import type { Day2Service } from './Day2Service';
import type { FleetPreview } from './fleetPreview';
import type { FleetRunStore, StoredFleetRun } from './fleetRunStore';

/**
 * What a run sees of a cluster: its current step's progress (capz-common day2Progress on the cluster's ungrouped tree,
 * as the cluster page follows a single upgrade) and its rollup health; `seen` undefined when the cache has no such
 * cluster.
 */
export function fleetStepObservation(
  c: FleetRunCluster,
  seen: { tree: TreeNode; health?: Health } | undefined,
): FleetClusterObservation {
  if (!seen)
    return {
      stepDone: false,
      health: 'unknown',
      waitingFor: 'the cluster to be in the watch cache',
    };
  const step = c.steps[c.step];
  // A job step's progress is its job's (FleetRuns reads it); the tree gives the health only.
  if (!step || isFleetJobStep(step))
    return { stepDone: false, health: seen.health };
  const plan = {
    action: { action: 'upgrade', version: step.version, target: step.target },
    changes: step.changes,
    warnings: [],
    applied: true,
  } as Day2Plan;
  const progress = day2Progress(plan, seen.tree);
  const open = progress.items.filter(i => !i.done).map(i => i.text);
  // Proposed to Git: until Flux applies the merged change, the objects do not ask for the version yet, and what the
  // step waits for is a person's merge (not timed against the step's timeout).
  const pr = c.proposal?.pullRequest;
  const unmerged =
    c.proposal && progress.items.some(i => i.asked === false)
      ? {
          waitingForPerson: `${
            pr
              ? `the merge of pull request #${pr.number} (${pr.url})`
              : `the merge of branch ${c.proposal.branch}`
          } and Flux's apply of it`,
        }
      : {};
  return {
    stepDone: progress.done,
    ...(seen.health ? { health: seen.health } : {}),
    ...(open.length ? { waitingFor: open.join('; ') } : {}),
    ...unmerged,
  };
}

export interface FleetRunsOptions {
  store: FleetRunStore;
  preview: Pick<FleetPreview, 'preview'>;
  day2: Pick<Day2Service, 'act'>;
  /** The jobs a run's job steps start and follow (a migration wave): src/jobs JobStarter and JobStore. */
  jobs?: FleetJobs;
  /** A running cluster's current step and health, as seen now ({@link fleetStepObservation} on the watch cache). */
  observe(c: FleetRunCluster): FleetClusterObservation;
  logger: LoggerService;
  auditor?: AuditorService;
  /** Told after every write of a run (the run page's live updates). */
  onChange?: (run: StoredFleetRun) => void;
  /** Told once per notice, by the replica whose write made it (the owners' and approvers' notifications). */
  onNotice?: (run: StoredFleetRun, notice: FleetRunNotice) => void;
  /**
   * A cluster's owner as the watch cache has it now. The run goes on without its user, so before each write the
   * creator's policy decision (kept with the run) is applied again to the cluster with this owner; a run kept without
   * a decision (created before it was kept) has only the check at its creation.
   */
  ownerOf?: ClusterOwnerOf;
  /** A crash test's hook ({@link fleetFaultFromEnv}): called right after a step's write, before its record. */
  fault?: (point: 'written') => void;
  now?: () => Date;
}

/** How a run starts and reads the jobs of its job steps. */
export interface FleetJobs {
  /**
   * Starts the job under `id`, or throws: a ConflictError naming the job in the way (a `jobId` field), a
   * PreflightFailedError (its `preflight`), or another error as the jobs API would answer it.
   */
  start(request: JobRequest, createdBy: string, id: string): Promise<unknown>;
  /** The job, or undefined when there is none with that id. */
  get(id: string): Promise<Job | undefined>;
}

/**
 * The job a run starts for a cluster's job step: the same id for the same run, cluster, step and attempt, so that a
 * start made again after a crash (on any replica) meets the first one instead of starting a second job.
 */
export function fleetStepJobId(
  runId: string,
  place: ClusterPlace,
  stepIndex: number,
  attempt: number,
): string {
  const h = createHash('sha256')
    .update(
      JSON.stringify([
        runId,
        place.managementCluster,
        place.namespace,
        place.name,
        stepIndex,
        attempt,
      ]),
    )
    .digest('hex');
  // Shaped as a UUID (version 8: custom), like the ids of the jobs users start.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${(
    (parseInt(h[16], 16) & 0x3) |
    0x8
  ).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * What a run sees of a job step: done when its job succeeded (the cluster then lives where the job's result says),
 * failed when the job failed or was cancelled, else what the job is doing.
 */
export function fleetJobObservation(
  job: Job | undefined,
  jobId: string | undefined,
): FleetClusterObservation {
  if (!job)
    return {
      stepDone: false,
      waitingFor: jobId ? `job ${jobId} to be readable` : 'its job to start',
    };
  if (job.state === 'succeeded')
    return {
      stepDone: true,
      ...(job.result?.cluster ? { movedTo: job.result.cluster } : {}),
    };
  if (job.state === 'failed' || job.state === 'cancelled')
    return {
      stepDone: false,
      failed: `job ${job.id} ${job.state}${job.error ? `: ${job.error}` : ''}${
        job.leftBehind ? ` (${job.leftBehind})` : ''
      }`,
    };
  const step = job.steps.find(x => x.id === job.currentStep);
  const waitingFor = `job ${job.id} (${job.state}${
    step ? `: ${step.title}` : ''
  })`;
  const proposal = job.result?.gitProposal;
  // Waits for a person are not the step's work, so not counted against the run's step timeout: a paused job (someone
  // paused it and will resume or cancel it), and a job in Git mode at its merge wait (days, bounded by the job's own
  // MERGE_WAIT_SECONDS).
  if (job.state === 'paused')
    return {
      stepDone: false,
      waitingFor,
      waitingForPerson: `someone to resume or cancel job ${job.id}, paused${
        step ? ` at "${step.title}"` : ''
      }`,
    };
  if (job.state === 'running' && job.currentStep === 'wait-merge' && proposal)
    return {
      stepDone: false,
      waitingFor,
      waitingForPerson: `${
        proposal.pullRequest
          ? `the merge of pull request #${proposal.pullRequest.number} (${proposal.pullRequest.url})`
          : `the merge of branch ${proposal.branch} into ${proposal.base} (${proposal.url})`
      } and Flux's fetch of it (job ${job.id})`,
    };
  return { stepDone: false, waitingFor };
}

/**
 * A crash-test hook: `CAPZ_FLEET_FAULT=written` makes the process kill itself with SIGKILL right after a fleet run's
 * step is written and before it is recorded (no shutdown hooks: the crash the run must survive on another replica).
 * Inert unless set; fleetRunCrash.integration.test.ts sets it on a backend process it starts.
 */
export function fleetFaultFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): FleetRunsOptions['fault'] {
  const at = env.CAPZ_FLEET_FAULT;
  if (!at) return undefined;
  return point => {
    if (point !== at) return;
    process.stderr.write(
      `CAPZ_FLEET_FAULT: killing the process once a step is ${point}\n`,
    );
    process.kill(process.pid, 'SIGKILL');
  };
}

/** How many times a write made from a row someone changed meanwhile is decided again before the next tick. */
const ATTEMPTS = 5;

const placeOf = (c: ClusterPlace): ClusterPlace => ({
  managementCluster: c.managementCluster,
  namespace: c.namespace,
  name: c.name,
});
const placeWords = (c: ClusterPlace) =>
  `${c.managementCluster}/${c.namespace}/${c.name}`;

/** What a change writes, without the value it found: a cluster moved on by a patch since the preview plans alike. */
const changeShape = (cs: ObjectChange[]) =>
  JSON.stringify(
    cs
      .map(c => [
        c.operation,
        c.kind,
        c.namespace,
        c.name,
        (c.fields ?? []).map(f => [f.path, f.after]),
      ])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  );

/** The upgrade's answers that refuse the step in words (bad input, a rule, a cluster gone, a policy's no). */
const REFUSALS = new Set([
  'InputError',
  'ConflictError',
  'NotFoundError',
  'NotAllowedError',
]);

/** Errors after which the step may simply be tried again at the next advance: nothing was refused. */
const isTransient = (e: unknown) => {
  const name = (e as Error)?.name;
  const message = String((e as Error)?.message ?? '');
  if (name === 'ServiceUnavailableError') return true;
  if (name !== 'ConflictError') return !REFUSALS.has(name);
  // Someone else is applying an action on the cluster, or it moved between this preview and its confirm.
  return /^Another action on cluster |^The cluster changed since the preview/.test(
    message,
  );
};

export class FleetRuns {
  /** Advances in this process, one per run at a time (the scheduler's global lock orders the replicas). */
  private readonly advancing = new Map<string, Promise<void>>();

  constructor(private readonly o: FleetRunsOptions) {}

  private now() {
    return this.o.now?.() ?? new Date();
  }

  /**
   * A new run from its spec: previewed with the caller's capz.cluster.upgrade (`mayUpgrade`), kept with the preview's
   * plan of each cluster and the caller's policy `decision` (applied again before each write), started by the next
   * advance. 409 when no cluster of the preview has anything to upgrade.
   */
  async create(
    spec: FleetRunSpec,
    options: FleetRunOptions,
    mayUpgrade: (p: ClusterPlace) => boolean,
    actor: string,
    decision?: PolicyDecision,
  ): Promise<StoredFleetRun> {
    const unknown = Object.keys(options.gates ?? {}).filter(
      name => !spec.stages.some(s => s.name === name),
    );
    if (unknown.length)
      throw new InputError(
        `gates: no stage named ${unknown.map(n => `"${n}"`).join(', ')}`,
      );
    const preview = await this.o.preview.preview(spec, mayUpgrade);
    if (!preview.counts.upgrade)
      throw new ConflictError(
        `Nothing to run: ${preview.counts.current} cluster(s) already run the target and ${preview.counts.refused} are left out (preview the run to see why)`,
      );
    const run = newFleetRun(preview, options);
    return this.o.store.insert(
      randomUUID(),
      actor,
      run,
      this.now().getTime(),
      decision,
    );
  }

  get(id: string): Promise<StoredFleetRun> {
    return this.o.store.get(id);
  }

  list(): Promise<StoredFleetRun[]> {
    return this.o.store.list();
  }

  /** A user's command (pause, resume, cancel, approve, skip, retry); 409 in words when the run cannot take it now. */
  async command(
    id: string,
    cmd: FleetRunCommand,
    by: string,
  ): Promise<StoredFleetRun> {
    for (let attempt = 1; ; attempt++) {
      const stored = await this.o.store.get(id);
      const r = commandFleetRun(stored.run, cmd, by, this.now());
      if ('problem' in r)
        throw new ConflictError(`Fleet run ${id}: ${r.problem}`);
      if (
        await this.o.store.save(id, stored.version, r.run, this.now().getTime())
      ) {
        const saved = await this.o.store.get(id);
        this.changed(saved);
        return saved;
      }
      if (attempt >= ATTEMPTS)
        throw new ConflictError(
          `Fleet run ${id} is changing too fast to take the command; try again`,
        );
    }
  }

  /**
   * Advances every run that has not ended (the scheduler's task). Once `signal` aborts (the task's time is up), no
   * further run is advanced and no further write made: what a run owes stays owed for the next tick.
   */
  async tick(signal?: AbortSignal): Promise<void> {
    for (const stored of await this.o.store.active()) {
      if (signal?.aborted) return;
      await this.advance(stored.id, signal).catch(e =>
        this.o.logger.warn(
          `fleet run ${
            stored.id
          }: could not advance it (it is tried again at the next tick): ${
            (e as Error).message
          }`,
        ),
      );
    }
  }

  /** One advance of a run, after any advance of it this process is making. */
  advance(id: string, signal?: AbortSignal): Promise<void> {
    const before = this.advancing.get(id) ?? Promise.resolve();
    const next = before.then(() => this.advanceOnce(id, signal));
    const settled = next.catch(() => undefined);
    this.advancing.set(id, settled);
    void settled.then(() => {
      if (this.advancing.get(id) === settled) this.advancing.delete(id);
    });
    return next;
  }

  private async advanceOnce(id: string, signal?: AbortSignal): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const stored = await this.o.store.get(id);
      const jobs = await this.jobsOf(stored);
      const now = this.now();
      const { run, start, notices } = advanceFleetRun(
        stored.run,
        c => this.observe(c, jobs),
        now,
      );
      let saved = stored;
      if (JSON.stringify(run) !== JSON.stringify(stored.run)) {
        if (!(await this.o.store.save(id, stored.version, run, now.getTime())))
          continue;
        saved = { ...stored, run, version: stored.version + 1 };
        this.changed(saved);
      }
      this.tell(saved, notices);
      for (const s of start) {
        if (signal?.aborted) return;
        await this.writeStep(saved, s);
      }
      return;
    }
  }

  /** The jobs of the run's running job steps, read once per advance (the decisions then read them synchronously). */
  private async jobsOf(stored: StoredFleetRun): Promise<Map<string, Job>> {
    const out = new Map<string, Job>();
    const ids = stored.run.stages
      .flatMap(s => s.clusters)
      .filter(c => c.state === 'running' && c.written && c.jobId)
      .map(c => c.jobId!);
    for (const jobId of ids) {
      const job = await this.o.jobs?.get(jobId);
      if (job) out.set(jobId, job);
    }
    return out;
  }

  /** A cluster as seen now: a job step through its job, the health where the cluster lives (after a migration: there). */
  private observe(
    c: FleetRunCluster,
    jobs: Map<string, Job>,
  ): FleetClusterObservation {
    const step = c.steps[c.step];
    const at = (p: ClusterPlace | undefined) =>
      p ? { ...c, ...placeOf(p) } : c;
    if (c.state === 'running' && step && isFleetJobStep(step)) {
      const seen = fleetJobObservation(
        c.jobId ? jobs.get(c.jobId) : undefined,
        c.jobId,
      );
      const health = this.o.observe(at(seen.movedTo ?? c.movedTo)).health;
      return { ...seen, ...(health ? { health } : {}) };
    }
    return this.o.observe(at(c.movedTo));
  }

  /**
   * Why the run may not write this cluster now, or undefined: its creator's decision, applied to the cluster as it is
   * at this write (an owner condition met at the start may no longer be: the cluster changed hands meanwhile).
   */
  private refusal(
    stored: StoredFleetRun,
    place: ClusterPlace,
  ): string | undefined {
    if (!stored.decision) return undefined;
    if (decisionFilter(stored.decision, this.o.ownerOf)(place))
      return undefined;
    const permission =
      stored.run.target.kind === 'migrate'
        ? capzClusterMigratePermission
        : capzClusterUpgradePermission;
    return `not allowed any more: ${permission.name} as the policy decided it for ${stored.createdBy}, who started the run, does not allow ${place.namespace}/${place.name} as it is now (its owner may have changed since the start); nothing was written`;
  }

  /** Starts a job step's job, once per run, cluster, step and attempt; audited with the run's creator; recorded. */
  private async startJob(
    stored: StoredFleetRun,
    s: FleetStepStart & { step: { kind: 'job'; request: JobRequest } },
  ): Promise<void> {
    const place = placeOf(s);
    const jobs = this.o.jobs;
    const id = fleetStepJobId(stored.id, place, s.stepIndex, s.attempt);
    const audit = await this.o.auditor?.createEvent({
      eventId: 'capz-fleet-run-step',
      severityLevel: 'high',
      meta: {
        run: stored.id,
        actor: stored.createdBy,
        target: { ...place },
        job: { id, type: s.step.request.type },
      },
    });
    let outcome: { ok: true; jobId: string } | { ok: false; message: string };
    const refused = this.refusal(stored, place);
    try {
      if (!jobs) throw new Error('this backend runs no jobs');
      // Started before a crash (here or on another replica): it is this step's job.
      if (await jobs.get(id)) outcome = { ok: true, jobId: id };
      else if (refused) outcome = { ok: false, message: refused };
      else {
        await jobs.start(s.step.request, stored.createdBy, id);
        this.o.fault?.('written');
        outcome = { ok: true, jobId: id };
      }
    } catch (e) {
      const err = e as Error & { jobId?: string };
      if (err.jobId === id) outcome = { ok: true, jobId: id };
      else if (err.name === 'PreflightFailedError' || !isTransient(e))
        outcome = { ok: false, message: err.message };
      else {
        this.o.logger.warn(
          `fleet run ${stored.id}: ${placeWords(place)} job not started yet: ${
            err.message
          }`,
        );
        await audit?.fail({ error: err });
        return;
      }
    }
    if (outcome.ok) await audit?.success({ meta: { run: stored.id } });
    else await audit?.fail({ error: new Error(outcome.message) });
    await this.record(stored.id, place, s.stepIndex, outcome);
  }

  /** Makes a step's write as the single-cluster upgrade does, audited with the run's creator, and records it. */
  private async writeStep(
    stored: StoredFleetRun,
    s: FleetStepStart,
  ): Promise<void> {
    const step = s.step;
    if (isFleetJobStep(step)) {
      await this.startJob(stored, { ...s, step });
      return;
    }
    const place = placeOf(s);
    const action: Day2Action = {
      action: 'upgrade',
      version: step.version,
      target: step.target,
    };
    const audit = await this.o.auditor?.createEvent({
      eventId: 'capz-fleet-run-step',
      severityLevel: 'high',
      meta: {
        run: stored.id,
        actor: stored.createdBy,
        target: { ...place },
        action,
      },
    });
    let outcome:
      | { ok: true; proposal?: FleetStepProposal }
      | { ok: false; message: string };
    const refused = this.refusal(stored, place);
    try {
      const preview = await this.o.day2.act(place, action, { apply: false });
      if (!preview.changes.length) {
        // The version is already asked for: this write was made before a crash, or by someone else.
        outcome = { ok: true };
      } else if (refused) {
        outcome = { ok: false, message: refused };
      } else if (changeShape(preview.changes) !== changeShape(step.changes)) {
        outcome = {
          ok: false,
          message: `the cluster changed since the run's preview (it would now change ${
            preview.changes.map(c => `${c.kind} ${c.name}`).join(', ') ||
            'nothing'
          }); upgrade it from its page, or in a new run`,
        };
      } else if (preview.git && !step.throughGit) {
        // Flux has applied the objects since the run's preview: the step would become a pull request nobody planned.
        outcome = {
          ok: false,
          message: `it is applied from Git since the run's preview (${(
            preview.blockers ?? []
          ).join(
            ' ',
          )}); nothing was written or proposed: upgrade it from its page, or in a new run`,
        };
      } else {
        const done = await this.o.day2.act(
          place,
          { ...action, planDigest: preview.planDigest },
          { apply: true, actor: stored.createdBy },
        );
        this.o.fault?.('written');
        const proposed = done.git?.proposed;
        outcome = proposed
          ? {
              ok: true,
              proposal: {
                branch: proposed.branch,
                ...(proposed.pullRequest
                  ? { pullRequest: proposed.pullRequest }
                  : {}),
              },
            }
          : { ok: true };
      }
    } catch (e) {
      if (isTransient(e)) {
        // Owed still: the next advance makes it again.
        this.o.logger.warn(
          `fleet run ${stored.id}: ${placeWords(place)} step ${
            s.stepIndex + 1
          } not written yet: ${(e as Error).message}`,
        );
        await audit?.fail({ error: e as Error });
        return;
      }
      outcome = { ok: false, message: (e as Error).message };
    }
    if (outcome.ok) await audit?.success({ meta: { run: stored.id } });
    else await audit?.fail({ error: new Error(outcome.message) });
    await this.record(stored.id, place, s.stepIndex, outcome);
  }

  private async record(
    id: string,
    place: ClusterPlace,
    stepIndex: number,
    outcome:
      | { ok: true; jobId?: string; proposal?: FleetStepProposal }
      | { ok: false; message: string },
  ): Promise<void> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const stored = await this.o.store.get(id);
      const now = this.now();
      const r = recordFleetStepWrite(
        stored.run,
        place,
        stepIndex,
        outcome,
        now,
      );
      if (JSON.stringify(r.run) === JSON.stringify(stored.run)) return;
      if (await this.o.store.save(id, stored.version, r.run, now.getTime())) {
        const saved = { ...stored, run: r.run, version: stored.version + 1 };
        this.changed(saved);
        this.tell(saved, r.notices);
        return;
      }
    }
    this.o.logger.warn(
      `fleet run ${id}: could not record ${placeWords(place)} step ${
        stepIndex + 1
      } (the run kept changing); the next advance makes the step again`,
    );
  }

  private changed(stored: StoredFleetRun) {
    try {
      this.o.onChange?.(stored);
    } catch (e) {
      this.o.logger.warn(
        `fleet run ${stored.id}: its change was not pushed: ${
          (e as Error).message
        }`,
      );
    }
  }

  private tell(stored: StoredFleetRun, notices: FleetRunNotice[]) {
    for (const n of notices) {
      this.o.logger.info(`fleet run ${stored.id}: ${JSON.stringify(n)}`);
      try {
        this.o.onNotice?.(stored, n);
      } catch (e) {
        this.o.logger.warn(
          `fleet run ${stored.id}: a notice was not told: ${
            (e as Error).message
          }`,
        );
      }
    }
  }
}

/**
 * Advances the fleet runs every ten seconds, on one replica at a time. The timeout is short because it is also how
 * long a crashed replica holds the task's lock: Backstage's scheduler frees an expired lock at its janitor's next
 * round (every minute), so another replica resumes the runs within about 90 s (docs/architecture.md#flow-fleet-runs).
 * A tick that reaches it stops between writes; the rest is owed to the next tick.
 */
export async function scheduleFleetRuns(o: {
  scheduler: SchedulerService;
  runs: FleetRuns;
}): Promise<void> {
  await o.scheduler.scheduleTask({
    id: 'capz-fleet-runs',
    scope: 'global',
    frequency: { seconds: 10 },
    timeout: { seconds: 30 },
    fn: signal => o.runs.tick(signal),
  });
}
