import {
  DatabaseService,
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import { ChangeSource, ConditionRecorder } from './ConditionRecorder';
import { DatabaseHistoryStore } from './DatabaseHistoryStore';
import { HistoryStore } from './HistoryStore';
import { readRetentionMs, schedulePrune } from './retention';

export type { HistoryFlush } from './ConditionRecorder';
export type { HistoryStore, TimelineQuery } from './HistoryStore';
export { ConditionRecorder } from './ConditionRecorder';
export { DatabaseHistoryStore } from './DatabaseHistoryStore';

/**
 * The condition history (docs/architecture.md#flow-history): migrates the plugin's database, subscribes the recorder to
 * the watch cache (which may have started already: the recorder takes what it holds, then follows its changes) and
 * schedules the pruning. The caller
 * stops the recorder on shutdown (`await recorder.stop()`, before the cache stops).
 */
export async function createHistory(options: {
  database: DatabaseService;
  scheduler: SchedulerService;
  config: Config;
  logger: LoggerService;
  cache: ChangeSource;
  managementClusters: string[];
}): Promise<{ store: HistoryStore; recorder: ConditionRecorder }> {
  const { database, scheduler, config, logger, cache, managementClusters } =
    options;
  const retentionMs = readRetentionMs(config);
  const store = await DatabaseHistoryStore.create({ database });
  const recorder = new ConditionRecorder({
    cache,
    store,
    logger,
    managementClusters,
  });
  recorder.start();
  await schedulePrune({ scheduler, store, retentionMs, logger });
  return { store, recorder };
}
