import {
  BackstageCredentials,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import {
  AuthorizeResult,
  type PolicyDecision,
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
  return decisionFilter(await readDecision(permissions, credentials), ownerOf);
}

/** The policy's decision on capz.cluster.read for the caller (as {@link clusterDecision}); a denial is a 403. */
export async function readDecision(
  permissions: PermissionsService,
  credentials: BackstageCredentials,
): Promise<PolicyDecision> {
  const decision = await clusterDecision(
    permissions,
    credentials,
    capzClusterReadPermission,
  );
  if (decision.result === AuthorizeResult.DENY)
    throw new NotAllowedError(
      'Not allowed to read CAPZ clusters (capz.cluster.read)',
    );
  return decision;
}

/**
 * The policy's one decision on `permission` for the caller: ALLOW, DENY, or the conditions to apply to each cluster.
 * Plain JSON, so work that goes on without its user (a fleet run) keeps it and applies it again at each write.
 */
export async function clusterDecision(
  permissions: PermissionsService,
  credentials: BackstageCredentials,
  permission: ResourcePermission<'capz-cluster'>,
): Promise<PolicyDecision> {
  const [decision] = await permissions.authorizeConditional([{ permission }], {
    credentials,
  });
  return decision;
}

/** Which clusters a decision allows, each judged with its owner from `ownerOf` as it is when the filter is called. */
export function decisionFilter(
  decision: PolicyDecision,
  ownerOf?: ClusterOwnerOf,
): ReadFilter {
  if (decision.result === AuthorizeResult.ALLOW) return () => true;
  if (decision.result === AuthorizeResult.DENY) return () => false;
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
