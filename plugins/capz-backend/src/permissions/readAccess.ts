import {
  BackstageCredentials,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import {
  AuthorizeResult,
  type ResourcePermission,
} from '@backstage/plugin-permission-common';
import { createConditionAuthorizer } from '@backstage/plugin-permission-node';
import { capzClusterReadPermission } from '@capz-backstage/plugin-capz-common';
import { CapzClusterResource, ClusterOwnerOf, capzClusterRules } from './rules';

/** Which clusters a caller may read: everything, nothing (then a 403 is thrown), or those a policy's conditions allow. */
export type ReadFilter = (
  cluster: Omit<CapzClusterResource, 'owner'>,
) => boolean;

const conditionAuthorizer = createConditionAuthorizer(capzClusterRules);

/**
 * One conditional decision per request (not one per cluster): the policy answers with conditions, and they are
 * applied in memory to every cluster the request touches. A cluster without its owner gets it from `ownerOf` (the
 * watch cache), so an owner condition is met by the cluster's owner, not by what a request says.
 */
export async function readFilter(
  permissions: PermissionsService,
  credentials: BackstageCredentials,
  ownerOf?: ClusterOwnerOf,
): Promise<ReadFilter> {
  const filter = await clusterFilter(
    permissions,
    credentials,
    capzClusterReadPermission,
    ownerOf,
  );
  if (!filter)
    throw new NotAllowedError(
      'Not allowed to read CAPZ clusters (capz.cluster.read)',
    );
  return filter;
}

/** The filter of one conditional decision on `permission`; undefined when the policy denies it outright. */
async function clusterFilter(
  permissions: PermissionsService,
  credentials: BackstageCredentials,
  permission: ResourcePermission<'capz-cluster'>,
  ownerOf?: ClusterOwnerOf,
): Promise<ReadFilter | undefined> {
  const [decision] = await permissions.authorizeConditional([{ permission }], {
    credentials,
  });
  if (decision.result === AuthorizeResult.ALLOW) return () => true;
  if (decision.result === AuthorizeResult.DENY) return undefined;
  return cluster => conditionAuthorizer(decision, withOwner(cluster, ownerOf));
}

/**
 * The resource a decision is made about: the cluster's place and the owner the watch cache gives it (a summary's
 * own `owner` is the raw annotation, so it is never read here).
 */
export function withOwner(
  cluster: Omit<CapzClusterResource, 'owner'>,
  ownerOf: ClusterOwnerOf | undefined,
): CapzClusterResource {
  const place = {
    managementCluster: cluster.managementCluster,
    namespace: cluster.namespace,
    name: cluster.name,
  };
  const owner = ownerOf && place.name ? ownerOf(place) : undefined;
  return owner === undefined ? place : { ...place, owner };
}

/**
 * Which clusters a caller may act on with `permission`, from one conditional decision (as {@link readFilter}); a denial
 * is no cluster rather than a 403, for a request over many clusters that refuses each one in its answer.
 */
export async function actionFilter(
  permissions: PermissionsService,
  credentials: BackstageCredentials,
  permission: ResourcePermission<'capz-cluster'>,
  ownerOf?: ClusterOwnerOf,
): Promise<ReadFilter> {
  return (
    (await clusterFilter(permissions, credentials, permission, ownerOf)) ??
    (() => false)
  );
}
