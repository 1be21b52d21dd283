import { NotFoundError } from '@backstage/errors';
import {
  ClusterSummary,
  groupTree,
  ObservedObject,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { asoTargets } from '../azure/mapping';
import { CacheIndex } from '../cluster/CacheIndex';
import { CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';
import type { ClusterEndpoints } from '../connect/ClusterEndpoints';

/**
 * The clusters list and one cluster's tree, computed from the watch cache only: a page view never reaches an API
 * server (docs/architecture.md#flow-watch-cache). What they are built from (per-cluster object groups, trees,
 * summaries, who manages which AKS cluster) is kept by the cache's CacheIndex, shared by every ClusterViews of the
 * same cache and updated from its changes: a tree costs its own objects, the list one lookup per cluster.
 */
export class ClusterViews {
  private readonly index: CacheIndex;

  constructor(
    private readonly cache: WatchCache,
    private readonly managementClusters: string[],
    /** The API servers read from ARM (src/connect): looked up in memory, never fetched here. */
    private readonly endpoints?: Pick<ClusterEndpoints, 'of'>,
  ) {
    this.index = CacheIndex.for(cache, managementClusters);
  }

  /** The summary with its ManagedCluster's Entra ID setting and, once known, its API server. */
  private withKubernetes(
    summary: ClusterSummary,
    managedClusters: readonly ObservedObject[],
  ): ClusterSummary {
    const mc = managedClusters[0];
    if (!mc) return summary;
    const aad = (mc.spec as { aadProfile?: { managed?: unknown } } | undefined)
      ?.aadProfile?.managed;
    const apiServer = this.endpoints?.of(summary.managementCluster, mc);
    if (aad !== true && !apiServer) return summary;
    return {
      ...summary,
      ...(aad === true ? { entraId: true } : {}),
      ...(apiServer ? { apiServer } : {}),
    };
  }

  list(): ClusterSummary[] {
    this.index.begin();
    return this.managementClusters.flatMap(mc =>
      this.cache.list(mc, 'Cluster').map(cluster => {
        const view = this.index
          .namespace(mc, cluster.metadata.namespace!)
          .view(cluster);
        return this.withKubernetes(
          this.index.summaryOf(view),
          view.managedClusters,
        );
      }),
    );
  }

  tree(
    managementCluster: string,
    namespace: string,
    name: string,
    groupThreshold: number,
  ): { summary: ClusterSummary; tree: TreeNode } {
    const view = this.build(managementCluster, namespace, name);
    let tree = view.tree;
    if (groupThreshold > 0) {
      const grouped = view.grouped.get(groupThreshold);
      tree = grouped ?? groupTree(view.tree, { threshold: groupThreshold });
      // A few thresholds per view (the pages use one): the query parameter must not grow memory.
      if (!grouped && view.grouped.size < 4)
        view.grouped.set(groupThreshold, tree);
    }
    return {
      summary: this.withKubernetes(
        this.index.summaryOf(view),
        view.managedClusters,
      ),
      tree,
    };
  }

  /** One object of a cluster's tree, by uid: the YAML view shows nothing outside the cluster it was asked for. */
  object(
    managementCluster: string,
    namespace: string,
    name: string,
    uid: string,
  ): CachedObject {
    const { objects, uids } = this.build(managementCluster, namespace, name);
    if (!uids.has(uid)) {
      throw new NotFoundError(
        `No object with uid ${uid} in the tree of Cluster ${namespace}/${name}`,
      );
    }
    return objects.find(o => o.metadata?.uid === uid) as CachedObject;
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

  private build(managementCluster: string, namespace: string, name: string) {
    if (!this.managementClusters.includes(managementCluster)) {
      throw new NotFoundError(
        `No management cluster named "${managementCluster}"`,
      );
    }
    this.index.begin();
    const ns = this.index.namespace(managementCluster, namespace);
    const cluster = ns.byName.get(name);
    if (!cluster) {
      throw new NotFoundError(
        `No Cluster ${namespace}/${name} on management cluster "${managementCluster}"`,
      );
    }
    return ns.view(cluster);
  }
}
