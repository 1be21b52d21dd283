/**
 * A fleet run's clusters picked by a catalog query: the text a user types (`key=value`, comma-separated, as the
 * catalog's `filter` query parameter takes them) read into the catalog's filter of the cluster entities the catalog
 * module provides (kind Resource, `spec.type` kubernetes-cluster). Pure: the page asks the catalog.
 */

/** The catalog filter the query keeps, or the problem with the text in words. @public */
export type CatalogClusterQuery =
  | { filter: Record<string, string | string[]> }
  | { problem: string };

/** What every cluster entity is (catalog-backend-module-capz's clusterToEntity). */
const CLUSTER_ENTITIES = {
  kind: 'Resource',
  'spec.type': 'kubernetes-cluster',
};
const KEY = /^[A-Za-z0-9][A-Za-z0-9_.\-/]*$/;

/**
 * Reads `spec.owner=group:default/payments, metadata.tags=production` into the catalog filter of the cluster entities
 * with those values (a key given twice: either value, as the catalog's filter reads repeated keys). @public
 */
export function parseCatalogClusterQuery(text: string): CatalogClusterQuery {
  const parts = text
    .split(',')
    .map(p => p.trim())
    .filter(Boolean);
  if (!parts.length)
    return {
      problem:
        'type at least one key=value, e.g. spec.owner=group:default/payments',
    };
  const filter: Record<string, string | string[]> = { ...CLUSTER_ENTITIES };
  for (const part of parts) {
    const at = part.indexOf('=');
    const key = at > 0 ? part.slice(0, at).trim() : '';
    const value = at > 0 ? part.slice(at + 1).trim() : '';
    if (!key || !value)
      return {
        problem: `"${part}" is not key=value (e.g. metadata.tags=prod)`,
      };
    if (!KEY.test(key))
      return { problem: `"${key}" is not a catalog field (e.g. spec.owner)` };
    if (key in CLUSTER_ENTITIES)
      return {
        problem: `${key} is always ${
          CLUSTER_ENTITIES[key as keyof typeof CLUSTER_ENTITIES]
        } for a cluster: leave it out`,
      };
    const had = filter[key];
    filter[key] =
      had === undefined
        ? value
        : [...(Array.isArray(had) ? had : [had]), value];
  }
  return { filter };
}
