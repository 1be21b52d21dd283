import { NotFoundError } from '@backstage/errors';
import {
  buildClusterTree,
  ClusterSummary,
  groupTree,
  ObservedObject,
  summarizeCluster,
  TreeNode,
} from '@internal/plugin-capz-common';
import { WatchCache } from '../cluster/WatchCache';
import { WATCHED_KINDS } from '../cluster/watchedKinds';

/** Every watched object of one namespace (Events excluded: they belong to the timeline, not the tree). */
function namespaceObjects(cache: WatchCache, managementCluster: string, namespace: string): ObservedObject[] {
  return WATCHED_KINDS.filter(k => k.name !== 'Event').flatMap(k =>
    cache.list(managementCluster, k.name, namespace).map(o => ({ ...o, kind: o.kind ?? k.name }) as ObservedObject),
  );
}

/**
 * The clusters list and one cluster's tree, computed from the watch cache only: a page view never reaches an API
 * server (DESIGN.md "Data flow" 2).
 */
export class ClusterViews {
  constructor(private readonly cache: WatchCache, private readonly managementClusters: string[]) {}

  list(): ClusterSummary[] {
    return this.managementClusters.flatMap(mc =>
      this.cache.list(mc, 'Cluster').map(cluster => {
        const objects = namespaceObjects(this.cache, mc, cluster.metadata.namespace!);
        const tree = buildClusterTree(cluster as ObservedObject, objects);
        return summarizeCluster(mc, tree, cluster as ObservedObject, objects);
      }),
    );
  }

  tree(managementCluster: string, namespace: string, name: string, groupThreshold: number): { summary: ClusterSummary; tree: TreeNode } {
    if (!this.managementClusters.includes(managementCluster)) {
      throw new NotFoundError(`No management cluster named "${managementCluster}"`);
    }
    const cluster = this.cache.list(managementCluster, 'Cluster', namespace).find(c => c.metadata.name === name);
    if (!cluster) {
      throw new NotFoundError(`No Cluster ${namespace}/${name} on management cluster "${managementCluster}"`);
    }
    const objects = namespaceObjects(this.cache, managementCluster, namespace);
    const tree = buildClusterTree(cluster as ObservedObject, objects);
    return {
      summary: summarizeCluster(managementCluster, tree, cluster as ObservedObject, objects),
      tree: groupThreshold > 0 ? groupTree(tree, { threshold: groupThreshold }) : tree,
    };
  }
}
