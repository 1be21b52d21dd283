import { LoggerService } from '@backstage/backend-plugin-api';
import { ObservedObject } from '@capz-backstage/plugin-capz-common';
import { EventEmitter } from 'node:events';
import { CacheChange } from '../cluster/ClusterWatch';
import { WATCHED_KINDS } from '../cluster/watchedKinds';
import {
  conditionTransitions,
  eventOf,
  ObservedEvent,
  ObservedTransition,
} from './extract';
import { EventRow, HistoryStore, TransitionRow } from './HistoryStore';
import { ClusterMembership, ClusterRef, ObjectSource } from './membership';

/** The watch cache as the recorder sees it: its change stream and its objects. */
export interface ChangeSource extends ObjectSource {
  on(event: 'change', listener: (change: CacheChange) => void): unknown;
  off(event: 'change', listener: (change: CacheChange) => void): unknown;
  on(event: 'listed', listener: () => void): unknown;
  off(event: 'listed', listener: () => void): unknown;
  /** True while a management cluster's first list is under way (see WatchCache). */
  initialListing?(): boolean;
}

/** Emitted (`flush`) after a write, per namespace, so the live-update channel can say which timelines changed. */
export interface HistoryFlush {
  managementCluster: string;
  namespace: string;
  clusterNames: string[];
  /** The CAPI Clusters' uids (those known: a Cluster named only by a label may not be cached). */
  clusterUids: string[];
}

export interface ConditionRecorderOptions {
  cache: ChangeSource;
  store: HistoryStore;
  logger: LoggerService;
  /** How long changes gather before a write (default 1000 ms). */
  flushIntervalMs?: number;
  /** Write as soon as this many rows wait (default 1000), e.g. during the initial list. */
  maxBatchSize?: number;
  /** Rows kept while the database is failing; beyond it the oldest are dropped and logged (default 100000). */
  maxPending?: number;
  /** First retry delay after a failed write, doubled up to 60 s (default 1000 ms). */
  retryDelayMs?: number;
  clock?: () => Date;
}

interface PendingTransitions {
  managementCluster: string;
  object: ObservedObject;
  transitions: ObservedTransition[];
}
interface PendingEvent {
  managementCluster: string;
  event: ObservedEvent;
}

const RECORDED_KINDS = new Set(
  WATCHED_KINDS.map(k => k.name).filter(k => k !== 'Event'),
);

/**
 * Records condition transitions and Events from the watch cache's change stream into the {@link HistoryStore}.
 *
 * The watch is never blocked: a change is turned into rows synchronously (comparing with the last seen version of
 * the object, kept in memory) and queued; writes happen in batches every `flushIntervalMs`, or at once when
 * `maxBatchSize` rows wait, one write at a time. The initial list arrives as adds: the store drops the states it
 * already holds, so a restart writes nothing twice. A failed write is logged and retried with backoff; the rows
 * stay queued (up to `maxPending`).
 */
export class ConditionRecorder extends EventEmitter {
  private readonly membership: ClusterMembership;
  private readonly previous = new Map<string, ObservedObject>();
  /** The last Cluster each object was matched to: a deleted object keeps its Cluster until its rows are written. */
  private readonly clusterOf = new Map<string, ClusterRef>();
  private readonly deleted = new Set<string>();
  private transitions: PendingTransitions[] = [];
  private events: PendingEvent[] = [];
  private pendingRows = 0;
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private failures = 0;
  private stopped = false;
  private readonly onChange = (change: CacheChange) => this.observe(change);
  private readonly onListed = () => this.queued(0);
  private readonly flushIntervalMs: number;
  private readonly maxBatchSize: number;
  private readonly maxPending: number;
  private readonly retryDelayMs: number;
  private readonly clock: () => Date;

  constructor(private readonly options: ConditionRecorderOptions) {
    super();
    this.membership = new ClusterMembership(options.cache);
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.maxBatchSize = options.maxBatchSize ?? 1000;
    this.maxPending = options.maxPending ?? 100_000;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.clock = options.clock ?? (() => new Date());
  }

  start(): void {
    this.stopped = false;
    this.options.cache.on('change', this.onChange);
    this.options.cache.on('listed', this.onListed);
  }

  /** Stops listening and writes what is queued (once; a failure is logged). */
  async stop(): Promise<void> {
    this.options.cache.off('change', this.onChange);
    this.options.cache.off('listed', this.onListed);
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    if (this.pendingRows) await this.write();
  }

