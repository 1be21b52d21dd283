import type { FaultHook } from './JobEngine';

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
