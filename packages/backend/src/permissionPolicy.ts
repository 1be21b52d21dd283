/*
 * The app's permission policy, in place of allow-all: teams act on the clusters they own, a platform group does
 * everything. Decisions on the CAPZ permissions only; every other plugin's permission is allowed, as before.
 */
import {
  coreServices,
  createBackendModule,
  type UserInfoService,
} from '@backstage/backend-plugin-api';
import {
  AuthorizeResult,
  isResourcePermission,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import type {
  PermissionPolicy,
  PolicyQuery,
  PolicyQueryUser,
} from '@backstage/plugin-permission-node';
import { policyExtensionPoint } from '@backstage/plugin-permission-node/alpha';
import {
  capzClusterConditions,
  createCapzClusterConditionalDecision,
} from '@capz-backstage/plugin-capz-backend';
import {
  CAPZ_CLUSTER_RESOURCE_TYPE,
  DEFAULT_CLUSTER_OWNER,
  capzClusterDeletePermission,
} from '@capz-backstage/plugin-capz-common';

const lower = (ref: string) => ref.toLocaleLowerCase('en-US');

/**
 * - A member of a platform group (its ownership claims hold one of `platformGroups`) may do everything: create,
 *   adopt and migrate (jobs), every day-2 action and delete, on every cluster.
 * - Anyone else may read, connect to and run day-2 actions (scale, autoscale, upgrade, node pools, pause) on the
 *   clusters they own, and create clusters they will own: a conditional decision on IS_CLUSTER_OWNER with their
 *   claims, which the CAPZ backend meets with each cluster's catalog owner. Lists are filtered by it, and the pages
 *   hide what it denies. Deleting clusters and the jobs (adopt, migrate) are the platform's.
 * - Requests between backends (the catalog module listing clusters) carry no user: the permission framework allows
 *   service principals without asking a policy.
 */
export class CapzPermissionPolicy implements PermissionPolicy {
  private readonly platformGroups: ReadonlySet<string>;

  constructor(
    platformGroups: readonly string[],
    private readonly userInfo: Pick<UserInfoService, 'getUserInfo'>,
  ) {
    this.platformGroups = new Set(platformGroups.map(lower));
  }

  async handle(
    request: PolicyQuery,
    user?: PolicyQueryUser,
  ): Promise<PolicyDecision> {
    const { permission } = request;
    if (!permission.name.startsWith('capz.'))
      return { result: AuthorizeResult.ALLOW };
    // The user's claims as their token carries them (the catalog's membership at sign-in).
    const claims = user
      ? (
          await this.userInfo.getUserInfo(user.credentials)
        ).ownershipEntityRefs.map(lower)
      : [];
    if (claims.some(c => this.platformGroups.has(c)))
      return { result: AuthorizeResult.ALLOW };
    if (
      claims.length > 0 &&
      isResourcePermission(permission, CAPZ_CLUSTER_RESOURCE_TYPE) &&
      permission.name !== capzClusterDeletePermission.name
    )
      return createCapzClusterConditionalDecision(
        permission,
        capzClusterConditions.isClusterOwner({ claims }),
      );
    return { result: AuthorizeResult.DENY };
  }
}

/** Installs {@link CapzPermissionPolicy} with `capz.permissionPolicy.platformGroups` (default: the default owner). */
export default createBackendModule({
  pluginId: 'permission',
  moduleId: 'capz-owner-policy',
  register(reg) {
    reg.registerInit({
      deps: {
        policy: policyExtensionPoint,
        config: coreServices.rootConfig,
        userInfo: coreServices.userInfo,
      },
      async init({ policy, config, userInfo }) {
        policy.setPolicy(
          new CapzPermissionPolicy(
            config.getOptionalStringArray(
              'capz.permissionPolicy.platformGroups',
            ) ?? [
              config.getOptionalString('catalog.providers.capz.defaultOwner') ??
                DEFAULT_CLUSTER_OWNER,
            ],
            userInfo,
          ),
        );
      },
    });
  },
});
