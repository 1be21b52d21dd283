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

/** Where the provider gets clusters from: the capz backend in production, a stub in tests. */
export interface ClusterSource {
  listClusters(): Promise<ClusterSummary[]>;
}

/**
 * The capz backend's change stream: calls `onChange` with the uids of the CAPI Clusters that were added, removed or
 * changed on any management cluster. Returns how to stop listening.
 */
export interface ClusterChangeStream {
  subscribe(onChange: (clusterUids: string[]) => void): Promise<() => void>;
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
 *   cluster) leads, after `changeDelayMs` to coalesce a burst, to one read of the clusters and a `delta` mutation with
 *   only the entities that appeared, went or changed: a new cluster's entity is in the catalog within seconds.
 *
 * Updates run one at a time (a change during an update leads to one more update after it), so a delta never races a
 * full refresh.
 */
export class CapzClusterEntityProvider implements EntityProvider {
  private connection?: EntityProviderConnection;
  /** What the catalog holds from this provider, by entity ref, as last applied. */
  private readonly known = new Map<string, { entity: Entity; json: string }>();
  private queue: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private pendingUids = new Set<string>();
  private unsubscribe?: () => void;

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
  }

  /** Replaces the whole set (scheduled). */
  refresh(): Promise<void> {
    return this.serialize(async () => {
      const connection = this.connected();
      const entities = await this.entities();
      await connection.applyMutation({
        type: 'full',
        entities: entities.map(entity => ({
          entity,
          locationKey: this.getProviderName(),
        })),
      });
      this.known.clear();
      for (const entity of entities) this.remember(entity);
      this.deps.logger.info(`capz: ${entities.length} cluster entities`);
    });
  }

  /**
   * Reads the clusters and applies what moved since the last mutation as a `delta` (nothing when nothing moved).
   * Returns the delta; called on changes, exposed for tests.
   */
  applyChanges(clusterUids: string[] = []): Promise<ClusterDelta> {
    return this.serialize(async () => {
      const connection = this.connected();
      const entities = await this.entities();
      const seen = new Set<string>();
      const added: Entity[] = [];
      for (const entity of entities) {
        const ref = stringifyEntityRef(entity);
        seen.add(ref);
        if (this.known.get(ref)?.json !== JSON.stringify(entity))
          added.push(entity);
      }
      const removed = [...this.known]
        .filter(([ref]) => !seen.has(ref))
        .map(([, k]) => k.entity);
      if (added.length || removed.length) {
        await connection.applyMutation({
          type: 'delta',
          added: added.map(entity => ({
            entity,
            locationKey: this.getProviderName(),
          })),
          removed: removed.map(entity => ({
            entity,
            locationKey: this.getProviderName(),
          })),
        });
        for (const entity of removed)
          this.known.delete(stringifyEntityRef(entity));
        for (const entity of added) this.remember(entity);
        this.deps.logger.info(
          `capz: delta for ${clusterUids.length} changed clusters: ${
            added.length
          } entities added or updated${
            added.length
              ? ` (${added.map(e => e.metadata.name).join(', ')})`
              : ''
          }, ${removed.length} removed${
            removed.length
              ? ` (${removed.map(e => e.metadata.name).join(', ')})`
              : ''
          }`,
        );
      }
      return { added, removed };
    });
  }

  private onChange(clusterUids: string[]): void {
    if (!this.connection) return;
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

  private async entities(): Promise<Entity[]> {
    const clusters = await this.deps.source.listClusters();
    return clusters.map(c =>
      clusterToEntity(c, {
        providerName: this.getProviderName(),
        defaultOwner: this.deps.defaultOwner,
      }),
    );
  }

  private remember(entity: Entity): void {
    this.known.set(stringifyEntityRef(entity), {
      entity,
      json: JSON.stringify(entity),
    });
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
