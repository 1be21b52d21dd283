import { CAPZ_CLUSTER_RESOURCE_TYPE } from '@capz-backstage/plugin-capz-common';
import {
  createPermissionResourceRef,
  createPermissionRule,
} from '@backstage/plugin-permission-node';
import { z } from 'zod';

/** What read decisions are made about: one CAPI Cluster, by where it lives. */
export interface CapzClusterResource {
  managementCluster: string;
  namespace: string;
  name: string;
}

/**
 * The in-memory filter a conditional decision becomes: the clusters come from the watch cache, not a database, so
 * conditions are evaluated against each resource (createConditionAuthorizer) and `toQuery` only describes them.
 */
export type CapzClusterQuery = {
  managementClusters?: string[];
  namespaces?: string[];
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

export const capzClusterRules = [isInManagementCluster, isInNamespace];

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
