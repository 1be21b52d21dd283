import { Entity } from '@backstage/catalog-model';
import {
  CAPZ_CLUSTER_ANNOTATION as ANNOTATION,
  type ClusterPlace,
} from '@capz-backstage/plugin-capz-common';

/**
 * The annotation that names the cluster a catalog entity runs on (or is): `<management cluster>/<namespace>/<name>`.
 * The catalog module writes it on the cluster entities it provides; put it on a Component to show its cluster.
 * capz-common's, exported here too for apps that depend on this plugin only.
 * @public
 */
export const CAPZ_CLUSTER_ANNOTATION = ANNOTATION;

export function clusterRefOf(entity: Entity): ClusterPlace | undefined {
  const value = entity.metadata.annotations?.[CAPZ_CLUSTER_ANNOTATION];
  const parts = value?.split('/').map(p => p.trim());
  if (!parts || parts.length !== 3 || parts.some(p => !p)) return undefined;
  return { managementCluster: parts[0], namespace: parts[1], name: parts[2] };
}

export const hasClusterAnnotation = (entity: Entity): boolean =>
  Boolean(entity.metadata.annotations?.[CAPZ_CLUSTER_ANNOTATION]);
