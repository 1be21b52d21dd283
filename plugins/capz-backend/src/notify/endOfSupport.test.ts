import type { CatalogOwners } from './catalogOwners';
import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import {
  aksCalendarWith,
  type ClusterSummary,
} from '@capz-backstage/plugin-capz-common';
import {
  migratedDatabase,
  postgresId,
  storeDatabases,
} from '../testing/storeDatabases';
import {
  endOfSupportNotice,
  EndOfSupportNotices,
  LIFECYCLE_NOTIFICATION_TOPIC,
  readEndOfSupportWithinDays,
  scheduleEndOfSupportNotifications,
} from './endOfSupport';

const cluster = { namespace: 'team-payments', name: 'payments-prod' };
const at = (kubernetesVersion: string | undefined, lts = false) => ({
  ...cluster,
  kubernetesVersion,
  ...(lts ? { lifecycle: { lts: true } } : {}),
});
const DAY = 24 * 3600 * 1000;
/** Noon UTC of a day: the notices are per (UTC) day. */
const noon = (d: string) => Date.parse(`${d}T12:00:00Z`);

describe('endOfSupportNotice', () => {
  // Kubernetes 1.33: community support until 2026-07-31; 1.37 reaches AKS GA in 2026-10 (its platform support's end).
  it('tells of community support ending within the window, in words, with the fix', () => {
    expect(
      endOfSupportNotice(at('v1.33.2'), {
        today: '2026-07-19',
        withinDays: 30,
      }),
    ).toEqual({
      minor: '1.33',
      status: 'community',
      until: '2026-07-31',
      title:
        'team-payments/payments-prod: Kubernetes 1.33 leaves AKS community support on Jul 31, 2026 (in 12 days)',
      description:
        'Kubernetes 1.33 is supported until Jul 31, 2026 (in 12 days). Upgrade the control plane to 1.34, then its node pools: AKS moves a supported cluster one minor version at a time.',
      severity: 'normal',
    });
  });

  it('opens the window exactly `withinDays` before the last day, and keeps it to its last day', () => {
    const o = (today: string, withinDays = 30) =>
      endOfSupportNotice(at('v1.33.2'), { today, withinDays });
    expect(o('2026-06-30')).toBeUndefined(); // 31 days left
    expect(o('2026-07-01')?.title).toMatch(/\(in 30 days\)$/);
    expect(o('2026-07-30')?.title).toMatch(/\(in 1 day\)$/);
    expect(o('2026-07-31')?.title).toMatch(/on Jul 31, 2026 \(today\)$/);
    expect(o('2026-07-01', 29)).toBeUndefined();
    expect(o('2026-06-01', 60)?.status).toBe('community');
  });

  it("tells platform support only and out of support at once, whatever the window, as 'now' (high)", () => {
    const platform = endOfSupportNotice(at('v1.33.2'), {
      today: '2026-08-01',
      withinDays: 1,
    });
    expect(platform).toEqual(
      expect.objectContaining({
        status: 'platform',
        until: '2026-10-01',
        severity: 'high',
        title:
          'team-payments/payments-prod: Kubernetes 1.33 is on AKS platform support only (no fixes or security patches) until Oct 2026',
      }),
    );
    expect(platform!.description).toMatch(/Upgrade the control plane to 1\.34/);
    const out = endOfSupportNotice(at('1.29'), {
      today: '2026-07-19',
      withinDays: 30,
    });
    expect(out).toEqual(
      expect.objectContaining({
        status: 'out-of-support',
        until: '',
        severity: 'high',
        title:
          'team-payments/payments-prod: Kubernetes 1.29 is out of AKS support',
      }),
    );
    expect(out!.description).toMatch(/^Kubernetes 1\.29's community support/);
    expect(out!.description).toMatch(/Upgrade now/);
  });

  it('says nothing of a version the calendar does not know, or of a cluster without a version', () => {
    for (const v of ['v1.99.0', '1.2', 'latest', '', undefined])
      expect(
        endOfSupportNotice(at(v), { today: '2026-07-19', withinDays: 3650 }),
      ).toBeUndefined();
  });

  it("dates the notice with the operator's calendar (capz.lifecycle.calendar): a minor the shipped table does not know yet", () => {
    const { calendar } = aksCalendarWith([
      { minor: '1.38', ga: '2027-02', endOfLife: '2028-02-29' },
    ]);
    const o = { today: '2028-02-10', withinDays: 30 };
    expect(endOfSupportNotice(at('v1.38.1'), o)).toBeUndefined();
    expect(endOfSupportNotice(at('v1.38.1'), { ...o, calendar })).toEqual(
      expect.objectContaining({
        status: 'community',
        until: '2028-02-29',
        title:
          'team-payments/payments-prod: Kubernetes 1.38 leaves AKS community support on Feb 29, 2028 (in 19 days)',
      }),
    );
  });

  it('says nothing of community support ending on a cluster with LTS on (it moves to LTS), and tells the end of LTS', () => {
    expect(
      endOfSupportNotice(at('v1.33.2', true), {
        today: '2026-07-19',
        withinDays: 30,
      }),
    ).toBeUndefined();
    expect(
      endOfSupportNotice(at('v1.33.2', true), {
        today: '2027-07-21',
        withinDays: 30,
      }),
    ).toEqual(
      expect.objectContaining({
        status: 'lts',
        until: '2027-07-31',
        severity: 'normal',
        title:
          'team-payments/payments-prod: Kubernetes 1.33 leaves AKS long-term support on Jul 31, 2027 (in 10 days)',
      }),
    );
    // Past its LTS: platform support only, at once.
    expect(
      endOfSupportNotice(at('v1.30.1', true), {
        today: '2026-08-01',
        withinDays: 30,
      })?.severity,
    ).toBe('high');
  });
});

describe('readEndOfSupportWithinDays', () => {
  const read = (v?: unknown) =>
    readEndOfSupportWithinDays(
      new ConfigReader(
        v === undefined
          ? {}
          : { capz: { notifications: { endOfSupportWithin: v } } },
      ),
    );
  it('reads days (default 30), and zero as off', () => {
    expect(read()).toBe(30);
    expect(read({ days: 12 })).toBe(12);
    expect(read('P2W')).toBe(14);
    expect(read({ hours: 36 })).toBe(2);
    expect(read({ days: 0 })).toBeUndefined();
    expect(read('0d')).toBeUndefined();
    expect(() => read({ days: -1 })).toThrow(/positive/);
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
  kubernetesVersion: 'v1.33.2',
  ...over,
});

function world() {
  const sent: Parameters<NotificationService['send']>[0][] = [];
  let failing = false;
  const notifications: NotificationService = {
    send: async n => {
      if (failing)
        throw new Error('the notifications backend is not installed');
      sent.push(n);
    },
  };
  let clusters: ClusterSummary[] = [summary()];
  let synced = true;
  return {
    sent,
    notifications,
    set: (c: ClusterSummary[]) => {
      clusters = c;
    },
    version: (kubernetesVersion: string) => {
      clusters = [summary({ kubernetesVersion })];
    },
    sync: (s: boolean) => {
      synced = s;
    },
    fail: (f: boolean) => {
      failing = f;
    },
    source: { clusters: () => clusters, synced: () => synced },
  };
}

describe.each(databases.eachSupportedId())('EndOfSupportNotices on %p', id => {
  async function setUp() {
    const knex = await migratedDatabase(databases, id);
    const w = world();
    /** `null`: no notifications service. */
    const notices = (
      notifications: NotificationService | null = w.notifications,
      owners?: CatalogOwners,
    ) =>
      new EndOfSupportNotices({
        db: knex,
        source: w.source,
        ...(notifications ? { notifications } : {}),
        logger: mockServices.logger.mock(),
        withinDays: 30,
        ...(owners ? { owners } : {}),
      });
    return { knex, w, notices };
  }

  it("tells the cluster entity's owners once per stage, across days and restarts, and nothing after an upgrade", async () => {
    const { w, notices } = await setUp();
    expect(await notices().check(noon('2026-06-30'))).toBe(0);
    expect(await notices().check(noon('2026-07-19'))).toBe(1);
    // The next days, and a restarted backend (a new instance on the same database): nothing more.
    expect(await notices().check(noon('2026-07-19') + 3600_000)).toBe(0);
    expect(await notices().check(noon('2026-07-20'))).toBe(0);
    expect(await notices().check(noon('2026-07-31'))).toBe(0);
    expect(w.sent).toEqual([
      {
        recipients: {
          type: 'entity',
          entityRef: 'resource:default/local-team-payments-payments-prod',
        },
        payload: expect.objectContaining({
          title:
            'team-payments/payments-prod: Kubernetes 1.33 leaves AKS community support on Jul 31, 2026 (in 12 days)',
          severity: 'normal',
          topic: LIFECYCLE_NOTIFICATION_TOPIC,
          link: '/capz/clusters/local/team-payments/payments-prod',
        }),
      },
    ]);
    // Not upgraded: platform support only is the next stage, a new notification.
    expect(await notices().check(noon('2026-08-01'))).toBe(1);
    expect(await notices().check(noon('2026-08-02'))).toBe(0);
    expect(w.sent).toHaveLength(2);
    expect(w.sent[1].payload).toEqual(
      expect.objectContaining({ severity: 'high' }),
    );
    expect(w.sent[1].payload.title).toMatch(/platform support only/);
    expect(w.sent[1].payload.scope).not.toBe(w.sent[0].payload.scope);

    // Upgraded to 1.34 (supported until 2026-11-30): nothing more, until its own window opens.
    w.version('v1.34.1');
    expect(await notices().check(noon('2026-08-03'))).toBe(0);
    expect(await notices().check(noon('2026-10-30'))).toBe(0);
    expect(w.sent).toHaveLength(2);
    expect(await notices().check(noon('2026-10-31'))).toBe(1);
    expect(w.sent[2].payload.title).toMatch(/Kubernetes 1\.34 leaves/);
  });

  it('tells once with two replicas scanning the same database at once', async () => {
    const { w, notices } = await setUp();
    const [a, b] = [notices(), notices()];
    const counts = await Promise.all([
      a.check(noon('2026-07-19')),
      b.check(noon('2026-07-19')),
    ]);
    expect(counts.sort()).toEqual([0, 1]);
    await Promise.all([
      a.check(noon('2026-07-20')),
      b.check(noon('2026-07-20')),
    ]);
    expect(w.sent).toHaveLength(1);
  });

  it("waits for the catalog to hold the cluster's entity, and tells when the catalog cannot be asked", async () => {
    const { w, notices } = await setUp();
    let inCatalog = false;
    const e = notices(w.notifications, async refs =>
      refs.map(() => (inCatalog ? {} : undefined)),
    );
    // Said waiting, so the schedule looks again sooner than the hour.
    expect(await e.scan(noon('2026-07-19'))).toEqual({ told: 0, waiting: 1 });
    expect(await e.check(noon('2026-07-20'))).toBe(0);
    inCatalog = true;
    expect(await e.scan(noon('2026-07-20') + 3600_000)).toEqual({
      told: 1,
      waiting: 0,
    });
    // Told the day it could be, of the same stage (its window opened two days before).
    expect(w.sent[0].payload.title).toMatch(/\(in 11 days\)$/);

    const { w: w2, notices: notices2 } = await setUp();
    const away = notices2(w2.notifications, async () => {
      throw new Error('connect ECONNREFUSED');
    });
    expect(await away.check(noon('2026-07-19'))).toBe(1);
  });

  it('tries again after a failed send, tells nothing without the notifications service, and waits for a synced cache', async () => {
    const { w, notices, knex } = await setUp();
    expect(await notices(null).check(noon('2026-07-19'))).toBe(0);
    w.sync(false);
    expect(await notices().check(noon('2026-07-19'))).toBe(0);
    w.sync(true);
    w.fail(true);
    expect(await notices().check(noon('2026-07-19'))).toBe(0);
    w.fail(false);
    expect(await notices().check(noon('2026-07-19') + DAY / 24)).toBe(1);
    expect(await notices().check(noon('2026-07-20'))).toBe(0);
    expect(w.sent).toHaveLength(1);

    // A cluster deleted: its notices go once its management cluster's cache is synced (a restart's is not yet).
    w.set([]);
    w.sync(false);
    await notices().check(noon('2026-07-21'));
    expect(
      await knex('capz_end_of_support_notices').select('minor', 'status'),
    ).toEqual([{ minor: '1.33', status: 'community' }]);
    w.sync(true);
    await notices().check(noon('2026-07-22'));
    expect(await knex('capz_end_of_support_notices').select()).toEqual([]);
  });

  it('tells each owner once of all their clusters due, in one notification that names them', async () => {
    const { w, notices } = await setUp();
    w.set([
      ...['a', 'b', 'c'].map((n, i) =>
        summary({
          name: `payments-${n}`,
          uid: `uid-${n}`,
          kubernetesVersion: i === 2 ? '1.29.4' : 'v1.33.2',
        }),
      ),
      summary({ namespace: 'team-search', name: 'search-prod', uid: 'uid-s' }),
    ]);
    const asked: number[] = [];
    const e = notices(w.notifications, async refs => {
      asked.push(refs.length);
      return refs.map(r => ({
        owner: r.includes('team-search')
          ? 'group:default/search'
          : 'group:default/payments',
      }));
    });
    expect(await e.check(noon('2026-07-19'))).toBe(4);
    expect(asked).toEqual([4]);
    expect(w.sent).toHaveLength(2);
    const [payments, search] = w.sent;
    expect(payments.recipients).toEqual({
      type: 'entity',
      entityRef: 'group:default/payments',
    });
    expect(payments.payload).toEqual(
      expect.objectContaining({
        title:
          '3 of your clusters need a Kubernetes upgrade for AKS support (1 out of support, 2 leaving community support)',
        severity: 'high',
        link: '/capz?attention=any',
        topic: LIFECYCLE_NOTIFICATION_TOPIC,
      }),
    );
    expect(payments.payload.description).toContain(
      'team-payments/payments-a: Kubernetes 1.33 leaves AKS community support on Jul 31, 2026 (in 12 days).',
    );
    expect(payments.payload.description).toContain(
      'team-payments/payments-c: Kubernetes 1.29 is out of AKS support.',
    );
    // One cluster of its owner: its own notice, as before.
    expect(search.recipients).toEqual({
      type: 'entity',
      entityRef: 'resource:default/local-team-search-search-prod',
    });
    expect(search.payload.title).toMatch(
      /^team-search\/search-prod: Kubernetes 1\.33 leaves AKS community support/,
    );
    expect(search.payload.link).toBe(
      '/capz/clusters/local/team-search/search-prod',
    );
    expect(await e.check(noon('2026-07-20'))).toBe(0);
    expect(w.sent).toHaveLength(2);
  });

  it('asks the catalog 500 entities at a time, and tells a digest whose send failed again, whole, in the next scan', async () => {
    const { w, notices, knex } = await setUp();
    w.set(
      Array.from({ length: 1201 }, (_, i) =>
        summary({ name: `c-${i}`, uid: `uid-${i}` }),
      ),
    );
    const asked: number[] = [];
    const e = notices(w.notifications, async refs => {
      asked.push(refs.length);
      return refs.map(() => ({ owner: 'group:default/payments' }));
    });
    w.fail(true);
    expect(await e.check(noon('2026-07-19'))).toBe(0);
    expect(asked).toEqual([500, 500, 201]);
    expect(
      await knex('capz_end_of_support_notices').whereNull('notified_at'),
    ).toHaveLength(1201);
    w.fail(false);
    expect(await e.check(noon('2026-07-19') + 3600_000)).toBe(1201);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0].payload.title).toMatch(/^1201 of your clusters need/);
    expect(w.sent[0].payload.description).toMatch(/\. And 1181 more\. /);
    // One small request whatever the digest's size: the owner, not 1,201 references.
    expect(w.sent[0].recipients).toEqual({
      type: 'entity',
      entityRef: 'group:default/payments',
    });
    expect(await e.check(noon('2026-07-20'))).toBe(0);
    expect(w.sent).toHaveLength(1);
  });
});

describe('scheduleEndOfSupportNotifications', () => {
  it('scans on one replica at a time, every hour, and at once after a management cluster is first listed', async () => {
    const scheduler = mockServices.scheduler.mock();
    let listed: (() => void) | undefined;
    await scheduleEndOfSupportNotifications({
      scheduler,
      notices: { scan: jest.fn(async () => ({ told: 1, waiting: 0 })) },
      logger: mockServices.logger.mock(),
      whenListed: run => {
        listed = run;
      },
    });
    expect(scheduler.scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({
        id: 'capz-end-of-support-notifications',
        scope: 'global',
        frequency: { hours: 1 },
        initialDelay: { minutes: 1 },
      }),
    );
    expect(scheduler.triggerTask).not.toHaveBeenCalled();
    listed!();
    await new Promise(resolve => setImmediate(resolve));
    expect(scheduler.triggerTask).toHaveBeenCalledWith(
      'capz-end-of-support-notifications',
    );
    // A scan already running: the trigger's refusal is no failure.
    scheduler.triggerTask.mockRejectedValueOnce(
      new Error('task is currently running'),
    );
    listed!();
    await new Promise(resolve => setImmediate(resolve));
    expect(scheduler.triggerTask).toHaveBeenCalledTimes(2);
  });
});

describe('scheduleEndOfSupportNotifications while notices wait for the catalog', () => {
  afterEach(() => jest.useRealTimers());

  it('scans again after 2, 4, 8, 16 and 32 minutes, then hourly; more clusters waiting start the retries again', async () => {
    jest.useFakeTimers();
    const scheduler = mockServices.scheduler.mock();
    const waiting = [3, 3, 3, 3, 3, 3, 3, 5, 0];
    const scan = jest.fn(async () => ({ told: 0, waiting: waiting.shift()! }));
    await scheduleEndOfSupportNotifications({
      scheduler,
      notices: { scan },
      logger: mockServices.logger.mock(),
    });
    const run = scheduler.scheduleTask.mock.calls[0][0]
      .fn as () => Promise<void>;
    /** Runs a scan, then says after how many minutes it asked for the next one (undefined: none before the hour). */
    const next = async () => {
      await run();
      scheduler.triggerTask.mockClear();
      for (let minute = 1; minute <= 60; minute++) {
        await jest.advanceTimersByTimeAsync(60_000);
        const [asked] = scheduler.triggerTask.mock.calls;
        if (asked)
          return asked[0] === 'capz-end-of-support-notifications'
            ? minute
            : asked[0];
      }
      return undefined;
    };
    expect(await next()).toBe(2);
    expect(await next()).toBe(4);
    expect(await next()).toBe(8);
    expect(await next()).toBe(16);
    expect(await next()).toBe(32);
    // The same three still waiting (entities that do not come): the hourly scan only.
    expect(await next()).toBeUndefined();
    expect(await next()).toBeUndefined();
    // Two more clusters waiting: looked at again soon.
    expect(await next()).toBe(2);
    // Nothing waits: no retry.
    expect(await next()).toBeUndefined();
    expect(scan).toHaveBeenCalledTimes(9);
  });

  it('drops a pending retry when a scan runs before it (the hourly one, or after a first list)', async () => {
    jest.useFakeTimers();
    const scheduler = mockServices.scheduler.mock();
    const waiting = [4, 0];
    await scheduleEndOfSupportNotifications({
      scheduler,
      notices: { scan: async () => ({ told: 0, waiting: waiting.shift()! }) },
      logger: mockServices.logger.mock(),
    });
    const run = scheduler.scheduleTask.mock.calls[0][0]
      .fn as () => Promise<void>;
    await run();
    await jest.advanceTimersByTimeAsync(60_000);
    await run();
    await jest.advanceTimersByTimeAsync(60 * 60_000);
    expect(scheduler.triggerTask).not.toHaveBeenCalled();
  });
});
