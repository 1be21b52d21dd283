import type {
  FluxObjectRef,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { asoTargets } from '../azure/mapping';
import { CacheIndex } from './CacheIndex';
import type { CachedObject } from './ClusterWatch';
import type { WatchCache } from './WatchCache';

/**
 * Which Clusters a change in the watch cache touches, for live updates (src/live): answered from the cache's shared
 * CacheIndex, like the pages' views, without building a tree that nobody reads.
 */
export class TouchedClusters {
  private readonly index: CacheIndex;

  constructor(
    private readonly cache: WatchCache,
    managementClusters: string[],
  ) {
    this.index = CacheIndex.for(cache, managementClusters);
  }

  /**
   * The uids of the Clusters whose trees contain any of `changedUids` in one namespace (for live updates). A deleted
   * object is in no tree any more: then every Cluster of the namespace is named, since one of their trees lost it.
   */
  clustersTouchedBy(
    managementCluster: string,
    namespace: string,
    changedUids: Set<string>,
    deleted: boolean,
  ): string[] {
    this.index.begin();
    return this.touched(managementCluster, namespace, changedUids, deleted);
  }

  private touched(
    managementCluster: string,
    namespace: string,
    changedUids: Set<string>,
    deleted: boolean,
  ): string[] {
    const ns = this.index.namespace(managementCluster, namespace);
    const touched = ns.clusters.filter(cluster => {
      const objects = ns.groups.get(cluster.metadata.uid) ?? [];
      // Only a group holding a changed object can have it in its tree: look at just those trees.
      if (!objects.some(o => changedUids.has(o.metadata?.uid ?? '')))
        return false;
      const { uids } = ns.view(cluster);
      return [...changedUids].some(uid => uids.has(uid));
    });
    if (touched.length === 0 && deleted)
      return ns.clusters.map(c => c.metadata.uid);
    return touched.map(c => c.metadata.uid);
  }

  /**
   * The uids of the Clusters whose AKS cluster this ManagedCluster points at (on any management cluster): whose
   * `managedFrom` changes when it appears or goes, though it may be in no tree itself (one written by hand).
   */
  clustersSharingAks(
    managementCluster: string,
    managedCluster: CachedObject,
    groupsThen?: CachedObject[],
  ): string[] {
    this.index.begin();
    // A deleted one's group may be gone by now too: the caller passes the group as it was at its event.
    const groups = (groupsThen ??
      this.index.ownerGroup(
        managementCluster,
        managedCluster,
      )) as unknown as ObservedObject[];
    const [target] = asoTargets(
      [{ ...managedCluster, kind: 'ManagedCluster' } as ObservedObject],
      groups,
    );
    if (!target) return [];
    const owners = this.index.strictAksOwners({
      name: target.azureName,
      resourceGroup: target.resourceGroup,
      subscriptionId: target.subscriptionId,
    });
    const uids = new Set<string>();
    for (const o of owners) {
      const obj = this.cache.get
        ? this.cache.get(
            o.managementCluster,
            'ManagedCluster',
            o.namespace,
            o.name,
          )
        : this.cache
            .list(o.managementCluster, 'ManagedCluster', o.namespace)
            .find(x => x.metadata.name === o.name);
      if (!obj) continue;
      for (const uid of this.touched(
        o.managementCluster,
        o.namespace,
        new Set([obj.metadata.uid]),
        false,
      ))
        uids.add(uid);
    }
    return [...uids];
  }

  /**
   * The uids of the Clusters a Flux Kustomization applies, whose pages show its state (`gitSource`): the Clusters that
   * carry its labels, and the Clusters whose trees hold another object that does (their Git source may come from it).
   * Looked up in the cache index's FluxIndex: what it costs is the objects Flux applies, not the cache.
   */
  clustersAppliedBy(
    managementCluster: string,
    kustomization: FluxObjectRef,
  ): string[] {
    this.index.begin();
    return [...this.applied(managementCluster, kustomization)];
  }

  /** The uids of the Clusters applied by the Kustomizations whose source is this GitRepository. */
  clustersFollowing(
    managementCluster: string,
    gitRepository: FluxObjectRef,
  ): string[] {
    this.index.begin();
    const uids = new Set<string>();
    for (const k of this.index.kustomizationsFrom(
      managementCluster,
      gitRepository,
    ))
      for (const uid of this.applied(managementCluster, k)) uids.add(uid);
    return [...uids];
  }

  private applied(
    managementCluster: string,
    kustomization: FluxObjectRef,
  ): Set<string> {
    const uids = new Set<string>();
    const others = new Map<string, string[]>();
    for (const o of this.index.fluxApplied(managementCluster, kustomization)) {
      if (o.kind === 'Cluster') uids.add(o.uid);
      else {
        let inNamespace = others.get(o.namespace);
        if (!inNamespace) others.set(o.namespace, (inNamespace = []));
        inNamespace.push(o.uid);
      }
    }
    // Another object's Cluster: which tree holds it, from the namespace's membership (built once per state of it).
    for (const [namespace, objectUids] of others) {
      const members = this.index
        .namespace(managementCluster, namespace)
        .membership();
      for (const uid of objectUids) {
        const cluster = members.get(uid);
        if (cluster) uids.add(cluster.uid);
      }
    }
    return uids;
  }
}
