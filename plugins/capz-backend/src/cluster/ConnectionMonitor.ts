import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import { ManagementClusterStatus } from '@capz-backstage/plugin-capz-common';
import { ManagementClusterConfig } from '../config/managementClusters';
import { ClientNode, kubeConfigFor, loadClientNode } from './kubeConfig';

/**
 * Knows whether each management cluster answers, by asking its /version on a schedule. Routes read the last result
 * from memory, so a page view makes no request to any API server.
 */
export class ConnectionMonitor {
  private readonly statuses = new Map<string, ManagementClusterStatus>();

  constructor(
    private readonly clusters: ManagementClusterConfig[],
    private readonly logger: LoggerService,
    /** Injected in tests, where Jest cannot run a native dynamic import of an ESM package. */
    private readonly loadClient: () => Promise<ClientNode> = loadClientNode,
  ) {
    for (const c of clusters) this.statuses.set(c.name, { state: 'unknown' });
  }

  status(name: string): ManagementClusterStatus {
    return this.statuses.get(name) ?? { state: 'unknown' };
  }

  /** Probes every cluster once; one failing cluster never stops the others. */
  async probeAll(): Promise<void> {
    const k8s = await this.loadClient();
    await Promise.all(
      this.clusters.map(async c => {
        const previous = this.statuses.get(c.name);
        let next: ManagementClusterStatus;
        try {
          const kc = await kubeConfigFor(c, k8s, this.logger);
          const version = await kc.makeApiClient(k8s.VersionApi).getCode();
          next = {
            state: 'connected',
            version: version.gitVersion,
            checkedAt: new Date().toISOString(),
          };
        } catch (e) {
          next = {
            state: 'unreachable',
            message: (e as Error).message.split('\n')[0],
            checkedAt: new Date().toISOString(),
          };
        }
        if (previous?.state !== next.state) {
          const detail =
            next.state === 'connected' ? next.version : next.message;
          this.logger.info(
            `management cluster ${c.name}: ${next.state} (${detail})`,
          );
        }
        this.statuses.set(c.name, next);
      }),
    );
  }

  /** Probes at once, then every 30 s, on every replica (each replica talks to the clusters itself). */
  async start(scheduler: SchedulerService): Promise<void> {
    await scheduler.scheduleTask({
      id: 'capz-management-cluster-probe',
      scope: 'local',
      frequency: { seconds: 30 },
      timeout: { seconds: 25 },
      fn: () => this.probeAll(),
    });
  }
}
