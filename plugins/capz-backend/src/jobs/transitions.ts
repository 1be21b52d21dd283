import type {
  Job,
  JobResult,
  JobState,
  JobStepStatus,
} from '@capz-backstage/plugin-capz-common';

/**
 * A job's state machine, as pure functions: which user action or runner outcome is allowed from which state, what
 * it changes, and the words a refused action answers with. The store applies these changes (under a row lock or a
 * lease), the engine asks for them; neither decides on its own.
 *
 *   queued ──(runner takes it)──▶ running ──▶ succeeded | failed | paused | cancelled
 *   queued ──(pause, nobody runs it)──▶ paused          queued|running ──(pause/cancel)──▶ request flag
 *   paused | failed ──(resume)──▶ queued                paused | failed | idle queued ──(cancel)──▶ cancelled
 */

/** A user's action on a job. */
export type JobAction = 'pause' | 'resume' | 'cancel';

/** Final states release the cluster: another job may start on it. Failed and paused jobs keep it (they resume). */
export const FINAL_STATES: readonly JobState[] = ['succeeded', 'cancelled'];

export const isFinal = (state: JobState) => FINAL_STATES.includes(state);

/** What a state does to the row besides its name: a final state frees the cluster; final and failed stamp the end. */
export function stateEffects(state: JobState): {
  releasesCluster: boolean;
  finished: boolean;
} {
  return {
    releasesCluster: isFinal(state),
    finished: isFinal(state) || state === 'failed',
  };
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

/**
 * What a user's pause or cancel does to a job in this state:
 * - `now`: nobody runs the job (paused, failed, or queued without a live lease): it changes at once;
 * - `request`: a runner holds it (running, or queued with a live lease): the flag is set, and the runner honours it
 *   at the next step boundary or during a wait;
 * - `requeue`: an idle job whose cancel must still write to the cluster (it resumes the Kustomization the job
 *   suspended: gitopsResumeOnCancel) is queued with the request, and the runner that takes it honours it at once;
 * - `refused`: the state does not allow it (a final state; pausing a paused or failed job).
 */
export type RequestDecision =
  | { kind: 'now'; state: 'paused' | 'cancelled' }
  | { kind: 'request'; requested: 'pause' | 'cancel' }
  | { kind: 'requeue'; requested: 'cancel' }
  | { kind: 'refused' };

export function decideRequest(
  job: { state: JobState; leased: boolean; cancelWrites?: boolean },
  action: 'pause' | 'cancel',
): RequestDecision {
  const idleQueued = job.state === 'queued' && !job.leased;
  if (
    action === 'cancel' &&
    job.cancelWrites &&
    (job.state === 'paused' || job.state === 'failed' || idleQueued)
  )
    return { kind: 'requeue', requested: 'cancel' };
  if (action === 'pause') {
    if (idleQueued) return { kind: 'now', state: 'paused' };
    if (job.state === 'running' || job.state === 'queued')
      return { kind: 'request', requested: 'pause' };
    return { kind: 'refused' };
  }
  if (job.state === 'paused' || job.state === 'failed' || idleQueued)
    return { kind: 'now', state: 'cancelled' };
  if (job.state === 'running' || job.state === 'queued')
    return { kind: 'request', requested: 'cancel' };
  return { kind: 'refused' };
}

/** Paused and failed jobs resume (queued again); nothing else does. */
export const canResume = (state: JobState) =>
  state === 'paused' || state === 'failed';

/** The steps of a resumed job: a failed or interrupted step starts over (steps are idempotent). */
export const resumedSteps = (steps: JobStepStatus[]): JobStepStatus[] =>
  steps.map(s =>
    s.state === 'failed' || s.state === 'running'
      ? { ...s, state: 'pending' }
      : s,
  );

/** What resuming writes besides the steps: queued, with the last run's request, error and account cleared. */
export const resumeChange = {
  state: 'queued',
  requested: null,
  error: null,
  leftBehind: null,
} as const;

/** The words of a refused action (the 409 the user reads). */
export const refusalMessage = (
  action: JobAction,
  job: Pick<Job, 'id' | 'state'>,
) => `Cannot ${action} job ${job.id}: it is ${job.state}`;

/** A runner starts a queued job. */
export const start = (): JobUpdate => ({ state: 'running' });

/** Every step done. */
export const succeed = (): JobUpdate => ({
  state: 'succeeded',
  currentStep: null,
  requested: null,
});

/** A step failed, or the world moved under a resumed job: failed (resumable), saying why and what is left. */
export const fail = (error: string, leftBehind: string): JobUpdate => ({
  state: 'failed',
  error,
  leftBehind,
});

/** A runner honours a user's pause or cancel at a boundary, with the log line that says so. */
export function honourRequest(
  what: 'pause' | 'cancel',
  leftBehind: () => string,
): { update: JobUpdate; log: { level: 'info' | 'warn'; message: string } } {
  return what === 'pause'
    ? {
        update: { state: 'paused', requested: null },
        log: {
          level: 'info',
          message: 'paused by request; resume to continue at the same step',
        },
      }
    : {
        update: {
          state: 'cancelled',
          requested: null,
          leftBehind: leftBehind(),
        },
        log: { level: 'warn', message: 'cancelled by request' },
      };
}
