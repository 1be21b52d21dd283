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
 * forwards.
 */
export class WatchCache extends EventEmitter {
  private readonly watches = new Map<string, ClusterWatch>();
  private readonly errors = new Map<string, string>();

  constructor(
    private readonly clusters: ManagementClusterConfig[],
    private readonly logger: LoggerService,
    private readonly loadClient: () => Promise<ClientNode> = loadClientNode,
  ) {
    super();
  }

  /** Starts every watch in the background; `ready()` resolves when each has listed or failed once. */
  start(): Promise<void> {
    return Promise.all(
      this.clusters.map(async c => {
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
          await watch.start();
          this.logger.info(
            `management cluster ${c.name}: watch cache ${
              watch.synced() ? 'synced' : 'started, not yet synced'
            }`,
          );
        } catch (e) {
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
