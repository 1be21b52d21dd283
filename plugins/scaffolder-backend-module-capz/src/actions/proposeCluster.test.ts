/**
 * capz:cluster:propose against a real Git server over smart HTTP (Debian git's git-http-backend behind
 * @internal/git-server, on 127.0.0.1): the branch and its files as the server has them, the commit, the refusals,
 * dry runs, and credentials from the integrations config.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { startGitServer, type GitServer } from '@internal/git-server';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compareUrl, createProposeClusterAction } from './proposeCluster';
import { examples } from './proposeCluster.examples';
import { createRenderClusterManifestsAction } from './renderClusterManifests';

let server: GitServer;
beforeAll(async () => {
  server = await startGitServer();
});
afterAll(() => server.close());

const exampleInput = parse(examples[0].example).steps[0].input;
const config = (data: object = {}) => mockServices.rootConfig({ data });

/** The action's outputs by name. */
const outputs = (ctx: { output: jest.Mock | any }) =>
  Object.fromEntries((ctx.output as jest.Mock).mock.calls);

async function rendered(input: any): Promise<string> {
  const ctx = createMockActionContext({ input });
  await createRenderClusterManifestsAction().handler(ctx);
  return outputs(ctx).manifests;
}

const user = {
  ref: 'user:default/ada',
  entity: {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'User',
    metadata: { name: 'ada' },
    spec: {
      profile: { displayName: 'Ada Lovelace', email: 'ada@example.com' },
    },
  },
};

