import type { CatalogOwners } from './catalogOwners';
import { mockServices } from '@backstage/backend-test-utils';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import type {
  ClusterSummary,
  Health,
} from '@capz-backstage/plugin-capz-common';
import {
  migratedDatabase,
  postgresId,
  storeDatabases,
} from '../testing/storeDatabases';
import { DIGEST_UPDATE_EVERY_MS } from './healthDigest';
import {
  DIGEST_FROM,
  digestNotification,
  episodeStep,
  HEALTH_NOTIFICATION_TOPIC,
  HealthEpisodes,
  type HealthSource,
  scheduleHealthNotifications,
} from './healthEpisodes';

const MIN = 60_000;
const AFTER = 30 * MIN;
const T0 = Date.parse('2026-12-04T02:00:00Z');

describe('episodeStep', () => {
  it('starts an episode at degraded or failed, tells it once past the threshold, ends it at healthy', () => {
    expect(episodeStep('degraded', undefined, T0, AFTER)).toEqual({
      do: 'start',
    });
    expect(episodeStep('failed', undefined, T0, AFTER)).toEqual({
      do: 'start',
    });
    const open = { startedAt: T0 };
    expect(episodeStep('degraded', open, T0 + AFTER - 1, AFTER)).toEqual({
      do: 'nothing',
    });
    expect(episodeStep('degraded', open, T0 + AFTER, AFTER)).toEqual({
      do: 'notify',
    });
    const told = { startedAt: T0, notifiedAt: T0 + AFTER };
    expect(episodeStep('failed', told, T0 + 5 * AFTER, AFTER)).toEqual({
      do: 'nothing',
    });
    expect(episodeStep('healthy', told, T0 + 6 * AFTER, AFTER)).toEqual({
      do: 'end',
      notified: true,
    });
    expect(episodeStep('healthy', open, T0 + 1, AFTER)).toEqual({
      do: 'end',
      notified: false,
    });
    expect(episodeStep('gone', told, T0 + 1, AFTER)).toEqual({
      do: 'end',
      notified: true,
    });
  });

  it('neither starts nor ends an episode while a cluster progresses, is paused, deleting or unknown', () => {
    for (const h of ['progressing', 'paused', 'deleting', 'unknown'] as const) {
      expect(episodeStep(h, undefined, T0, AFTER)).toEqual({ do: 'nothing' });
      expect(episodeStep(h, { startedAt: T0 }, T0 + AFTER, AFTER)).toEqual({
        do: 'nothing',
      });
    }
    expect(episodeStep('healthy', undefined, T0, AFTER)).toEqual({
      do: 'nothing',
    });
  });
});

describe('digestNotification', () => {
  it('says how many of a digest are still unhealthy and how many are not any more, at the severity of those left, its end low', () => {
    expect(
      digestNotification({ size: 25, recovered: 7, stillFailed: true }),
    ).toEqual({
      title:
        '25 of your clusters were unhealthy; 18 still are, 7 are not any more',
      description:
        'Each of those 7 is healthy again or deleted. The clusters page lists those still unhealthy worst first.',
      severity: 'high',
    });
    expect(
      digestNotification({ size: 5, recovered: 1, stillFailed: false }),
    ).toEqual({
      title:
        '5 of your clusters were unhealthy; 4 still are, 1 is not any more',
      description:
        'That one is healthy again or deleted. The clusters page lists those still unhealthy worst first.',
      severity: 'normal',
    });
    expect(
      digestNotification({ size: 5, recovered: 4, stillFailed: false }).title,
    ).toBe('5 of your clusters were unhealthy; 1 still is, 4 are not any more');
    expect(digestNotification({ ended: 5 })).toEqual({
      title: '5 of your clusters were unhealthy; none is any more',
      description:
        'Each is healthy again or deleted. The clusters page shows how each is now.',
      severity: 'low',
    });
  });
});

const databases = storeDatabases();
if (process.env.CI) {
  it(`has ${postgresId} to test on`, () => {
    expect(databases.supports(postgresId)).toBe(true);
  });
}

const summary = (over: Partial<ClusterSummary> = {}): ClusterSummary => ({
  managementCluster: 'local',
  namespace: 'team-payments',
  name: 'payments-prod',
  uid: 'uid-payments',
  api: 'aso-v1beta1',
  health: 'healthy',
  ...over,
});

function world() {
  const sent: Parameters<NotificationService['send']>[0][] = [];
  const attempts = { count: 0 };
  let failing = false;
  const notifications: NotificationService = {
    send: async n => {
      attempts.count += 1;
      if (failing)
        throw new Error('the notifications backend is not installed');
      sent.push(n);
    },
  };
  let clusters: ClusterSummary[] = [summary()];
  let synced = true;
  return {
    sent,
    attempts,
    notifications,
    set: (c: ClusterSummary[]) => {
      clusters = c;
    },
    health: (h: Health, over: Partial<ClusterSummary> = {}) => {
      clusters = [summary({ health: h, ...over })];
    },
    unsync: () => {
      synced = false;
    },
    resync: () => {
      synced = true;
    },
    /** The notifications backend refuses (or, `false`, sends again). */
    fail: (on = true) => {
      failing = on;
    },
    source: { clusters: () => clusters, synced: () => synced },
  };
}

