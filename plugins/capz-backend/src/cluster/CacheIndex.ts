import {
  buildClusterTree,
  clusterKustomization,
  ClusterSummary,
  FluxObjectRef,
  ManagedFromPlace,
  ObservedObject,
  partitionByCluster,
  summarizeCluster,
  TreeNode,
  verdictsChangeAt,
} from '@capz-backstage/plugin-capz-common';
import { asoTargets } from '../azure/mapping';
import { AksOwner, describePlace, ownersOf, RECONCILE_POLICY } from './owners';
import type { CacheChange, CachedObject } from './ClusterWatch';
import { FluxAppliedObject, FluxIndex } from './FluxIndex';
import { CLUSTER_KINDS } from './watchedKinds';

/** What the index reads: the watch cache, or a stand-in with `list` only (then nothing is kept between calls). */
export interface IndexSource {
  list(
    managementCluster: string,
    kind: string,
    namespace?: string,
  ): CachedObject[];
  get?(
    managementCluster: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): CachedObject | undefined;
  on?(event: 'change', listener: (change: CacheChange) => void): unknown;
}

/** One CAPI Cluster as the pages show it, built from its own object group. */
export interface ClusterView {
  cluster: CachedObject;
  /** Its group of the namespace's objects (see partitionByCluster). */
  objects: ObservedObject[];
  tree: TreeNode;
  /** The summary without `managedFrom` (that depends on other namespaces and management clusters). */
  summary: ClusterSummary;
  /** The uids of the objects in its tree. */
  uids: Set<string>;
  /** The ManagedClusters in its tree, for `managedFrom`. */
  managedClusters: ObservedObject[];
  /** The Flux Kustomization that applies it (its Cluster's, else its first object's), for `gitSource`. */
  kustomization?: FluxObjectRef;
  /** When its verdicts can change with time alone (a new object's grace period ends); undefined: never. */
  validUntil?: number;
  /**
   * Its tree with similar nodes grouped, by grouping threshold, as the tree route asked for them (made on the first
   * such request: most views are never asked, and 10,000 empty maps are 10,000 more objects for each major GC).
   */
  grouped?: Map<number, TreeNode>;
}

/** The kinds a cluster's tree is built from: not Events, not Flux's objects (read by name, see FluxIndex). */
const TREE_KINDS = CLUSTER_KINDS.map(k => k.name);
const TREE_KIND_SET = new Set(TREE_KINDS);
const lower = (s: string | undefined) => s?.toLowerCase();

/**
 * The object with its kind set, the same value for the same cached object (cached objects are replaced, never changed,
 * on every event): tree groups built from the same objects stay identical, so what was derived from them can be
 * reused. A custom resource's list and watch items carry their kind, so the cached object itself serves; only objects
 * without one (core kinds' list items) get a copy, kept beside them.
 */
const withKind = new WeakMap<CachedObject, ObservedObject>();
function observed(o: CachedObject, kind: string): ObservedObject {
  if (typeof o.kind === 'string') return o as ObservedObject;
  let copy = withKind.get(o);
  if (!copy) {
    copy = { ...o, kind: o.kind ?? kind } as ObservedObject;
    withKind.set(o, copy);
  }
  return copy;
}

const sameObjects = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function treeUids(tree: TreeNode, into = new Set<string>()): Set<string> {
  if (tree.uid) into.add(tree.uid);
  for (const child of tree.children) treeUids(child, into);
  return into;
}

/** The object groups and cluster views of one namespace, from one state of the cache. */
export class NamespaceIndex {
  private readonly views = new Map<string, ClusterView>();
  private members?: Map<string, { name: string; uid: string }>;
  readonly byName = new Map<string, CachedObject>();

  constructor(
    readonly managementCluster: string,
    /** The namespace's Clusters, in cache order. */
    readonly clusters: CachedObject[],
    readonly groups: Map<string, ObservedObject[]>,
    /**
     * The index this one replaces: views whose cluster and group are unchanged are reused. Only its own views are
     * read, so its link to the one before is cut here, and this link once every cluster has its view: without that,
     * every change of a namespace followed by a read kept one more generation of views for good.
     */
    private previous?: NamespaceIndex,
  ) {
    for (const c of clusters) this.byName.set(c.metadata.name, c);
    if (previous) previous.previous = undefined;
  }

