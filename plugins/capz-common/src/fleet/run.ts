/**
 * A fleet run as a state machine: what was previewed ({@link FleetRunPreview}), executed stage by stage. Pure and
 * deterministic, so that the backend can keep the run as one row, advance it on every tick from any replica, and
 * resume it after a crash at any point: the run says which writes it still owes (`start`), the backend performs them
 * and records them, and every decision is taken again from the state and what is observed.
 *
 * The shape follows Azure Kubernetes Fleet Manager's update runs (docs/lifecycle-facts.md#fleet-runs): stages in order, the
 * clusters of a stage at most `concurrency` at a time, a cluster's steps one after the other; after a stage a soak
 * during which each of its clusters must stay healthy, then an optional approval; fail-fast unless more failures are
 * allowed, clusters already being upgraded finishing their part. Each step is the single-cluster upgrade as previewed.
 */
import type { ClusterPlace } from '../api';
import type { Health } from '../tree/types';
import {
  fleetStepWords,
  isFleetJobStep,
  type FleetRunPreview,
  type FleetStep,
} from './plan';

/** A cluster's part: `waiting` to start, `running` its steps, then `succeeded`, `failed`, `skipped` or `cancelled`. @public */
export type FleetClusterState =
  | 'waiting'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'skipped'
  | 'cancelled';

/** Where a step proposed to Git waits: its branch, and its pull request where the forge has them. @public */
export interface FleetStepProposal {
  branch: string;
  pullRequest?: { number: number; url: string };
}

/** A cluster in a run. @public */
export type FleetRunCluster = ClusterPlace & {
  /** Its group in its stage: one cluster of a group at a time. */
  group?: string;
  state: FleetClusterState;
  /** The steps as previewed: the upgrade's (control plane, then pools), or a migration's job. */
  steps: FleetStep[];
  /** The step running or next (`steps.length` once all are done). */
  step: number;
  /** Whether the current step's write was made (false: the run still owes it, also after a crash). */
  written: boolean;
  stepStartedAt?: string;
  /**
   * Since when its step waits for a person (a job's pull request to be merged): that time does not count against the
   * step's timeout, which counts again from the moment the person acted.
   */
  waitingForPersonSince?: string;
  finishedAt?: string;
  /** Why it is where it is, in words. */
  message?: string;
  /** The job carrying out the current (or last) job step, once started. */
  jobId?: string;
  /** The pull request (or branch) the current step was proposed as, when Flux applies what it changes. */
  proposal?: FleetStepProposal;
  /** How many times it was retried: a retried job step starts a new job. */
  attempt?: number;
  /** Where the cluster lives after its job (a migration's target namespace): its health is read there. */
  movedTo?: ClusterPlace;
};

/**
 * A stage: `waiting`, `running` its clusters, `soaking` (every cluster healthy until `soakUntil`),
 * `awaiting-approval`, then `succeeded`, or `cancelled` when the run stopped before it.
 * @public
 */
export type FleetStageState =
  | 'waiting'
  | 'running'
  | 'soaking'
  | 'awaiting-approval'
  | 'succeeded'
  | 'cancelled';

/** A stage of a run with its gate. @public */
export interface FleetRunStage {
  name: string;
  /** Seconds each of its clusters must stay healthy after the last one is done (0: healthy once). */
  soakSeconds: number;
  /** Whether a user must approve before the next stage starts. */
  approval: boolean;
  state: FleetStageState;
  soakUntil?: string;
  /** Which cluster holds the health gate, in words. */
  gate?: string;
  approvedBy?: string;
  clusters: FleetRunCluster[];
}

/**
 * The run: `running`; `paused` (no cluster starts; those being upgraded finish); `stopping` (failed or cancelled,
 * waiting for the clusters being upgraded); then `succeeded` (with `failures` at most `maxFailures`), `failed` or
 * `cancelled`.
 * @public
 */
export type FleetRunState =
  | 'running'
  | 'paused'
  | 'stopping'
  | 'succeeded'
  | 'failed'
  | 'cancelled';

