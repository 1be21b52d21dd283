/**
 * The New AKS cluster template's Git deliveries, run by the real scaffolder: the scaffolder backend with the GitHub,
 * GitLab and Bitbucket Server modules and this module (as packages/backend installs them), and a template dry run
 * through its HTTP API (`POST /api/scaffolder/v2/dry-run`, what the template editor sends). The scaffolder evaluates
 * the steps' `if:`, renders their inputs and runs every action in dry-run mode; publish:github:pull-request supports
 * dry runs (it reads the workspace files it would send, then stops before calling GitHub), the GitLab and Bitbucket
 * Server actions do not (the scaffolder skips them in a dry run and logs so). capz:cluster:propose runs against a real
 * Git server (@internal/git-server): it clones and commits, and does not push in a dry run.
 */
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import scaffolderPlugin from '@backstage/plugin-scaffolder-backend';
import bitbucketServerModule from '@backstage/plugin-scaffolder-backend-module-bitbucket-server';
import githubModule from '@backstage/plugin-scaffolder-backend-module-github';
import gitlabModule from '@backstage/plugin-scaffolder-backend-module-gitlab';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { startGitServer, type GitServer } from '@internal/git-server';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import { scaffolderModuleCapz } from '../module';

const template = parse(
  readFileSync(
    join(__dirname, '../../templates/new-aks-cluster/template.yaml'),
    'utf8',
  ),
);

/** The form as a person fills it (the pickers' values). */
const form = {
  managementCluster: 'prod-weu',
  namespace: 'team-a',
  credentialSecretName: 'aso-credential',
  name: 'team-a-dev',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  owner: 'group:default/team-a',
  entraOnly: true,
  adminGroupObjectIDs: [],
  tags: { environment: 'dev' },
  pools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
  ],
};

type DryRun = {
  log: Array<{ body: { message: string; stepId?: string; status?: string } }>;
  directoryContents: Array<{ path: string; base64Content: string }>;
  output: {
    links?: Array<{ title: string; url: string }>;
    text?: Array<{ title: string; content: string }>;
  };
  steps: Array<{ id: string; action: string }>;
};

let git: GitServer;
let backend: Awaited<ReturnType<typeof startTestBackend>>;
let server: (typeof backend)['server'];

beforeAll(async () => {
  git = await startGitServer();
  backend = await startTestBackend({
    features: [
      scaffolderPlugin,
      githubModule,
      gitlabModule,
      bitbucketServerModule,
      scaffolderModuleCapz,
      catalogServiceMock.factory(),
      mockServices.rootConfig.factory({
        data: {
          app: { baseUrl: 'http://localhost:3000' },
          integrations: {
            github: [{ host: 'github.com', token: 'not-used-in-a-dry-run' }],
            gitlab: [
              {
                host: 'gitlab.example.com',
                apiBaseUrl: 'https://gitlab.example.com/api/v4',
                token: 'not-used-in-a-dry-run',
              },
            ],
          },
        },
      }),
    ],
  });
  server = backend.server;
}, 120_000);

afterAll(async () => {
  await backend?.stop();
  await git?.close();
});