  /** The view of one of this namespace's Clusters, built on first use. */
  view(cluster: CachedObject): ClusterView {
    const uid = cluster.metadata.uid;
    const now = Date.now();
    const fresh = (v: ClusterView | undefined) =>
      v && (v.validUntil === undefined || now < v.validUntil) ? v : undefined;
    let view = fresh(this.views.get(uid));
    if (view) return view;
    const objects = this.groups.get(uid) ?? [cluster as ObservedObject];
    const before = fresh(this.previous?.views.get(uid));
    view =
      before &&
      before.cluster === cluster &&
      sameObjects(before.objects, objects)
        ? before
        : this.build(cluster, objects, now);
    this.views.set(uid, view);
    if (this.views.size >= this.clusters.length) this.previous = undefined;
    return view;
  }

  private build(
    cluster: CachedObject,
    objects: ObservedObject[],
    now: number,
  ): ClusterView {
    const tree = buildClusterTree(cluster as ObservedObject, objects, {
      now,
    });
    const uids = treeUids(tree);
    return {
      cluster,
      objects,
      tree,
      summary: summarizeCluster(
        this.managementCluster,
        tree,
        cluster as ObservedObject,
        objects,
      ),
      uids,
      managedClusters: objects.filter(
        o => o.kind === 'ManagedCluster' && uids.has(o.metadata?.uid ?? ''),
      ),
      kustomization: clusterKustomization([
        cluster as ObservedObject,
        ...objects,
      ]),
      validUntil: verdictsChangeAt([cluster as ObservedObject, ...objects], {
        now,
      }),
    };
  }

  /** Which Cluster's tree holds each object (the first Cluster in cache order, when several do). */
  membership(): Map<string, { name: string; uid: string }> {
    if (!this.members) {
      const members = new Map<string, { name: string; uid: string }>();
      for (const cluster of this.clusters) {
        const ref = { name: cluster.metadata.name, uid: cluster.metadata.uid };
        for (const uid of this.view(cluster).uids)
          if (!members.has(uid)) members.set(uid, ref);
      }
      this.members = members;
    }
    return this.members;
  }
}

/**
 * Which ASO ManagedClusters point at which AKS cluster (see aksOwners), kept up to date from the cache's changes: a
 * ManagedCluster's entry is recomputed when it or the ResourceGroup it names changes, so a page view looks up the
 * few owners of one AKS cluster instead of resolving every ManagedCluster of every management cluster.
 */
class AksOwnerIndex {
  private built = false;
  private readonly byPlace = new Map<
    string,
    { owner: AksOwner; object: CachedObject; group?: string }
  >();
  /** `<resource group>/<AKS name>`, lower-cased (as managedFromIndex groups them) → place → owner. */
  private readonly byAks = new Map<string, Map<string, AksOwner>>();
  /** `<management cluster>/<namespace>/<ResourceGroup name>` → the places whose ManagedCluster names it. */
  private readonly byGroup = new Map<string, Set<string>>();

  constructor(
    private readonly source: IndexSource,
    private readonly managementClusters: readonly string[],
    private readonly incremental: boolean,
  ) {}

  reset(): void {
    this.built = false;
  }

  private ensure(): void {
    if (this.built) return;
    this.byPlace.clear();
    this.byAks.clear();
    this.byGroup.clear();
    for (const mc of this.managementClusters)
      for (const o of this.source.list(mc, 'ManagedCluster')) this.put(mc, o);
    this.built = this.incremental;
  }