/** A fleet run's whole state, kept as one record. @public */
export interface FleetRun {
  state: FleetRunState;
  /** Why a stopping run stops: the failures went past `maxFailures`, or a user cancelled it. */
  stopReason?: 'failures' | 'cancelled';
  target: FleetRunPreview['target'];
  concurrency: number;
  /** Failed clusters the run tolerates before it stops (0: the first failure stops it). */
  maxFailures: number;
  /** A step not observed done in this many seconds fails its cluster. */
  stepTimeoutSeconds: number;
  failures: number;
  stages: FleetRunStage[];
}

/** A run's options beside its preview. @public */
export interface FleetRunOptions {
  /** Per stage name: its soak and whether it needs an approval (default: no soak, no approval). */
  gates?: Record<string, { soakSeconds?: number; approval?: boolean }>;
  maxFailures?: number;
  stepTimeoutSeconds?: number;
}

/** What a backend observes of a running cluster for its current step. @public */
export interface FleetClusterObservation {
  /** The step's progress is done (capz-common `day2Progress` on the cluster's tree, or its job succeeded). */
  stepDone: boolean;
  /** The step failed on its own, in words (its job failed or was cancelled): the cluster fails. */
  failed?: string;
  /** Where the cluster lives once the step is done (a migration job's result). */
  movedTo?: ClusterPlace;
  /** The cluster's rollup health, for the soak's gate. */
  health?: Health;
  /** What the step still waits for, in words (for a timeout's message). */
  waitingFor?: string;
  /**
   * What a person must do for the step to go on, in words (e.g. "the merge of pull request #3 (URL)"): the cluster
   * says so, and the step's timeout waits with it (the job bounds its own wait: MERGE_WAIT_SECONDS).
   */
  waitingForPerson?: string;
}

/** A step the run owes: the backend writes it (the single-cluster upgrade, its rules checked live), then records it. @public */
export type FleetStepStart = ClusterPlace & {
  stepIndex: number;
  step: FleetStep;
  /** The cluster's attempt (0, then one more per retry): a job step's job is keyed by it. */
  attempt: number;
};

/** What a run tells people: a stage waits for approval, a cluster failed, the run ended. @public */
export type FleetRunNotice =
  | { kind: 'approval-needed'; stage: string }
  | { kind: 'person-needed'; cluster: ClusterPlace; message: string }
  | { kind: 'cluster-failed'; cluster: ClusterPlace; message: string }
  | { kind: 'run-finished'; state: 'succeeded' | 'failed' | 'cancelled' };

/** A run as the backend answers it: the run with its id, who started it and when. @public */
export interface FleetRunRecord {
  id: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  run: FleetRun;
}

/** The signals channel a fleet run's changes are pushed on (the run page re-reads the run on each). @public */
export const CAPZ_FLEET_RUNS_SIGNAL_CHANNEL = 'capz:fleet-runs';

/** A fleet run's signal: which run changed, and its state. @public */
export interface CapzFleetRunSignal {
  runId: string;
  state: FleetRunState;
}

/** The default time a step may take: an AKS upgrade drains every node (30 minutes each by default) before it fails. @public */
export const FLEET_STEP_TIMEOUT_SECONDS = 4 * 60 * 60;

const DONE_CLUSTER: ReadonlySet<FleetClusterState> = new Set([
  'succeeded',
  'failed',
  'skipped',
  'cancelled',
]);
const DONE_STAGE: ReadonlySet<FleetStageState> = new Set([
  'succeeded',
  'cancelled',
]);
const ENDED: ReadonlySet<FleetRunState> = new Set([
  'succeeded',
  'failed',
  'cancelled',
]);

const placeOf = (c: ClusterPlace): ClusterPlace => ({
  managementCluster: c.managementCluster,
  namespace: c.namespace,
  name: c.name,
});
const placeKey = (c: ClusterPlace) =>
  `${c.managementCluster}/${c.namespace}/${c.name}`;
const stepWords = (s: FleetStep) => fleetStepWords(s);
/** What a cluster's finished part did, in words. */
const doneWords = (c: FleetRunCluster) => {
  const last = c.steps[c.steps.length - 1];
  if (last && isFleetJobStep(last))
    return c.movedTo
      ? `migrated: now ${c.movedTo.namespace}/${c.movedTo.name}`
      : 'migrated';
  return `upgraded to ${last?.version}`;
};

