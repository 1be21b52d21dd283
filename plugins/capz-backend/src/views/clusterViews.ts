import { NotFoundError } from '@backstage/errors';
import {
  ClusterFacets,
  ClusterFacetsCounter,
  attentionMatches,
  clusterMatches,
  ClusterPageQuery,
  ClusterSummary,
  DEFAULT_CLUSTER_SORT,
  FilterableCluster,
  groupTree,
  ObservedObject,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { CacheIndex, ClusterView } from '../cluster/CacheIndex';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import { CLUSTER_KINDS } from '../cluster/watchedKinds';
import { WatchCache } from '../cluster/WatchCache';
import { ClusterOrders } from './clusterOrders';

/** The kinds a cluster's tree and summary are built from (CacheIndex's): a change of another kind moves no cluster. */
const TREE_KINDS = new Set(CLUSTER_KINDS.map(k => k.name));
/** A namespace of a management cluster as a key (management cluster names are not restricted). */
const namespaceKey = (managementCluster: string, namespace: string) =>
  JSON.stringify([managementCluster, namespace]);

/**
 * The clusters list and one cluster's tree, computed from the watch cache only: a page view never reaches an API
 * server (docs/architecture.md#flow-watch-cache). What they are built from (per-cluster object groups, trees,
 * summaries, who manages which AKS cluster) is kept by the cache's CacheIndex, shared by every ClusterViews of the
 * same cache and updated from its changes: a tree costs its own objects, the list one lookup per cluster.
 */
export class ClusterViews {
  private readonly index: CacheIndex;
  /** For the paged views: each cluster's view as last seen, and the sort orders asked for. */
  private readonly seen = new Map<string, ClusterView>();
  private readonly byNamespace = new Map<string, Set<string>>();
  /** A seen cluster's id by its Cluster's uid (what change signals name), kept with `seen`. */
  private readonly idByUid = new Map<string, string>();
  private readonly orders = new ClusterOrders();
  /** Namespaces (`managementCluster/namespace`) changed since the orders were brought up to date. */
  private dirty: Set<string> | 'all' = 'all';
  /** When a seen cluster's verdicts may change with time alone (see ClusterView.validUntil). */
  private expiresAt = Infinity;
  private readonly incremental: boolean;

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
    this.incremental = typeof cache.on === 'function';
    if (this.incremental)
      cache.on('change', (change: CacheChange) => {
        if (this.dirty !== 'all' && TREE_KINDS.has(change.kind))
          this.dirty.add(
            namespaceKey(
              change.managementCluster,
              change.object.metadata.namespace ?? '',
            ),
          );
      });
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

  /**
   * One page of a view (capz-common's pageOfClusters over {@link ClusterViews.list}, the same clusters in the same
   * order) without building or sorting every summary per request: the orders are kept (ClusterOrders) and updated
   * with the clusters whose view changed since the last request, then walked with the filters. Filters and sort
   * read the cluster's own summary only, so what depends on other places (managedFrom, gitSource, the API server) is
   * added to the page's clusters alone. `attentionOf` judges a cluster for the `attention` filter.
   */
  page(
    query: ClusterPageQuery,
    allowed: (c: ClusterSummary) => boolean,
    options: {
      attentionOf?: (c: ClusterSummary) => FilterableCluster['attention'];
      /** Also the facets of every cluster `allowed` keeps (ClusterFacets). */
      facets?: boolean;
    } = {},
  ): {
    items: ClusterSummary[];
    total: number;
    offset: number;
    facets?: ClusterFacets;
  } {
    this.refreshOrders();
    const { attentionOf } = options;
    const order = this.orders.order(
      query.sort ?? DEFAULT_CLUSTER_SORT.column,
      query.dir ?? DEFAULT_CLUSTER_SORT.direction,
    );
    const offset = Math.max(0, query.offset ?? 0);
    const end =
      query.limit === undefined ? Infinity : offset + Math.max(0, query.limit);
    const ids: string[] = [];
    let total = 0;
    const counter = options.facets ? new ClusterFacetsCounter() : undefined;
    // The attention filter on its own, judged last: the other filters read the summary as it is.
    const { attention, ...filters } = query;
    for (const { r, id } of order) {
      if (!allowed(r)) continue;
      const judged =
        (attention || counter) && attentionOf ? attentionOf(r) : undefined;
      // managedFrom depends on other places: looked up for the facets only where the cluster has a ManagedCluster.
      counter?.add(
        this.seen.get(id)!.managedClusters.length ? this.decorated(id) : r,
        judged,
      );
      // The judgement is checked apart: a copy of each summary with it would be 10,000 objects per request.
      if (
        !clusterMatches(r, filters) ||
        (attention && !attentionMatches(judged, attention))
      )
        continue;
      if (total >= offset && total < end) ids.push(id);
      total++;
    }
    return {
      items: ids.map(id => this.decorated(id)),
      total,
      offset,
      ...(counter ? { facets: counter.facets() } : {}),
    };
  }

  /**
   * The summaries of the Clusters with these uids, as {@link ClusterViews.list} gives them, in the order asked; a uid
   * the cache no longer holds is left out. For a consumer of change signals (the catalog module), which name clusters
   * by uid: it reads what changed, not the whole list. Costs the changed namespaces and one lookup per uid.
   */
  withUids(
    uids: readonly string[],
    allowed: (c: ClusterSummary) => boolean,
  ): ClusterSummary[] {
    this.refreshOrders();
    const items: ClusterSummary[] = [];
    for (const uid of new Set(uids)) {
      const id = this.idByUid.get(uid);
      if (id === undefined || !allowed(this.seen.get(id)!.summary)) continue;
      items.push(this.decorated(id));
    }
    return items;
  }

  /** A seen cluster's summary as list() gives it. */
  private decorated(id: string): ClusterSummary {
    const view = this.seen.get(id)!;
    return this.withKubernetes(
      this.index.summaryOf(view),
      view.managedClusters,
    );
  }

  /**
   * Brings the kept orders to the cache: only the namespaces the cache reported a change in since (every one on the
   * first call, with a source that reports no changes, or once a cluster's verdicts may have changed with time).
   */
  private refreshOrders(): void {
    this.index.begin();
    const now = Date.now();
    const everything =
      this.dirty === 'all' || !this.incremental || now >= this.expiresAt;
    const namespaces = everything
      ? new Set([
          ...this.byNamespace.keys(),
          ...this.managementClusters.flatMap(mc =>
            this.cache
              .list(mc, 'Cluster')
              .map(c => namespaceKey(mc, c.metadata.namespace!)),
          ),
        ])
      : this.dirty;
    if (everything) this.expiresAt = Infinity;
    this.dirty = new Set();
    const changed = new Map<string, ClusterSummary>();
    const gone: string[] = [];
    for (const key of namespaces) {
      const [mc, ns] = JSON.parse(key) as [string, string];
      if (!this.managementClusters.includes(mc)) continue;
      const index = this.index.namespace(mc, ns);
      const before = this.byNamespace.get(key) ?? new Set<string>();
      const present = new Set<string>();
      for (const cluster of index.clusters) {
        const view = index.view(cluster);
        // capz-common's clusterId: the orders break ties by it, as the page does.
        const id = `${mc}/${ns}/${cluster.metadata.name}`;
        present.add(id);
        if (view.validUntil !== undefined)
          this.expiresAt = Math.min(this.expiresAt, view.validUntil);
        const was = this.seen.get(id);
        if (was !== view) {
          // A Cluster deleted and created again under its name comes back with a new uid.
          if (was && this.idByUid.get(was.summary.uid) === id)
            this.idByUid.delete(was.summary.uid);
          this.seen.set(id, view);
          this.idByUid.set(view.summary.uid, id);
          changed.set(id, view.summary);
        }
      }
      for (const id of before)
        if (!present.has(id)) {
          const uid = this.seen.get(id)?.summary.uid;
          if (uid !== undefined && this.idByUid.get(uid) === id)
            this.idByUid.delete(uid);
          this.seen.delete(id);
          gone.push(id);
        }
      if (present.size) this.byNamespace.set(key, present);
      else this.byNamespace.delete(key);
    }
    this.orders.update(changed, gone);
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
      const grouped = view.grouped?.get(groupThreshold);
      tree = grouped ?? groupTree(view.tree, { threshold: groupThreshold });
      // A few thresholds per view (the pages use one): the query parameter must not grow memory.
      if (!grouped && (view.grouped?.size ?? 0) < 4)
        (view.grouped ??= new Map()).set(groupThreshold, tree);
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
