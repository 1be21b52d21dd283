import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import { ManagementClusterStatus } from '@capz-backstage/plugin-capz-common';
import { ManagementClusterConfig } from '../config/managementClusters';
import { ClientNode, kubeConfigFor, loadClientNode } from './kubeConfig';
import { whyNoAnswer, withRequestTimeout } from './unreachable';

/**
 * How long a probe waits for /version. A hang detector: the API server answers it in milliseconds, and a probe
 * written on a kept-alive connection to a frozen API server would otherwise wait undici's 300 s (cluster/unreachable.ts)
 * and keep the last state, `connected`, all that time: the scheduler's timeout only aborts a signal this probe would
 * not read, and the next probe waits for this one.
 */
export const PROBE_TIMEOUT_MS = 10_000;

/**
 * Knows whether each management cluster answers, by asking its /version on a schedule, each probe bounded by
 * {@link PROBE_TIMEOUT_MS}. Routes read the last result from memory, so a page view makes no request to any API server.
 */
export class ConnectionMonitor {
  private readonly statuses = new Map<string, ManagementClusterStatus>();

  constructor(
    private readonly clusters: ManagementClusterConfig[],
    private readonly logger: LoggerService,
    /** Injected in tests, where Jest cannot run a native dynamic import of an ESM package. */
    private readonly loadClient: () => Promise<ClientNode> = loadClientNode,
    private readonly probeTimeoutMs = PROBE_TIMEOUT_MS,
  ) {
    for (const c of clusters) this.statuses.set(c.name, { state: 'unknown' });
  }

  status(name: string): ManagementClusterStatus {
    return this.statuses.get(name) ?? { state: 'unknown' };
  }

  private readonly listeners = new Set<
    (name: string, status: ManagementClusterStatus) => void
  >();

  /**
   * Told when a management cluster's state changes (connected, unreachable), so that open pages can be told to read
   * it again: nothing else announces an outage (no watch event arrives while the API server is away). Returns the
   * unsubscribe.
   */
  onChange(
    listener: (name: string, status: ManagementClusterStatus) => void,
  ): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
          const version = await kc
            .makeApiClient(k8s.VersionApi)
            .getCode({}, withRequestTimeout(k8s, this.probeTimeoutMs));
          next = {
            state: 'connected',
            version: version.gitVersion,
            checkedAt: new Date().toISOString(),
          };
        } catch (e) {
          // fetch's own message is only "fetch failed": say why the API server did not answer.
          const none = whyNoAnswer(e);
          next = {
            state: 'unreachable',
            message: none
              ? `its API server did not answer (${none.reason})`
              : (e as Error).message.split('\n')[0],
            checkedAt: new Date().toISOString(),
          };
        }
        this.statuses.set(c.name, next);
        if (previous?.state !== next.state) {
          const detail =
            next.state === 'connected' ? next.version : next.message;
          this.logger.info(
            `management cluster ${c.name}: ${next.state} (${detail})`,
          );
          for (const l of this.listeners) {
            try {
              l(c.name, next);
            } catch (e) {
              this.logger.warn(
                `management cluster ${
                  c.name
                }: a listener of its state failed: ${(e as Error).message}`,
              );
            }
          }
        }
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