/**
 * A new run from its preview: clusters the preview refused are `skipped` with its reasons, clusters already at the
 * target `succeeded`; nothing starts before the first {@link advanceFleetRun}.
 * @public
 */
export function newFleetRun(
  preview: FleetRunPreview,
  options: FleetRunOptions = {},
): FleetRun {
  return {
    state: 'running',
    target: preview.target,
    concurrency: Math.max(1, preview.concurrency),
    maxFailures: Math.max(0, options.maxFailures ?? 0),
    stepTimeoutSeconds:
      options.stepTimeoutSeconds ?? FLEET_STEP_TIMEOUT_SECONDS,
    failures: 0,
    stages: preview.stages.map(s => ({
      name: s.name,
      soakSeconds: Math.max(0, options.gates?.[s.name]?.soakSeconds ?? 0),
      approval: options.gates?.[s.name]?.approval ?? false,
      state: 'waiting',
      clusters: s.clusters.map(c => {
        const base = {
          ...placeOf(c),
          ...(c.group ? { group: c.group } : {}),
          steps: c.steps,
          step: 0,
          written: false,
        };
        if (c.outcome === 'refused')
          return {
            ...base,
            state: 'skipped',
            message: `left out by the preview: ${c.problems.join('; ')}`,
          };
        if (c.outcome === 'current')
          return {
            ...base,
            state: 'succeeded',
            message: `already runs ${c.to ?? 'the target'}`,
          };
        return { ...base, state: 'waiting' };
      }),
    })),
  };
}

const clone = (run: FleetRun): FleetRun => ({
  ...run,
  stages: run.stages.map(s => ({
    ...s,
    clusters: s.clusters.map(c => ({ ...c })),
  })),
});

/** The stage the run is at: the first not done (undefined once all are). @public */
export function currentFleetStage(run: FleetRun): FleetRunStage | undefined {
  return run.stages.find(s => !DONE_STAGE.has(s.state));
}

/**
 * One step of the run at `now`, from what is observed of its running clusters: steps observed done move their
 * cluster on, steps past the timeout fail it, clusters start up to the concurrency, a finished stage soaks, is gated
 * and approved, the next stage starts. Returns the new run, the writes it owes (also those owed from before a crash:
 * a running cluster whose step is not `written`), and what to tell people (once: a notice is only returned by the
 * call that makes its change).
 * @public
 */