  onChange(change: CacheChange): void {
    if (!this.built) return;
    const mc = change.managementCluster;
    if (!this.managementClusters.includes(mc)) return;
    const { namespace, name } = change.object.metadata;
    if (change.kind === 'ManagedCluster') {
      if (change.type === 'delete') this.remove(`${mc}/${namespace}/${name}`);
      else this.put(mc, change.object);
    } else if (change.kind === 'ResourceGroup') {
      for (const place of [
        ...(this.byGroup.get(`${mc}/${namespace}/${name}`) ?? []),
      ]) {
        const entry = this.byPlace.get(place);
        if (entry) this.put(mc, entry.object);
      }
    }
  }

  private findGroup(
    mc: string,
    namespace: string,
    name: string,
  ): CachedObject | undefined {
    return this.source.get
      ? this.source.get(mc, 'ResourceGroup', namespace, name)
      : this.source
          .list(mc, 'ResourceGroup', namespace)
          .find(g => g.metadata.name === name);
  }

  private put(mc: string, object: CachedObject): void {
    const { namespace, name } = object.metadata;
    const place = `${mc}/${namespace}/${name}`;
    this.remove(place);
    const owner = (object.spec as { owner?: { name?: unknown } } | undefined)
      ?.owner?.name;
    const groupName = typeof owner === 'string' && owner ? owner : undefined;
    const group =
      groupName && namespace
        ? this.findGroup(mc, namespace, groupName)
        : undefined;
    const [target] = asoTargets(
      [object as unknown as ObservedObject],
      group ? [group as unknown as ObservedObject] : [],
    );
    if (!target) return;
    const policy = object.metadata.annotations?.[RECONCILE_POLICY];
    const aksOwner: AksOwner = {
      managementCluster: mc,
      ...target,
      ...(policy ? { reconcilePolicy: policy } : {}),
    };
    const groupKey = groupName ? `${mc}/${namespace}/${groupName}` : undefined;
    this.byPlace.set(place, { owner: aksOwner, object, group: groupKey });
    const aks = AksOwnerIndex.aksKey(aksOwner);
    let bucket = this.byAks.get(aks);
    if (!bucket) this.byAks.set(aks, (bucket = new Map()));
    bucket.set(place, aksOwner);
    if (groupKey) {
      let places = this.byGroup.get(groupKey);
      if (!places) this.byGroup.set(groupKey, (places = new Set()));
      places.add(place);
    }
  }

  private remove(place: string): void {
    const entry = this.byPlace.get(place);
    if (!entry) return;
    this.byPlace.delete(place);
    const aks = AksOwnerIndex.aksKey(entry.owner);
    const bucket = this.byAks.get(aks);
    bucket?.delete(place);
    if (bucket?.size === 0) this.byAks.delete(aks);
    if (entry.group) {
      const places = this.byGroup.get(entry.group);
      places?.delete(place);
      if (places?.size === 0) this.byGroup.delete(entry.group);
    }
  }

  private static aksKey(o: { resourceGroup?: string; azureName: string }) {
    return `${lower(o.resourceGroup) ?? ''}/${lower(o.azureName)}`;
  }

  /** The owners of this AKS cluster, as `ownersOf(…, { strict: true })` over every owner would find them. */
  strictOwners(aks: {
    name: string;
    resourceGroup?: string;
    subscriptionId?: string;
  }): AksOwner[] {
    if (!aks.resourceGroup) return [];
    this.ensure();
    const bucket = this.byAks.get(
      AksOwnerIndex.aksKey({
        resourceGroup: aks.resourceGroup,
        azureName: aks.name,
      }),
    );
    return bucket ? ownersOf(aks, [...bucket.values()], { strict: true }) : [];
  }

