import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import { Config, readDurationFromConfig } from '@backstage/config';
import { HistoryStore } from './HistoryStore';

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

export const DEFAULT_RETENTION_MS = 30 * DAY_MS;

/**
 * `capz.history.retention`: how long transitions and Events are kept, as a HumanDuration object
 * (`{ days: 30 }`) or a string (ISO 8601 `P30D`, or `30d`), like other Backstage durations. Default 30 days.
 */
export function readRetentionMs(config: Config): number {
  if (!config.has('capz.history.retention')) return DEFAULT_RETENTION_MS;
  const duration = readDurationFromConfig(config, {
    key: 'capz.history.retention',
  });
  const ms = (Object.keys(duration) as Array<keyof Duration>).reduce(
    (sum, unit) => sum + (duration[unit] ?? 0) * UNIT_MS[unit],
    0,
  );
  if (!(ms > 0))
    throw new Error('capz.history.retention must be a positive duration');
  return ms;
}

/**
 * Schedules the pruning of the history on the Backstage scheduler, hourly and global (one replica runs it).
 */
export async function schedulePrune(options: {
  scheduler: SchedulerService;
  store: HistoryStore;
  retentionMs: number;
  logger: LoggerService;
}): Promise<void> {
  const { scheduler, store, retentionMs, logger } = options;
  await scheduler.scheduleTask({
    id: 'capz-history-prune',
    scope: 'global',
    frequency: { hours: 1 },
    timeout: { minutes: 15 },
    initialDelay: { minutes: 1 },
    fn: async () => {
      const olderThan = new Date(Date.now() - retentionMs);
      const pruned = await store.prune(olderThan);
      if (pruned.transitions || pruned.events || pruned.deletions) {
        logger.info(
          `condition history: pruned ${pruned.transitions} transition(s), ${
            pruned.deletions
          } deletion(s) and ${
            pruned.events
          } Event(s) older than ${olderThan.toISOString()}`,
        );
      }
    },
  });
}
