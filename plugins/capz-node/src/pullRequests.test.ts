/**
 * Pull requests on GitHub, GitLab and Bitbucket Server, against a local HTTP server that answers as each forge's REST
 * API is documented (docs/forge-facts.md F5-F14): no such forge runs here. Gitea's own, and GitHub's request shape on a
 * real Gitea, are in pullRequests.integration.test.ts.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openPullRequest, pullRequestForge } from './pullRequests';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: any;
}

/** A forge: `route` answers each request [status, JSON body]; every request is kept in `seen`. */
async function forge(
  route: (r: Seen) => [number, unknown],
): Promise<{ host: string; url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', c => (data += c));
    req.on('end', () => {
      const r: Seen = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: data ? JSON.parse(data) : undefined,
      };
      seen.push(r);
      const [status, body] = route(r);
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>(ok => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    seen,
    server,
  };
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => new Promise(ok => s.close(ok))));
});
async function started(route: (r: Seen) => [number, unknown]) {
  const f = await forge(route);
  servers.push(f.server);
  return f;
}

const integrationsOf = (integrations: Record<string, any>) =>
  ScmIntegrations.fromConfig(
    mockServices.rootConfig({ data: { integrations } }),
  );
const pr = {
  head: 'capz/scale-a',
  base: 'main',
  title: 'Scale a',
  body: 'why',
};
const query = (url: string) =>
  Object.fromEntries(new URL(url, 'http://x').searchParams);

describe('pullRequestForge', () => {
  it('names the forge of the host, and none for a plain Git server, Bitbucket Cloud or Azure DevOps', () => {
    const integrations = integrationsOf({
      gitea: [{ host: 'gitea.example.com', password: 'p' }],
      gitlab: [
        {
          host: 'gitlab.example.com',
          apiBaseUrl: 'https://gitlab.example.com/api/v4',
          token: 't',
        },
      ],
      bitbucketServer: [{ host: 'bb.example.com', token: 't' }],
    });
    expect(pullRequestForge(integrations, 'https://github.com/o/r.git')).toBe(
      'github',
    );
    expect(
      pullRequestForge(integrations, 'https://gitlab.example.com/g/r.git'),
    ).toBe('gitlab');
    expect(
      pullRequestForge(integrations, 'https://bb.example.com/scm/P/r.git'),
    ).toBe('bitbucketServer');
    expect(
      pullRequestForge(integrations, 'https://gitea.example.com/o/r.git'),
    ).toBe('gitea');
    expect(
      pullRequestForge(integrations, 'http://127.0.0.1:9/r.git'),
    ).toBeUndefined();
    expect(
      pullRequestForge(integrations, 'https://bitbucket.org/w/r.git'),
    ).toBeUndefined();
    expect(
      pullRequestForge(integrations, 'https://dev.azure.com/o/p/_git/r'),
    ).toBeUndefined();
  });

  it('opens nothing where the host has no such forge', async () => {
    await expect(
      openPullRequest(integrationsOf({}), 'http://127.0.0.1:9/r.git', pr),
    ).resolves.toBeUndefined();
  });
});

