/*
 * The demo's second sign-in, beside the guest: `auth.providers.demo-team-member` signs in as the catalog user it names
 * (catalog/org.yaml's pat, a member of the payments team), so that a tester can be a team's developer as well as the
 * platform (the guest). Like the guest provider it asks for nothing and is for development only: it refuses outside
 * NODE_ENV=development unless `dangerouslyAllowOutsideDevelopment` is set, and it is off unless configured.
 */
import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import {
  authProvidersExtensionPoint,
  createProxyAuthProviderFactory,
  createProxyAuthenticator,
} from '@backstage/plugin-auth-node';

/** The provider's id: its routes are /api/auth/demo-team-member/*, its settings auth.providers.demo-team-member. */
export const DEMO_TEAM_MEMBER_PROVIDER = 'demo-team-member';

const allowed = (allowOutsideDevelopment?: boolean) =>
  process.env.NODE_ENV === 'development' || allowOutsideDevelopment === true;

const authenticator = createProxyAuthenticator({
  defaultProfileTransform: async () => ({ profile: {} }),
  initialize: ({ config }) => ({
    allowed: allowed(
      config.getOptionalBoolean('dangerouslyAllowOutsideDevelopment'),
    ),
  }),
  async authenticate(_, { allowed: ok }) {
    if (!ok)
      throw new NotAllowedError(
        `The ${DEMO_TEAM_MEMBER_PROVIDER} sign-in is for development only; set auth.providers.${DEMO_TEAM_MEMBER_PROVIDER}.dangerouslyAllowOutsideDevelopment to use it elsewhere`,
      );
    return { result: {} };
  },
});

export default createBackendModule({
  pluginId: 'auth',
  moduleId: 'demo-team-member-provider',
  register(reg) {
    reg.registerInit({
      deps: {
        providers: authProvidersExtensionPoint,
        config: coreServices.rootConfig,
      },
      async init({ providers, config }) {
        const own = config.getOptionalConfig(
          `auth.providers.${DEMO_TEAM_MEMBER_PROVIDER}`,
        );
        if (!own) return;
        const userEntityRef = own.getString('userEntityRef');
        const ownershipEntityRefs = own.getOptionalStringArray(
          'ownershipEntityRefs',
        ) ?? [userEntityRef];
        providers.registerProvider({
          providerId: DEMO_TEAM_MEMBER_PROVIDER,
          factory: createProxyAuthProviderFactory({
            authenticator,
            async signInResolver(_, ctx) {
              // The catalog's user and memberships once the catalog has read them; until then, the configured claims.
              try {
                return await ctx.signInWithCatalogUser({
                  entityRef: userEntityRef,
                });
              } catch {
                return ctx.issueToken({
                  claims: { sub: userEntityRef, ent: ownershipEntityRefs },
                });
              }
            },
          }),
        });
      },
    });
  },
});