describe('capz:cluster:propose', () => {
  it('pushes a new branch with the manifests capz:cluster:render renders, under clusters/<namespace>/<name>/', async () => {
    const repoUrl = await server.createRepo('propose');
    const input = { ...exampleInput, repoUrl };
    const ctx = createMockActionContext({ input, user: user as any });
    const t0 = Date.now();
    await createProposeClusterAction({ config: config() }).handler(ctx);
    const ms = Date.now() - t0;

    const branch = 'capz/new-cluster-team-a-team-a-dev';
    expect(await server.branches('propose')).toEqual([branch, 'main']);
    const files = await server.branchFiles('propose', branch);
    expect(Object.keys(files).sort()).toEqual([
      'README.md',
      'clusters/team-a/team-a-dev/cluster.yaml',
      'clusters/team-a/team-a-dev/kustomization.yaml',
    ]);
    // Byte for byte what the render action shows in the template's output.
    const { managementCluster, repoUrl: _, ...params } = input;
    expect(files['clusters/team-a/team-a-dev/cluster.yaml']).toBe(
      await rendered(params),
    );
    expect(
      parse(files['clusters/team-a/team-a-dev/kustomization.yaml']),
    ).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['cluster.yaml'],
    });

    const main = await server.commitInfo('propose', 'main');
    const commit = await server.commitInfo('propose', branch);
    expect(commit.parents).toEqual([main.oid]);
    expect(commit.author).toBe('Ada Lovelace <ada@example.com>');
    expect(commit.message).toMatch(
      /^Add AKS cluster team-a\/team-a-dev \(management cluster prod-weu\)\n\n.*7 objects: Cluster\/team-a-dev, /,
    );
    expect(commit.message).toContain(
      'Node pools: pool0 (System, Standard_D2s_v3 x 2), pool1 (User, Standard_D4s_v3 x 0, autoscaling 0-5)',
    );
    expect(commit.message).toContain(
      'Owner: group:default/team-a\nEntra ID only: yes\nAzure tags: environment=dev, cost-center=team-a',
    );
    expect(commit.message).toContain('by user:default/ada');

    // capz:cluster:render with writeFiles writes the same files, byte for byte, into the scaffolder's workspace for
    // the forges' pull-request actions, and describes the pull request with the commit's message.
    const renderCtx = createMockActionContext({
      input: { ...params, managementCluster, writeFiles: true },
      user: user as any,
    });
    await createRenderClusterManifestsAction().handler(renderCtx);
    const written = outputs(renderCtx);
    expect(written.files).toEqual(
      Object.keys(files).filter(f => f !== 'README.md'),
    );
    for (const f of written.files)
      expect(readFileSync(join(renderCtx.workspacePath, f), 'utf8')).toBe(
        files[f],
      );
    expect(written.branchName).toBe(branch);
    // (the server reads the message back without its final newline)
    expect(`${written.title}\n\n${written.description}`.trimEnd()).toBe(
      commit.message,
    );

    expect(outputs(ctx)).toEqual({
      branch,
      commit: commit.oid,
      files: [
        'clusters/team-a/team-a-dev/cluster.yaml',
        'clusters/team-a/team-a-dev/kustomization.yaml',
      ],
      url: repoUrl,
      reviewHint: expect.stringContaining(
        `git fetch ${repoUrl} ${branch} && git diff main...FETCH_HEAD`,
      ),
      pushed: true,
    });
    console.log(
      `capz:cluster:propose: listed, cloned, committed and pushed in ${ms} ms`,
    );
  });

  it('refuses when the branch exists already, and pushes nothing', async () => {
    const repoUrl = await server.createRepo('twice');
    const action = createProposeClusterAction({ config: config() });
    await action.handler(
      createMockActionContext({ input: { ...exampleInput, repoUrl } }),
    );
    const pushes = server.requests.filter(r =>
      r.startsWith('POST /twice.git/git-receive-pack'),
    ).length;
    const ctx = createMockActionContext({
      input: { ...exampleInput, repoUrl },
    });
    await expect(action.handler(ctx)).rejects.toThrow(
      `Cannot propose cluster prod-weu/team-a/team-a-dev: branch capz/new-cluster-team-a-team-a-dev exists already in ${repoUrl}`,
    );
    expect(
      server.requests.filter(r =>
        r.startsWith('POST /twice.git/git-receive-pack'),
      ),
    ).toHaveLength(pushes);
    expect(ctx.output).not.toHaveBeenCalled();
  });

  it('refuses when the path exists on the base branch', async () => {
    const repoUrl = await server.createRepo('taken', {
      files: { 'fleet/team-a-dev/cluster.yaml': 'kind: Cluster\n' },
    });
    const ctx = createMockActionContext({
      input: { ...exampleInput, repoUrl, path: 'fleet/team-a-dev/' },
    });
    await expect(
      createProposeClusterAction({ config: config() }).handler(ctx),
    ).rejects.toThrow(
      'Cannot propose cluster prod-weu/team-a/team-a-dev: fleet/team-a-dev/ exists already on main',
    );
    expect(await server.branches('taken')).toEqual(['main']);
  });

  it('takes the repository and base branch from scaffolder.capz.gitops when the input has none', async () => {
    const repoUrl = await server.createRepo('configured', { branch: 'trunk' });
    const { repoUrl: _, ...input } = exampleInput;
    const ctx = createMockActionContext({ input });
    await createProposeClusterAction({
      config: config({
        scaffolder: { capz: { gitops: { repoUrl, baseBranch: 'trunk' } } },
      }),
    }).handler(ctx);
    expect(await server.branches('configured')).toEqual([
      'capz/new-cluster-team-a-team-a-dev',
      'trunk',
    ]);
    await expect(
      createProposeClusterAction({ config: config() }).handler(
        createMockActionContext({ input }),
      ),
    ).rejects.toThrow(
      'no repository: give repoUrl, or configure scaffolder.capz.gitops.repoUrl',
    );
  });

  it('refuses a missing base branch and a path outside the repository', async () => {
    const repoUrl = await server.createRepo('bases');
    const action = createProposeClusterAction({ config: config() });
    await expect(
      action.handler(
        createMockActionContext({
          input: { ...exampleInput, repoUrl, baseBranch: 'develop' },
        }),
      ),
    ).rejects.toThrow(`${repoUrl} has no branch develop`);
    await expect(
      action.handler(
        createMockActionContext({
          input: { ...exampleInput, repoUrl, path: '../elsewhere' },
        }),
      ),
    ).rejects.toThrow(/path "..\/elsewhere" must be a directory inside/);
  });

  it('in a dry run, commits in a local clone and pushes nothing', async () => {
    const repoUrl = await server.createRepo('dry');
    const before = server.requests.length;
    // createMockActionContext does not take isDryRun; the scaffolder sets it on the context it passes.
    const ctx = {
      ...createMockActionContext({ input: { ...exampleInput, repoUrl } }),
      logger: mockServices.logger.mock(),
      isDryRun: true,
    };
    await createProposeClusterAction({ config: config() }).handler(ctx);
    expect(await server.branches('dry')).toEqual(['main']);
    expect(
      server.requests.slice(before).filter(r => r.includes('receive-pack')),
    ).toEqual([]);
    const out = outputs(ctx);
    expect(out.pushed).toBe(false);
    expect(out.branch).toBe('capz/new-cluster-team-a-team-a-dev');
    expect(out.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(ctx.logger.info).toHaveBeenCalledWith(
      expect.stringMatching(/^Dry run: committed .* the branch is NOT pushed/),
    );
  });

  it('fails with every validation message before touching the repository', async () => {
    const before = server.requests.length;
    const ctx = createMockActionContext({
      input: {
        ...exampleInput,
        name: 'Bad',
        repoUrl: server.repoUrl('propose'),
      },
    });
    await expect(
      createProposeClusterAction({ config: config() }).handler(ctx),
    ).rejects.toThrow(
      /^Cannot propose cluster prod-weu\/team-a\/Bad: name:? "Bad" must be/,
    );
    expect(server.requests.length).toBe(before);
  });

  it("sends the credentials of the host's integration, and says so when the server wants some", async () => {
    const secured = await startGitServer({
      auth: { username: 'scaffolder', password: 's3cret' },
    });
    try {
      const repoUrl = await secured.createRepo('private');
      const host = new URL(repoUrl).host;
      const withCredentials = createProposeClusterAction({
        config: config({
          integrations: {
            gitea: [
              {
                host,
                baseUrl: secured.url,
                username: 'scaffolder',
                password: 's3cret',
              },
            ],
          },
        }),
      });
      const ctx = createMockActionContext({
        input: { ...exampleInput, repoUrl },
      });
      await withCredentials.handler(ctx);
      expect(await secured.branches('private')).toContain(
        'capz/new-cluster-team-a-team-a-dev',
      );
      // Gitea has a compare page.
      expect(outputs(ctx).url).toBe(
        `${secured.url}/private/compare/main...capz%2Fnew-cluster-team-a-team-a-dev`,
      );

      const without = createProposeClusterAction({ config: config() });
      await expect(
        without.handler(
          createMockActionContext({
            input: { ...exampleInput, name: 'other', repoUrl },
          }),
        ),
      ).rejects.toThrow(
        `Cannot propose cluster prod-weu/team-a/other: cannot read ${repoUrl}: HTTP 401`,
      );
    } finally {
      await secured.close();
    }
  });
});

describe('compareUrl', () => {
  it("links to the provider's page for a pull request, and to nothing on a plain server", () => {
    expect(
      compareUrl('github', 'https://github.com/o/r.git', 'main', 'capz/x'),
    ).toBe('https://github.com/o/r/compare/main...capz%2Fx?expand=1');
    expect(
      compareUrl(
        'gitlab',
        'https://u:p@gitlab.example.com/g/r.git',
        'main',
        'b',
      ),
    ).toBe(
      'https://gitlab.example.com/g/r/-/merge_requests/new?merge_request[source_branch]=b&merge_request[target_branch]=main',
    );
    expect(
      compareUrl(undefined, 'http://127.0.0.1:9/r.git', 'main', 'b'),
    ).toBeUndefined();
  });
});