describe('GitHub', () => {
  const open: Array<{ number: number; head: string; base: string }> = [];
  beforeEach(() => open.splice(0));
  const github = () =>
    started(r => {
      const path = r.url.split('?')[0];
      if (path !== '/api/v3/repos/platform/clusters/pulls')
        return [404, { message: 'Not Found' }];
      if (r.method === 'POST') {
        if (r.body.base === 'gone')
          return [
            422,
            {
              message: 'Validation Failed',
              errors: [
                { resource: 'PullRequest', field: 'base', code: 'invalid' },
              ],
            },
          ];
        if (open.some(p => p.head === r.body.head && p.base === r.body.base))
          return [
            422,
            {
              message: 'Validation Failed',
              errors: [
                {
                  resource: 'PullRequest',
                  code: 'custom',
                  message: `A pull request already exists for platform:${r.body.head}.`,
                },
              ],
            },
          ];
        const p = {
          number: 40 + open.length,
          head: r.body.head,
          base: r.body.base,
        };
        open.push(p);
        return [
          201,
          { number: p.number, html_url: `https://ghe/pull/${p.number}` },
        ];
      }
      const q = query(r.url);
      return [
        200,
        open
          .filter(p => `platform:${p.head}` === q.head && p.base === q.base)
          .map(p => ({
            number: p.number,
            html_url: `https://ghe/pull/${p.number}`,
            head: { ref: p.head },
            base: { ref: p.base },
          })),
      ];
    });

  it('opens the pull request with the integration token, then finds it on a retry (422)', async () => {
    const f = await github();
    const integrations = integrationsOf({
      github: [
        { host: f.host, apiBaseUrl: `${f.url}/api/v3`, token: 'gh-secret' },
      ],
    });
    const url = `${f.url}/platform/clusters.git`;
    await expect(openPullRequest(integrations, url, pr)).resolves.toEqual({
      number: 40,
      url: 'https://ghe/pull/40',
      created: true,
    });
    expect(f.seen[0]).toMatchObject({
      method: 'POST',
      body: pr,
      headers: { authorization: 'Bearer gh-secret' },
    });
    await expect(openPullRequest(integrations, url, pr)).resolves.toEqual({
      number: 40,
      url: 'https://ghe/pull/40',
      created: false,
    });
    expect(query(f.seen[2].url)).toEqual({
      state: 'open',
      head: 'platform:capz/scale-a',
      base: 'main',
      per_page: '100',
    });
  });

  it("keeps GitHub's refusal when no open pull request explains it, without the token", async () => {
    const f = await github();
    const integrations = integrationsOf({
      github: [
        { host: f.host, apiBaseUrl: `${f.url}/api/v3`, token: 'gh-secret' },
      ],
    });
    const err = await openPullRequest(
      integrations,
      `${f.url}/platform/clusters.git`,
      { ...pr, base: 'gone' },
    ).catch(e => e as Error);
    expect((err as Error).message).toBe(
      'GitHub answered 422 Unprocessable Entity to opening the pull request capz/scale-a → gone in platform/clusters: Validation Failed',
    );
    expect((err as Error).message).not.toContain('gh-secret');
  });

  it('refuses a URL that is not <owner>/<repo>', async () => {
    const integrations = integrationsOf({
      github: [
        {
          host: 'ghe.example.com',
          apiBaseUrl: 'https://ghe.example.com/api/v3',
          token: 't',
        },
      ],
    });
    await expect(
      openPullRequest(integrations, 'https://ghe.example.com/only.git', pr),
    ).rejects.toThrow(
      "https://ghe.example.com/only.git is not a GitHub repository's clone URL (https://<host>/<owner>/<repo>.git)",
    );
  });
});

describe('GitLab', () => {
  it('opens the merge request in the project of a subgroup under a relative path, then finds it (409)', async () => {
    const open: Array<{ iid: number; source: string; target: string }> = [];
    const f = await started(r => {
      const [path] = r.url.split('?');
      if (
        path !==
        '/gitlab/api/v4/projects/platform%2Finfra%2Fclusters/merge_requests'
      )
        return [404, { message: '404 Project Not Found' }];
      if (r.method === 'POST') {
        const dup = open.find(m => m.source === r.body.source_branch);
        if (dup)
          return [
            409,
            {
              message: [
                `Another open merge request already exists for this source branch: !${dup.iid}`,
              ],
            },
          ];
        const m = {
          iid: open.length + 7,
          source: r.body.source_branch,
          target: r.body.target_branch,
        };
        open.push(m);
        return [
          201,
          { iid: m.iid, id: 9000 + m.iid, web_url: `https://gl/mr/${m.iid}` },
        ];
      }
      const q = query(r.url);
      return [
        200,
        open
          .filter(
            m =>
              q.state === 'opened' &&
              m.source === q.source_branch &&
              m.target === q.target_branch,
          )
          .map(m => ({
            iid: m.iid,
            web_url: `https://gl/mr/${m.iid}`,
            source_branch: m.source,
            target_branch: m.target,
          })),
      ];
    });
    const integrations = integrationsOf({
      gitlab: [
        {
          host: f.host,
          baseUrl: `${f.url}/gitlab`,
          apiBaseUrl: `${f.url}/gitlab/api/v4`,
          token: 'gl-secret',
        },
      ],
    });
    const url = `${f.url}/gitlab/platform/infra/clusters.git`;
    await expect(openPullRequest(integrations, url, pr)).resolves.toEqual({
      number: 7,
      url: 'https://gl/mr/7',
      created: true,
    });
    expect(f.seen[0]).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer gl-secret' },
      body: {
        source_branch: 'capz/scale-a',
        target_branch: 'main',
        title: 'Scale a',
        description: 'why',
      },
    });
    await expect(openPullRequest(integrations, url, pr)).resolves.toEqual({
      number: 7,
      url: 'https://gl/mr/7',
      created: false,
    });
    expect(f.seen).toHaveLength(3);
  });

  it('says what GitLab answered to a refusal no open merge request explains', async () => {
    const f = await started(r =>
      r.method === 'POST' ? [403, { message: '403 Forbidden' }] : [200, []],
    );
    const integrations = integrationsOf({
      gitlab: [
        { host: f.host, apiBaseUrl: `${f.url}/api/v4`, token: 'gl-secret' },
      ],
    });
    await expect(
      openPullRequest(integrations, `${f.url}/g/r.git`, pr),
    ).rejects.toThrow(
      'GitLab answered 403 Forbidden to opening the merge request capz/scale-a → main in g/r: 403 Forbidden',
    );
  });
});

