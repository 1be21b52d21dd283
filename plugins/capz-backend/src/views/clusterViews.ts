import { NotFoundError } from '@backstage/errors';
import {
  ClusterSummary,
  groupTree,
  ObservedObject,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { CacheIndex } from '../cluster/CacheIndex';
import { CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';

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
    /** The API servers read from ARM (src/connect's ClusterEndpoints): looked up in memory, never fetched here. */
    private readonly endpoints?: {
      of(
        managementCluster: string,
        managedCluster: ObservedObject,
      ): ClusterSummary['apiServer'];
    },
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

  /** One cluster's summary, as {@link ClusterViews.list} gives it (NotFoundError when the cache has no such cluster). */
  summary(
    managementCluster: string,
    namespace: string,
    name: string,
  ): ClusterSummary {
    const view = this.build(managementCluster, namespace, name);
    return this.withKubernetes(
      this.index.summaryOf(view),
      view.managedClusters,
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