export function advanceFleetRun(
  previous: FleetRun,
  observe: (c: FleetRunCluster) => FleetClusterObservation,
  now: Date,
): { run: FleetRun; start: FleetStepStart[]; notices: FleetRunNotice[] } {
  const run = clone(previous);
  const notices: FleetRunNotice[] = [];
  if (ENDED.has(run.state)) return { run, start: [], notices };
  const at = now.toISOString();

  // Running clusters: a step observed done moves on; one past its timeout fails the cluster.
  for (const stage of run.stages)
    for (const c of stage.clusters) {
      if (c.state !== 'running' || !c.written) continue;
      const seen = observe(c);
      if (seen.failed) {
        failCluster(
          run,
          c,
          `${stepWords(c.steps[c.step])}: ${seen.failed}`,
          at,
          notices,
        );
        continue;
      }
      if (seen.waitingForPerson && !seen.stepDone) {
        c.message = `${stepWords(c.steps[c.step])}: waiting for ${
          seen.waitingForPerson
        }`;
        if (!c.waitingForPersonSince) {
          c.waitingForPersonSince = at;
          notices.push({
            kind: 'person-needed',
            cluster: placeOf(c),
            message: c.message,
          });
        }
        continue;
      }
      if (c.waitingForPersonSince) {
        // The person acted: the step's own work is timed from now.
        delete c.waitingForPersonSince;
        c.stepStartedAt = at;
        c.message = stepWords(c.steps[c.step]);
      }
      if (seen.stepDone) {
        c.step += 1;
        c.written = false;
        delete c.proposal;
        if (seen.movedTo) c.movedTo = placeOf(seen.movedTo);
        if (c.step >= c.steps.length) {
          c.state = 'succeeded';
          c.finishedAt = at;
          c.message = doneWords(c);
          delete c.stepStartedAt;
        } else {
          c.stepStartedAt = at;
          c.message = stepWords(c.steps[c.step]);
        }
        continue;
      }
      const since = Date.parse(c.stepStartedAt ?? at);
      if (now.getTime() - since > run.stepTimeoutSeconds * 1000) {
        failCluster(
          run,
          c,
          `${stepWords(c.steps[c.step])}: not done after ${Math.round(
            run.stepTimeoutSeconds / 60,
          )} minutes${
            seen.waitingFor ? ` (waiting for ${seen.waitingFor})` : ''
          }`,
          at,
          notices,
        );
      }
    }

  const runningNow = () =>
    run.stages.flatMap(s => s.clusters).filter(c => c.state === 'running');

  if (run.state === 'stopping') {
    if (!runningNow().length) finish(run, notices);
    return { run, start: owed(run), notices };
  }
  if (run.state === 'paused') return { run, start: owed(run), notices };

  // The stages, in order, as far as their gates let the run go in this call.
  for (;;) {
    const stage = currentFleetStage(run);
    if (!stage) {
      finish(run, notices);
      break;
    }
    if (stage.state === 'waiting') stage.state = 'running';
    if (stage.state === 'running') {
      let running = stage.clusters.filter(c => c.state === 'running').length;
      // The groups of a stage side by side, the clusters of a group one after the other.
      const busy = new Set(
        stage.clusters
          .filter(c => c.state === 'running' && c.group)
          .map(c => c.group!),
      );
      for (const c of stage.clusters) {
        if (running >= run.concurrency) break;
        if (c.state !== 'waiting') continue;
        if (c.group && busy.has(c.group)) continue;
        if (c.group) busy.add(c.group);
        // From its first step, or from the one it failed at when retried.
        c.state = 'running';
        c.written = false;
        c.stepStartedAt = at;
        c.message = stepWords(c.steps[c.step]);
        running += 1;
      }
      if (stage.clusters.some(c => !DONE_CLUSTER.has(c.state))) break;
      stage.state = 'soaking';
      stage.soakUntil = new Date(
        now.getTime() + stage.soakSeconds * 1000,
      ).toISOString();
    }
    if (stage.state === 'soaking') {
      // The health gate: every cluster the stage upgraded healthy for the whole soak; one that is not restarts it.
      const unhealthy = stage.clusters
        .filter(c => c.state === 'succeeded')
        .map(c => ({ c, health: observe(c).health ?? 'unknown' }))
        .filter(x => x.health !== 'healthy');
      if (unhealthy.length) {
        stage.soakUntil = new Date(
          now.getTime() + stage.soakSeconds * 1000,
        ).toISOString();
        stage.gate = `waiting for ${unhealthy
          .map(x => `${x.c.namespace}/${x.c.name} (${x.health})`)
          .join(', ')} to be healthy`;
        break;
      }
      delete stage.gate;
      if (Date.parse(stage.soakUntil ?? at) > now.getTime()) break;
      if (stage.approval) {
        stage.state = 'awaiting-approval';
        notices.push({ kind: 'approval-needed', stage: stage.name });
        break;
      }
      stage.state = 'succeeded';
      continue;
    }
    // awaiting-approval: only a user moves it on.
    break;
  }
  return { run, start: owed(run), notices };
}

/** The writes the run owes: each running cluster whose current step is not written yet. */
function owed(run: FleetRun): FleetStepStart[] {
  return run.stages.flatMap(s =>
    s.clusters
      .filter(c => c.state === 'running' && !c.written)
      .map(c => ({
        ...placeOf(c),
        stepIndex: c.step,
        step: c.steps[c.step],
        attempt: c.attempt ?? 0,
      })),
  );
}

function failCluster(
  run: FleetRun,
  c: FleetRunCluster,
  message: string,
  at: string,
  notices: FleetRunNotice[],
) {
  c.state = 'failed';
  c.finishedAt = at;
  c.message = message;
  delete c.stepStartedAt;
  delete c.waitingForPersonSince;
  run.failures += 1;
  notices.push({ kind: 'cluster-failed', cluster: placeOf(c), message });
  if (run.failures > run.maxFailures && run.state !== 'stopping') {
    run.state = 'stopping';
    run.stopReason = 'failures';
  }
}

