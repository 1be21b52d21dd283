import { resolvePackagePath } from '@backstage/backend-plugin-api';
import { mockServices } from '@backstage/backend-test-utils';
import { DatabaseHistoryStore } from './DatabaseHistoryStore';
import { DeletionRow, EventRow, TransitionRow } from './HistoryStore';
import { postgresId, storeDatabases } from '../testing/storeDatabases';

const migrationsDir = resolvePackagePath(
  '@capz-backstage/plugin-capz-backend',
  'migrations',
);
const databases = storeDatabases();

if (process.env.CI) {
  // In CI a missing PostgreSQL must fail, not quietly leave the store untested on it.
  it(`has ${postgresId} to test on`, () => {
    expect(databases.supports(postgresId)).toBe(true);
  });
}

const MC = 'local';
const NS = 'team-a';

/** The object every row is about unless told otherwise: ResourceGroup payments (rg-uid) of cluster payments. */
const paymentsGroup = {
  managementCluster: MC,
  namespace: NS,
  clusterName: 'payments',
  objectUid: 'rg-uid',
  kind: 'ResourceGroup',
  name: 'payments',
};

/** A transition; it occurred at its transition time unless told otherwise. */
function transition(overrides: Partial<TransitionRow> = {}): TransitionRow {
  return {
    ...paymentsGroup,
    conditionType: 'Ready',
    status: 'False',
    reason: 'Reconciling',
    severity: 'Info',
    message: 'working on it',
    transitionTime: '2026-11-20T10:00:00.000Z',
    firstSeen: '2026-11-20T10:00:00.500Z',
    exactTime: true,
    ...overrides,
    occurredAt:
      overrides.occurredAt ??
      overrides.transitionTime ??
      '2026-11-20T10:00:00.000Z',
  };
}

function event(overrides: Partial<EventRow> = {}): EventRow {
  return {
    ...paymentsGroup,
    eventUid: 'ev-1',
    type: 'Warning',
    reason: 'SecretNotFound',
    message: 'secret missing',
    count: 1,
    firstTimestamp: '2026-11-20T10:00:00.000Z',
    lastTimestamp: '2026-11-20T10:00:00.000Z',
    source: 'aso-controller',
    ...overrides,
  };
}

