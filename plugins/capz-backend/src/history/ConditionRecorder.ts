import { LoggerService } from '@backstage/backend-plugin-api';
import { ObservedObject } from '@capz-backstage/plugin-capz-common';
import { EventEmitter } from 'node:events';
import { CacheChange } from '../cluster/ClusterWatch';
import { CLUSTER_KINDS, EVENT_KIND } from '../cluster/watchedKinds';
import {
  conditionTransitions,
  eventOf,
  ObservedEvent,
  ObservedTransition,
} from './extract';
import {
  DeletionRow,
  EventRow,
  HistoryStore,
  TransitionRow,
} from './HistoryStore';
import { ClusterMembership, OwningCluster, ObjectSource } from './membership';

/** The watch cache as the recorder sees it: its change stream and its objects. */
export interface ChangeSource extends ObjectSource {
  on(event: 'change', listener: (change: CacheChange) => void): unknown;
  off(event: 'change', listener: (change: CacheChange) => void): unknown;
  on(event: 'listed', listener: (managementCluster: string) => void): unknown;
  off(event: 'listed', listener: (managementCluster: string) => void): unknown;
  /** True while this management cluster's (without one: any) first list is under way (see WatchCache). */
  initialListing?(managementCluster?: string): boolean;
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
  /** The management clusters whose objects the cache may already hold when the recorder starts. */
  managementClusters?: string[];
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
/** An object seen deleted, with its last version (to find its Cluster when it is written). */
interface PendingDeletion {
  managementCluster: string;
  object: ObservedObject;
  deletedAt: string;
  /** Resolved at its first write attempt: a retry must not depend on what was forgotten meanwhile. */
  cluster?: OwningCluster;
}

/** Objects of a finished first list turned into rows per macrotask, so that requests are served in between. */
const DRAIN_CHUNK = 500;

/** A change seen during its management cluster's first list, with the time it was seen. */
interface DeferredChange {
  change: CacheChange;
  at: Date;
}

/** The clusters' kinds: Flux's Kustomizations and GitRepositories are in no cluster's history. */
const RECORDED_KINDS = new Set(CLUSTER_KINDS.map(k => k.name));

/**
 * Records condition transitions and Events from the watch cache's change stream into the {@link HistoryStore}.
 *
 * The watch is never blocked: a change is turned into rows synchronously (comparing with the last seen version of
 * the object, kept in memory) and queued; writes happen in batches every `flushIntervalMs`, or at once when
 * `maxBatchSize` rows wait, one write at a time, each at most `maxBatchSize` rows. The initial list arrives as
 * thousands of adds: they are kept as they come and turned into rows once that management cluster's list is over
 * (`listed`), a chunk per macrotask, so that neither the list nor the first page views wait for the history; the
 * store drops the states it already holds, so a restart writes nothing twice. A failed write is logged and retried with backoff; the rows
 * stay queued (up to `maxPending`).
 */
export class ConditionRecorder extends EventEmitter {
  private readonly membership: ClusterMembership;
  private readonly previous = new Map<string, ObservedObject>();
  /** The last Cluster each object was matched to: a deleted object keeps its Cluster until its rows are written. */
  private readonly clusterOf = new Map<string, OwningCluster>();
  private readonly deleted = new Set<string>();
  /** Per management cluster still listing (or listed, not yet drained): its objects' changes, by uid, in order. */
  private readonly deferred = new Map<string, Map<string, DeferredChange[]>>();
  private draining = false;
  private transitions: PendingTransitions[] = [];
  private events: PendingEvent[] = [];
  private deletions: PendingDeletion[] = [];
  private pendingRows = 0;
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private failures = 0;
  private stopped = false;
  private readonly onChange = (change: CacheChange) => this.observe(change);
  private readonly onListed = () => this.drain();
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

  /**
   * Follows the cache's changes, and first takes what it already holds as added: the cache may have started before
   * the recorder (its first list does not wait for the history's database).
   */
  start(): void {
    this.stopped = false;
    this.options.cache.on('change', this.onChange);
    this.options.cache.on('listed', this.onListed);
    for (const managementCluster of this.options.managementClusters ?? [])
      for (const kind of [...CLUSTER_KINDS, EVENT_KIND])
        for (const object of this.options.cache.list(
          managementCluster,
          kind.name,
        ))
          this.observe({
            managementCluster,
            kind: kind.name,
            type: 'add',
            object,
          });
    this.drain();
  }

  /** Stops listening and writes what is queued (once; a failure is logged). */
  async stop(): Promise<void> {
    this.options.cache.off('change', this.onChange);
    this.options.cache.off('listed', this.onListed);
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.drainNow(Infinity, true);
    await this.writeAll();
  }

  /** Writes what is queued now (a finished first list's changes too), and waits for it; for tests and shutdown. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.drainNow(Infinity);
    await this.writeAll();
  }

  /** Writes batches until nothing waits, or until one fails (its rows stay queued for the retry). */
  private async writeAll(): Promise<void> {
    for (;;) {
      while (this.writing) await this.writing;
      if (!this.pendingRows) return;
      const failures = this.failures;
      await this.write();
      if (this.failures > failures) return;
    }
  }