/** Ends a run with nothing running: waiting clusters and stages are cancelled when it stops early. */
function finish(run: FleetRun, notices: FleetRunNotice[]) {
  const early = run.state === 'stopping';
  if (early)
    for (const s of run.stages) {
      for (const c of s.clusters)
        if (c.state === 'waiting') {
          c.state = 'cancelled';
          c.message =
            run.stopReason === 'cancelled'
              ? 'not started: the run was cancelled'
              : `not started: the run stopped after ${run.failures} failure${
                  run.failures === 1 ? '' : 's'
                }`;
        }
      if (!DONE_STAGE.has(s.state)) s.state = 'cancelled';
    }
  if (!early) run.state = 'succeeded';
  else run.state = run.stopReason === 'cancelled' ? 'cancelled' : 'failed';
  notices.push({ kind: 'run-finished', state: run.state });
}

/**
 * Records a step's write: made (`ok`), or refused by the single-cluster upgrade's live checks, which fails the
 * cluster with that message (a write is never retried blindly: what it was refused for stands until someone acts).
 * @public
 */
export function recordFleetStepWrite(
  previous: FleetRun,
  place: ClusterPlace,
  stepIndex: number,
  outcome:
    | { ok: true; jobId?: string; proposal?: FleetStepProposal }
    | { ok: false; message: string },
  now: Date,
): { run: FleetRun; notices: FleetRunNotice[] } {
  const run = clone(previous);
  const notices: FleetRunNotice[] = [];
  const c = findCluster(run, place);
  // A record for a step the run has moved past (another replica recorded it) changes nothing.
  if (!c || c.state !== 'running' || c.step !== stepIndex || c.written)
    return { run, notices };
  if (outcome.ok) {
    c.written = true;
    c.stepStartedAt = now.toISOString();
    if (outcome.jobId) c.jobId = outcome.jobId;
    if (outcome.proposal) c.proposal = outcome.proposal;
  } else
    failCluster(
      run,
      c,
      `${stepWords(c.steps[c.step])}: ${outcome.message}`,
      now.toISOString(),
      notices,
    );
  return { run, notices };
}

function findCluster(run: FleetRun, place: ClusterPlace) {
  const k = placeKey(place);
  return run.stages.flatMap(s => s.clusters).find(c => placeKey(c) === k);
}

/** What a user asks of a run. @public */
export type FleetRunCommand =
  | { command: 'pause' }
  | { command: 'resume' }
  | { command: 'cancel' }
  | { command: 'approve'; stage: string }
  | { command: 'skip'; cluster: ClusterPlace }
  | { command: 'retry'; cluster: ClusterPlace };

/**
 * A user's command on a run, or why it cannot be done now in words (the backend answers that as a 409):
 * - `pause` a running run: no cluster starts; those being upgraded finish their part. `resume` a paused one.
 * - `cancel` a run that has not ended: no cluster starts any more; it ends once those being upgraded are done.
 * - `approve` the stage awaiting approval; the next stage starts at the next advance.
 * - `skip` a waiting cluster, or a failed one (it is left as it is, and its failure no longer counts); `retry` a failed
 *   one: it waits again and its failure no longer counts. Either way, a run stopped by failures that are then within
 *   the allowance goes on from the clusters not yet processed (Fleet Manager's skip of a failed member, then resume).
 * @public
 */
