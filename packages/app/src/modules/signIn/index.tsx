import { SignInPage } from '@backstage/core-components';
import {
  ApiBlueprint,
  createApiRef,
  createFrontendModule,
  discoveryApiRef,
  type BackstageIdentityApi,
  type ProfileInfoApi,
  type SessionApi,
} from '@backstage/frontend-plugin-api';
import { SignInPageBlueprint } from '@backstage/plugin-app-react';
import { TeamMemberAuth } from './TeamMemberAuth';

const teamMemberAuthApiRef = createApiRef<
  ProfileInfoApi & BackstageIdentityApi & SessionApi
>({ id: 'app.auth.demo-team-member' });

const teamMemberAuthApi = ApiBlueprint.make({
  name: 'demo-team-member-auth',
  params: defineParams =>
    defineParams({
      api: teamMemberAuthApiRef,
      deps: { discoveryApi: discoveryApiRef },
      factory: ({ discoveryApi }) =>
        new TeamMemberAuth(discoveryApi, 'demo-team-member'),
    }),
});

/**
 * The demo's sign-in page: the guest (a platform member, who may do everything) or a product team's developer (the
 * backend's demo-team-member provider: catalog/org.yaml's pat, who sees and acts on the payments team's clusters only).
 */
const signInPage = SignInPageBlueprint.make({
  params: {
    loader: async () => props =>
      (
        <SignInPage
          {...props}
          providers={[
            'guest',
            {
              id: 'demo-team-member',
              title: 'Team member',
              message:
                "Sign in as Pat, a developer of the payments team: only the payments team's clusters",
              apiRef: teamMemberAuthApiRef,
            },
          ]}
        />
      ),
  },
});

export const signInModule = createFrontendModule({
  pluginId: 'app',
  extensions: [teamMemberAuthApi, signInPage],
});
