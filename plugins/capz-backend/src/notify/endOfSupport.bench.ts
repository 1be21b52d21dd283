/**
 * `yarn bench:views notify`: what the end-of-support scan's first pass costs at fleet size, in-process: N clusters
 * (default 10,000, `CAPZ_BENCH_CLUSTERS`) whose minor has left AKS support, owned by 20 teams (500 each), on the
 * plugin's migrated database (in-memory SQLite, as `yarn bench`'s backend; PostgreSQL too when the test run's
 * `BACKSTAGE_TEST_DATABASE_POSTGRES*_CONNECTION_STRING` names one). The catalog and the notifications backend are
 * stand-ins that answer on the next turn of the event loop (their own work is not counted). Prints the scan's time,
 * the longest the event loop was held (what a page view arriving meanwhile waits at worst), the catalog requests and
 * notifications sent. Not a test of speed: it asserts only that every cluster's owners were told, once.
 * The end-to-end figures (HTTP, the real catalog and notifications backends) are `yarn bench`'s.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import type { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  migratedDatabase,
  postgresId,
  storeDatabases,
} from '../testing/storeDatabases';
import { EndOfSupportNotices } from './endOfSupport';

const N = Number(process.env.CAPZ_BENCH_CLUSTERS ?? 10_000);
const TEAMS = 20;
const nextTurn = () => new Promise<void>(resolve => setImmediate(resolve));

const databases = storeDatabases();
const ids = databases
  .eachSupportedId()
  .filter(([id]) => id === 'SQLITE_3' || id === postgresId);

const clusters: ClusterSummary[] = Array.from({ length: N }, (_, i) => ({
  managementCluster: 'bench',
  namespace: `bench-${String(i % TEAMS).padStart(2, '0')}`,
  name: `aks-${String(i).padStart(5, '0')}`,
  uid: `uid-${i}`,
  api: 'aso-v1beta1',
  health: 'healthy',
  kubernetesVersion: 'v1.29.4',
}));
const team = (ref: string) => /bench-(\d\d)/.exec(ref)?.[1] ?? '00';

const logger: LoggerService = {
  error: () => {},
  warn: () => {},
  info: () => {},
  debug: () => {},
  child: () => logger,
};

jest.setTimeout(600_000);

describe.each(ids)('the first end-of-support scan over %p', id => {
  it(`tells the owners of ${N} clusters out of support`, async () => {
    const db = await migratedDatabase(databases, id);
    let catalogRequests = 0;
    let sends = 0;
    const told = new Set<string>();
    const notifications: NotificationService = {
      send: async n => {
        sends += 1;
        const to = n.recipients.type === 'entity' ? n.recipients.entityRef : [];
        for (const r of [to].flat()) told.add(r);
        await nextTurn();
      },
    };
    const owners = async (refs: readonly string[]) => {
      catalogRequests += 1;
      await nextTurn();
      return refs.map(r => ({ owner: `group:default/team-${team(r)}` }));
    };
    const notices = new EndOfSupportNotices({
      db,
      source: { clusters: () => clusters, synced: () => true },
      notifications,
      logger,
      withinDays: 30,
      owners,
      // The per-cluster catalog check of earlier versions, for a run of this file against them (ignored now).
      ...({
        ownerKnown: async () => {
          catalogRequests += 1;
          await nextTurn();
          return true;
        },
      } as object),
    });
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const start = process.hrtime.bigint();
    const count = await notices.check(Date.parse('2026-12-07T12:00:00Z'));
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    loop.disable();
    // eslint-disable-next-line no-console
    console.log(
      [
        `end-of-support scan, ${N} clusters in ${TEAMS} teams, ${id}:`,
        `  the scan: ${(ms / 1000).toFixed(2)} s`,
        `  the event loop held at most ${(loop.max / 1e6).toFixed(
          1,
        )} ms (p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms)`,
        `  catalog requests: ${catalogRequests}; notifications sent: ${sends}`,
      ].join('\n'),
    );
    expect(count).toBe(N);
    expect(told.size).toBeGreaterThan(0);
    expect(await notices.check(Date.parse('2026-12-07T13:00:00Z'))).toBe(0);
  });
});