  /** Turns the changes of every management cluster that has finished its first list into rows, a chunk at a time. */
  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    const step = () => {
      const more = !this.stopped && this.drainNow(DRAIN_CHUNK);
      if (more) setImmediate(step);
      else {
        this.draining = false;
        if (this.pendingRows) this.queued(0);
      }
    };
    setImmediate(step);
  }

  /** Observes up to `limit` deferred objects (all kept changes of each); true if a finished list has more left. */
  private drainNow(limit: number, evenListing = false): boolean {
    let done = 0;
    for (const [managementCluster, byUid] of this.deferred) {
      if (!evenListing && this.listing(managementCluster)) continue;
      for (const [uid, changes] of byUid) {
        if (done >= limit) return true;
        byUid.delete(uid);
        for (const { change, at } of changes) this.observeNow(change, at);
        done++;
      }
      this.deferred.delete(managementCluster);
    }
    return false;
  }

  private listing(managementCluster?: string): boolean {
    return this.options.cache.initialListing?.(managementCluster) === true;
  }

  private observe(change: CacheChange): void {
    const { managementCluster, kind, object } = change;
    // A first list's objects (and any later change of one not drained yet, to keep its order) wait for `listed`.
    const deferred = this.deferred.get(managementCluster);
    const kept = deferred?.get(object.metadata.uid);
    if (kept) {
      kept.push({ change, at: this.clock() });
      return;
    }
    if (
      kind !== 'Event' &&
      RECORDED_KINDS.has(kind) &&
      this.listing(managementCluster)
    ) {
      let byUid = deferred;
      if (!byUid) this.deferred.set(managementCluster, (byUid = new Map()));
      byUid.set(object.metadata.uid, [{ change, at: this.clock() }]);
      return;
    }
    this.observeNow(change, this.clock());
  }

  private observeNow(
    { managementCluster, kind, type, object }: CacheChange,
    now: Date,
  ): void {
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
      // So that the timeline ends the object's lanes when it went, instead of drawing its last state up to now.
      this.deletions.push({
        managementCluster,
        object: { ...object, kind: object.kind ?? kind } as ObservedObject,
        deletedAt: now.toISOString(),
      });
      this.queued(1);
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
    // During a first list, rows (its Events') wait for its end (`listed`): writing them meanwhile would resolve their
    // Clusters against a half-filled cache, rebuilding every tree of each namespace again as each kind arrives.
    const listing = this.listing() || this.draining;
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
    // One batch per macrotask: the rows' Clusters are resolved synchronously, and requests wait meanwhile.
    await new Promise(resolve => setImmediate(resolve));
    let take = 0;
    let rows = 0;
    while (take < this.transitions.length && rows < this.maxBatchSize)
      rows += this.transitions[take++].transitions.length;
    const transitions = this.transitions.splice(0, take);
    const events = this.events.splice(0, Math.max(0, this.maxBatchSize - rows));
    rows += events.length;
    // Deletions go once every transition queued before them has gone (in this batch or earlier): their Cluster is
    // the one their object's transitions were written with.
    const deletions = this.transitions.length
      ? []
      : this.deletions.splice(0, this.deletions.length);
    rows += deletions.length;
    this.pendingRows -= rows;
    // A deleted object's Cluster is forgotten once none of its rows waits any more.
    const deleted = this.transitions.length ? [] : [...this.deleted];
    for (const key of deleted) this.deleted.delete(key);

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
    const deletionRows: DeletionRow[] = deletions.map(d => {
      const { managementCluster, object, deletedAt } = d;
      d.cluster ??=
        this.clusterOf.get(`${managementCluster}/${object.metadata?.uid}`) ??
        this.membership.resolve(managementCluster, object);
      return {
        managementCluster,
        namespace: object.metadata?.namespace ?? '',
        clusterName: d.cluster?.name,
        objectUid: object.metadata?.uid ?? '',
        kind: object.kind ?? '',
        name: object.metadata?.name ?? '',
        deletedAt,
      };
    });
    for (const key of deleted) this.clusterOf.delete(key);

    try {
      const written = await this.options.store.recordTransitions(
        transitionRows,
      );
      await this.options.store.recordEvents(eventRows);
      if (deletionRows.length)
        await this.options.store.recordDeletions(deletionRows);
      this.failures = 0;
      this.announce(written, [...eventRows, ...deletionRows]);
    } catch (e) {
      // Keep the rows (in front of anything newer) and try again later; the backend carries on meanwhile.
      this.transitions = [...transitions, ...this.transitions];
      this.events = [...events, ...this.events];
      this.deletions = [...deletions, ...this.deletions];
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
  ): OwningCluster | undefined {
    const key = `${managementCluster}/${object.metadata?.uid}`;
    const cluster =
      this.membership.resolve(managementCluster, object) ??
      this.clusterOf.get(key);
    if (cluster) this.clusterOf.set(key, cluster);
    return cluster;
  }

  private announce(
    transitions: TransitionRow[],
    others: Array<EventRow | DeletionRow>,
  ): void {
    const byNamespace = new Map<string, HistoryFlush>();
    for (const r of [...transitions, ...others]) {
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
