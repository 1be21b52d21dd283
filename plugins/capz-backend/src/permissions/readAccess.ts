import {
  BackstageCredentials,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { createConditionAuthorizer } from '@backstage/plugin-permission-node';
import { capzClusterReadPermission } from '@capz-backstage/plugin-capz-common';
import { CapzClusterResource, capzClusterRules } from './rules';

/** Which clusters a caller may read: everything, nothing (then a 403 is thrown), or those a policy's conditions allow. */
export type ReadFilter = (cluster: CapzClusterResource) => boolean;

const conditionAuthorizer = createConditionAuthorizer(capzClusterRules);

/**
 * One conditional decision per request (not one per cluster): the policy answers with conditions, and they are
 * applied in memory to every cluster the request touches.
 */
export async function readFilter(
  permissions: PermissionsService,
  credentials: BackstageCredentials,
): Promise<ReadFilter> {
  const [decision] = await permissions.authorizeConditional(
    [{ permission: capzClusterReadPermission }],
    { credentials },
  );
  if (decision.result === AuthorizeResult.ALLOW) return () => true;
  if (decision.result === AuthorizeResult.DENY)
    throw new NotAllowedError(
      'Not allowed to read CAPZ clusters (capz.cluster.read)',
    );
  return cluster => conditionAuthorizer(decision, cluster);
}
