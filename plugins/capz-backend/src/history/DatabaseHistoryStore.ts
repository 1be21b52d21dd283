import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import {
  ConditionTransition,
  ObjectDeletion,
  TimelineEvent,
  TimelineResponse,
} from '@capz-backstage/plugin-capz-common';
import { Knex } from 'knex';
import { createHash } from 'node:crypto';
import {
  DeletionRow,
  EventRow,
  HistoryStore,
  TimelineQuery,
  TransitionRow,
} from './HistoryStore';

const migrationsDir = resolvePackagePath(
  '@capz-backstage/plugin-capz-backend',
  'migrations',
);

const TRANSITIONS = 'capz_condition_transitions';
const EVENTS = 'capz_events';
const DELETIONS = 'capz_object_deletions';
/** Rows per statement: far below the bind-parameter limits of SQLite (32766) and PostgreSQL (65535). */
const CHUNK = 500;

interface TransitionDbRow {
  id: string | number;
  transition_key: string;
  state_key: string;
  management_cluster: string;
  namespace: string;
  cluster_name: string | null;
  object_uid: string;
  kind: string;
  name: string;
  condition_type: string;
  status: string;
  reason: string | null;
  severity: string | null;
  message: string | null;
  transition_time: Date | string | number;
  first_seen: Date | string | number;
  occurred_at: Date | string | number;
}

interface DeletionDbRow {
  object_uid: string;
  kind: string;
  name: string;
  deleted_at: Date | string | number;
}

interface EventDbRow {
  id: string | number;
  event_uid: string;
  involved_uid: string;
  involved_kind: string;
  involved_name: string;
  type: string;
  reason: string | null;
  message: string | null;
  count: number | string;
  first_timestamp: Date | string | number;
  last_timestamp: Date | string | number;
  source: string | null;
}

/** SQLite returns timestamps as epoch milliseconds (knex binds Dates as numbers there), PostgreSQL as Dates. */
const toIso = (v: Date | string | number): string =>
  new Date(
    typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v,
  ).toISOString();

const chunks = <T>(items: T[], size = CHUNK): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size)
    out.push(items.slice(i, i + size));
  return out;
};

const sha256 = (v: unknown) =>
  createHash('sha256').update(JSON.stringify(v)).digest('hex');

/** One state of one condition of one object, with the condition's own time. */
const stateKey = (r: TransitionRow): string =>
  sha256([
    r.managementCluster,
    r.objectUid,
    r.conditionType,
    r.status,
    r.reason ?? null,
    r.severity ?? null,
    r.message ?? null,
    r.transitionTime,
  ]);

/**
 * The idempotency key of a transition: its state key and the key of the transition it follows. Re-observing a
 * state (a restart's initial list, a second backend replica) yields the same key; a state that comes back later
 * (A, B, A) yields a new one because it follows a different state.
 */
const transitionKey = (state: string, previous: string | undefined): string =>
  sha256([state, previous ?? null]);

const sameState = (a: TransitionDbRow, b: TransitionRow) =>
  a.status === b.status &&
  (a.reason ?? undefined) === b.reason &&
  (a.severity ?? undefined) === b.severity &&
  (a.message ?? undefined) === b.message;

/** The condition history in the plugin's database (SQLite in development, PostgreSQL in production). */
export class DatabaseHistoryStore implements HistoryStore {
  static async create(options: {
    database: DatabaseService;
    skipMigrations?: boolean;
  }): Promise<DatabaseHistoryStore> {
    const client = await options.database.getClient();
    if (!options.database.migrations?.skip && !options.skipMigrations) {
      await client.migrate.latest({ directory: migrationsDir });
    }
    return new DatabaseHistoryStore(client);
  }

  private constructor(private readonly db: Knex) {}

