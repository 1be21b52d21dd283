import { LoggerService } from '@backstage/backend-plugin-api';
import {
  CAPZ_SIGNAL_CHANNEL,
  CapzChangeSignal,
  FluxObjectRef,
} from '@capz-backstage/plugin-capz-common';
import type { SignalsService } from '@backstage/plugin-signals-node';
import { CacheIndex } from '../cluster/CacheIndex';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { TouchedClusters } from '../cluster/TouchedClusters';
import { WatchCache } from '../cluster/WatchCache';

/** A Flux Kustomization or GitRepository that changed: in no tree, its clusters are found through the FluxIndex. */
interface PendingFlux {
  managementCluster: string;
  kind: 'Kustomization' | 'GitRepository';
  ref: FluxObjectRef;
}

interface PendingNamespace {
  managementCluster: string;
  namespace: string;
  uids: Set<string>;
  deleted: boolean;
}

/**
 * Pushes "these clusters changed" to browsers over Backstage signals, so pages update without polling.
 *
 * Signals are broadcast (the signals plugin even accepts unauthenticated subscribers), so a message carries only
 * the opaque uids of the CAPI Clusters concerned; a page re-reads them through the permission-checked HTTP API.
 * Messages go out at most once per `coalesceMs`: a change after a quiet window is published at once (with whatever
 * arrived in the same turn of the event loop), later ones are gathered until the window since the last message ends
 * (a timer not reset by later changes, so the delay stays bounded under a steady stream). Changes are mapped to the
 * Clusters whose trees contain the changed objects; a change of a Flux Kustomization or GitRepository to the Clusters it
 * applies (their `gitSource`), through the cache index's FluxIndex. While a
 * management cluster's cache does its first list, only its Clusters are announced as they come: the rest is mapped
 * once, when the list is over, instead of rebuilding its namespaces' trees at every flush of the initial list.
 */
export class ChangeSignals {
  private readonly pending = new Map<string, PendingNamespace>();
  private readonly direct = new Set<string>();
  /** ManagedClusters that appeared or went: the Clusters managing the same AKS cluster elsewhere change too. */
  private readonly owners: Array<{
    managementCluster: string;
    object: CachedObject;
    groups: CachedObject[];
  }> = [];
  /** Flux objects that changed, by management cluster, kind, namespace and name. */
  private readonly flux = new Map<string, PendingFlux>();
  private timer?: NodeJS.Timeout;
  /** When the last message window started (construction counts as one). */
  private lastFlushAt = Date.now();
  private readonly touched: TouchedClusters;
  private readonly index: CacheIndex;
  private readonly onChange = (change: CacheChange) => this.add(change);
  private managementClustersChanged = false;
  private readonly onListed = () => this.schedule();

  constructor(
    private readonly cache: WatchCache,
    managementClusters: string[],
    private readonly signals: SignalsService,
    private readonly logger: LoggerService,
    private readonly coalesceMs = 100,
  ) {
    this.touched = new TouchedClusters(cache, managementClusters);
    this.index = CacheIndex.for(cache, managementClusters);
  }

  start(): void {
    this.cache.on('change', this.onChange);
    this.cache.on('listed', this.onListed);
  }

