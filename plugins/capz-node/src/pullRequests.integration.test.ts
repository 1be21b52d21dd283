/**
 * openPullRequest on a real Gitea (v1.26.0 built from its Go module, @internal/git-server's startGitea): through the
 * host's `integrations.gitea` entry, and through an `integrations.github` entry whose `apiBaseUrl` is Gitea's API.
 * Gitea serves GitHub's pulls API shape (`POST /repos/{owner}/{repo}/pulls` with `head`, `base`, `title`, `body`,
 * answered with `number` and `html_url`; docs/forge-facts.md F1 and F5), so the GitHub request this module sends, with
 * the bearer token `DefaultGithubCredentialsProvider` makes, is answered by a real server; Gitea refuses the second
 * with 409 where GitHub answers 422, and either is answered by the listing.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { startGitea, type GiteaServer } from '@internal/git-server';
import { openPullRequest } from './pullRequests';

let gitea: GiteaServer;
let token: string;
beforeAll(async () => {
  gitea = await startGitea({ repos: ['forge'] });
  const created = await gitea.api('POST', `/users/${gitea.username}/tokens`, {
    name: 'capz-node-github-shape',
    scopes: ['write:repository'],
  });
  token = created.sha1;
}, 1_800_000); // a hang detector: a cold build of Gitea takes minutes
afterAll(() => gitea?.close());

/** A branch from main with one file of its own, made through Gitea's contents API. */
async function branchWithFile(branch: string): Promise<void> {
  await gitea.api(
    'POST',
    `/repos/${gitea.username}/forge/contents/${branch.replace(
      /\W/g,
      '-',
    )}.yaml`,
    {
      branch: 'main',
      new_branch: branch,
      message: `add ${branch}`,
      content: Buffer.from(`name: ${branch}\n`).toString('base64'),
    },
  );
}

const integrationsWith = (integrations: Record<string, any>) =>
  ScmIntegrations.fromConfig(
    mockServices.rootConfig({ data: { integrations } }),
  );

describe('openPullRequest on Gitea', () => {
  it("opens the pull request through integrations.gitea and finds it again on a retry (Gitea's 409)", async () => {
    await branchWithFile('capz/gitea-shape');
    const integrations = integrationsWith({
      gitea: [
        {
          host: gitea.host,
          baseUrl: gitea.url,
          username: gitea.username,
          password: gitea.password,
        },
      ],
    });
    const pr = {
      head: 'capz/gitea-shape',
      base: 'main',
      title: 'Gitea shape',
      body: 'through integrations.gitea',
    };
    const first = await openPullRequest(
      integrations,
      gitea.repoUrl('forge'),
      pr,
    );
    expect(first).toEqual({
      number: expect.any(Number),
      url: `${gitea.url}/${gitea.username}/forge/pulls/${first!.number}`,
      created: true,
    });
    await expect(
      openPullRequest(integrations, gitea.repoUrl('forge'), pr),
    ).resolves.toEqual({ ...first, created: false });
  });

  it("opens the pull request with GitHub's request and bearer token, and finds it again on a retry", async () => {
    await branchWithFile('capz/github-shape');
    const integrations = integrationsWith({
      github: [{ host: gitea.host, apiBaseUrl: `${gitea.url}/api/v1`, token }],
    });
    const pr = {
      head: 'capz/github-shape',
      base: 'main',
      title: 'GitHub shape',
      body: 'through integrations.github',
    };
    const first = await openPullRequest(
      integrations,
      gitea.repoUrl('forge'),
      pr,
    );
    expect(first).toMatchObject({ number: expect.any(Number), created: true });
    // The pull request as Gitea has it: what GitHub's request asked for.
    const seen = await gitea.api(
      'GET',
      `/repos/${gitea.username}/forge/pulls/${first!.number}`,
    );
    expect(seen).toMatchObject({
      state: 'open',
      title: 'GitHub shape',
      body: 'through integrations.github',
      head: { ref: 'capz/github-shape' },
      base: { ref: 'main' },
      html_url: first!.url,
    });
    await expect(
      openPullRequest(integrations, gitea.repoUrl('forge'), pr),
    ).resolves.toEqual({ ...first, created: false });
  });

  it('says what the forge answered to a refusal no open pull request explains (a base that does not exist), without the token', async () => {
    await branchWithFile('capz/no-base');
    const integrations = integrationsWith({
      github: [{ host: gitea.host, apiBaseUrl: `${gitea.url}/api/v1`, token }],
    });
    const err = (await openPullRequest(integrations, gitea.repoUrl('forge'), {
      head: 'capz/no-base',
      base: 'no-such-branch',
      title: 't',
      body: 'b',
    }).catch(e => e)) as Error;
    expect(err.message).toMatch(
      /^GitHub answered 404 Not Found to opening the pull request capz\/no-base → no-such-branch in capz\/forge/,
    );
    expect(err.message).not.toContain(token);
  });
});
