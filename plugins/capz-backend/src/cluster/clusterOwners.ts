import {
  OWNER_ANNOTATION,
  clusterOwnerRef,
} from '@capz-backstage/plugin-capz-common';
import type { ClusterOwnerOf } from '../permissions/rules';
import type { WatchCache } from './WatchCache';

/**
 * Who owns a cluster, for the permission rule IS_CLUSTER_OWNER: its Cluster's `capz.io/owner` annotation in the
 * watch cache, else the default owner, as the catalog module writes the cluster's entity (the same
 * `catalog.providers.capz.defaultOwner`). One map lookup a cluster: no catalog call, no API call, no scan; the
 * parsed refs are kept per annotation value (a fleet has few owners).
 */
export function clusterOwnerOf(
  cache: Pick<WatchCache, 'get'>,
  defaultOwner?: string,
): ClusterOwnerOf {
  const refs = new Map<string | undefined, string | undefined>();
  const ref = (annotation: string | undefined) => {
    if (!refs.has(annotation)) {
      if (refs.size > 10_000) refs.clear();
      refs.set(annotation, clusterOwnerRef(annotation, defaultOwner));
    }
    return refs.get(annotation);
  };
  return ({ managementCluster, namespace, name }) => {
    const cluster = cache.get(managementCluster, 'Cluster', namespace, name);
    return cluster
      ? ref(cluster.metadata.annotations?.[OWNER_ANNOTATION])
      : undefined;
  };
}
