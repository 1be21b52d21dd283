import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  createPermission,
} from '@backstage/plugin-permission-common';
import {
  capzClusterAdoptPermission,
  capzClusterDeletePermission,
  capzClusterMigratePermission,
  capzClusterReadPermission,
  capzClusterScalePermission,
} from '@capz-backstage/plugin-capz-common';
import permissionBackend from '@backstage/plugin-permission-backend';
import request from 'supertest';
import policyModule, { CapzPermissionPolicy } from './permissionPolicy';

// Two users of the demo's organisation and what the catalog gives them at sign-in.
const ALICE = 'user:default/alice'; // team-payments
const PAT = 'user:default/pat'; // the platform group
const claims: Record<string, string[]> = {
  [ALICE]: [ALICE, 'group:default/team-payments'],
  [PAT]: [PAT, 'group:default/Platform'],
};
const userInfo = {
  getUserInfo: async (c: { principal: unknown }) => {
    const ref = (c.principal as { userEntityRef: string }).userEntityRef;
    return { userEntityRef: ref, ownershipEntityRefs: claims[ref] ?? [ref] };
  },
};
const asUser = (ref: string) => ({
  credentials: mockCredentials.user(ref),
});
const catalogRead = createPermission({
  name: 'catalog.entity.read',
  attributes: { action: 'read' },
  resourceType: 'catalog-entity',
});

describe('CapzPermissionPolicy', () => {
  const policy = new CapzPermissionPolicy(['group:default/platform'], userInfo);

  it("lets a team member read and act on the clusters they own: a condition on the cluster's owner", async () => {
    for (const permission of [
      capzClusterReadPermission,
      capzClusterScalePermission,
    ])
      expect(
        await policy.handle({ permission }, asUser(ALICE) as never),
      ).toEqual({
        result: AuthorizeResult.CONDITIONAL,
        pluginId: 'capz',
        resourceType: 'capz-cluster',
        conditions: {
          rule: 'IS_CLUSTER_OWNER',
          resourceType: 'capz-cluster',
          params: {
            claims: ['user:default/alice', 'group:default/team-payments'],
          },
        },
      });
  });

  it('keeps deletes and the jobs for the platform group, which may do everything', async () => {
    for (const permission of [
      capzClusterDeletePermission,
      capzClusterAdoptPermission,
      capzClusterMigratePermission,
    ]) {
      expect(
        (await policy.handle({ permission }, asUser(ALICE) as never)).result,
      ).toBe(AuthorizeResult.DENY);
      // Entity refs compare as the catalog writes them, lower-cased.
      expect(
        (await policy.handle({ permission }, asUser(PAT) as never)).result,
      ).toBe(AuthorizeResult.ALLOW);
    }
  });

  it("decides nothing about other plugins' permissions, and nothing CAPZ for a request without a user", async () => {
    expect(
      (await policy.handle({ permission: catalogRead }, asUser(ALICE) as never))
        .result,
    ).toBe(AuthorizeResult.ALLOW);
    expect(
      (await policy.handle({ permission: capzClusterReadPermission })).result,
    ).toBe(AuthorizeResult.DENY);
  });
});

describe('the policy module in a backend', () => {
  it('answers through the permission backend for two users, the platform groups from config', async () => {
    const { server } = await startTestBackend({
      features: [
        permissionBackend,
        policyModule,
        mockServices.userInfo.mock(userInfo as never).factory,
        mockServices.rootConfig.factory({
          data: {
            capz: {
              permissionPolicy: { platformGroups: ['group:default/platform'] },
            },
          },
        }),
      ],
    });
    // A user's own request may name only permissions without a resource type (the permission backend refuses a
    // resource permission without a resourceRef from a user): the jobs' permissions.
    const decide = async (user: string, permission: object) => {
      const res = await request(server)
        .post('/api/permission/authorize')
        .set('Authorization', mockCredentials.user.header(user))
        .send({ items: [{ id: '1', permission }] });
      expect(res.status).toBe(200);
      return res.body.items[0].result;
    };
    expect(await decide(PAT, capzClusterAdoptPermission)).toBe(
      AuthorizeResult.ALLOW,
    );
    expect(await decide(ALICE, capzClusterAdoptPermission)).toBe(
      AuthorizeResult.DENY,
    );
    expect(await decide(ALICE, capzClusterMigratePermission)).toBe(
      AuthorizeResult.DENY,
    );
  });
});