  /** What `managedFromIndex(aksOwners(…))` has for this place, from its AKS cluster's owners only. */
  managedFrom(place: string): ManagedFromPlace[] | undefined {
    this.ensure();
    const entry = this.byPlace.get(place);
    if (!entry || lower(entry.owner.reconcilePolicy) === 'skip')
      return undefined;
    const o = entry.owner;
    const bucket = this.byAks.get(AksOwnerIndex.aksKey(o));
    if (!bucket || bucket.size < 2) return undefined;
    const managing = [...bucket.values()].filter(
      x => lower(x.reconcilePolicy) !== 'skip',
    );
    if (managing.length < 2) return undefined;
    const others = ownersOf(
      {
        name: o.azureName,
        resourceGroup: o.resourceGroup,
        subscriptionId: o.subscriptionId,
      },
      managing,
      { strict: true },
    ).filter(x => x !== o);
    if (!others.length) return undefined;
    return others
      .map(
        (x): ManagedFromPlace => ({
          managementCluster: x.managementCluster,
          namespace: x.namespace,
          name: x.name,
          ...(x.cluster ? { cluster: x.cluster } : {}),
        }),
      )
      .sort((a, b) => describePlace(a).localeCompare(describePlace(b)));
  }
}

/** The per-namespace indexes of one source, whatever the management clusters its readers consider. */
class TreeIndex {
  readonly incremental: boolean;
  private readonly namespaces = new Map<string, NamespaceIndex>();
  /** Namespaces changed since their index was built: kept to reuse the views of clusters that did not change. */
  private readonly stale = new Map<string, NamespaceIndex>();

  constructor(private readonly source: IndexSource) {
    this.incremental = typeof source.on === 'function';
    if (this.incremental)
      source.on!('change', (change: CacheChange) => this.onChange(change));
  }

  private onChange(change: CacheChange): void {
    // Events and Flux's objects are in no tree: their changes leave the namespace's trees as they are.
    if (!TREE_KIND_SET.has(change.kind)) return;
    const key = `${change.managementCluster}/${
      change.object.metadata.namespace ?? ''
    }`;
    const index = this.namespaces.get(key);
    if (index) {
      this.namespaces.delete(key);
      this.stale.set(key, index);
    }
  }

  begin(): void {
    if (this.incremental) return;
    this.namespaces.clear();
    this.stale.clear();
  }

  namespace(managementCluster: string, namespace: string): NamespaceIndex {
    const key = `${managementCluster}/${namespace}`;
    let index = this.namespaces.get(key);
    if (!index) {
      const objects = TREE_KINDS.flatMap(kind =>
        this.source
          .list(managementCluster, kind, namespace)
          .map(o => observed(o, kind)),
      );
      index = new NamespaceIndex(
        managementCluster,
        this.source.list(managementCluster, 'Cluster', namespace),
        partitionByCluster(objects),
        this.stale.get(key),
      );
      this.stale.delete(key);
      this.namespaces.set(key, index);
    }
    return index;
  }
}

const shared = new WeakMap<
  object,
  { trees: TreeIndex; indexes: Map<string, CacheIndex> }
>();

/**
 * What the read path derives from the watch cache, kept between page views and updated from the cache's changes
 * (docs/architecture.md#flow-watch-cache): per namespace, the per-cluster object groups and each cluster's tree and
 * summary (rebuilt for a cluster only when its own objects changed, or when a new object's grace period ends); and
 * which ManagedClusters point at which AKS cluster. A change only marks its namespace stale (O(1)); a page view then
 * costs its own cluster's objects, the clusters list a lookup per cluster.
 *
 * One per cache and set of management clusters (`CacheIndex.for`; the per-namespace part is one per cache), shared
 * by the HTTP routes, the live updates and the condition history. A source that cannot report changes (a test
 * stand-in) is read afresh on every `begin()`.
 */
export class CacheIndex {
  static for(
    source: IndexSource,
    managementClusters: readonly string[],
  ): CacheIndex {
    let entry = shared.get(source);
    if (!entry)
      shared.set(
        source,
        (entry = { trees: new TreeIndex(source), indexes: new Map() }),
      );
    const key = JSON.stringify(managementClusters);
    let index = entry.indexes.get(key);
    if (!index)
      entry.indexes.set(
        key,
        (index = new CacheIndex(source, managementClusters, entry.trees)),
      );
    return index;
  }

  private readonly aks: AksOwnerIndex;
  private readonly flux: FluxIndex;

