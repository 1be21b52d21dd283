import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';

/**
 * The owner a cluster's catalog entity gets when its Cluster has no `capz.io/owner` annotation, unless the app sets
 * `catalog.providers.capz.defaultOwner`. @public
 */
export const DEFAULT_CLUSTER_OWNER = 'group:default/platform';

/**
 * The catalog owner of a cluster as a full entity ref (`group:default/team-payments`): the Cluster's
 * `capz.io/owner` annotation, else the default owner. The catalog reads the entity's `spec.owner` the same way
 * (a bare name is a Group in the entity's namespace, `default`), so the owner relation the catalog resolves and the
 * one the backend's permission rule reads are the same ref (stringifyEntityRef lower-cases it, as the catalog's
 * relations and a user's ownership claims are). Undefined when the annotation is not an entity ref.
 * @public
 */
export function clusterOwnerRef(
  annotation: string | undefined,
  defaultOwner: string = DEFAULT_CLUSTER_OWNER,
): string | undefined {
  try {
    return stringifyEntityRef(
      parseEntityRef(annotation?.trim() || defaultOwner, {
        defaultKind: 'group',
        defaultNamespace: 'default',
      }),
    );
  } catch {
    return undefined;
  }
}