  async recordTransitions(rows: TransitionRow[]): Promise<TransitionRow[]> {
    const written: TransitionRow[] = [];
    for (const chunk of chunks(rows)) {
      const latest = await this.latestRows(chunk);
      const insert: Record<string, unknown>[] = [];
      for (const r of chunk) {
        const slot = `${r.managementCluster}\u0000${r.objectUid}\u0000${r.conditionType}`;
        const last = latest.get(slot);
        const state = stateKey(r);
        // Already the latest state: the same state and time, or (for conditions without a time of their own, whose
        // time is only an estimate) the same state.
        if (
          last &&
          (last.state_key === state || (!r.exactTime && sameState(last, r)))
        )
          continue;
        const row = {
          transition_key: transitionKey(state, last?.transition_key),
          state_key: state,
          management_cluster: r.managementCluster,
          namespace: r.namespace,
          cluster_name: r.clusterName ?? null,
          object_uid: r.objectUid,
          kind: r.kind,
          name: r.name,
          condition_type: r.conditionType,
          status: r.status,
          reason: r.reason ?? null,
          severity: r.severity ?? null,
          message: r.message ?? null,
          transition_time: new Date(r.transitionTime),
          first_seen: new Date(r.firstSeen),
          occurred_at: new Date(r.occurredAt),
        };
        insert.push(row);
        written.push(r);
        latest.set(slot, { ...row, id: 0 } as unknown as TransitionDbRow);
      }
      if (insert.length) {
        await this.db(TRANSITIONS)
          .insert(insert)
          .onConflict('transition_key')
          .ignore();
      }
    }
    return written;
  }

  /** The latest stored row per (management cluster, object, condition) for the objects in `rows`. */
  private async latestRows(
    rows: TransitionRow[],
  ): Promise<Map<string, TransitionDbRow>> {
    const uids = [...new Set(rows.map(r => r.objectUid))];
    const found: TransitionDbRow[] = await this.db(TRANSITIONS).whereIn(
      'id',
      this.db(TRANSITIONS)
        .max('id')
        .whereIn('object_uid', uids)
        .groupBy('management_cluster', 'object_uid', 'condition_type'),
    );
    return new Map(
      found.map(r => [
        `${r.management_cluster}\u0000${r.object_uid}\u0000${r.condition_type}`,
        r,
      ]),
    );
  }

  async recordEvents(rows: EventRow[]): Promise<void> {
    // One row per Event: PostgreSQL refuses to update the same row twice in one statement.
    const byUid = new Map(
      rows.map(r => [`${r.managementCluster}\u0000${r.eventUid}`, r]),
    );
    for (const chunk of chunks([...byUid.values()])) {
      await this.db(EVENTS)
        .insert(
          chunk.map(r => ({
            event_uid: r.eventUid,
            management_cluster: r.managementCluster,
            namespace: r.namespace,
            cluster_name: r.clusterName ?? null,
            involved_uid: r.objectUid,
            involved_kind: r.kind,
            involved_name: r.name,
            type: r.type,
            reason: r.reason ?? null,
            message: r.message ?? null,
            count: r.count,
            first_timestamp: new Date(r.firstTimestamp),
            last_timestamp: new Date(r.lastTimestamp),
            source: r.source ?? null,
          })),
        )
        .onConflict('event_uid')
        .merge({
          count: this.db.raw('excluded.count'),
          last_timestamp: this.db.raw('excluded.last_timestamp'),
          message: this.db.raw('excluded.message'),
          type: this.db.raw('excluded.type'),
          reason: this.db.raw('excluded.reason'),
          source: this.db.raw('excluded.source'),
          // An object may be matched to its Cluster only later; a known Cluster is never forgotten.
          cluster_name: this.db.raw(
            `coalesce(excluded.cluster_name, ${EVENTS}.cluster_name)`,
          ),
        });
    }
  }

  async recordDeletions(rows: DeletionRow[]): Promise<void> {
    for (const chunk of chunks(rows)) {
      await this.db(DELETIONS)
        .insert(
          chunk.map(r => ({
            management_cluster: r.managementCluster,
            namespace: r.namespace,
            cluster_name: r.clusterName ?? null,
            object_uid: r.objectUid,
            kind: r.kind,
            name: r.name,
            deleted_at: new Date(r.deletedAt),
          })),
        )
        .onConflict(['management_cluster', 'object_uid'])
        .ignore();
    }
  }

