import {
  LoggerService,
  SchedulerServiceTaskRunner,
} from '@backstage/backend-plugin-api';
import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import {
  EntityProvider,
  EntityProviderConnection,
} from '@backstage/plugin-catalog-node';
import { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { clusterToEntity } from './clusterEntity';

/**
 * Where the provider gets clusters from: the capz backend in production, a stub in tests. `listing` names the
 * management clusters whose watch cache is doing its first list (their clusters are not all in `items` yet).
 */
export interface ClusterSource {
  listClusters(): Promise<ClusterList>;
  /**
   * Only the clusters whose CAPI Cluster has one of these uids (at most {@link MAX_UIDS_READ}); a uid gone is left
   * out. Without it, every change reads every cluster.
   */
  clustersWithUids?(uids: string[]): Promise<ClusterList>;
}

/** An answer of a {@link ClusterSource}. */
export interface ClusterList {
  items: ClusterSummary[];
  listing?: string[];
}

/**
 * How often the scheduled refresh replaces the whole set (a `full` mutation: the catalog reads and hashes every entity
 * of the provider, with SQLite in one synchronous query). In between it
 * applies a delta against what it last applied, nothing when nothing moved; the full replace puts back what anything
 * else did to the provider's entities.
 */
export const FULL_REPLACE_MS = 60 * 60 * 1000;

/** The most uids a change reads by uid (the capz backend's limit); a larger burst reads every cluster. */
export const MAX_UIDS_READ = 100;

/**
 * The capz backend's change stream: calls `onChange` with the uids of the CAPI Clusters that were added, removed or
 * changed on any management cluster. Returns how to stop listening.
 */
export interface ClusterChangeStream {
  subscribe(onChange: (clusterUids: string[]) => void): Promise<() => void>;
}

/** A cluster's entity with its CAPI Cluster's uid. */
interface EntityOfCluster {
  uid: string;
  entity: Entity;
}

/** How the provider's set moved since the last mutation it applied. */
export interface ClusterDelta {
  added: Entity[];
  removed: Entity[];
}

/**
 * Keeps one catalog Resource per CAPZ cluster.
 *
 * - A full refresh on the scheduler's interval replaces the whole set (the safety net: nothing drifts for long).
 * - Between refreshes, each change the capz backend announces (a cluster added, removed or changed on any management
 *   cluster) leads, after `changeDelayMs` to coalesce a burst, to one read of the clusters it named (by uid) and a
 *   `delta` mutation with only the entities that appeared, went or changed: a new cluster's entity is in the catalog
 *   within seconds, and a change costs its own clusters, not the fleet's (a burst of more than MAX_UIDS_READ, or a
 *   source that cannot read by uid, reads every cluster and compares the whole set).
 *
 * Updates run one at a time (a change during an update leads to one more update after it), so a delta never races a
 * full refresh.
 *
 * While a management cluster's watch cache does its first list (after the capz backend starts), the answer lacks
 * clusters that exist: a full refresh then would delete their entities until the next one. So nothing is applied
 * meanwhile and the provider asks again after `listingRetryMs` (doubling, at most 30 s), ignoring the changes
 * announced during the list, until the list is over; then it replaces the whole set.
 */
export class CapzClusterEntityProvider implements EntityProvider {
  private connection?: EntityProviderConnection;
  /** What the catalog holds from this provider, by entity ref, as last applied, with its Cluster's uid. */
  private readonly known = new Map<
    string,
    { entity: Entity; json: string; uid: string }
  >();
  /** The entity ref of each known Cluster uid (a uid a change names may be gone from the answer). */
  private readonly refByUid = new Map<string, string>();
  private queue: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private pendingUids = new Set<string>();
  private unsubscribe?: () => void;
  /** When the whole set was last replaced (undefined: not yet). */
  private lastFullAt?: number;
  /** Set while the capz backend's cache is doing a first list: a full refresh is owed once it is over. */
  private waitingForList?: { timer: NodeJS.Timeout; delayMs: number };

  constructor(
    private readonly deps: {
      source: ClusterSource;
      logger: LoggerService;
      taskRunner: SchedulerServiceTaskRunner;
      defaultOwner: string;
      /** The capz backend's change stream; without it, only the scheduled full refresh updates the catalog. */
      changes?: ClusterChangeStream;
      /** Coalescing delay after the first change of a burst. Default 200 ms. */
      changeDelayMs?: number;
      /** First delay before asking again while the capz backend's cache does its first list. Default 2000 ms. */
      listingRetryMs?: number;
      /** The clock (tests). */
      now?: () => number;
    },
  ) {}

  getProviderName(): string {
    return 'capz-clusters';
  }

  async connect(connection: EntityProviderConnection): Promise<void> {
    this.connection = connection;
    if (this.deps.changes) {
      this.unsubscribe = await this.deps.changes.subscribe(uids =>
        this.onChange(uids),
      );
    }
    await this.deps.taskRunner.run({
      id: `${this.getProviderName()}:refresh`,
      fn: () => this.refresh(),
    });
  }

  /** Stops listening to changes (tests; the backend's shutdown ends the process). */
  close(): void {
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waitingForList) clearTimeout(this.waitingForList.timer);
    this.waitingForList = undefined;
  }

  /**
   * The scheduled refresh (also once a first list that held it back is over): replaces the whole set the first time
   * and then every {@link FULL_REPLACE_MS}; in between, applies what moved as a delta, nothing when nothing did.
   */
  refresh(): Promise<void> {
    return this.serialize(async () => {
      const now = (this.deps.now ?? Date.now)();
      if (
        this.lastFullAt !== undefined &&
        now - this.lastFullAt < FULL_REPLACE_MS
      ) {
        await this.delta([]);
        return;
      }
      const connection = this.connected();
      const entities = await this.entities();
      if (!entities) return;
      await connection.applyMutation({
        type: 'full',
        entities: entities.map(({ entity }) => ({
          entity,
          locationKey: this.getProviderName(),
        })),
      });
      this.known.clear();
      this.refByUid.clear();
      for (const e of entities) this.remember(e);
      this.lastFullAt = now;
      this.deps.logger.info(`capz: ${entities.length} cluster entities`);
    });
  }

  /**
   * Reads the changed clusters (every cluster when no uid is given, too many are, or the source cannot read by uid)
   * and applies what moved since the last mutation as a `delta` (nothing when nothing moved). Returns the delta;
   * called on changes, exposed for tests.
   */
  applyChanges(clusterUids: string[] = []): Promise<ClusterDelta> {
    return this.serialize(() => this.delta(clusterUids));
  }

  /** What applyChanges and the scheduled refresh between full replaces do (not serialized: their callers are). */
  private async delta(clusterUids: string[]): Promise<ClusterDelta> {
    const connection = this.connected();
    const byUid =
      this.deps.source.clustersWithUids !== undefined &&
      clusterUids.length > 0 &&
      clusterUids.length <= MAX_UIDS_READ;
    const entities = await this.entities(byUid ? clusterUids : undefined);
    if (!entities) return { added: [], removed: [] };
    const seen = new Set<string>();
    const added: EntityOfCluster[] = [];
    for (const e of entities) {
      const ref = stringifyEntityRef(e.entity);
      seen.add(ref);
      if (this.known.get(ref)?.json !== JSON.stringify(e.entity)) added.push(e);
    }
    // Read by uid, the answer holds the named clusters only: gone are those it left out (unless their name came
    // back with another uid); read whole, every known entity it lacks.
    const removed = byUid
      ? [...new Set(clusterUids)].flatMap(uid => {
          const ref = this.refByUid.get(uid);
          const k = ref === undefined ? undefined : this.known.get(ref);
          return k && !seen.has(ref!) ? [k.entity] : [];
        })
      : [...this.known]
          .filter(([ref]) => !seen.has(ref))
          .map(([, k]) => k.entity);
    if (added.length || removed.length) {
      await connection.applyMutation({
        type: 'delta',
        added: added.map(({ entity }) => ({
          entity,
          locationKey: this.getProviderName(),
        })),
        removed: removed.map(entity => ({
          entity,
          locationKey: this.getProviderName(),
        })),
      });
      for (const entity of removed) this.forget(stringifyEntityRef(entity));
      for (const e of added) this.remember(e);
      this.deps.logger.info(
        `capz: delta for ${
          clusterUids.length
            ? `${clusterUids.length} changed clusters`
            : 'the scheduled refresh'
        }: ${added.length} entities added or updated${
          added.length
            ? ` (${added.map(e => e.entity.metadata.name).join(', ')})`
            : ''
        }, ${removed.length} removed${
          removed.length
            ? ` (${removed.map(e => e.metadata.name).join(', ')})`
            : ''
        }`,
      );
    }
    return { added: added.map(e => e.entity), removed };
  }

  private onChange(clusterUids: string[]): void {
    // During a first list the retry asks again anyway, with every cluster.
    if (!this.connection || this.waitingForList) return;
    for (const uid of clusterUids) this.pendingUids.add(uid);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const uids = [...this.pendingUids];
      this.pendingUids.clear();
      this.applyChanges(uids).catch(e =>
        this.deps.logger.warn(
          `capz: could not apply the cluster changes to the catalog (the next full refresh will): ${
            (e as Error).message
          }`,
        ),
      );
    }, this.deps.changeDelayMs ?? 200);
  }

  private connected(): EntityProviderConnection {
    if (!this.connection)
      throw new Error('CapzClusterEntityProvider is not connected');
    return this.connection;
  }

  /**
   * The entities of every cluster (or of the clusters with these uids), or undefined while a management cluster is
   * still listing (then it retries).
   */
  private async entities(
    uids?: string[],
  ): Promise<EntityOfCluster[] | undefined> {
    const { items: clusters, listing = [] } =
      uids && this.deps.source.clustersWithUids
        ? await this.deps.source.clustersWithUids(uids)
        : await this.deps.source.listClusters();
    if (listing.length) {
      this.waitForList(listing);
      return undefined;
    }
    return clusters.map(c => ({
      uid: c.uid,
      entity: clusterToEntity(c, {
        providerName: this.getProviderName(),
        defaultOwner: this.deps.defaultOwner,
      }),
    }));
  }

  private waitForList(listing: string[]): void {
    if (this.waitingForList) return;
    const delayMs = this.deps.listingRetryMs ?? 2000;
    this.deps.logger.info(
      `capz: the watch cache of ${listing.join(
        ', ',
      )} is doing its first list; the cluster entities wait for it (asking again in ${delayMs} ms)`,
    );
    const retry = (ms: number) => ({
      delayMs: ms,
      timer: setTimeout(() => {
        void this.deps.source
          .listClusters()
          .then(({ listing: still = [] }) => {
            if (!this.waitingForList) return undefined;
            if (still.length) {
              this.waitingForList = retry(Math.min(ms * 2, 30_000));
              return undefined;
            }
            this.waitingForList = undefined;
            return this.refresh();
          })
          .catch(e => {
            this.waitingForList = undefined;
            this.deps.logger.warn(
              `capz: could not read the clusters after the first list (the next full refresh will): ${
                (e as Error).message
              }`,
            );
          });
      }, ms),
    });
    this.waitingForList = retry(delayMs);
  }

  private remember({ uid, entity }: EntityOfCluster): void {
    const ref = stringifyEntityRef(entity);
    this.forget(ref);
    this.known.set(ref, { entity, json: JSON.stringify(entity), uid });
    this.refByUid.set(uid, ref);
  }

  private forget(ref: string): void {
    const k = this.known.get(ref);
    if (k && this.refByUid.get(k.uid) === ref) this.refByUid.delete(k.uid);
    this.known.delete(ref);
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}
