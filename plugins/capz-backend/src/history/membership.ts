import { CLUSTER_NAME_LABEL } from '@capz-backstage/plugin-capz-common';
import { ObservedObject } from '@capz-backstage/plugin-capz-common';
import { CacheIndex } from '../cluster/CacheIndex';
import { CachedObject } from '../cluster/ClusterWatch';

/** The part of the watch cache the history reads. */
export interface ObjectSource {
  list(
    managementCluster: string,
    kind: string,
    namespace?: string,
  ): CachedObject[];
}

/**
 * The CAPI Cluster an object belongs to, in the object's namespace (its tree's, else the one its cluster-name label
 * names): what the history writes with each row.
 */
export interface OwningCluster {
  name: string;
  /** Unknown when only the `cluster.x-k8s.io/cluster-name` label names it and no such Cluster is cached. */
  uid?: string;
}

export { CLUSTER_NAME_LABEL };
/**
 * Which CAPI Cluster an object belongs to: the Cluster whose tree (capz-common's `buildClusterTree`, the same tree
 * the pages show) contains it, else the `cluster.x-k8s.io/cluster-name` label. The uid→Cluster map is built once
 * per namespace and rebuilt only after a change in that namespace (`invalidate`), so a burst of changes costs one
 * build per namespace per flush.
 */
export class ClusterMembership {
  private readonly byNamespace = new Map<string, Map<string, OwningCluster>>();

  constructor(private readonly source: ObjectSource) {}

  invalidate(managementCluster: string, namespace: string): void {
    this.byNamespace.delete(`${managementCluster}/${namespace}`);
  }

  /** The Cluster of the object with this uid in the namespace, from the trees only. */
  byUid(
    managementCluster: string,
    namespace: string,
    uid: string,
  ): OwningCluster | undefined {
    return this.members(managementCluster, namespace).get(uid);
  }

  /** The Cluster of an object: its tree, else itself when it is a Cluster, else its cluster-name label. */
  resolve(
    managementCluster: string,
    object: ObservedObject,
  ): OwningCluster | undefined {
    const namespace = object.metadata?.namespace ?? '';
    const uid = object.metadata?.uid;
    const fromTree = uid
      ? this.byUid(managementCluster, namespace, uid)
      : undefined;
    if (fromTree) return fromTree;
    if (object.kind === 'Cluster' && object.metadata?.name)
      return { name: object.metadata.name, uid };
    return this.byLabel(
      managementCluster,
      namespace,
      object.metadata?.labels?.[CLUSTER_NAME_LABEL],
    );
  }

  /** The Cluster an Event is about, through its involvedObject.uid. */
  resolveInvolved(
    managementCluster: string,
    namespace: string,
    involved: { uid: string; kind: string; name: string },
  ): OwningCluster | undefined {
    const fromTree = this.byUid(managementCluster, namespace, involved.uid);
    if (fromTree) return fromTree;
    if (involved.kind === 'Cluster')
      return { name: involved.name, uid: involved.uid };
    const object = this.source
      .list(managementCluster, involved.kind, namespace)
      .find(o => o.metadata.uid === involved.uid);
    return this.byLabel(
      managementCluster,
      namespace,
      object?.metadata.labels?.[CLUSTER_NAME_LABEL],
    );
  }

  private byLabel(
    managementCluster: string,
    namespace: string,
    name: string | undefined,
  ): OwningCluster | undefined {
    if (!name) return undefined;
    const cluster = this.source
      .list(managementCluster, 'Cluster', namespace)
      .find(c => c.metadata.name === name);
    return { name, uid: cluster?.metadata.uid };
  }

  private members(
    managementCluster: string,
    namespace: string,
  ): Map<string, OwningCluster> {
    const key = `${managementCluster}/${namespace}`;
    let members = this.byNamespace.get(key);
    if (members) return members;
    // The trees the pages show, from the cache's shared index: built once per change for the pages, the live
    // updates and the history alike, and only for the clusters whose own objects changed.
    const index = CacheIndex.for(this.source, []);
    index.begin();
    members = index.namespace(managementCluster, namespace).membership();
    this.byNamespace.set(key, members);
    return members;
  }
}
