import type { ObservedObject } from '@capz-backstage/plugin-capz-common';
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
}
