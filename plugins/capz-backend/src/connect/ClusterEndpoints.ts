/**
 * The API server of each workload cluster, for the catalog's Kubernetes annotations: URL and CA
 * from AKS's user kubeconfig (`listClusterUserCredential?format=exec`, docs/capz-aso-facts.md#kubeconfig-download),
 * read once per ASO ManagedCluster when it reports an FQDN (`status.fqdn`), kept in memory, and read again only when
 * the FQDN changes. Only public data is kept (server URL and CA): the rest of the kubeconfig, which for a cluster with
 * local accounts holds a secret, is dropped at once and never logged. Lookups (`of`) are synchronous and make no
 * request: a page view or the catalog's refresh costs no ARM or Kubernetes call.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  CREDENTIAL_FROM_ANNOTATION,
  kubeconfigCluster,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { retryAfterOf } from '../azure/errors';
import { parseArmId } from '../azure/mapping';
import type { CacheChange } from '../cluster/ClusterWatch';
import type { WatchCache } from '../cluster/WatchCache';
import { parseKubeconfig } from './ClusterConnect';

/** ASO's default credential Secret in a namespace when an object names none (docs/capz-aso-facts.md#aso-credential-scope). */
const DEFAULT_ASO_CREDENTIAL = 'aso-credential';

/** After a failed read, the same FQDN is tried again on a later change of its ManagedCluster, not before this. */
const RETRY_AFTER_MS = 5 * 60_000;

/** How old a credential Secret's data may be for these background reads. */
const SECRET_MAX_AGE_MS = 60_000;

/** At most this many ARM reads at once (a backend start sees every cluster's FQDN at the same time). */
const CONCURRENCY = 4;

/** A workload cluster's API server: public data only. */
export interface ApiServerEndpoint {
  url: string;
  /** Base64 PEM, as a kubeconfig's `certificate-authority-data`. */
  certificateAuthorityData?: string;
}

interface Entry {
  fqdn: string;
  endpoint?: ApiServerEndpoint;
  failedAt?: number;
  pending?: boolean;
}

export interface ClusterEndpointsOptions {
  logger: LoggerService;
  azure?: Pick<AksDiscovery, 'listClusterUserCredential'>;
  /** Called once a ManagedCluster's API server is known (the plugin announces it, so the catalog updates live). */
  onKnown?: (managementCluster: string, managedCluster: ObservedObject) => void;
  now?: () => number;
}

const fqdnOf = (mc: ObservedObject) => {
  const f = (mc.status as { fqdn?: unknown } | undefined)?.fqdn;
  return typeof f === 'string' && f ? f : undefined;
};