  async timeline(q: TimelineQuery): Promise<TimelineResponse> {
    const inCluster = (table: string) => {
      const query = this.db(table).where({
        management_cluster: q.managementCluster,
        namespace: q.namespace,
        cluster_name: q.cluster,
      });
      return q.objectUid
        ? query.where(
            table === EVENTS ? 'involved_uid' : 'object_uid',
            q.objectUid,
          )
        : query;
    };
    const scope = (table: string, timeColumn: string) =>
      inCluster(table)
        .where(timeColumn, '>=', q.from)
        .where(timeColumn, '<=', q.to);
    // Each condition's last transition before the range: the state it held when the range starts. Objects deleted
    // before the range are left out (they have no state then).
    const ranked = inCluster(TRANSITIONS)
      .select(`${TRANSITIONS}.*`)
      .select(
        this.db.raw(
          'row_number() over (partition by object_uid, condition_type order by occurred_at desc, id desc) as rank_in_lane',
        ),
      )
      .where('occurred_at', '<', q.from)
      .whereNotExists(
        this.db(DELETIONS)
          .select(this.db.raw('1'))
          .whereRaw(
            `${DELETIONS}.management_cluster = ${TRANSITIONS}.management_cluster`,
          )
          .whereRaw(`${DELETIONS}.object_uid = ${TRANSITIONS}.object_uid`)
          .where(`${DELETIONS}.deleted_at`, '<', q.from),
      );
    const initial: TransitionDbRow[] = await this.db
      .from(ranked.as('ranked'))
      .where('rank_in_lane', 1)
      .orderBy([
        { column: 'occurred_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ]);
    const deletions: DeletionDbRow[] = await scope(DELETIONS, 'deleted_at')
      .orderBy([
        { column: 'deleted_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(q.limit);
    // Newest first with one row more than asked, to know whether the limit cut rows; then oldest first.
    const transitions: TransitionDbRow[] = await scope(
      TRANSITIONS,
      'occurred_at',
    )
      .orderBy([
        { column: 'occurred_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit + 1);
    const events: EventDbRow[] = await scope(EVENTS, 'last_timestamp')
      .orderBy([
        { column: 'last_timestamp', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit + 1);
    return {
      from: q.from.toISOString(),
      to: q.to.toISOString(),
      initial: initial.map(toTransition),
      transitions: transitions.slice(0, q.limit).reverse().map(toTransition),
      deletions: deletions.map(toDeletion),
      events: events.slice(0, q.limit).reverse().map(toEvent),
      truncated: transitions.length > q.limit || events.length > q.limit,
    };
  }

  async prune(
    olderThan: Date,
  ): Promise<{ transitions: number; events: number; deletions: number }> {
    // Each condition's latest transition stays while its object lives: it is the state a later range starts with
    // (a cluster unchanged for longer than the retention is still drawn). A deleted object's go with the rest.
    const transitions = await this.db(TRANSITIONS)
      .where('occurred_at', '<', olderThan)
      .where(q =>
        q
          .whereNotIn(
            'id',
            this.db(TRANSITIONS)
              .max('id')
              .groupBy('management_cluster', 'object_uid', 'condition_type'),
          )
          .orWhereExists(
            this.db(DELETIONS)
              .select(this.db.raw('1'))
              .whereRaw(
                `${DELETIONS}.management_cluster = ${TRANSITIONS}.management_cluster`,
              )
              .whereRaw(`${DELETIONS}.object_uid = ${TRANSITIONS}.object_uid`),
          ),
      )
      .delete();
    const events = await this.db(EVENTS)
      .where('last_timestamp', '<', olderThan)
      .delete();
    const deletions = await this.db(DELETIONS)
      .where('deleted_at', '<', olderThan)
      .delete();
    return { transitions, events, deletions };
  }
}

function toTransition(r: TransitionDbRow): ConditionTransition {
  const t: ConditionTransition = {
    objectUid: r.object_uid,
    kind: r.kind,
    name: r.name,
    conditionType: r.condition_type,
    status: r.status as ConditionTransition['status'],
    transitionTime: toIso(r.transition_time),
    firstSeen: toIso(r.first_seen),
  };
  if (r.reason !== null) t.reason = r.reason;
  if (r.severity !== null) t.severity = r.severity;
  if (r.message !== null) t.message = r.message;
  return t;
}

function toDeletion(r: DeletionDbRow): ObjectDeletion {
  return {
    objectUid: r.object_uid,
    kind: r.kind,
    name: r.name,
    deletedAt: toIso(r.deleted_at),
  };
}

function toEvent(r: EventDbRow): TimelineEvent {
  const e: TimelineEvent = {
    objectUid: r.involved_uid,
    kind: r.involved_kind,
    name: r.involved_name,
    type: r.type,
    count: Number(r.count),
    firstTimestamp: toIso(r.first_timestamp),
    lastTimestamp: toIso(r.last_timestamp),
  };
  if (r.reason !== null) e.reason = r.reason;
  if (r.message !== null) e.message = r.message;
  if (r.source !== null) e.source = r.source;
  return e;
}