  stop(): void {
    this.cache.off('change', this.onChange);
    this.cache.off('listed', this.onListed);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** For other sources of change (the condition history): announce these Cluster uids with the next flush. */
  notifyClusters(clusterUids: Iterable<string>): void {
    for (const uid of clusterUids) this.direct.add(uid);
    this.schedule();
  }

  /** A management cluster's connection changed (unreachable, connected again): pages re-read its state. */
  notifyManagementClusters(): void {
    this.managementClustersChanged = true;
    this.schedule();
  }

  /** For what the backend learns about an object outside the cache (an AKS API server read from ARM): an update. */
  notifyObject(
    managementCluster: string,
    kind: string,
    object: CacheChange['object'],
  ): void {
    this.add({ managementCluster, kind, type: 'update', object });
  }

  private add({ managementCluster, kind, type, object }: CacheChange): void {
    if (kind === 'Kustomization' || kind === 'GitRepository') {
      // In no cluster's tree: its namespace's Clusters are not concerned, those it applies are.
      const { namespace = '', name } = object.metadata;
      this.flux.set(`${managementCluster}/${kind}/${namespace}/${name}`, {
        managementCluster,
        kind,
        ref: { namespace, name },
      });
    } else if (kind === 'Cluster') {
      this.direct.add(object.metadata.uid);
    } else {
      let uid = object.metadata.uid;
      if (kind === 'Event') {
        // An Event concerns the object it is about; its expiry changes nothing on a page.
        if (type === 'delete') return;
        uid =
          (object as { involvedObject?: { uid?: string } }).involvedObject
            ?.uid ?? '';
        if (!uid) return;
      }
      // One that appeared or went (e.g. written by hand, in no tree) changes the other owners' `managedFrom`.
      // The ResourceGroup it names as it is now: deleted together with it, its group may be gone at the flush.
      if (kind === 'ManagedCluster' && type !== 'update') {
        this.owners.push({
          managementCluster,
          object,
          groups: this.index.ownerGroup(managementCluster, object),
        });
      }
      const namespace = object.metadata.namespace ?? '';
      const key = `${managementCluster}/${namespace}`;
      let entry = this.pending.get(key);
      if (!entry)
        this.pending.set(
          key,
          (entry = {
            managementCluster,
            namespace,
            uids: new Set(),
            deleted: false,
          }),
        );
      entry.uids.add(uid);
      if (type === 'delete') entry.deleted = true;
    }
    this.schedule();
  }

  private schedule(): void {
    if (!this.timer)
      this.timer = setTimeout(
        () => this.flush(),
        Math.max(0, this.lastFlushAt + this.coalesceMs - Date.now()),
      );
  }

  /** Publishes what accumulated; exposed for tests. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.lastFlushAt = Date.now();
    const clusterUids = new Set(this.direct);
    this.direct.clear();
    const managementClusters = this.managementClustersChanged;
    this.managementClustersChanged = false;
    const listing = (mc: string) => this.cache.initialListing?.(mc) === true;
    const pending = [...this.pending.values()].filter(
      p => !listing(p.managementCluster),
    );
    for (const p of pending)
      this.pending.delete(`${p.managementCluster}/${p.namespace}`);
    const owners = this.owners.filter(o => !listing(o.managementCluster));
    this.owners.splice(
      0,
      this.owners.length,
      ...this.owners.filter(o => listing(o.managementCluster)),
    );
    const flux = [...this.flux.entries()].filter(
      ([, f]) => !listing(f.managementCluster),
    );
    for (const [key, f] of flux) {
      this.flux.delete(key);
      const uids =
        f.kind === 'Kustomization'
          ? this.touched.clustersAppliedBy(f.managementCluster, f.ref)
          : this.touched.clustersFollowing(f.managementCluster, f.ref);
      for (const uid of uids) clusterUids.add(uid);
    }
    for (const o of owners) {
      for (const uid of this.touched.clustersSharingAks(
        o.managementCluster,
        o.object,
        o.groups,
      ))
        clusterUids.add(uid);
    }
    for (const p of pending) {
      for (const uid of this.touched.clustersTouchedBy(
        p.managementCluster,
        p.namespace,
        p.uids,
        p.deleted,
      )) {
        clusterUids.add(uid);
      }
    }
    if (clusterUids.size === 0 && !managementClusters) return;
    const message: CapzChangeSignal = {
      clusterUids: [...clusterUids],
      ...(managementClusters ? { managementClusters: true } : {}),
    };
    try {
      await this.signals.publish({
        recipients: { type: 'broadcast' },
        channel: CAPZ_SIGNAL_CHANNEL,
        message: { ...message },
      });
    } catch (e) {
      this.logger.warn(
        `could not publish a change signal: ${(e as Error).message}`,
      );
    }
  }
}