  private constructor(
    private readonly source: IndexSource,
    readonly managementClusters: readonly string[],
    private readonly trees: TreeIndex,
  ) {
    this.aks = new AksOwnerIndex(source, managementClusters, trees.incremental);
    this.flux = new FluxIndex(
      source,
      managementClusters,
      TREE_KIND_SET,
      trees.incremental,
    );
    if (trees.incremental)
      source.on!('change', (change: CacheChange) => {
        this.aks.onChange(change);
        this.flux.onChange(change);
      });
  }

  /** Starts a read: a source without change events is read afresh. */
  begin(): void {
    if (this.trees.incremental) return;
    this.trees.begin();
    this.aks.reset();
    this.flux.reset();
  }

  /** The objects of the clusters' kinds that carry this Flux Kustomization's labels (see FluxIndex). */
  fluxApplied(
    managementCluster: string,
    kustomization: FluxObjectRef,
  ): FluxAppliedObject[] {
    return this.flux.appliedBy(managementCluster, kustomization);
  }

  /** The Flux Kustomizations whose `spec.sourceRef` names this GitRepository (see FluxIndex). */
  kustomizationsFrom(
    managementCluster: string,
    gitRepository: FluxObjectRef,
  ): FluxObjectRef[] {
    return this.flux.kustomizationsFrom(managementCluster, gitRepository);
  }

  /** The index of one namespace, rebuilt when something in it changed since. */
  namespace(managementCluster: string, namespace: string): NamespaceIndex {
    return this.trees.namespace(managementCluster, namespace);
  }

  /** The ResourceGroup a ManagedCluster names as its owner, as a list (what asoTargets reads), now. */
  ownerGroup(
    managementCluster: string,
    managedCluster: CachedObject,
  ): CachedObject[] {
    const ns = managedCluster.metadata.namespace;
    const owner = (
      managedCluster.spec as { owner?: { name?: unknown } } | undefined
    )?.owner?.name;
    if (!ns || typeof owner !== 'string' || !owner) return [];
    const group = this.source.get
      ? this.source.get(managementCluster, 'ResourceGroup', ns, owner)
      : this.source
          .list(managementCluster, 'ResourceGroup', ns)
          .find(g => g.metadata.name === owner);
    return group ? [group] : [];
  }

  /** See AksOwnerIndex.strictOwners. */
  strictAksOwners(aks: {
    name: string;
    resourceGroup?: string;
    subscriptionId?: string;
  }): AksOwner[] {
    return this.aks.strictOwners(aks);
  }

  /**
   * The summary with what depends on objects outside the cluster's own: `managedFrom` (see managedFromOf) and
   * `gitSource`, the Flux Kustomization that applies it and its GitRepository, looked up by name in the cache.
   */
  summaryOf(view: ClusterView): ClusterSummary {
    const summary = this.managedFromOf(view);
    const gitSource =
      view.kustomization &&
      this.flux.gitSource(summary.managementCluster, view.kustomization);
    return gitSource ? { ...summary, gitSource } : summary;
  }

  /**
   * The summary with `managedFrom`: the other places managing the AKS cluster of the ManagedCluster in this
   * cluster's tree (one that reconciles: not on `skip`), when there are any.
   */
  private managedFromOf(view: ClusterView): ClusterSummary {
    const summary = view.summary;
    if (!view.managedClusters.length) return summary;
    const own = (p: ManagedFromPlace) =>
      p.managementCluster === summary.managementCluster &&
      p.namespace === summary.namespace &&
      view.managedClusters.some(o => o.metadata?.name === p.name);
    const places = view.managedClusters
      .filter(
        o =>
          o.metadata?.annotations?.[RECONCILE_POLICY]?.toLowerCase() !== 'skip',
      )
      .flatMap(
        o =>
          this.aks.managedFrom(
            `${summary.managementCluster}/${
              o.metadata?.namespace ?? summary.namespace
            }/${o.metadata?.name}`,
          ) ?? [],
      )
      .filter(p => !own(p));
    return places.length ? { ...summary, managedFrom: places } : summary;
  }
}
