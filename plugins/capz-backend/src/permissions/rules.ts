import { CAPZ_CLUSTER_RESOURCE_TYPE } from '@capz-backstage/plugin-capz-common';
import {
  createConditionExports,
  createPermissionResourceRef,
  createPermissionRule,
} from '@backstage/plugin-permission-node';
import { z } from 'zod';

/** What decisions are made about: one CAPI Cluster, by where it lives and who owns it. @public */
export interface CapzClusterResource {
  managementCluster: string;
  namespace: string;
  name: string;
  /**
   * Its catalog owner as a full entity ref (capz-common's clusterOwnerRef): read from the watch cache's Cluster (or,
   * for a cluster being created, from the request's owner), never from a client's word about it. Undefined where
   * no one cluster is meant (a namespace) or it is not in the cache.
   */
  owner?: string;
}

/** The owner of a cluster by its place, from the watch cache (wired in plugin.ts; permissions/ reads no cache). */
export type ClusterOwnerOf = (cluster: {
  managementCluster: string;
  namespace: string;
  name: string;
}) => string | undefined;

/**
 * The in-memory filter a conditional decision becomes: the clusters come from the watch cache, not a database, so
 * conditions are evaluated against each resource (createConditionAuthorizer) and `toQuery` only describes them.
 * @public
 */
export type CapzClusterQuery = {
  managementClusters?: string[];
  namespaces?: string[];
  owners?: string[];
};

export const capzClusterResourceRef = createPermissionResourceRef<
  CapzClusterResource,
  CapzClusterQuery
>().with({
  pluginId: 'capz',
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

export const isInManagementCluster = createPermissionRule({
  name: 'IS_IN_MANAGEMENT_CLUSTER',
  description: 'Allow clusters on one of the given management clusters',
  resourceRef: capzClusterResourceRef,
  paramsSchema: z.object({
    managementClusters: z
      .array(z.string())
      .describe(
        'Names of management clusters (capz.managementClusters[].name)',
      ),
  }),
  apply: (resource, { managementClusters }) =>
    managementClusters.includes(resource.managementCluster),
  toQuery: ({ managementClusters }) => ({ managementClusters }),
});

export const isInNamespace = createPermissionRule({
  name: 'IS_IN_NAMESPACE',
  description:
    'Allow clusters in one of the given namespaces of their management cluster',
  resourceRef: capzClusterResourceRef,
  paramsSchema: z.object({
    namespaces: z.array(z.string()).describe('Namespace names'),
  }),
  apply: (resource, { namespaces }) => namespaces.includes(resource.namespace),
  toQuery: ({ namespaces }) => ({ namespaces }),
});

export const isClusterOwner = createPermissionRule({
  name: 'IS_CLUSTER_OWNER',
  description:
    "Allow clusters whose catalog owner is one of the given entity refs (a user's ownership claims)",
  resourceRef: capzClusterResourceRef,
  paramsSchema: z.object({
    claims: z
      .array(z.string())
      .describe(
        "Entity refs the user owns through: the user's ownershipEntityRefs (user.identity.ownershipEntityRefs in a policy)",
      ),
  }),
  // Entity refs are compared as the catalog writes them, lower-cased (catalog-model's stringifyEntityRef).
  apply: (resource, { claims }) =>
    resource.owner !== undefined &&
    claims.some(c => c.toLocaleLowerCase('en-US') === resource.owner),
  toQuery: ({ claims }) => ({
    owners: claims.map(c => c.toLocaleLowerCase('en-US')),
  }),
});

export const capzClusterRules = [
  isInManagementCluster,
  isInNamespace,
  isClusterOwner,
];

const conditionExports = createConditionExports({
  resourceRef: capzClusterResourceRef,
  rules: { isInManagementCluster, isInNamespace, isClusterOwner },
});

/**
 * The conditions a permission policy answers with for the `capz-cluster` resource type, as the catalog's
 * `catalogConditions`: `isClusterOwner({ claims: user.identity.ownershipEntityRefs })`,
 * `isInNamespace({ namespaces })`, `isInManagementCluster({ managementClusters })`.
 * @public
 */
export const capzClusterConditions = conditionExports.conditions;

/**
 * Wraps {@link capzClusterConditions} into a policy's conditional decision on a `capz-cluster` permission.
 * @public
 */
export const createCapzClusterConditionalDecision =
  conditionExports.createConditionalDecision;

/** `mc/namespace/name`: the resourceRef string of a cluster in permission requests. */
export const clusterResourceRef = (c: CapzClusterResource) =>
  `${c.managementCluster}/${c.namespace}/${c.name}`;

export function parseClusterResourceRef(
  ref: string,
): CapzClusterResource | undefined {
  const parts = ref.split('/');
  if (parts.length !== 3 || parts.some(p => !p)) return undefined;
  return { managementCluster: parts[0], namespace: parts[1], name: parts[2] };
}
