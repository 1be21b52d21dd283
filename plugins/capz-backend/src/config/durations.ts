import { Config, readDurationFromConfig } from '@backstage/config';

type Duration = ReturnType<typeof readDurationFromConfig>;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Months and years as the scheduler's HumanDuration counts them (30 and 365 days). */
const UNIT_MS: Record<keyof Duration, number> = {
  years: 365 * DAY_MS,
  months: 30 * DAY_MS,
  weeks: 7 * DAY_MS,
  days: DAY_MS,
  hours: 60 * 60 * 1000,
  minutes: 60 * 1000,
  seconds: 1000,
  milliseconds: 1,
};

/**
 * A duration setting in milliseconds: a HumanDuration object (`{ days: 30 }`) or a string (ISO 8601 `P30D`, or
 * `30d`), like other Backstage durations; `fallback` when the key is absent. Not positive: an error naming the key.
 */
export function readDurationMs(
  config: Config,
  key: string,
  fallback: number,
): number {
  if (!config.has(key)) return fallback;
  const duration = readDurationFromConfig(config, { key });
  const ms = (Object.keys(duration) as Array<keyof Duration>).reduce(
    (sum, unit) => sum + (duration[unit] ?? 0) * UNIT_MS[unit],
    0,
  );
  if (!(ms > 0)) throw new Error(`${key} must be a positive duration`);
  return ms;
}