/** A deletion. */
function deletion(overrides: Partial<DeletionRow> = {}): DeletionRow {
  return {
    ...paymentsGroup,
    deletedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

const range = {
  managementCluster: MC,
  namespace: NS,
  cluster: 'payments',
  from: new Date('2026-11-20T00:00:00Z'),
  to: new Date('2026-11-21T00:00:00Z'),
  limit: 100,
};

describe.each(databases.eachSupportedId())(
  'DatabaseHistoryStore on %p',
  databaseId => {
    async function createStore() {
      const knex = await databases.init(databaseId);
      const database = mockServices.database({
        knex,
        migrations: { skip: false },
      });
      return { knex, store: await DatabaseHistoryStore.create({ database }) };
    }

    it('migrates up and down', async () => {
      const { knex } = await createStore();
      expect(await knex.schema.hasTable('capz_condition_transitions')).toBe(
        true,
      );
      expect(await knex.schema.hasTable('capz_events')).toBe(true);
      expect(await knex.schema.hasTable('capz_object_deletions')).toBe(true);
      // The newest migration on its own: a health digest's first severity, and down without it.
      expect(
        await knex.schema.hasColumn('capz_health_digests', 'severity'),
      ).toBe(true);
      await knex.migrate.down({ directory: migrationsDir });
      expect(
        await knex.schema.hasColumn('capz_health_digests', 'severity'),
      ).toBe(false);
      expect(
        await knex.schema.hasColumn('capz_health_digests', 'recovered'),
      ).toBe(true);
      await knex.migrate.rollback({ directory: migrationsDir }, true);
      expect(await knex.schema.hasTable('capz_condition_transitions')).toBe(
        false,
      );
      expect(await knex.schema.hasTable('capz_events')).toBe(false);
      expect(await knex.schema.hasTable('capz_object_deletions')).toBe(false);
    });

    it('returns the state each condition holds at the start of the range: its last transition before it', async () => {
      const { store } = await createStore();
      const hour = (h: number) =>
        `2026-11-20T${String(h).padStart(2, '0')}:00:00.000Z`;
      await store.recordTransitions([
        // The ManagedCluster went Degraded at 01:00 and stayed so; a reason change at 02:00.
        transition({
          objectUid: 'mc',
          status: 'True',
          reason: 'Succeeded',
          transitionTime: hour(0),
        }),
        transition({
          objectUid: 'mc',
          reason: 'Failed',
          severity: 'Error',
          transitionTime: hour(1),
        }),
        transition({
          objectUid: 'mc',
          reason: 'Stuck',
          severity: 'Error',
          transitionTime: hour(1),
          occurredAt: hour(2),
          exactTime: true,
        }),
        // Another condition of the same object, and another object, changed inside the range only.
        transition({
          objectUid: 'mc',
          conditionType: 'Deleting',
          status: 'False',
          transitionTime: hour(0),
        }),
        transition({
          objectUid: 'pool',
          status: 'True',
          transitionTime: hour(12),
        }),
        // An object deleted before the range holds no state in it.
        transition({
          objectUid: 'gone',
          status: 'True',
          transitionTime: hour(0),
        }),
        // Another cluster's object is not this cluster's.
        transition({
          objectUid: 'other',
          clusterName: 'other',
          transitionTime: hour(0),
        }),
      ]);
      await store.recordDeletions([
        deletion({ objectUid: 'gone', name: 'gone', deletedAt: hour(3) }),
      ]);
      const at10 = await store.timeline({
        ...range,
        from: new Date(hour(10)),
        to: new Date(hour(14)),
      });
      expect(
        at10.initial.map(t => [
          t.objectUid,
          t.conditionType,
          t.status,
          t.reason,
        ]),
      ).toEqual([
        ['mc', 'Deleting', 'False', 'Reconciling'],
        ['mc', 'Ready', 'False', 'Stuck'],
      ]);
      expect(at10.transitions.map(t => t.objectUid)).toEqual(['pool']);
      expect(at10.deletions).toEqual([]);
      // Before the deletion the deleted object held its state; one object only with `objectUid`.
      const at2 = await store.timeline({
        ...range,
        from: new Date(hour(2)),
        to: new Date(hour(4)),
        objectUid: 'gone',
      });
      expect(at2.initial.map(t => [t.objectUid, t.status])).toEqual([
        ['gone', 'True'],
      ]);
      expect(at2.deletions).toEqual([
        {
          objectUid: 'gone',
          kind: 'ResourceGroup',
          name: 'gone',
          deletedAt: hour(3),
        },
      ]);
    });

    it('records a deletion once and prunes it with the rest', async () => {
      const { store } = await createStore();
      await store.recordDeletions([deletion()]);
      // A second replica, or a replayed watch, seeing the same delete later.
      await store.recordDeletions([
        deletion({ deletedAt: '2026-11-20T10:00:05.000Z' }),
      ]);
      expect((await store.timeline(range)).deletions).toEqual([
        {
          objectUid: 'rg-uid',
          kind: 'ResourceGroup',
          name: 'payments',
          deletedAt: '2026-11-20T10:00:00.000Z',
        },
      ]);
      expect(await store.prune(new Date('2026-11-21T00:00:00Z'))).toEqual({
        transitions: 0,
        events: 0,
        deletions: 1,
      });
    });

    it('stores transitions and returns them oldest first, with every field', async () => {
      const { store } = await createStore();
      const ready = transition({
        status: 'True',
        reason: 'Succeeded',
        severity: undefined,
        message: undefined,
        transitionTime: '2026-11-20T10:05:00.000Z',
        firstSeen: '2026-11-20T10:05:01.000Z',
      });
      expect(await store.recordTransitions([transition(), ready])).toHaveLength(
        2,
      );
      const timeline = await store.timeline(range);
      expect(timeline).toEqual({
        from: '2026-11-20T00:00:00.000Z',
        to: '2026-11-21T00:00:00.000Z',
        initial: [],
        deletions: [],
        transitions: [
          {
            objectUid: 'rg-uid',
            kind: 'ResourceGroup',
            name: 'payments',
            conditionType: 'Ready',
            status: 'False',
            reason: 'Reconciling',
            severity: 'Info',
            message: 'working on it',
            transitionTime: '2026-11-20T10:00:00.000Z',
            firstSeen: '2026-11-20T10:00:00.500Z',
          },
          {
            objectUid: 'rg-uid',
            kind: 'ResourceGroup',
            name: 'payments',
            conditionType: 'Ready',
            status: 'True',
            reason: 'Succeeded',
            transitionTime: '2026-11-20T10:05:00.000Z',
            firstSeen: '2026-11-20T10:05:01.000Z',
          },
        ],
        events: [],
        truncated: false,
      });
    });

    it('is idempotent: re-observing the latest state (a restart, a second replica) writes nothing', async () => {
      const { knex, store } = await createStore();
      await store.recordTransitions([transition()]);
      expect(
        await store.recordTransitions([
          transition({ firstSeen: '2026-11-20T11:00:00.000Z' }),
        ]),
      ).toEqual([]);
      // Two replicas racing past the latest-state check still collide on the key.
      const other = await DatabaseHistoryStore.create({
        database: mockServices.database({ knex, migrations: { skip: true } }),
      });
      const next = transition({
        status: 'True',
        reason: 'Succeeded',
        transitionTime: '2026-11-20T10:05:00.000Z',
      });
      await Promise.all([
        store.recordTransitions([next]),
        other.recordTransitions([next]),
      ]);
      expect(
        (await store.timeline(range)).transitions.map(t => t.reason),
      ).toEqual(['Reconciling', 'Succeeded']);
    });

    it('records a state that comes back (A, B, A) even with the same condition time', async () => {
      const { store } = await createStore();
      const waiting = transition({
        reason: 'WaitingForOwner',
        severity: 'Warning',
      });
      // Reason-only changes: Kubernetes keeps lastTransitionTime, the backend saw them later.
      const reconciling = transition({
        occurredAt: '2026-11-20T10:01:00.000Z',
        firstSeen: '2026-11-20T10:01:00.000Z',
      });
      const waitingAgain = transition({
        reason: 'WaitingForOwner',
        severity: 'Warning',
        occurredAt: '2026-11-20T10:02:00.000Z',
        firstSeen: '2026-11-20T10:02:00.000Z',
      });
      await store.recordTransitions([waiting, reconciling]);
      expect(await store.recordTransitions([waitingAgain])).toHaveLength(1);
      expect(
        (await store.timeline(range)).transitions.map(t => t.reason),
      ).toEqual(['WaitingForOwner', 'Reconciling', 'WaitingForOwner']);
    });

    it('drops a re-observed synthetic state whose estimated time moved, but keeps a real condition that flipped meanwhile', async () => {
      const { store } = await createStore();
      const synthetic = transition({
        objectUid: 'cp-uid',
        kind: 'AzureASOManagedControlPlane',
        reason: 'Ready',
        status: 'True',
        severity: undefined,
        message: undefined,
        exactTime: false,
      });
      await store.recordTransitions([synthetic, transition()]);
      const later = {
        transitionTime: '2026-11-20T12:00:00.000Z',
        firstSeen: '2026-11-20T12:00:01.000Z',
      };
      const written = await store.recordTransitions([
        { ...synthetic, ...later },
        transition(later),
      ]);
      expect(written.map(t => t.objectUid)).toEqual(['rg-uid']);
    });

    it('filters by management cluster, namespace, cluster, object and time range', async () => {
      const { store } = await createStore();
      await store.recordTransitions([
        transition(),
        transition({
          objectUid: 'mc-uid',
          kind: 'ManagedCluster',
          transitionTime: '2026-11-20T10:01:00.000Z',
        }),
        transition({ clusterName: 'search', objectUid: 'other-uid' }),
        transition({ namespace: 'team-b', objectUid: 'b-uid' }),
        transition({ managementCluster: 'other', objectUid: 'o-uid' }),
        transition({ clusterName: undefined, objectUid: 'orphan-uid' }),
        transition({
          objectUid: 'old-uid',
          transitionTime: '2026-11-19T10:00:00.000Z',
        }),
      ]);
      await store.recordEvents([
        event(),
        event({
          eventUid: 'ev-2',
          objectUid: 'mc-uid',
          kind: 'ManagedCluster',
        }),
        event({ eventUid: 'ev-3', clusterName: 'search' }),
      ]);
      const all = await store.timeline(range);
      expect(all.transitions.map(t => t.objectUid)).toEqual([
        'rg-uid',
        'mc-uid',
      ]);
      expect(all.events.map(e => e.objectUid).sort()).toEqual([
        'mc-uid',
        'rg-uid',
      ]);
      const one = await store.timeline({ ...range, objectUid: 'mc-uid' });
      expect(one.transitions.map(t => t.objectUid)).toEqual(['mc-uid']);
      expect(one.events.map(e => e.objectUid)).toEqual(['mc-uid']);
      const window = await store.timeline({
        ...range,
        from: new Date('2026-11-20T10:00:30Z'),
        to: new Date('2026-11-20T10:02:00Z'),
      });
      expect(window.transitions.map(t => t.objectUid)).toEqual(['mc-uid']);
      expect(window.events).toEqual([]);
    });

    it('orders by when each change occurred, not by the condition time a reason-only change keeps', async () => {
      const { store } = await createStore();
      await store.recordTransitions([
        transition({ objectUid: 'c', occurredAt: '2026-11-20T10:03:00.000Z' }),
        transition({
          objectUid: 'b',
          transitionTime: '2026-11-20T10:02:00.000Z',
        }),
        transition({
          objectUid: 'a',
          transitionTime: '2026-11-20T10:00:00.000Z',
          occurredAt: '2026-11-20T10:01:00.000Z',
        }),
      ]);
      const { transitions } = await store.timeline(range);
      expect(transitions.map(t => [t.objectUid, t.transitionTime])).toEqual([
        ['a', '2026-11-20T10:00:00.000Z'],
        ['b', '2026-11-20T10:02:00.000Z'],
        ['c', '2026-11-20T10:00:00.000Z'],
      ]);
    });

    it('keeps the newest rows when the limit cuts, and says so', async () => {
      const { store } = await createStore();
      const rows = [0, 1, 2, 3, 4].map(i =>
        transition({
          objectUid: `o${i}`,
          transitionTime: `2026-11-20T10:0${i}:00.000Z`,
        }),
      );
      await store.recordTransitions(rows);
      await store.recordEvents(
        [0, 1, 2].map(i =>
          event({
            eventUid: `e${i}`,
            lastTimestamp: `2026-11-20T10:0${i}:00.000Z`,
          }),
        ),
      );
      const cut = await store.timeline({ ...range, limit: 3 });
      expect(cut.transitions.map(t => t.objectUid)).toEqual(['o2', 'o3', 'o4']);
      expect(cut.events).toHaveLength(3);
      expect(cut.truncated).toBe(true);
      const whole = await store.timeline({ ...range, limit: 5 });
      expect(whole.transitions).toHaveLength(5);
      expect(whole.truncated).toBe(false);
    });

    it('upserts Events by uid: count, last timestamp and message follow; a known Cluster is kept', async () => {
      const { store } = await createStore();
      await store.recordEvents([event()]);
      await store.recordEvents([
        event({
          count: 2,
          lastTimestamp: '2026-11-20T10:01:00.000Z',
          message: 'still missing',
        }),
        event({
          count: 3,
          lastTimestamp: '2026-11-20T10:02:00.000Z',
          message: 'still missing',
          clusterName: undefined,
        }),
      ]);
      expect((await store.timeline(range)).events).toEqual([
        {
          objectUid: 'rg-uid',
          kind: 'ResourceGroup',
          name: 'payments',
          type: 'Warning',
          reason: 'SecretNotFound',
          message: 'still missing',
          count: 3,
          firstTimestamp: '2026-11-20T10:00:00.000Z',
          lastTimestamp: '2026-11-20T10:02:00.000Z',
          source: 'aso-controller',
        },
      ]);
    });

    it('writes thousands of rows in a few statements', async () => {
      const { knex, store } = await createStore();
      const rows = Array.from({ length: 3000 }, (_, i) =>
        transition({ objectUid: `uid-${i}` }),
      );
      const statements: string[] = [];
      knex.on('query', (q: { sql: string }) =>
        statements.push(q.sql.split(' ')[0].toLowerCase()),
      );
      expect(await store.recordTransitions(rows)).toHaveLength(3000);
      expect(await store.recordTransitions(rows)).toEqual([]);
      // One insert per 500 rows, one read of the latest states per 500 rows; the second pass only reads.
      expect(statements.filter(s => s === 'insert')).toHaveLength(6);
      expect(statements.filter(s => s === 'select')).toHaveLength(12);
      expect(
        (await store.timeline({ ...range, limit: 20000 })).transitions,
      ).toHaveLength(3000);
    });

    it('prunes what is older than the retention, but keeps the state a living object still holds', async () => {
      const { store } = await createStore();
      await store.recordTransitions([
        transition({
          objectUid: 'old',
          transitionTime: '2026-10-01T00:00:00.000Z',
        }),
        transition({
          objectUid: 'old',
          status: 'True',
          reason: 'Succeeded',
          transitionTime: '2026-10-02T00:00:00.000Z',
        }),
        transition({
          objectUid: 'gone',
          transitionTime: '2026-10-01T00:00:00.000Z',
        }),
        transition({ objectUid: 'new' }),
      ]);
      await store.recordDeletions([
        deletion({
          objectUid: 'gone',
          name: 'gone',
          deletedAt: '2026-10-03T00:00:00.000Z',
        }),
      ]);
      await store.recordEvents([
        event({
          eventUid: 'old',
          lastTimestamp: '2026-10-01T00:00:00.000Z',
          firstTimestamp: '2026-10-01T00:00:00.000Z',
        }),
        event(),
      ]);
      expect(await store.prune(new Date('2026-11-01T00:00:00Z'))).toEqual({
        transitions: 2,
        events: 1,
        deletions: 1,
      });
      const all = await store.timeline({
        ...range,
        from: new Date('2026-01-01T00:00:00Z'),
      });
      expect(all.transitions.map(t => [t.objectUid, t.reason])).toEqual([
        ['old', 'Succeeded'],
        ['new', 'Reconciling'],
      ]);
      // The object unchanged since October is still drawn in a range of November.
      expect(
        (await store.timeline(range)).initial.map(t => [t.objectUid, t.status]),
      ).toEqual([['old', 'True']]);
      expect(all.events).toHaveLength(1);
    });
  },
);
