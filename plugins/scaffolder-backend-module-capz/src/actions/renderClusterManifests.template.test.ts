/**
 * The New AKS cluster template (templates/new-aks-cluster/template.yaml) against the actions it runs: every step's
 * input is in its action's input schema, every parameter a step reads is in the form, the fields are the ones the
 * capz frontend plugin registers (and the scaffolder's RepoUrlPicker), the forges' pull-request actions take the
 * inputs given, and the apply / pull-request / git branches are exclusive. renderClusterManifests.dryRun.test.ts runs
 * the template in the real scaffolder.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { createPublishBitbucketServerPullRequestAction } from '@backstage/plugin-scaffolder-backend-module-bitbucket-server';
import { createPublishGithubPullRequestAction } from '@backstage/plugin-scaffolder-backend-module-github';
import { createPublishGitlabMergeRequestAction } from '@backstage/plugin-scaffolder-backend-module-gitlab';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PULL_REQUEST_ACTIONS } from '@capz-backstage/plugin-capz-common';
import { parse } from 'yaml';
import { createCreateClusterAction } from './createCluster';
import { createProposeClusterAction } from './proposeCluster';
import { createRenderClusterManifestsAction } from './renderClusterManifests';

const template = parse(
  readFileSync(
    join(__dirname, '../../templates/new-aks-cluster/template.yaml'),
    'utf8',
  ),
);
const steps: Array<{ id: string; action: string; if?: string; input: any }> =
  template.spec.steps;

/** Every property of every parameter page, the git branch's dependencies included. */
const properties: Record<string, any> = Object.assign(
  {},
  ...template.spec.parameters.flatMap((page: any) => [
    ...(page.dependencies?.delivery?.oneOf ?? []).map(
      (o: any) => o.properties ?? {},
    ),
    page.properties ?? {},
  ]),
);

const integrations = ScmIntegrations.fromConfig(mockServices.rootConfig());
const actions = {
  'capz:cluster:render': createRenderClusterManifestsAction(),
  'capz:cluster:create': createCreateClusterAction({
    auth: mockServices.auth(),
    discovery: mockServices.discovery(),
  }),
  'capz:cluster:propose': createProposeClusterAction({
    config: mockServices.rootConfig(),
  }),
  'publish:github:pull-request': createPublishGithubPullRequestAction({
    integrations,
    githubCredentialsProvider: undefined as any,
  }),
  'publish:gitlab:merge-request': createPublishGitlabMergeRequestAction({
    integrations,
  }),
  'publish:bitbucketServer:pull-request':
    createPublishBitbucketServerPullRequestAction({
      integrations,
      config: mockServices.rootConfig(),
    }),
} as Record<string, any>;

describe('the New AKS cluster template', () => {
  it("uses the capz form fields (every field of the Where and Cluster pages one of them, none of the scaffolder's own)", () => {
    const fields = Object.entries(properties)
      .filter(([, p]) => p['ui:field'])
      .map(([k, p]) => `${k}: ${p['ui:field']}`);
    expect(fields).toEqual([
      'managementCluster: CapzManagementClusterPicker',
      'namespace: CapzNamespacePicker',
      'credentialSecretName: CapzCredentialPicker',
      'name: CapzClusterNameField',
      'location: CapzRegionPicker',
      'kubernetesVersion: CapzKubernetesVersionPicker',
      'owner: CapzOwnerPicker',
      'entraOnly: CapzCheckboxField',
      'adminGroupObjectIDs: CapzAdminGroupsField',
      'tags: CapzTagsField',
      'pools: CapzNodePoolsField',
      'gitopsRepo: CapzGitopsRepoPicker',
      'createCheck: CapzCreateCheck',
    ]);
    expect(properties.delivery.enum).toEqual(['apply', 'pull-request', 'git']);
  });

  it.each(steps.map(s => [s.id, s] as const))(
    "step %s: every input is in its action's schema and reads a form parameter",
    (_id, step) => {
      const action = actions[step.action];
      expect(action).toBeDefined();
      const accepted = Object.keys(action.schema.input.properties);
      expect(
        Object.keys(step.input).filter(k => !accepted.includes(k)),
      ).toEqual([]);
      const read = Object.values(step.input)
        .flat()
        .map(v => /^\$\{\{ parameters\.(\w+) \}\}$/.exec(String(v))?.[1])
        .filter(Boolean);
      expect(read.filter(k => !(k! in properties))).toEqual([]);
      // Every required input of the action is given.
      for (const k of action.schema.input.required ?? [])
        expect(Object.keys(step.input)).toContain(k);
    },
  );

  it('applies, opens a pull request with the forge of the repository, or proposes: one of them', () => {
    const byId = Object.fromEntries(steps.map(s => [s.id, s]));
    expect(byId.render.if).toBeUndefined();
    expect(byId.create.if).toBe(
      "${{ parameters.delivery !== 'git' and parameters.delivery !== 'pull-request' }}",
    );
    expect(byId.propose.if).toBe("${{ parameters.delivery === 'git' }}");
    for (const [id, forge] of [
      ['prGithub', 'github'],
      ['prGitlab', 'gitlab'],
      ['prBitbucketServer', 'bitbucketServer'],
      ['prGitea', 'gitea'],
    ])
      expect(byId[id].if).toBe(
        `\${{ parameters.delivery === 'pull-request' and steps.render.output.forge === '${forge}' }}`,
      );
    // One step per forge that has a pull-request action (capz-common PULL_REQUEST_ACTIONS), with that action.
    expect(
      Object.fromEntries(
        steps.filter(x => /^pr[A-Z]/.test(x.id)).map(x => [x.action, x.id]),
      ),
    ).toEqual({
      'publish:github:pull-request': 'prGithub',
      'publish:gitlab:merge-request': 'prGitlab',
      'publish:bitbucketServer:pull-request': 'prBitbucketServer',
      'capz:cluster:propose': 'prGitea',
    });
    expect(Object.values(PULL_REQUEST_ACTIONS).sort()).toEqual(
      steps
        .filter(x => /^pr[A-Z]/.test(x.id))
        .map(x => x.action)
        .sort(),
    );
  });

  it('renders the default form (the defaults plus what the pickers choose)', async () => {
    const defaults = Object.fromEntries(
      Object.entries(properties)
        .filter(([, p]) => p.default !== undefined)
        .map(([k, p]) => [k, p.default]),
    );
    const input = {
      name: 'team-a-dev',
      namespace: 'team-a',
      location: 'westeurope',
      kubernetesVersion: 'v1.33.2',
      credentialSecretName: 'aso-credential',
      owner: 'group:default/team-a',
      tags: defaults.tags,
      entraOnly: defaults.entraOnly,
      adminGroupObjectIDs: defaults.adminGroupObjectIDs,
      pools: defaults.pools,
    };
    const ctx = createMockActionContext({ input });
    await actions['capz:cluster:render'].handler(ctx);
    expect(ctx.output).toHaveBeenCalledWith('objectCount', 5);
  });
});
