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

/**
 * A crash-test hook: `CAPZ_JOBS_FAULT=<step id>:<before|actions|wait|after>` makes the process kill itself with SIGKILL at
 * that point of a job (no shutdown hooks, no lease release: the crash a test must survive). Inert unless set; the
 * crash integration test sets it on a backend process it starts and restarts.
 */
export function faultHookFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): FaultHook | undefined {
  const spec = env.CAPZ_JOBS_FAULT;
  if (!spec) return undefined;
  const [stepId, point] = spec.split(':');
  return (_jobId, step, at) => {
    if (step === stepId && at === point) {
      process.stderr.write(
        `CAPZ_JOBS_FAULT: killing the process ${at} step ${step}\n`,
      );
      process.kill(process.pid, 'SIGKILL');
    }
  };
}
