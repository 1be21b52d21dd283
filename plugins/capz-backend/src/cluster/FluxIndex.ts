import {
  clusterGitSource,
  FLUX_KUSTOMIZATION_NAME_LABEL,
  FLUX_KUSTOMIZATION_NAMESPACE_LABEL,
  gitSourceOf,
  type ClusterGitSource,
  type FluxObjectRef,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { CacheChange, CachedObject } from './ClusterWatch';

/** What the Flux index reads: the watch cache, or a stand-in (see CacheIndex's IndexSource). */
export interface FluxIndexSource {
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
}

/** An object of a cluster that carries a Kustomization's labels. */
export interface FluxAppliedObject {
  kind: string;
  namespace: string;
  uid: string;
}

const key = (mc: string, namespace: string, name: string) =>
  `${mc}/${namespace}/${name}`;

/** Both of kustomize-controller's labels (docs/flux-facts.md#flux-labels), as one key; undefined without both. */
function kustomizationKey(mc: string, o: CachedObject): string | undefined {
  const labels = o.metadata.labels;
  const name = labels?.[FLUX_KUSTOMIZATION_NAME_LABEL];
  const namespace = labels?.[FLUX_KUSTOMIZATION_NAMESPACE_LABEL];
  return name && namespace ? key(mc, namespace, name) : undefined;
}

/**
 * Which clusters a Flux Kustomization applies and which Kustomizations apply from a GitRepository, kept up to date
 * from the cache's changes, so that a change of either is announced to the pages of the clusters concerned
 * (docs/architecture.md#flow-live) without scanning the cache:
 * - Kustomization (namespace/name) → the objects of the clusters' kinds that carry its two labels
 *   (docs/flux-facts.md#flux-labels): the Cluster, and its other objects, since a cluster whose Cluster Flux does not
 *   apply takes its Git source from the first of its objects Flux applies. Updated on each change of such an object.
 * - GitRepository (namespace/name) → the Kustomizations whose `spec.sourceRef` names it
 *   (docs/flux-facts.md#flux-source-ref). Updated on each change of a Kustomization.
 * Built by one pass over the cache at first use; a source without change events is read afresh on every `reset()`.
 *
 * It also answers a cluster's Git source from the Kustomization and GitRepository looked up by name, remembered per
 * pair of cached objects (a cached object is replaced, never changed, on every event).
 */
export class FluxIndex {
  private built = false;
  /** Kustomization key → uid → an object carrying its labels. */
  private readonly applied = new Map<string, Map<string, FluxAppliedObject>>();
  /** `<management cluster>/<uid>` → the Kustomization key it carries. */
  private readonly labelled = new Map<string, string>();
  /** GitRepository key → the Kustomizations that name it, by key. */
  private readonly bySource = new Map<string, Map<string, FluxObjectRef>>();
  /** Kustomization key → the GitRepository key it names. */
  private readonly sourceOf = new Map<string, string>();
  private readonly gitSources = new WeakMap<
    CachedObject,
    { repo: CachedObject | undefined; value: ClusterGitSource }
  >();

  constructor(
    private readonly source: FluxIndexSource,
    private readonly managementClusters: readonly string[],
    /** The kinds of the clusters' objects (CLUSTER_KINDS). */
    private readonly clusterKinds: ReadonlySet<string>,
    private readonly incremental: boolean,
  ) {}

  reset(): void {
    this.built = false;
  }

  private ensure(): void {
    if (this.built) return;
    this.applied.clear();
    this.labelled.clear();
    this.bySource.clear();
    this.sourceOf.clear();
    for (const mc of this.managementClusters) {
      for (const kind of this.clusterKinds)
        for (const o of this.source.list(mc, kind)) this.putObject(mc, kind, o);
      for (const k of this.source.list(mc, 'Kustomization'))
        this.putKustomization(mc, k);
    }
    this.built = this.incremental;
  }

  onChange(change: CacheChange): void {
    if (!this.built) return;
    const mc = change.managementCluster;
    if (!this.managementClusters.includes(mc)) return;
    const { kind, object } = change;
    if (this.clusterKinds.has(kind)) {
      if (change.type === 'delete') this.removeObject(mc, object.metadata.uid);
      else this.putObject(mc, kind, object);
    } else if (kind === 'Kustomization') {
      const { namespace = '', name } = object.metadata;
      if (change.type === 'delete')
        this.removeKustomization(key(mc, namespace, name));
      else this.putKustomization(mc, object);
    }
  }

  private putObject(mc: string, kind: string, o: CachedObject): void {
    const uid = o.metadata.uid;
    const ks = kustomizationKey(mc, o);
    const place = `${mc}/${uid}`;
    const before = this.labelled.get(place);
    if (before === ks) return;
    if (before) this.removeObject(mc, uid);
    if (!ks) return;
    this.labelled.set(place, ks);
    let objects = this.applied.get(ks);
    if (!objects) this.applied.set(ks, (objects = new Map()));
    objects.set(uid, { kind, namespace: o.metadata.namespace ?? '', uid });
  }

  private removeObject(mc: string, uid: string): void {
    const place = `${mc}/${uid}`;
    const ks = this.labelled.get(place);
    if (!ks) return;
    this.labelled.delete(place);
    const objects = this.applied.get(ks);
    objects?.delete(uid);
    if (objects?.size === 0) this.applied.delete(ks);
  }

  private putKustomization(mc: string, k: CachedObject): void {
    const namespace = k.metadata.namespace ?? '';
    const ks = key(mc, namespace, k.metadata.name);
    const ref = gitSourceOf(k as unknown as ObservedObject);
    const repo =
      ref?.kind === 'GitRepository'
        ? key(mc, ref.namespace, ref.name)
        : undefined;
    if (this.sourceOf.get(ks) === repo) return;
    this.removeKustomization(ks);
    if (!repo) return;
    this.sourceOf.set(ks, repo);
    let names = this.bySource.get(repo);
    if (!names) this.bySource.set(repo, (names = new Map()));
    names.set(ks, { namespace, name: k.metadata.name });
  }

  private removeKustomization(ks: string): void {
    const repo = this.sourceOf.get(ks);
    if (!repo) return;
    this.sourceOf.delete(ks);
    const names = this.bySource.get(repo);
    names?.delete(ks);
    if (names?.size === 0) this.bySource.delete(repo);
  }

  /** The objects of the clusters' kinds that carry this Kustomization's labels. */
  appliedBy(mc: string, kustomization: FluxObjectRef): FluxAppliedObject[] {
    this.ensure();
    return [
      ...(this.applied
        .get(key(mc, kustomization.namespace, kustomization.name))
        ?.values() ?? []),
    ];
  }

  /** The Kustomizations whose `spec.sourceRef` names this GitRepository. */
  kustomizationsFrom(
    mc: string,
    gitRepository: FluxObjectRef,
  ): FluxObjectRef[] {
    this.ensure();
    return [
      ...(this.bySource
        .get(key(mc, gitRepository.namespace, gitRepository.name))
        ?.values() ?? []),
    ];
  }

  private lookup(
    mc: string,
    kind: string,
    namespace: string,
    name: string,
  ): CachedObject | undefined {
    return this.source.get
      ? this.source.get(mc, kind, namespace, name)
      : this.source
          .list(mc, kind, namespace)
          .find(o => o.metadata.name === name);
  }

  /**
   * The Git source of a cluster this Kustomization applies, from the cache: two lookups by name. Undefined when the
   * cache holds no such Kustomization (Flux not installed, its namespace not watched, or it is gone).
   */
  gitSource(
    mc: string,
    kustomization: FluxObjectRef,
  ): ClusterGitSource | undefined {
    const k = this.lookup(
      mc,
      'Kustomization',
      kustomization.namespace,
      kustomization.name,
    );
    if (!k) return undefined;
    const ref = gitSourceOf(k as unknown as ObservedObject);
    const repo =
      ref?.kind === 'GitRepository'
        ? this.lookup(mc, 'GitRepository', ref.namespace, ref.name)
        : undefined;
    const known = this.gitSources.get(k);
    if (known && known.repo === repo) return known.value;
    const value = clusterGitSource(
      kustomization,
      k as unknown as ObservedObject,
      repo as unknown as ObservedObject | undefined,
    );
    this.gitSources.set(k, { repo, value });
    return value;
  }
}
