/**
 * The lane's waits: `until` of src/testing.ts (poll for a condition, fail after a bound naming what it waited for),
 * and how long each took against its bound, as a stdout line `wait <what>: <ms> ms of its <timeout> ms timeout`.
 * scripts/node-test-json-reporter.mjs keeps those lines, so scripts/test-durations.mjs checks every wait of the lane
 * as it checks the tests: a bound is a hang detector, at least 3x the longest the wait took under load. Only waits
 * that took a second or more, or more than a third of their bound, are written (the rest cannot come near it).
 */
import { until as untilCondition } from '../src/testing.ts';

/** The bound of src/testing.ts `until` when none is given. */
const DEFAULT_BOUND = 90_000;

/** Writes how long a wait took against its bound (a wait timed elsewhere, e.g. one poller for many conditions). */
export function reportWait(what: string, ms: number, timeoutMs: number): void {
  const rounded = Math.round(ms);
  if (rounded >= 1000 || rounded * 3 > timeoutMs)
    process.stdout.write(
      `wait ${what.replace(
        /\s+/g,
        ' ',
      )}: ${rounded} ms of its ${timeoutMs} ms timeout\n`,
    );
}

export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = DEFAULT_BOUND,
): Promise<T> {
  const startedAt = performance.now();
  try {
    return await untilCondition(what, check, timeoutMs);
  } finally {
    reportWait(what, performance.now() - startedAt, timeoutMs);
  }
}
