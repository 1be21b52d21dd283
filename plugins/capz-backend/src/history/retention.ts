import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import { readDurationMs } from '../config/durations';
import { HistoryStore } from './HistoryStore';

const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_RETENTION_MS = 30 * DAY_MS;

/**
 * `capz.history.retention`: how long transitions and Events are kept, as a HumanDuration object
 * (`{ days: 30 }`) or a string (ISO 8601 `P30D`, or `30d`), like other Backstage durations. Default 30 days.
 */
export const readRetentionMs = (config: Config): number =>
  readDurationMs(config, 'capz.history.retention', DEFAULT_RETENTION_MS);

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
