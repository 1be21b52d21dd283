import { NotFoundError } from '@backstage/errors';
import {
  buildClusterTree,
  ClusterSummary,
  groupTree,
  ManagedFromPlace,
  ObservedObject,
  partitionByCluster,
  summarizeCluster,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { asoTargets } from '../azure/mapping';
import {
  aksOwners,
  managedFromIndex,
  ownersOf,
  RECONCILE_POLICY,
} from '../azure/owners';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { WatchCache } from '../cluster/WatchCache';
import { WATCHED_KINDS } from '../cluster/watchedKinds';

/** Every watched object of one namespace (Events excluded: they belong to the timeline, not the tree). */
function namespaceObjects(
  cache: WatchCache,
  managementCluster: string,
  namespace: string,
): ObservedObject[] {
  return WATCHED_KINDS.filter(k => k.name !== 'Event').flatMap(k =>
    cache
      .list(managementCluster, k.name, namespace)
      .map(o => ({ ...o, kind: o.kind ?? k.name } as ObservedObject)),
  );
}

/**
 * The clusters list and one cluster's tree, computed from the watch cache only: a page view never reaches an API
 * server (docs/architecture.md#flow-watch-cache).
 */
export class ClusterViews {
  /**
   * Per-cluster object groups of each namespace, kept until something in that namespace changes: in steady state a
   * tree view then costs only its own objects, however big the namespace.
   */
  private readonly groupsByNamespace = new Map<
    string,
    Map<string, ObservedObject[]>
  >();

  constructor(
    private readonly cache: WatchCache,
    private readonly managementClusters: string[],
  ) {
    // Caches that cannot tell about changes (test stand-ins) are simply not memoised.
    if (typeof cache.on === 'function') {
      cache.on('change', (change: CacheChange) => {
        if (change.kind !== 'Event') {
          this.groupsByNamespace.delete(
            `${change.managementCluster}/${
              change.object.metadata.namespace ?? ''
            }`,
          );
        }
      });
    }
  }

  private groups(
    managementCluster: string,
    namespace: string,
  ): Map<string, ObservedObject[]> {
    const key = `${managementCluster}/${namespace}`;
    let groups = this.groupsByNamespace.get(key);
    if (!groups) {
      groups = partitionByCluster(
        namespaceObjects(this.cache, managementCluster, namespace),
      );
      if (typeof this.cache.on === 'function')
        this.groupsByNamespace.set(key, groups);
    }
    return groups;
  }

  list(): ClusterSummary[] {
    const managedFrom = this.managedFrom();
    return this.managementClusters.flatMap(mc => {
      const byNamespace = new Map<string, Map<string, ObservedObject[]>>();
      return this.cache.list(mc, 'Cluster').map(cluster => {
        const ns = cluster.metadata.namespace!;
        let groups = byNamespace.get(ns);
        if (!groups) byNamespace.set(ns, (groups = this.groups(mc, ns)));
        const objects = groups.get(cluster.metadata.uid) ?? [
          cluster as ObservedObject,
        ];
        const tree = buildClusterTree(cluster as ObservedObject, objects);
        return withManagedFrom(
          summarizeCluster(mc, tree, cluster as ObservedObject, objects),
          tree,
          objects,
          managedFrom,
        );
      });
    });
  }

  tree(
    managementCluster: string,
    namespace: string,
    name: string,
    groupThreshold: number,
  ): { summary: ClusterSummary; tree: TreeNode } {
    const { cluster, objects, tree } = this.build(
      managementCluster,
      namespace,
      name,
    );
    return {
      summary: withManagedFrom(
        summarizeCluster(
          managementCluster,
          tree,
          cluster as ObservedObject,
          objects,
        ),
        tree,
        objects,
        this.managedFrom(),
      ),
      tree:
        groupThreshold > 0
          ? groupTree(tree, { threshold: groupThreshold })
          : tree,
    };
  }

  /**
   * Which ManagedClusters share their AKS cluster with others, over every management cluster's cache (one pass over
   * the ManagedClusters and ResourceGroups, per request: a page view still reaches no API server).
   */
  private managedFrom() {
    return managedFromIndex(aksOwners(this.cache, this.managementClusters));
  }

  /** One object of a cluster's tree, by uid: the YAML view shows nothing outside the cluster it was asked for. */
  object(
    managementCluster: string,
    namespace: string,
    name: string,
    uid: string,
  ): CachedObject {
    const { objects, tree } = this.build(managementCluster, namespace, name);
    if (!treeUids(tree).has(uid)) {
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
    const groups = this.groups(managementCluster, namespace);
    const clusters = this.cache.list(managementCluster, 'Cluster', namespace);
    const touched = clusters.filter(cluster => {
      const objects = groups.get(cluster.metadata.uid) ?? [];
      // Only a group holding a changed object can have it in its tree: build just those trees.
      if (!objects.some(o => changedUids.has(o.metadata?.uid ?? '')))
        return false;
      const uids = treeUids(
        buildClusterTree(cluster as ObservedObject, objects),
      );
      return [...changedUids].some(uid => uids.has(uid));
    });
    if (touched.length === 0 && deleted)
      return clusters.map(c => c.metadata.uid);
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
    const ns = managedCluster.metadata.namespace ?? '';
    // A deleted one's group may be gone by now too: the caller passes the groups as they were at its event.
    const groups = (groupsThen ??
      this.cache.list(
        managementCluster,
        'ResourceGroup',
        ns,
      )) as unknown as ObservedObject[];
    const [target] = asoTargets(
      [{ ...managedCluster, kind: 'ManagedCluster' } as ObservedObject],
      groups,
    );
    if (!target) return [];
    const owners = ownersOf(
      {
        name: target.azureName,
        resourceGroup: target.resourceGroup,
        subscriptionId: target.subscriptionId,
      },
      aksOwners(this.cache, this.managementClusters),
      { strict: true },
    );
    const uids = new Set<string>();
    for (const o of owners) {
      const obj = this.cache
        .list(o.managementCluster, 'ManagedCluster', o.namespace)
        .find(x => x.metadata.name === o.name);
      if (!obj) continue;
      for (const uid of this.clustersTouchedBy(
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
    const cluster = this.cache
      .list(managementCluster, 'Cluster', namespace)
      .find(c => c.metadata.name === name);
    if (!cluster) {
      throw new NotFoundError(
        `No Cluster ${namespace}/${name} on management cluster "${managementCluster}"`,
      );
    }
    const objects =
      this.groups(managementCluster, namespace).get(cluster.metadata.uid) ?? [];
    return {
      cluster,
      objects,
      tree: buildClusterTree(cluster as ObservedObject, objects),
    };
  }
}

/**
 * The summary with `managedFrom`: the other places managing the AKS cluster of the ManagedCluster in this cluster's
 * tree (one that reconciles: not on `skip`), when there are any.
 */
function withManagedFrom(
  summary: ClusterSummary,
  tree: TreeNode,
  objects: readonly ObservedObject[],
  index: Map<string, ManagedFromPlace[]>,
): ClusterSummary {
  if (!index.size) return summary;
  const uids = new Set<string>();
  const walk = (n: TreeNode) => {
    if (n.kind === 'ManagedCluster' && n.uid) uids.add(n.uid);
    n.children.forEach(walk);
  };
  walk(tree);
  const own = (p: ManagedFromPlace) =>
    p.managementCluster === summary.managementCluster &&
    p.namespace === summary.namespace &&
    objects.some(
      o =>
        o.kind === 'ManagedCluster' &&
        uids.has(o.metadata?.uid ?? '') &&
        o.metadata?.name === p.name,
    );
  const places = objects
    .filter(
      o =>
        o.kind === 'ManagedCluster' &&
        uids.has(o.metadata?.uid ?? '') &&
        o.metadata?.annotations?.[RECONCILE_POLICY]?.toLowerCase() !== 'skip',
    )
    .flatMap(
      o =>
        index.get(
          `${summary.managementCluster}/${
            o.metadata?.namespace ?? summary.namespace
          }/${o.metadata?.name}`,
        ) ?? [],
    )
    .filter(p => !own(p));
  return places.length ? { ...summary, managedFrom: places } : summary;
}

function treeUids(tree: TreeNode, into = new Set<string>()): Set<string> {
  if (tree.uid) into.add(tree.uid);
  for (const child of tree.children) treeUids(child, into);
  return into;
}