async function dryRun(values: object): Promise<DryRun> {
  const res = await request(server)
    .post('/api/scaffolder/v2/dry-run')
    .set('Authorization', mockCredentials.user.header())
    .send({ template, values, directoryContents: [] });
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * By step id: which steps ran, which the scaffolder skipped for a false `if:`, and which for an action without
 * dry-run support (the scaffolder's log lines, NunjucksWorkflowRunner).
 */
function stepsOf(r: DryRun) {
  const ran = new Set<string>();
  const skipped = new Set<string>();
  const noDryRun = new Set<string>();
  for (const { body } of r.log) {
    if (!body.stepId) continue;
    if (body.status === 'completed') ran.add(body.stepId);
    if (body.message.endsWith('because its if condition was false'))
      skipped.add(body.stepId);
    if (body.message.endsWith('does not support dry-run'))
      noDryRun.add(body.stepId);
  }
  return {
    ran: [...ran].sort(),
    skipped: [...skipped].sort(),
    noDryRun: [...noDryRun].sort(),
  };
}

const files = (r: DryRun) =>
  Object.fromEntries(
    r.directoryContents.map(f => [
      f.path,
      Buffer.from(f.base64Content, 'base64').toString('utf8'),
    ]),
  );

describe('the New AKS cluster template, dry-run by the scaffolder', () => {
  it('opens the pull request with publish:github:pull-request for a github.com repository, from the files render wrote', async () => {
    const r = await dryRun({
      ...form,
      delivery: 'pull-request',
      gitopsRepo: 'github.com?owner=platform&repo=clusters',
      baseBranch: 'main',
    });
    expect(stepsOf(r)).toEqual({
      ran: ['prGithub', 'render'],
      skipped: [
        'create',
        'prBitbucketServer',
        'prGitea',
        'prGitlab',
        'propose',
      ],
      noDryRun: [],
    });
    // What the GitHub action read from the workspace: the files under the path it was given as sourcePath.
    const written = files(r);
    expect(Object.keys(written).sort()).toEqual([
      'clusters/team-a/team-a-dev/cluster.yaml',
      'clusters/team-a/team-a-dev/kustomization.yaml',
    ]);
    expect(written['clusters/team-a/team-a-dev/cluster.yaml']).toMatch(
      /^apiVersion: cluster.x-k8s.io\/v1beta2\nkind: Cluster\n/,
    );
    const logOf = (id: string) =>
      r.log.filter(l => l.body.stepId === id).map(l => l.body.message);
    // The inputs the scaffolder rendered for it: the path render wrote, as sourcePath and targetPath.
    expect(logOf('prGithub')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /Running publish:github:pull-request in dry-run mode with inputs[^]*"branchName": "capz\/new-cluster-team-a-team-a-dev",\n\s*"targetBranchName": "main",[^]*"sourcePath": "clusters\/team-a\/team-a-dev",\n\s*"targetPath": "clusters\/team-a\/team-a-dev"/,
        ),
        expect.stringContaining('Performing dry run of creating pull request'),
      ]),
    );
    // The GitHub action's dry run outputs the repository as its remoteUrl: the link is the action's output.
    expect(r.output.links).toEqual([
      {
        title: 'Open the pull request',
        url: 'github.com?owner=platform&repo=clusters',
      },
    ]);
    expect(r.output.text?.[0]).toEqual({
      title: 'Pull request from branch capz/new-cluster-team-a-team-a-dev',
      content: expect.stringContaining(
        "- the cluster's page in Backstage: http://localhost:3000/capz/clusters/prod-weu/team-a/team-a-dev",
      ),
    });
  });

  it('takes publish:gitlab:merge-request for a GitLab host (skipped in a dry run: the action has none)', async () => {
    const r = await dryRun({
      ...form,
      delivery: 'pull-request',
      gitopsRepo: 'gitlab.example.com?owner=platform&repo=clusters',
      includeCatalogEntity: true,
    });
    expect(stepsOf(r)).toEqual({
      ran: ['render'],
      skipped: [
        'create',
        'prBitbucketServer',
        'prGitea',
        'prGithub',
        'propose',
      ],
      noDryRun: ['prGitlab'],
    });
    expect(Object.keys(files(r)).sort()).toContain(
      'clusters/team-a/team-a-dev/catalog-info.yaml',
    );
  });

  it('refuses a pull request on a host with no integration, before writing anything', async () => {
    const res = await request(server)
      .post('/api/scaffolder/v2/dry-run')
      .set('Authorization', mockCredentials.user.header())
      .send({
        template,
        values: {
          ...form,
          delivery: 'pull-request',
          gitopsRepo: 'git.example.com?owner=platform&repo=clusters',
        },
        directoryContents: [],
      });
    // The scaffolder answers a failed dry run with the step's error.
    expect(res.status).toBe(500);
    expect(res.body.error.message).toBe(
      'Cannot render cluster team-a-dev: git.example.com has no integrations entry, so no pull-request action can reach it: configure integrations for it, or choose the "Propose through git" delivery (a branch for review)',
    );
  });

  it('pushes nothing and runs capz:cluster:propose against a plain Git server for the git delivery', async () => {
    const repoUrl = await git.createRepo('dry-run-template');
    const r = await dryRun({
      ...form,
      delivery: 'git',
      repoUrl,
      baseBranch: 'main',
    });
    expect(stepsOf(r)).toEqual({
      ran: ['propose', 'render'],
      skipped: [
        'create',
        'prBitbucketServer',
        'prGitea',
        'prGithub',
        'prGitlab',
      ],
      noDryRun: [],
    });
    expect(r.output.links?.[0]).toEqual({
      title: 'Review the proposal',
      url: repoUrl,
    });
    expect(await git.branches('dry-run-template')).toEqual(['main']);
    expect(files(r)).toEqual({});
  });
});