describe.each(databases.eachSupportedId())('HealthEpisodes on %p', id => {
  async function setUp() {
    const knex = await migratedDatabase(databases, id);
    const w = world();
    const logger = mockServices.logger.mock();
    // null: no notifications backend (undefined would take the default).
    const episodes = (
      notifications: NotificationService | null = w.notifications,
      owners?: CatalogOwners,
    ) =>
      new HealthEpisodes({
        db: knex,
        source: w.source,
        notifications: notifications ?? undefined,
        logger,
        unhealthyAfterMs: AFTER,
        ...(owners ? { owners } : {}),
      });
    return { knex, w, episodes, logger };
  }

  it("tells the cluster entity's owners once it has been degraded past the threshold, and its recovery in the same notification", async () => {
    const { w, episodes } = await setUp();
    const e = episodes();
    w.health('degraded', {
      reason: 'ManagedCluster payments-prod: QuotaExceeded',
      message:
        'Operation could not be completed as it results in exceeding approved Total Regional Cores quota',
    });
    expect(await e.check(T0)).toBe(0);
    expect(await e.check(T0 + AFTER - 1)).toBe(0);
    expect(w.sent).toHaveLength(0);
    expect(await e.check(T0 + AFTER)).toBe(1);
    expect(await e.check(T0 + 2 * AFTER)).toBe(0);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]).toEqual({
      recipients: {
        type: 'entity',
        entityRef: 'resource:default/local-team-payments-payments-prod',
      },
      payload: expect.objectContaining({
        title: 'team-payments/payments-prod has been degraded for 30 minutes',
        description:
          'ManagedCluster payments-prod: QuotaExceeded: Operation could not be completed as it results in exceeding approved Total Regional Cores quota',
        severity: 'normal',
        topic: HEALTH_NOTIFICATION_TOPIC,
        link: '/capz/clusters/local/team-payments/payments-prod',
      }),
    });

    w.health('progressing');
    expect(await e.check(T0 + 3 * AFTER)).toBe(0);
    w.health('healthy');
    expect(await e.check(T0 + 4 * AFTER)).toBe(1);
    expect(w.sent[1].payload).toEqual(
      expect.objectContaining({
        title: 'team-payments/payments-prod is healthy again',
        scope: w.sent[0].payload.scope,
      }),
    );
    // A new episode is a new notification.
    w.health('failed');
    await e.check(T0 + 5 * AFTER);
    await e.check(T0 + 6 * AFTER);
    expect(w.sent).toHaveLength(3);
    expect(w.sent[2].payload.severity).toBe('high');
    expect(w.sent[2].payload.scope).not.toBe(w.sent[0].payload.scope);
  });

  it("waits for the catalog to hold the cluster's entity before telling, and tells when the catalog cannot be asked", async () => {
    const { w, episodes } = await setUp();
    let inCatalog = false;
    const asked: string[] = [];
    const e = episodes(w.notifications, async refs => {
      asked.push(...refs);
      return refs.map(() =>
        inCatalog ? { owner: 'group:default/payments' } : undefined,
      );
    });
    w.health('degraded');
    expect(await e.check(T0)).toBe(0);
    // Past the threshold, but nobody would receive it: it waits (and asks again at each check).
    expect(await e.check(T0 + AFTER)).toBe(0);
    expect(await e.check(T0 + AFTER + 1)).toBe(0);
    expect(w.sent).toHaveLength(0);
    expect(asked).toEqual([
      'resource:default/local-team-payments-payments-prod',
      'resource:default/local-team-payments-payments-prod',
    ]);
    inCatalog = true;
    expect(await e.check(T0 + AFTER + 2)).toBe(1);
    expect(await e.check(T0 + AFTER + 3)).toBe(0);
    expect(w.sent).toHaveLength(1);

    // The catalog away: an answer that cannot be had does not hold the notification back.
    const { w: w2, episodes: episodes2 } = await setUp();
    const away = episodes2(w2.notifications, async () => {
      throw new Error('connect ECONNREFUSED');
    });
    w2.health('failed');
    await away.check(T0);
    expect(await away.check(T0 + AFTER)).toBe(1);
  });

  it('starts and tells the episodes of 600 clusters degraded at once, asking the catalog 500 entities at a time', async () => {
    const { w, episodes, knex } = await setUp();
    w.set(
      Array.from({ length: 600 }, (_, i) =>
        summary({ name: `c-${i}`, uid: `uid-${i}`, health: 'degraded' }),
      ),
    );
    const asked: number[] = [];
    const e = episodes(w.notifications, async refs => {
      asked.push(refs.length);
      return refs.map(() => ({ owner: 'group:default/payments' }));
    });
    expect(await e.check(T0)).toBe(0);
    expect(await knex('capz_health_episodes')).toHaveLength(600);
    expect(await e.check(T0 + AFTER)).toBe(600);
    expect(asked).toEqual([500, 100]);
    expect(await e.check(T0 + AFTER + 1)).toBe(0);
    // One owner: one notification for the 600.
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0].payload.title).toBe(
      '600 of your clusters have been unhealthy for 30 minutes or more (600 degraded)',
    );
  });

  it("tells an owner of its clusters unhealthy at once in one digest, another owner's cluster on its own, and updates the digest in place when the last recovers", async () => {
    const { w, episodes, knex } = await setUp();
    const payments = Array.from({ length: 25 }, (_, i) =>
      summary({
        name: `payments-${String(i).padStart(2, '0')}`,
        uid: `uid-p${i}`,
        health: i < 2 ? 'failed' : 'degraded',
        reason: 'ManagedCluster: ZonalAllocationFailed',
      }),
    );
    const search = summary({
      namespace: 'team-search',
      name: 'search-prod',
      uid: 'uid-search',
      health: 'degraded',
    });
    w.set([...payments, search]);
    const e = episodes(w.notifications, async refs =>
      refs.map(ref => ({
        owner: ref.includes('search')
          ? 'group:default/search'
          : 'group:default/payments',
      })),
    );
    await e.check(T0);
    expect(await e.check(T0 + AFTER)).toBe(26);
    expect(w.sent).toHaveLength(2);
    const digest = w.sent.find(
      n =>
        n.recipients.type === 'entity' &&
        n.recipients.entityRef === 'group:default/payments',
    )!;
    expect(digest.payload).toEqual(
      expect.objectContaining({
        title:
          '25 of your clusters have been unhealthy for 30 minutes or more (2 failed, 23 degraded)',
        severity: 'high',
        link: '/capz',
        topic: HEALTH_NOTIFICATION_TOPIC,
        scope: expect.stringMatching(/^capz:health:digest:[0-9a-f]{32}$/),
      }),
    );
    // The failed first, twenty named, the rest counted.
    expect(digest.payload.description).toMatch(
      /^team-payments\/payments-00: failed \(ManagedCluster: ZonalAllocationFailed\)\. team-payments\/payments-01: failed/,
    );
    expect(digest.payload.description).toMatch(
      /payments-19: degraded \(ManagedCluster: ZonalAllocationFailed\)\. And 5 more\. The clusters page lists them worst first\.$/,
    );
    expect(w.sent.find(n => n !== digest)!.payload.title).toBe(
      'team-search/search-prod has been degraded for 30 minutes',
    );

    // 24 recover, the failed among them, the last is still degraded: the digest says so in place, at that one's
    // severity; then it is deleted: none is unhealthy.
    w.set([
      ...payments.slice(0, 24).map(c => ({ ...c, health: 'healthy' as const })),
      payments[24],
      search,
    ]);
    expect(await e.check(T0 + 2 * AFTER)).toBe(24);
    expect(w.sent).toHaveLength(3);
    expect(w.sent[2]).toEqual({
      recipients: { type: 'entity', entityRef: 'group:default/payments' },
      payload: expect.objectContaining({
        title:
          '25 of your clusters were unhealthy; 1 still is, 24 are not any more',
        severity: 'normal',
        scope: digest.payload.scope,
      }),
    });
    expect(await knex('capz_health_digests')).toHaveLength(1);
    w.set([search]);
    expect(await e.check(T0 + 3 * AFTER)).toBe(1);
    expect(w.sent).toHaveLength(4);
    expect(w.sent[3]).toEqual({
      recipients: { type: 'entity', entityRef: 'group:default/payments' },
      payload: expect.objectContaining({
        title: '25 of your clusters were unhealthy; none is any more',
        severity: 'low',
        scope: digest.payload.scope,
      }),
    });
    expect(await knex('capz_health_digests')).toHaveLength(0);
    expect(await e.check(T0 + 4 * AFTER)).toBe(0);
    expect(w.sent).toHaveLength(4);
  });

  it(`updates a digest in place as its clusters recover or are deleted, at most every ${
    DIGEST_UPDATE_EVERY_MS / MIN
  } minutes however many end, and its end at once`, async () => {
    const { w, episodes, knex } = await setUp();
    const e = episodes(w.notifications, async refs =>
      refs.map(() => ({ owner: 'group:default/payments' })),
    );
    const all = Array.from({ length: 25 }, (_, i) =>
      summary({ name: `c-${i}`, uid: `uid-${i}`, health: 'degraded' }),
    );
    const healthyUpTo = (n: number) =>
      all.map((c, i) => (i < n ? { ...c, health: 'healthy' as const } : c));
    const TOLD = T0 + AFTER;
    const EVERY = DIGEST_UPDATE_EVERY_MS;
    w.set(all);
    await e.check(T0);
    expect(await e.check(TOLD)).toBe(25);
    const scope = w.sent[0].payload.scope;

    // 7 healthy again a minute after the digest: told once its last word is EVERY old, by a check in which nothing
    // else ends; one update, not 7.
    w.set(healthyUpTo(7));
    expect(await e.check(TOLD + MIN)).toBe(0);
    expect(await e.check(TOLD + EVERY - 1)).toBe(0);
    expect(w.sent).toHaveLength(1);
    expect(await e.check(TOLD + EVERY)).toBe(7);
    expect(w.sent.slice(1)).toEqual([
      {
        recipients: { type: 'entity', entityRef: 'group:default/payments' },
        payload: expect.objectContaining({
          title:
            '25 of your clusters were unhealthy; 18 still are, 7 are not any more',
          description:
            'Each of those 7 is healthy again or deleted. The clusters page lists those still unhealthy worst first.',
          severity: 'normal',
          link: '/capz',
          topic: HEALTH_NOTIFICATION_TOPIC,
          scope,
        }),
      },
    ]);
    // Nothing new: nothing told, however long.
    expect(await e.check(TOLD + 3 * EVERY)).toBe(0);
    expect(w.sent).toHaveLength(2);

    // 7 more healthy and 3 deleted in one check: one update, for the 10; one more healthy a minute later waits for
    // EVERY since that update.
    w.set(healthyUpTo(14).filter((_, i) => i < 14 || i >= 17));
    expect(await e.check(TOLD + 3 * EVERY + MIN)).toBe(10);
    w.set(healthyUpTo(18).filter((_, i) => i < 14 || i >= 17));
    expect(await e.check(TOLD + 3 * EVERY + 2 * MIN)).toBe(0);
    expect(await e.check(TOLD + 4 * EVERY + MIN)).toBe(1);
    expect(
      w.sent.slice(2).map(n => [n.payload.title, n.payload.scope]),
    ).toEqual([
      [
        '25 of your clusters were unhealthy; 8 still are, 17 are not any more',
        scope,
      ],
      [
        '25 of your clusters were unhealthy; 7 still are, 18 are not any more',
        scope,
      ],
    ]);
    expect(await knex('capz_health_digests').select('recovered')).toEqual([
      { recovered: 18 },
    ]);

    // The 7 others a minute later: the end, at once, which tells of those 7.
    w.set(healthyUpTo(25));
    expect(await e.check(TOLD + 4 * EVERY + 2 * MIN)).toBe(7);
    expect(
      w.sent.slice(4).map(n => [n.payload.title, n.payload.scope]),
    ).toEqual([
      ['25 of your clusters were unhealthy; none is any more', scope],
    ]);
    expect(await knex('capz_health_digests')).toHaveLength(0);
  });

  it("updates a digest at the severity of its clusters still unhealthy (high while one is failed, the digest's own while one's cache is not synced), its end low", async () => {
    const { w, knex } = await setUp();
    const unsynced = new Set<string>();
    const e = new HealthEpisodes({
      db: knex,
      source: {
        clusters: () => w.source.clusters(),
        synced: mc => !unsynced.has(mc),
      },
      notifications: w.notifications,
      logger: mockServices.logger.mock(),
      unhealthyAfterMs: AFTER,
      owners: async refs =>
        refs.map(() => ({ owner: 'group:default/payments' })),
    });
    const f1 = summary({ name: 'f1', uid: 'uid-f1', health: 'failed' });
    const f2 = summary({
      managementCluster: 'west',
      name: 'f2',
      uid: 'uid-f2',
      health: 'failed',
    });
    const degraded = ['d1', 'd2', 'd3', 'd4'].map(n =>
      summary({ name: n, uid: `uid-${n}`, health: 'degraded' }),
    );
    const ok = (c: ClusterSummary) => ({ ...c, health: 'healthy' as const });
    const EVERY = DIGEST_UPDATE_EVERY_MS;
    w.set([f1, f2, ...degraded]);
    await e.check(T0);
    expect(await e.check(T0 + AFTER)).toBe(6);
    expect(w.sent[0].payload.severity).toBe('high');

    // Two degraded healthy again, both failed still failed: still an alarm.
    w.set([f1, f2, ok(degraded[0]), ok(degraded[1]), degraded[2], degraded[3]]);
    expect(await e.check(T0 + AFTER + EVERY)).toBe(2);
    // f1 healthy, and west's cache lost (a restart before its first list): f2 may still be failed, as the digest began.
    unsynced.add('west');
    w.set([ok(f1), ok(degraded[0]), ok(degraded[1]), degraded[2], degraded[3]]);
    expect(await e.check(T0 + AFTER + 2 * EVERY)).toBe(1);
    // West back, f2 healthy: those still unhealthy are degraded.
    unsynced.delete('west');
    w.set([
      ok(f1),
      ok(f2),
      ok(degraded[0]),
      ok(degraded[1]),
      degraded[2],
      degraded[3],
    ]);
    expect(await e.check(T0 + AFTER + 3 * EVERY)).toBe(1);
    w.set([f1, f2, ...degraded].map(ok));
    expect(await e.check(T0 + AFTER + 3 * EVERY + MIN)).toBe(2);
    expect(
      w.sent.slice(1).map(n => [n.payload.title, n.payload.severity]),
    ).toEqual([
      [
        '6 of your clusters were unhealthy; 4 still are, 2 are not any more',
        'high',
      ],
      [
        '6 of your clusters were unhealthy; 3 still are, 3 are not any more',
        'high',
      ],
      [
        '6 of your clusters were unhealthy; 2 still are, 4 are not any more',
        'normal',
      ],
      ['6 of your clusters were unhealthy; none is any more', 'low'],
    ]);
  });

  it("backs off while the notifications backend fails: one warning saying how many notices wait, tries doubling from the check's interval up to an hour, then tells all that waited", async () => {
    const { w, episodes, knex, logger } = await setUp();
    const e = episodes();
    const told = summary({ name: 'told', uid: 'uid-told', health: 'degraded' });
    const due = ['a', 'b', 'c'].map(n =>
      summary({ name: n, uid: `uid-${n}`, health: 'degraded' }),
    );
    w.set([told]);
    await e.check(T0 - AFTER);
    w.set([told, ...due]);
    expect(await e.check(T0)).toBe(1);

    // The backend away as three episodes are due and the one told recovers: one try, one warning.
    w.fail();
    w.set([{ ...told, health: 'healthy' }, ...due]);
    const START = T0 + AFTER;
    const tries: number[] = [];
    for (let m = 0; m <= 130; m++) {
      const before = w.attempts.count;
      expect(await e.check(START + m * MIN)).toBe(0);
      if (w.attempts.count > before) tries.push(m);
      expect(w.attempts.count - before).toBeLessThanOrEqual(1);
    }
    // The check runs every minute here (its interval): tried again 1, 2, 4, ... minutes after, at most hourly.
    expect(tries).toEqual([0, 1, 3, 7, 15, 31, 63, 123]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0][0]).toMatch(
      /^could not notify the owners of team-payments\/a about its health: the notifications backend is not installed; 4 notices wait, tried again in 1 minute, then less often \(at most every 60 minutes\) while sends fail$/,
    );
    // Nothing lost meanwhile: the three still due, the recovery's episode still open.
    expect(
      await knex('capz_health_episodes').select('name').orderBy('name'),
    ).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'told' }]);

    // Back: told at the next try, all of it.
    w.fail(false);
    expect(await e.check(START + 124 * MIN)).toBe(0);
    expect(await e.check(START + 183 * MIN)).toBe(4);
    expect(w.sent.slice(1).map(n => n.payload.title)).toEqual([
      'team-payments/a has been degraded for 213 minutes',
      'team-payments/b has been degraded for 213 minutes',
      'team-payments/c has been degraded for 213 minutes',
      'team-payments/told is healthy again',
    ]);
    expect(w.sent[4].payload.scope).toBe(w.sent[0].payload.scope);
    expect(await knex('capz_health_episodes').select('name')).toHaveLength(3);

    // A new stretch as the three recover: a new warning, the first try again one interval after, and their ends
    // kept (the one whose send failed too) until one goes through.
    w.fail();
    w.set(due.map(c => ({ ...c, health: 'healthy' as const })));
    const attempts = w.attempts.count;
    expect(await e.check(START + 184 * MIN)).toBe(0);
    expect(await e.check(START + 185 * MIN)).toBe(0);
    expect(await e.check(START + 186 * MIN)).toBe(0);
    expect(w.attempts.count - attempts).toBe(2);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls[1][0]).toMatch(/; 3 notices wait, /);
    expect(await knex('capz_health_episodes').select('name')).toHaveLength(3);
    w.fail(false);
    expect(await e.check(START + 187 * MIN)).toBe(3);
    expect(w.sent.slice(5).map(n => n.payload.title)).toEqual([
      'team-payments/a is healthy again',
      'team-payments/b is healthy again',
      'team-payments/c is healthy again',
    ]);
    expect(w.sent.slice(5).map(n => n.payload.scope)).toEqual(
      w.sent.slice(1, 4).map(n => n.payload.scope),
    );
    expect(await knex('capz_health_episodes')).toHaveLength(0);
  });

  it('tells again at the next check the backoff allows a partial update or end of a digest that could not be sent, each count once with two replicas', async () => {
    const { w, episodes, knex } = await setUp();
    const owners: CatalogOwners = async refs =>
      refs.map(() => ({ owner: 'group:default/payments' }));
    const [a, b] = [
      episodes(w.notifications, owners),
      episodes(w.notifications, owners),
    ];
    const all = Array.from({ length: 25 }, (_, i) =>
      summary({ name: `c-${i}`, uid: `uid-${i}`, health: 'degraded' }),
    );
    const healthyUpTo = (n: number) =>
      all.map((c, i) => (i < n ? { ...c, health: 'healthy' as const } : c));
    const TOLD = T0 + AFTER;
    const EVERY = DIGEST_UPDATE_EVERY_MS;
    w.set(all);
    await a.check(T0);
    expect(await a.check(TOLD)).toBe(25);

    // 7 healthy again; their update cannot be sent: the row still says what was told.
    w.set(healthyUpTo(7));
    w.fail();
    expect(await a.check(TOLD + EVERY)).toBe(0);
    expect(
      await knex('capz_health_digests').select('recovered', 'updated_at'),
    ).toEqual([{ recovered: 0, updated_at: null }]);
    // Back: told at the next check, once, whichever replica runs it.
    w.fail(false);
    const counts = await Promise.all([
      a.check(TOLD + EVERY + MIN),
      b.check(TOLD + EVERY + MIN),
    ]);
    expect(counts.sort((x, y) => x - y)).toEqual([0, 7]);
    expect(await knex('capz_health_digests').select('recovered')).toEqual([
      { recovered: 7 },
    ]);

    // All healthy; the end cannot be sent: the digest is kept, and its end told at the next check the backoff allows
    // (a replica of its own: which of a and b told above, and so ended its backoff, is a race).
    const c = episodes(w.notifications, owners);
    w.set(healthyUpTo(25));
    w.fail();
    expect(await c.check(TOLD + EVERY + 2 * MIN)).toBe(0);
    expect(await knex('capz_health_digests').select('recovered')).toEqual([
      { recovered: 7 },
    ]);
    w.fail(false);
    expect(await c.check(TOLD + EVERY + 3 * MIN)).toBe(18);
    expect(await b.check(TOLD + EVERY + 4 * MIN)).toBe(0);
    expect(w.sent.slice(1).map(n => n.payload.title)).toEqual([
      '25 of your clusters were unhealthy; 18 still are, 7 are not any more',
      '25 of your clusters were unhealthy; none is any more',
    ]);
    expect(await knex('capz_health_digests')).toHaveLength(0);
  });

  it('tells a partial recovery once when two replicas whose caches saw different clusters recover check at once', async () => {
    const { w, knex } = await setUp();
    const replica = (source: HealthSource) =>
      new HealthEpisodes({
        db: knex,
        source,
        notifications: w.notifications,
        logger: mockServices.logger.mock(),
        unhealthyAfterMs: AFTER,
        owners: async refs =>
          refs.map(() => ({ owner: 'group:default/payments' })),
      });
    const five = ['a', 'b', 'c', 'd', 'e'].map(n =>
      summary({ name: n, uid: `uid-${n}`, health: 'degraded' }),
    );
    const healthy = (names: string[]): HealthSource => ({
      clusters: () =>
        five.map(c =>
          names.includes(c.name) ? { ...c, health: 'healthy' as const } : c,
        ),
      synced: () => true,
    });
    const first = replica(healthy([]));
    await first.check(T0);
    expect(await first.check(T0 + AFTER)).toBe(5);
    // Replica a's watch cache has seen a recover, b's has seen b.
    const [a, b] = [replica(healthy(['a'])), replica(healthy(['b']))];
    const counts = await Promise.all([
      a.check(T0 + 2 * AFTER),
      b.check(T0 + 2 * AFTER),
    ]);
    // Both caches caught up, later: what is left to tell is told once.
    const both = [replica(healthy(['a', 'b'])), replica(healthy(['a', 'b']))];
    counts.push(
      ...(await Promise.all(
        both.map(r => r.check(T0 + 2 * AFTER + DIGEST_UPDATE_EVERY_MS)),
      )),
    );
    const updates = w.sent.slice(1).map(n => n.payload.title);
    // Never the same news twice, the last says both.
    expect(new Set(updates).size).toBe(updates.length);
    expect(updates[updates.length - 1]).toBe(
      '5 of your clusters were unhealthy; 3 still are, 2 are not any more',
    );
    expect(counts.reduce((x, y) => x + y)).toBe(2);
    expect(await knex('capz_health_digests').select('recovered')).toEqual([
      { recovered: 2 },
    ]);
  });

  it("keeps a digest's row only while its members carry its scope, so another replica never reads it as ended", async () => {
    // The row written before its members, another replica's check in between read every member as recovered and told
    // "none is any more" (seen once on PostgreSQL). What each write did, in the order the database answered.
    const { w, episodes, knex } = await setUp();
    const e = episodes(w.notifications, async refs =>
      refs.map(() => ({ owner: 'group:default/payments' })),
    );
    const writes: string[] = [];
    knex.on(
      'query-response',
      (_r: unknown, q: { sql: string; bindings?: unknown[] }) => {
        const sql = q.sql.toLowerCase();
        if (/^insert into .capz_health_digests/.test(sql))
          writes.push('row in');
        if (/^delete from .capz_health_digests/.test(sql))
          writes.push('row out');
        if (/^update .capz_health_episodes. set .digest_scope/.test(sql))
          writes.push(q.bindings?.[0] === null ? 'members out' : 'members in');
      },
    );
    const five = ['a', 'b', 'c', 'd', 'e'].map(n =>
      summary({ name: n, uid: `uid-${n}`, health: 'degraded' }),
    );
    w.set(five);
    await e.check(T0);
    // A send that fails takes the digest back: the row out first, then its members.
    w.fail();
    await e.check(T0 + AFTER);
    w.fail(false);
    await e.check(T0 + 2 * AFTER);
    const collapsed = writes.filter((x, i) => x !== writes[i - 1]);
    expect(collapsed).toEqual([
      'members in',
      'row in',
      'row out',
      'members out',
      'members in',
      'row in',
    ]);
    expect(w.sent.map(n => n.payload.title)).toEqual([
      '5 of your clusters have been unhealthy for 60 minutes or more (5 degraded)',
    ]);
  });

  it('tells a digest and its end once with two replicas checking the same database', async () => {
    const { w, episodes } = await setUp();
    const owners: CatalogOwners = async refs =>
      refs.map(() => ({ owner: 'group:default/payments' }));
    const [a, b] = [
      episodes(w.notifications, owners),
      episodes(w.notifications, owners),
    ];
    const five = (health: Health) =>
      ['a', 'b', 'c', 'd', 'e'].map(n =>
        summary({ name: n, uid: `uid-${n}`, health }),
      );
    w.set(five('degraded'));
    await Promise.all([a.check(T0), b.check(T0)]);
    await Promise.all([a.check(T0 + AFTER), b.check(T0 + AFTER)]);
    expect(w.sent.map(n => n.payload.title)).toEqual([
      '5 of your clusters have been unhealthy for 30 minutes or more (5 degraded)',
    ]);
    // Two of them healthy again: one update, told by one replica.
    w.set([...five('healthy').slice(0, 2), ...five('degraded').slice(2)]);
    const partial = await Promise.all([
      a.check(T0 + 2 * AFTER),
      b.check(T0 + 2 * AFTER),
    ]);
    expect(partial.sort()).toEqual([0, 2]);
    w.set(five('healthy'));
    const counts = await Promise.all([
      a.check(T0 + 3 * AFTER),
      b.check(T0 + 3 * AFTER),
    ]);
    expect(counts.sort()).toEqual([0, 3]);
    expect(w.sent.map(n => n.payload.title)).toEqual([
      '5 of your clusters have been unhealthy for 30 minutes or more (5 degraded)',
      '5 of your clusters were unhealthy; 3 still are, 2 are not any more',
      '5 of your clusters were unhealthy; none is any more',
    ]);
  });

  it(`tells an owner of fewer than ${DIGEST_FROM} clusters at once one by one, each with its own recovery`, async () => {
    const { w, episodes } = await setUp();
    const e = episodes(w.notifications, async refs =>
      refs.map(() => ({ owner: 'group:default/payments' })),
    );
    const four = (health: Health) =>
      ['a', 'b', 'c', 'd'].map(n =>
        summary({ name: n, uid: `uid-${n}`, health }),
      );
    w.set(four('failed'));
    await e.check(T0);
    expect(await e.check(T0 + AFTER)).toBe(4);
    expect(w.sent.map(n => n.payload.title).sort()).toEqual([
      'team-payments/a has been failed for 30 minutes',
      'team-payments/b has been failed for 30 minutes',
      'team-payments/c has been failed for 30 minutes',
      'team-payments/d has been failed for 30 minutes',
    ]);
    w.set(four('healthy'));
    expect(await e.check(T0 + 2 * AFTER)).toBe(4);
    expect(
      w.sent
        .slice(4)
        .map(n => n.payload.title)
        .sort(),
    ).toEqual([
      'team-payments/a is healthy again',
      'team-payments/b is healthy again',
      'team-payments/c is healthy again',
      'team-payments/d is healthy again',
    ]);
  });

  it('tells nobody of a blip shorter than the threshold', async () => {
    const { w, episodes } = await setUp();
    const e = episodes();
    w.health('failed');
    await e.check(T0);
    w.health('healthy');
    await e.check(T0 + AFTER / 2);
    w.health('failed');
    await e.check(T0 + AFTER);
    // The episode restarted at T0 + AFTER: not yet long enough.
    await e.check(T0 + AFTER + AFTER / 2);
    expect(w.sent).toHaveLength(0);
  });

  it('tells once with two replicas checking the same database', async () => {
    const { w, episodes } = await setUp();
    const [a, b] = [episodes(), episodes()];
    w.health('degraded');
    await Promise.all([a.check(T0), b.check(T0)]);
    const counts = await Promise.all([
      a.check(T0 + AFTER),
      b.check(T0 + AFTER),
    ]);
    expect(counts.sort()).toEqual([0, 1]);
    await b.check(T0 + 2 * AFTER);
    expect(w.sent).toHaveLength(1);
  });

  it('ends the episode of a cluster deleted while unhealthy, and keeps episodes while its cache is not synced', async () => {
    const { w, episodes, knex } = await setUp();
    const e = episodes();
    w.health('degraded');
    await e.check(T0);
    await e.check(T0 + AFTER);
    w.set([]);
    w.unsync();
    // A restart's cache before its first list holds nothing: that is no deletion.
    await e.check(T0 + 2 * AFTER);
    expect(await knex('capz_health_episodes').select('name')).toEqual([
      { name: 'payments-prod' },
    ]);
    w.resync();
    await e.check(T0 + 3 * AFTER);
    expect(await knex('capz_health_episodes').select('name')).toEqual([]);
    expect(w.sent.map(n => n.payload.title)).toEqual([
      'team-payments/payments-prod has been degraded for 30 minutes',
      'team-payments/payments-prod was unhealthy and is now deleted',
    ]);
  });

  it('tells again at a later check an episode whose notification could not be sent, and its recovery in the same notification', async () => {
    const { w, episodes, knex } = await setUp();
    const e = episodes();
    w.health('degraded');
    await e.check(T0);
    w.fail();
    expect(await e.check(T0 + AFTER)).toBe(0);
    // Released: not told, so tried again at the checks the backoff allows (the next, then two later).
    expect(await knex('capz_health_episodes').select('notified_at')).toEqual([
      { notified_at: null },
    ]);
    expect(await e.check(T0 + AFTER + MIN)).toBe(0);
    expect(w.attempts.count).toBe(2);
    w.fail(false);
    expect(await e.check(T0 + AFTER + 2 * MIN)).toBe(0);
    expect(await e.check(T0 + AFTER + 3 * MIN)).toBe(1);
    expect(await e.check(T0 + AFTER + 4 * MIN)).toBe(0);
    expect(w.sent.map(n => n.payload.title)).toEqual([
      'team-payments/payments-prod has been degraded for 33 minutes',
    ]);
    w.health('healthy');
    expect(await e.check(T0 + 2 * AFTER)).toBe(1);
    expect(w.sent[1].payload).toEqual(
      expect.objectContaining({
        title: 'team-payments/payments-prod is healthy again',
        scope: w.sent[0].payload.scope,
      }),
    );
  });

  it('groups again at the next check the episodes of a digest that could not be sent, with those due since', async () => {
    const { w, episodes, knex } = await setUp();
    const e = episodes(w.notifications, async refs =>
      refs.map(() => ({ owner: 'group:default/payments' })),
    );
    const six = (health: Health) =>
      ['a', 'b', 'c', 'd', 'e', 'f'].map(n =>
        summary({ name: n, uid: `uid-${n}`, health }),
      );
    w.set(six('degraded').slice(0, 5));
    await e.check(T0);
    w.set(six('degraded'));
    await e.check(T0 + MIN);
    w.fail();
    expect(await e.check(T0 + AFTER)).toBe(0);
    expect(w.attempts.count).toBe(1);
    // Released: no digest kept, no episode claimed or in one.
    expect(await knex('capz_health_digests')).toEqual([]);
    expect(
      await knex('capz_health_episodes')
        .whereNotNull('notified_at')
        .orWhereNotNull('digest_scope'),
    ).toEqual([]);
    w.fail(false);
    expect(await e.check(T0 + AFTER + MIN)).toBe(6);
    expect(w.sent.map(n => n.payload.title)).toEqual([
      '6 of your clusters have been unhealthy for 30 minutes or more (6 degraded)',
    ]);
    expect(await knex('capz_health_digests').select('size')).toEqual([
      { size: 6 },
    ]);
    w.set(six('healthy'));
    expect(await e.check(T0 + 2 * AFTER)).toBe(6);
    expect(w.sent[1].payload).toEqual(
      expect.objectContaining({
        title: '6 of your clusters were unhealthy; none is any more',
        scope: w.sent[0].payload.scope,
      }),
    );
  });

  it('goes on without the notifications backend: nothing is sent, the check still keeps its episodes', async () => {
    const { w, episodes } = await setUp();
    w.fail();
    const e = episodes();
    w.health('degraded');
    await e.check(T0);
    expect(await e.check(T0 + AFTER)).toBe(0);

    // Without the backend at all: a cluster degraded past the threshold, and nothing is even tried.
    const absent = await setUp();
    absent.w.health('degraded');
    const none = absent.episodes(null);
    await none.check(T0);
    expect(await none.check(T0 + AFTER)).toBe(0);
    expect(absent.w.attempts.count).toBe(0);
  });
});

describe('scheduleHealthNotifications', () => {
  it('checks on one replica at a time, four times per threshold and at least every minute', async () => {
    const scheduler = mockServices.scheduler.mock();
    const episodes = { check: jest.fn(async () => 2) };
    await scheduleHealthNotifications({
      scheduler,
      episodes: episodes as unknown as HealthEpisodes,
      unhealthyAfterMs: 40_000,
      logger: mockServices.logger.mock(),
    });
    expect(scheduler.scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({
        id: 'capz-health-notifications',
        scope: 'global',
        frequency: { milliseconds: 10_000 },
      }),
    );
    await scheduleHealthNotifications({
      scheduler,
      episodes: episodes as unknown as HealthEpisodes,
      unhealthyAfterMs: AFTER,
      logger: mockServices.logger.mock(),
    });
    expect(scheduler.scheduleTask.mock.calls[1][0].frequency).toEqual({
      milliseconds: 60_000,
    });
  });
});
