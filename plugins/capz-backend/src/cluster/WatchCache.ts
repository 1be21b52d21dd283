import { LoggerService } from '@backstage/backend-plugin-api';
import { EventEmitter } from 'node:events';
import { ManagementClusterConfig } from '../config/managementClusters';
import {
  CacheChange,
  CachedObject,
  ClusterWatch,
  KindWatchStatus,
} from './ClusterWatch';
import { ClientNode, kubeConfigFor, loadClientNode } from './kubeConfig';
import { WATCHED_KINDS } from './watchedKinds';

export interface WatchStatus {
  synced: boolean;
  error?: string;
  kinds: Record<string, KindWatchStatus>;
}

/**
 * The in-memory view of every management cluster that page views are served from
 * (docs/architecture.md#flow-watch-cache): one ClusterWatch each, started independently so that a cluster that is down
 * or misconfigured never stops the others. Emits `change` for every object change, which the live-update channel
 * forwards, and `listed` (the management cluster's name) when its first list of every kind is over.
 */
export class WatchCache extends EventEmitter {
  private readonly watches = new Map<string, ClusterWatch>();
  private readonly errors = new Map<string, string>();
  /**
   * Management clusters whose watch has not finished its first list of every kind, from construction (a reader, e.g.
   * the catalog module, must not take a cache not started yet for a management cluster without clusters).
   */
  private readonly listing: Set<string>;

  constructor(
    private readonly clusters: ManagementClusterConfig[],
    private readonly logger: LoggerService,
    private readonly loadClient: () => Promise<ClientNode> = loadClientNode,
  ) {
    super();
    this.listing = new Set(clusters.map(c => c.name));
  }

  /** Starts every watch in the background; `ready()` resolves when each has listed or failed once. */
  start(): Promise<void> {
    return Promise.all(
      this.clusters.map(async c => {
        const started = performance.now();
        try {
          const k8s = await this.loadClient();
          const watch = new ClusterWatch(
            c.name,
            await kubeConfigFor(c, k8s),
            k8s,
            WATCHED_KINDS,
            this.logger,
            c.namespaces,
          );
          watch.on('change', (change: CacheChange) =>
            this.emit('change', change),
          );
          this.watches.set(c.name, watch);
          try {
            await watch.start();
          } finally {
            this.listing.delete(c.name);
            this.emit('listed', c.name);
          }
          // The first list's cost, for whoever sizes a replica (docs/scale.md).
          this.logger.info(
            `management cluster ${c.name}: watch cache ${
              watch.synced() ? 'synced' : 'started, not yet synced'
            }: ${watch.size()} objects listed in ${Math.round(
              performance.now() - started,
            )} ms`,
          );
        } catch (e) {
          if (this.listing.delete(c.name)) this.emit('listed', c.name);
          this.errors.set(c.name, (e as Error).message);
          this.logger.warn(
            `management cluster ${c.name}: cannot start the watch cache: ${
              (e as Error).message
            }`,
          );
        }
      }),
    ).then(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.watches.values()].map(w => w.stop()));
  }

  list(
    managementCluster: string,
    kind: string,
    namespace?: string,
  ): CachedObject[] {
    return this.watches.get(managementCluster)?.list(kind, namespace) ?? [];
  }

  /** One object by kind, namespace and name. */
  get(
    managementCluster: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): CachedObject | undefined {
    return this.watches.get(managementCluster)?.get(kind, namespace, name);
  }

  /**
   * True while this management cluster's watch (without one: any) does its first list of every kind (each listed or
   * failed once): its cache then fills by thousands of adds, and work derived from each change is better done once,
   * at `listed`.
   */
  initialListing(managementCluster?: string): boolean {
    return managementCluster === undefined
      ? this.listing.size > 0
      : this.listing.has(managementCluster);
  }

  status(managementCluster: string): WatchStatus {
    const watch = this.watches.get(managementCluster);
    if (!watch)
      return {
        synced: false,
        error: this.errors.get(managementCluster) ?? 'not started',
        kinds: {},
      };
    return { synced: watch.synced(), kinds: watch.kindStatus() };
  }
}