export class ClusterEndpoints {
  private readonly entries = new Map<string, Entry>();
  private readonly queue: Array<() => Promise<void>> = [];
  private running = 0;
  private readonly idleWaiters: Array<() => void> = [];
  /** Failed reads since the queue was last idle, by reason: logged then, one line per reason, not one per cluster. */
  private readonly failures = new Map<string, string[]>();
  /** ARM reads made (tests count them: one per FQDN). */
  reads = 0;
  /**
   * No read starts before this time (ms since the epoch): ARM throttled a read and said how long to wait
   * (docs/azure-facts.md#arm-throttling); reads started at once would only be throttled again, with the same credential
   * that users' requests use.
   */
  private resumeAt = 0;
  private resumeTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly o: ClusterEndpointsOptions) {}

  /** Follows the cache's ManagedClusters: each one with a new FQDN is read once. */
  watch(
    cache: Pick<WatchCache, 'on' | 'list'> &
      Partial<Pick<WatchCache, 'initialListing'>>,
    managementClusters: string[],
  ): void {
    cache.on('change', (c: CacheChange) => {
      if (c.kind !== 'ManagedCluster') return;
      const o = c.object as ObservedObject;
      if (c.type === 'delete')
        this.entries.delete(this.key(c.managementCluster, o));
      // A first list's ManagedClusters are read once it is over (`listed`), not while the API server sends the lists.
      else if (!cache.initialListing?.(c.managementCluster))
        this.observe(c.managementCluster, o);
    });
    const observeAll = (mc: string) => {
      for (const o of cache.list(mc, 'ManagedCluster'))
        this.observe(mc, o as ObservedObject);
    };
    cache.on('listed', (mc: string) => {
      if (managementClusters.includes(mc)) observeAll(mc);
    });
    // The cache may have finished a first list before this follows it.
    for (const mc of managementClusters)
      if (cache.initialListing && !cache.initialListing(mc)) observeAll(mc);
  }

  private key(mc: string, o: ObservedObject) {
    return `${mc}/${o.metadata?.namespace}/${o.metadata?.name}`;
  }

  /** Schedules a read when this ManagedCluster reports an FQDN not read yet (or whose last read failed long ago). */
  observe(managementCluster: string, mc: ObservedObject): void {
    const fqdn = fqdnOf(mc);
    if (!fqdn || !this.o.azure) return;
    const key = this.key(managementCluster, mc);
    const now = (this.o.now ?? Date.now)();
    const e = this.entries.get(key);
    if (
      e?.fqdn === fqdn &&
      (e.pending ||
        e.endpoint ||
        (e.failedAt !== undefined && now - e.failedAt < RETRY_AFTER_MS))
    )
      return;
    const arm = parseArmId(mc.status?.id as string | undefined);
    if (!arm) return;
    const entry: Entry = { fqdn, pending: true };
    this.entries.set(key, entry);
    const namespace = mc.metadata?.namespace ?? '';
    const credentialSecret =
      mc.metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION] ??
      DEFAULT_ASO_CREDENTIAL;
    this.enqueue(async () => {
      try {
        this.reads++;
        const text = await this.o.azure!.listClusterUserCredential(
          {
            managementCluster,
            namespace,
            credentialSecret,
            subscriptionId: arm.subscriptionId,
            resourceGroup: arm.resourceGroup,
            name: arm.name,
          },
          // A start reads every cluster: their shared credential Secret once a minute, not once a cluster.
          { secretMaxAgeMs: SECRET_MAX_AGE_MS },
        );
        const cluster = kubeconfigCluster(
          parseKubeconfig(text, `the user kubeconfig of ${arm.name}`),
        );
        if (!cluster) throw new Error('it names no https API server');
        entry.endpoint = {
          url: cluster.server,
          ...(cluster.certificateAuthorityData
            ? { certificateAuthorityData: cluster.certificateAuthorityData }
            : {}),
        };
        this.o.onKnown?.(managementCluster, mc);
      } catch (err) {
        entry.failedAt = (this.o.now ?? Date.now)();
        const wait = retryAfterOf(err);
        if (wait !== undefined)
          this.resumeAt = Math.max(this.resumeAt, Date.now() + wait * 1000);
        const reason = (err as Error).message;
        const failed = this.failures.get(reason);
        if (failed) failed.push(`${key} (${fqdn})`);
        else this.failures.set(reason, [`${key} (${fqdn})`]);
      } finally {
        entry.pending = false;
      }
    });
  }

  /** The API server of this ManagedCluster as read for its current FQDN; undefined until read (or when it failed). */
  of(
    managementCluster: string,
    mc: ObservedObject,
  ): ApiServerEndpoint | undefined {
    const e = this.entries.get(this.key(managementCluster, mc));
    return e && e.fqdn === fqdnOf(mc) ? e.endpoint : undefined;
  }

  /** Resolves once no read is queued or running (tests). */
  idle(): Promise<void> {
    if (!this.running && !this.queue.length) return Promise.resolve();
    return new Promise(resolve => this.idleWaiters.push(resolve));
  }

  /** One warning per reason: a start with a misconfigured credential Secret fails alike for each of its clusters. */
  private logFailures() {
    for (const [reason, clusters] of this.failures) {
      const shown = clusters.slice(0, 3).join(', ');
      const more =
        clusters.length > 3 ? `, and ${clusters.length - 3} more` : '';
      this.o.logger.warn(
        clusters.length === 1
          ? `API server of ManagedCluster ${shown} not known: ${reason}`
          : `API server of ${clusters.length} ManagedClusters not known (${shown}${more}): ${reason}`,
      );
    }
    this.failures.clear();
  }

  private enqueue(task: () => Promise<void>) {
    this.queue.push(task);
    this.pump();
  }

  private pump() {
    const pause = this.resumeAt - Date.now();
    if (pause > 0 && this.queue.length) {
      if (!this.resumeTimer) {
        this.o.logger.info(
          `ARM asked to wait ${Math.ceil(
            pause / 1000,
          )} s: the queued API server reads start then`,
        );
        this.resumeTimer = setTimeout(() => {
          this.resumeTimer = undefined;
          this.pump();
        }, pause);
        // A backend that stops does not wait for it.
        this.resumeTimer.unref?.();
      }
      return;
    }
    while (this.running < CONCURRENCY && this.queue.length) {
      const task = this.queue.shift()!;
      this.running++;
      void task().finally(() => {
        this.running--;
        this.pump();
        if (!this.running && !this.queue.length) {
          this.logFailures();
          this.idleWaiters.splice(0).forEach(r => r());
        }
      });
    }
  }
}
