/**
 * capz:cluster:propose on a real Gitea (v1.26.0 built from its Go module, @internal/git-server's startGitea: its own
 * REST API and smart HTTP on 127.0.0.1): the pull-request delivery for a Gitea host pushes the branch and opens the
 * pull request through Gitea's API, finds it again when it is open already (Gitea's 409), and says what Gitea answered
 * without the credentials. The first run on a machine builds Gitea (minutes; cached by a hash of the build script).
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { openGiteaPullRequest } from '@capz-backstage/plugin-capz-node';
import { startGitea, type GiteaServer } from '@internal/git-server';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createProposeClusterAction } from './proposeCluster';
import { examples } from './proposeCluster.examples';
import { createRenderClusterManifestsAction } from './renderClusterManifests';

let gitea: GiteaServer;
beforeAll(async () => {
  gitea = await startGitea({ repos: ['gitops'] });
}, 1_800_000); // a hang detector: a cold build of Gitea takes minutes
afterAll(() => gitea?.close());

const exampleInput = parse(examples[0].example).steps[0].input;
const integrationConfig = () => ({
  host: gitea.host,
  baseUrl: gitea.url,
  username: gitea.username,
  password: gitea.password,
});
const config = () =>
  mockServices.rootConfig({
    data: { integrations: { gitea: [integrationConfig()] } },
  });
const outputs = (ctx: { output: unknown }) =>
  Object.fromEntries((ctx.output as jest.Mock).mock.calls);

/** A file of a branch as Gitea serves it (raw bytes). */
async function raw(path: string, ref: string): Promise<string> {
  const res = await fetch(
    `${gitea.url}/api/v1/repos/${
      gitea.username
    }/gitops/raw/${path}?ref=${encodeURIComponent(ref)}`,
    {
      headers: {
        Authorization: `Basic ${Buffer.from(
          `${gitea.username}:${gitea.password}`,
        ).toString('base64')}`,
      },
    },
  );
  expect(res.status).toBe(200);
  return res.text();
}

describe('capz:cluster:propose on Gitea', () => {
  it('pushes the branch and opens the pull request (the repository as RepoUrlPicker writes it), with the files capz:cluster:render writes', async () => {
    const input = {
      ...exampleInput,
      name: 'gitea-a',
      includeCatalogEntity: true,
      repoUrl: `${gitea.host}?owner=${gitea.username}&repo=gitops`,
    };
    const ctx = createMockActionContext({ input });
    await createProposeClusterAction({ config: config() }).handler(ctx);
    const out = outputs(ctx);
    const branch = 'capz/new-cluster-team-a-gitea-a';
    expect(out.branch).toBe(branch);
    expect(out.pullRequestNumber).toEqual(expect.any(Number));
    expect(out.pullRequestUrl).toBe(
      `${gitea.url}/${gitea.username}/gitops/pulls/${out.pullRequestNumber}`,
    );
    expect(out.url).toBe(out.pullRequestUrl);

    // The pull request as Gitea has it.
    const pr = await gitea.api(
      'GET',
      `/repos/${gitea.username}/gitops/pulls/${out.pullRequestNumber}`,
    );
    expect(pr.state).toBe('open');
    expect(pr.head.ref).toBe(branch);
    expect(pr.base.ref).toBe('main');

    // The render action's files and words for the same parameters, byte for byte.
    const { repoUrl: _, ...renderInput } = input;
    const rctx = createMockActionContext({
      input: { ...renderInput, writeFiles: true },
    });
    await createRenderClusterManifestsAction({
      config: config(),
      integrations: ScmIntegrations.fromConfig(config()),
    }).handler(rctx);
    const rendered = outputs(rctx);
    expect(pr.title).toBe(rendered.title);
    expect(pr.body).toBe(rendered.description);
    expect(out.files).toEqual(rendered.files);
    for (const f of rendered.files as string[])
      expect(await raw(f, branch)).toBe(
        readFileSync(join(rctx.workspacePath, f), 'utf8'),
      );
  });

  it('on a re-run whose branch holds the same proposal (its pull request was not opened), opens the pull request; a different proposal on that branch is refused', async () => {
    const input = {
      ...exampleInput,
      name: 'gitea-a',
      includeCatalogEntity: true,
      repoUrl: `${gitea.host}?owner=${gitea.username}&repo=gitops`,
    };
    const branch = 'capz/new-cluster-team-a-gitea-a';
    // The first test's pull request, closed: the branch stays, as after a push whose pull request failed.
    const [first] = await gitea.api(
      'GET',
      `/repos/${gitea.username}/gitops/pulls?state=open`,
    );
    expect(first.head.ref).toBe(branch);
    await gitea.api(
      'PATCH',
      `/repos/${gitea.username}/gitops/pulls/${first.number}`,
      { state: 'closed' },
    );

    const ctx = createMockActionContext({ input });
    await createProposeClusterAction({ config: config() }).handler(ctx);
    const out = outputs(ctx);
    expect(out.pushed).toBe(false);
    expect(out.pullRequestNumber).not.toBe(first.number);
    const pr = await gitea.api(
      'GET',
      `/repos/${gitea.username}/gitops/pulls/${out.pullRequestNumber}`,
    );
    expect(pr.state).toBe('open');
    expect(pr.head.ref).toBe(branch);
    expect(out.reviewHint).toContain(pr.html_url);

    const other = createMockActionContext({
      input: { ...input, location: 'northeurope' },
    });
    await expect(
      createProposeClusterAction({ config: config() }).handler(other),
    ).rejects.toThrow(`branch ${branch} exists already`);
  });

  it('finds the open pull request when Gitea answers 409 (a retried step)', async () => {
    const target = { owner: gitea.username, repo: 'gitops' };
    const pr = {
      head: 'capz/new-cluster-team-a-gitea-a',
      base: 'main',
      title: 'again',
      body: 'again',
    };
    const again = await openGiteaPullRequest(integrationConfig(), target, pr);
    expect(again.created).toBe(false);
    const open = await gitea.api(
      'GET',
      `/repos/${gitea.username}/gitops/pulls?state=open`,
    );
    expect(open.map((p: any) => p.number)).toEqual([again.number]);
    expect(again.url).toBe(open[0].html_url);
  });

  it("says what Gitea answered, without the credentials, and keeps the pushed branch's name in the message", async () => {
    const target = { owner: gitea.username, repo: 'gitops' };
    const wrong = { ...integrationConfig(), password: 'not-the-password-42' };
    const err = await openGiteaPullRequest(wrong, target, {
      head: 'capz/x',
      base: 'main',
      title: 't',
      body: 'b',
    }).catch(e => e as Error);
    expect(String(err)).toMatch(
      /^Error: Gitea answered 401 Unauthorized to opening the pull request capz\/x → main in capz\/gitops/,
    );
    expect(String(err)).not.toContain('not-the-password-42');
    expect(String(err)).not.toContain(gitea.password);

    // A base branch Gitea does not have: its 404 in words, through the action (after its own check of the branch).
    const ctx = createMockActionContext({
      input: {
        ...exampleInput,
        name: 'gitea-b',
        baseBranch: 'release',
        repoUrl: gitea.repoUrl('gitops'),
      },
    });
    await expect(
      createProposeClusterAction({ config: config() }).handler(ctx),
    ).rejects.toThrow(
      `Cannot propose cluster prod-weu/team-a/gitea-b: ${gitea.repoUrl(
        'gitops',
      )} has no branch release`,
    );
  });
});