export function commandFleetRun(
  previous: FleetRun,
  cmd: FleetRunCommand,
  by: string,
  now: Date,
): { run: FleetRun } | { problem: string } {
  const run = clone(previous);
  switch (cmd.command) {
    case 'pause':
      if (run.state !== 'running')
        return {
          problem: `the run is ${run.state}: only a running run pauses`,
        };
      run.state = 'paused';
      return { run };
    case 'resume':
      if (run.state !== 'paused')
        return {
          problem: `the run is ${run.state}: only a paused run resumes`,
        };
      run.state = 'running';
      return { run };
    case 'cancel':
      if (ENDED.has(run.state))
        return { problem: `the run has already ${run.state}` };
      run.state = 'stopping';
      run.stopReason = 'cancelled';
      return { run };
    case 'approve': {
      const stage = run.stages.find(s => s.name === cmd.stage);
      if (!stage) return { problem: `the run has no stage "${cmd.stage}"` };
      if (stage.state !== 'awaiting-approval')
        return {
          problem: `stage "${cmd.stage}" is ${stage.state}, not awaiting approval`,
        };
      stage.state = 'succeeded';
      stage.approvedBy = by;
      return { run };
    }
    case 'skip': {
      const c = findCluster(run, cmd.cluster);
      if (!c) return { problem: `${placeKey(cmd.cluster)} is not in the run` };
      if (c.state === 'failed') {
        const why = forgivingProblem(run, 'skip');
        if (why) return { problem: why };
        c.state = 'skipped';
        c.finishedAt = now.toISOString();
        c.message = `skipped by ${by} after it failed: ${c.message}`;
        run.failures -= 1;
        goOnIfAllowed(run);
        return { run };
      }
      if (c.state !== 'waiting')
        return {
          problem: `${placeKey(cmd.cluster)} is ${
            c.state
          }: only a cluster that has not started or has failed can be skipped${
            c.state === 'running' ? ' (its upgrade is under way in AKS)' : ''
          }`,
        };
      c.state = 'skipped';
      c.finishedAt = now.toISOString();
      c.message = `skipped by ${by}`;
      return { run };
    }
    case 'retry': {
      const c = findCluster(run, cmd.cluster);
      if (!c) return { problem: `${placeKey(cmd.cluster)} is not in the run` };
      if (c.state !== 'failed')
        return {
          problem: `${placeKey(cmd.cluster)} is ${
            c.state
          }: only a failed cluster is retried`,
        };
      const why = forgivingProblem(run, 'retry');
      if (why) return { problem: why };
      const stage = run.stages.find(s => s.clusters.includes(c))!;
      if (stage.state === 'succeeded')
        return {
          problem: `stage "${
            stage.name
          }" has passed its gate: upgrade ${placeKey(
            cmd.cluster,
          )} on its own page or in a new run`,
        };
      c.state = 'waiting';
      c.written = false;
      // A job step starts a new job (the failed one stays as it ended, with its log).
      c.attempt = (c.attempt ?? 0) + 1;
      delete c.jobId;
      delete c.proposal;
      c.message = `retried by ${by}: waits for its turn (from ${stepWords(
        c.steps[c.step],
      )})`;
      delete c.finishedAt;
      run.failures -= 1;
      // Its stage runs again (its gate is judged again), and a run stopped by failures goes on once they are allowed.
      if (stage.state !== 'cancelled') {
        stage.state = 'running';
        delete stage.soakUntil;
        delete stage.gate;
      }
      goOnIfAllowed(run);
      return { run };
    }
    default:
      return { problem: 'unknown command' };
  }
}

/** Why a failed cluster cannot be skipped or retried in this run (none when it can). */
function forgivingProblem(
  run: FleetRun,
  what: 'skip' | 'retry',
): string | undefined {
  if (run.stopReason === 'cancelled')
    return `the run is ${
      run.state === 'cancelled' ? 'cancelled' : 'being cancelled'
    }: start a new run`;
  // A run that succeeded did so with its failures allowed; a retry is refused by its stage's gate below.
  if (what === 'skip' && run.state === 'succeeded')
    return 'the run has succeeded with its failures allowed: there is nothing to skip';
  return undefined;
}

/** A run stopped by failures goes on once they are within its allowance: the clusters and stages it did not start wait again. */
function goOnIfAllowed(run: FleetRun) {
  if (
    (run.state !== 'failed' && run.state !== 'stopping') ||
    run.failures > run.maxFailures
  )
    return;
  run.state = 'running';
  delete run.stopReason;
  for (const s of run.stages) {
    if (s.state === 'cancelled') s.state = 'waiting';
    for (const x of s.clusters)
      if (x.state === 'cancelled') {
        x.state = 'waiting';
        delete x.message;
      }
  }
}