  /** Writes what is queued now, and waits for it; for tests and shutdown. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.pendingRows) await this.write();
  }

  private observe({
    managementCluster,
    kind,
    type,
    object,
  }: CacheChange): void {
    const now = this.clock();
    const namespace = object.metadata.namespace ?? '';
    if (kind === 'Event') {
      // An Event's expiry (delete) is not news: the history keeps it.
      if (type === 'delete') return;
      const event = eventOf(object, now);
      if (!event || !RECORDED_KINDS.has(event.kind)) return;
      this.events.push({ managementCluster, event });
      this.queued(1);
      return;
    }
    if (!RECORDED_KINDS.has(kind)) return;
    this.membership.invalidate(managementCluster, namespace);
    const key = `${managementCluster}/${object.metadata.uid}`;
    if (type === 'delete') {
      this.previous.delete(key);
      this.deleted.add(key);
      return;
    }
    const observed = { ...object, kind: object.kind ?? kind } as ObservedObject;
    const transitions = conditionTransitions(
      this.previous.get(key),
      observed,
      now,
    );
    this.previous.set(key, observed);
    this.deleted.delete(key);
    if (!transitions.length) return;
    this.transitions.push({ managementCluster, object: observed, transitions });
    this.queued(transitions.length);
  }

  private queued(rows: number): void {
    this.pendingRows += rows;
    // During a first list, rows wait for its end (`listed`): writing them meanwhile would resolve their Clusters
    // against a half-filled cache, rebuilding every tree of each namespace again as each kind arrives.
    const listing = this.options.cache.initialListing?.() === true;
    // The cap is for a failing database (maxPending): rows held for a first list are written, not dropped.
    if (this.pendingRows > this.maxPending && this.failures > 0 && !listing)
      this.dropOldest();
    if (this.stopped || this.writing || listing) return;
    // A full batch goes out at once, except while the database is failing: then the retry timer paces the writes.
    if (this.pendingRows >= this.maxBatchSize && this.failures === 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      void this.write();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.write();
      }, this.flushIntervalMs);
    }
  }

  private dropOldest(): void {
    let dropped = 0;
    while (
      this.pendingRows > this.maxPending &&
      (this.transitions.length || this.events.length)
    ) {
      const t = this.transitions.shift();
      const n = t ? t.transitions.length : (this.events.shift(), 1);
      this.pendingRows -= n;
      dropped += n;
    }
    this.options.logger.warn(
      `condition history: ${dropped} queued row(s) dropped, the database has been failing`,
    );
  }

  private write(): Promise<void> {
    const run = this.writeOnce().finally(() => {
      this.writing = undefined;
      // What gathered while writing goes out with the next interval (or now, if it is already a full batch).
      if (this.pendingRows && !this.stopped && !this.timer) this.queued(0);
    });
    this.writing = run;
    return run;
  }

  private async writeOnce(): Promise<void> {
    const transitions = this.transitions;
    const events = this.events;
    this.transitions = [];
    this.events = [];
    const rows = this.pendingRows;
    this.pendingRows = 0;
    const deleted = [...this.deleted];
    this.deleted.clear();

    const transitionRows: TransitionRow[] = [];
    for (const p of transitions) {
      const cluster = this.clusterFor(p.managementCluster, p.object);
      const scope = {
        managementCluster: p.managementCluster,
        namespace: p.object.metadata?.namespace ?? '',
        clusterName: cluster?.name,
      };
      for (const t of p.transitions) transitionRows.push({ ...t, ...scope });
    }
    const eventRows: EventRow[] = events.map(({ managementCluster, event }) => {
      const cluster =
        this.clusterOf.get(`${managementCluster}/${event.objectUid}`) ??
        this.membership.resolveInvolved(managementCluster, event.namespace, {
          uid: event.objectUid,
          kind: event.kind,
          name: event.name,
        });
      return { ...event, managementCluster, clusterName: cluster?.name };
    });
    for (const key of deleted) this.clusterOf.delete(key);

    try {
      const written = await this.options.store.recordTransitions(
        transitionRows,
      );
      await this.options.store.recordEvents(eventRows);
      this.failures = 0;
      this.announce(written, eventRows);
    } catch (e) {
      // Keep the rows (in front of anything newer) and try again later; the backend carries on meanwhile.
      this.transitions = [...transitions, ...this.transitions];
      this.events = [...events, ...this.events];
      this.pendingRows += rows;
      const delay = Math.min(this.retryDelayMs * 2 ** this.failures++, 60_000);
      this.options.logger.warn(
        `condition history: could not write ${rows} row(s), retrying in ${delay} ms: ${
          (e as Error).message
        }`,
      );
      if (this.pendingRows > this.maxPending) this.dropOldest();
      if (!this.stopped && !this.timer) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.write();
        }, delay);
      }
    }
  }

  private clusterFor(
    managementCluster: string,
    object: ObservedObject,
  ): ClusterRef | undefined {
    const key = `${managementCluster}/${object.metadata?.uid}`;
    const cluster =
      this.membership.resolve(managementCluster, object) ??
      this.clusterOf.get(key);
    if (cluster) this.clusterOf.set(key, cluster);
    return cluster;
  }

  private announce(transitions: TransitionRow[], events: EventRow[]): void {
    const byNamespace = new Map<string, HistoryFlush>();
    for (const r of [...transitions, ...events]) {
      if (!r.clusterName) continue;
      const key = `${r.managementCluster}/${r.namespace}`;
      let flush = byNamespace.get(key);
      if (!flush) {
        flush = {
          managementCluster: r.managementCluster,
          namespace: r.namespace,
          clusterNames: [],
          clusterUids: [],
        };
        byNamespace.set(key, flush);
      }
      if (!flush.clusterNames.includes(r.clusterName))
        flush.clusterNames.push(r.clusterName);
      const uid = this.clusterUid(
        r.managementCluster,
        r.namespace,
        r.clusterName,
      );
      if (uid && !flush.clusterUids.includes(uid)) flush.clusterUids.push(uid);
    }
    for (const flush of byNamespace.values()) this.emit('flush', flush);
  }

  private clusterUid(
    managementCluster: string,
    namespace: string,
    name: string,
  ): string | undefined {
    return this.options.cache
      .list(managementCluster, 'Cluster', namespace)
      .find(c => c.metadata.name === name)?.metadata.uid;
  }
}