describe('Bitbucket Server', () => {
  it('opens the pull request from the clone URL under a context path, then finds it on the second page (409)', async () => {
    const open: Array<{ id: number; from: string; to: string }> = [
      { id: 1, from: 'refs/heads/capz/scale-a', to: 'refs/heads/release' },
    ];
    const pullsPath =
      '/bb/rest/api/1.0/projects/PLAT/repos/clusters/pull-requests';
    const f = await started(r => {
      const [path] = r.url.split('?');
      if (path !== pullsPath)
        return [404, { errors: [{ message: 'Repository does not exist.' }] }];
      if (r.method === 'POST') {
        const dup = open.find(
          p => p.from === r.body.fromRef.id && p.to === r.body.toRef.id,
        );
        if (dup)
          return [
            409,
            {
              errors: [
                {
                  message:
                    'Only one pull request may be open for a given source and target branch',
                  exceptionName:
                    'com.atlassian.bitbucket.pull.DuplicatePullRequestException',
                },
              ],
            },
          ];
        const p = {
          id: open.length + 1,
          from: r.body.fromRef.id,
          to: r.body.toRef.id,
        };
        open.push(p);
        return [
          201,
          { id: p.id, links: { self: [{ href: `https://bb/pr/${p.id}` }] } },
        ];
      }
      // One pull request a page: the second page holds the one for main.
      const q = query(r.url);
      const all = open.filter(p => p.from === q.at);
      const start = Number(q.start);
      const p = all[start];
      return [
        200,
        {
          start,
          values: p
            ? [
                {
                  id: p.id,
                  fromRef: { id: p.from },
                  toRef: { id: p.to },
                  links: { self: [{ href: `https://bb/pr/${p.id}` }] },
                },
              ]
            : [],
          isLastPage: start + 1 >= all.length,
          ...(start + 1 < all.length ? { nextPageStart: start + 1 } : {}),
        },
      ];
    });
    const integrations = integrationsOf({
      bitbucketServer: [
        {
          host: f.host,
          apiBaseUrl: `${f.url}/bb/rest/api/1.0`,
          token: 'bb-secret',
        },
      ],
    });
    const url = `${f.url}/bb/scm/PLAT/clusters.git`;
    await expect(openPullRequest(integrations, url, pr)).resolves.toEqual({
      number: 2,
      url: 'https://bb/pr/2',
      created: true,
    });
    expect(f.seen[0]).toMatchObject({
      method: 'POST',
      headers: { authorization: 'Bearer bb-secret' },
      body: {
        title: 'Scale a',
        description: 'why',
        fromRef: {
          id: 'refs/heads/capz/scale-a',
          repository: { slug: 'clusters', project: { key: 'PLAT' } },
        },
        toRef: {
          id: 'refs/heads/main',
          repository: { slug: 'clusters', project: { key: 'PLAT' } },
        },
      },
    });
    await expect(openPullRequest(integrations, url, pr)).resolves.toEqual({
      number: 2,
      url: 'https://bb/pr/2',
      created: false,
    });
    expect(f.seen.slice(2).map(r => query(r.url).start)).toEqual(['0', '1']);
    expect(query(f.seen[2].url)).toMatchObject({
      state: 'OPEN',
      direction: 'OUTGOING',
      at: 'refs/heads/capz/scale-a',
    });
  });

  it('refuses a URL that is neither a clone URL nor a repository page', async () => {
    const integrations = integrationsOf({
      bitbucketServer: [{ host: 'bb.example.com', token: 't' }],
    });
    await expect(
      openPullRequest(
        integrations,
        'https://bb.example.com/PLAT/clusters.git',
        pr,
      ),
    ).rejects.toThrow(
      "https://bb.example.com/PLAT/clusters.git is not a Bitbucket Server repository's clone URL (https://<host>/scm/<PROJECT>/<repo>.git)",
    );
  });
});
