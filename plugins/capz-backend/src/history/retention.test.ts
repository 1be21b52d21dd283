import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { HistoryStore } from './HistoryStore';
import {
  DEFAULT_RETENTION_MS,
  readRetentionMs,
  schedulePrune,
} from './retention';

const DAY = 24 * 60 * 60 * 1000;
const config = (retention?: unknown) =>
  new ConfigReader(
    retention === undefined ? {} : { capz: { history: { retention } } },
  );

describe('readRetentionMs', () => {
  it('defaults to 30 days', () => {
    expect(readRetentionMs(config())).toBe(30 * DAY);
    expect(DEFAULT_RETENTION_MS).toBe(30 * DAY);
  });

  it('reads a duration object, an ISO 8601 duration and a short string', () => {
    expect(readRetentionMs(config({ days: 7, hours: 12 }))).toBe(7.5 * DAY);
    expect(readRetentionMs(config('P2W'))).toBe(14 * DAY);
    expect(readRetentionMs(config('90d'))).toBe(90 * DAY);
  });

  it('refuses what is not a positive duration', () => {
    expect(() => readRetentionMs(config('soon'))).toThrow();
    expect(() => readRetentionMs(config({ days: 0 }))).toThrow(
      /positive duration/,
    );
  });
});

describe('schedulePrune', () => {
  it('schedules a global task that prunes what is older than the retention', async () => {
    const scheduler = mockServices.scheduler.mock();
    const prune = jest.fn(async (_olderThan: Date) => ({
      transitions: 2,
      events: 1,
      deletions: 3,
    }));
    const store = { prune } as unknown as HistoryStore;
    const logger = mockServices.logger.mock();
    await schedulePrune({ scheduler, store, retentionMs: 7 * DAY, logger });
    expect(scheduler.scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({ id: 'capz-history-prune', scope: 'global' }),
    );
    const task = scheduler.scheduleTask.mock.calls[0][0];
    const before = Date.now();
    await task.fn(new AbortController().signal);
    const cutoff = prune.mock.calls[0][0].getTime();
    expect(cutoff).toBeGreaterThanOrEqual(before - 7 * DAY);
    expect(cutoff).toBeLessThanOrEqual(Date.now() - 7 * DAY);
    expect(logger.info).toHaveBeenCalledWith(
      expect.stringContaining(
        'pruned 2 transition(s), 3 deletion(s) and 1 Event(s)',
      ),
    );
  });
});
