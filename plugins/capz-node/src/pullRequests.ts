/**
 * Pull requests (GitLab: merge requests) opened through the forge's REST API with the credentials of the host's
 * `integrations` entry: Gitea, GitHub (and GitHub Enterprise), GitLab, Bitbucket Server / Data Center. Each opens the
 * pull request from `head` into `base`, or finds the open one for the same head and base when the forge refuses a
 * second (a retried step reports the pull request it opened before). The refusal's status differs between forges
 * (docs/forge-facts.md), so any 4xx is answered by listing: the open pull request found is the answer, none found
 * keeps the forge's own error.
 */
import {
  DefaultGithubCredentialsProvider,
  getBitbucketServerRequestOptions,
  getGitLabIntegrationRelativePath,
  getGitLabRequestOptions,
  type BitbucketServerIntegrationConfig,
  type GitLabIntegrationConfig,
  type GithubIntegrationConfig,
  type ScmIntegrationRegistry,
} from '@backstage/integration';
import { giteaRepo, openGiteaPullRequest } from './gitea';

/** A pull request as the forge reports it. @public */
export interface ForgePullRequest {
  /** GitHub's and Gitea's number, GitLab's `iid` (`!n`), Bitbucket Server's id. */
  number: number;
  url: string;
  /** False when it was open already (the same head and base): nothing was created. */
  created: boolean;
}

/** What a pull request asks for. @public */
export interface PullRequestRequest {
  head: string;
  base: string;
  title: string;
  body: string;
}

/** The forges whose pull requests the backend opens itself. @public */
export type PullRequestForge =
  | 'gitea'
  | 'github'
  | 'gitlab'
  | 'bitbucketServer';

/**
 * The forge of the repository at `repoUrl` from its host's `integrations` entry, or undefined (a plain Git server,
 * Azure DevOps, Bitbucket Cloud, Gerrit): there the pushed branch is the proposal.
 * @public
 */
export function pullRequestForge(
  integrations: ScmIntegrationRegistry,
  repoUrl: string,
): PullRequestForge | undefined {
  const type = integrations.byUrl(repoUrl)?.type;
  return type === 'gitea' ||
    type === 'github' ||
    type === 'gitlab' ||
    type === 'bitbucketServer'
    ? type
    : undefined;
}

/**
 * Opens the pull request from `head` into `base` of the repository at `repoUrl` (its clone URL) on its forge, or
 * finds the open one; undefined when the host has no forge the backend opens pull requests on (`pullRequestForge`).
 * Throws with the forge's answer in words, never the request's credentials.
 * @public
 */
export async function openPullRequest(
  integrations: ScmIntegrationRegistry,
  repoUrl: string,
  pr: PullRequestRequest,
): Promise<ForgePullRequest | undefined> {
  const host = new URL(repoUrl).host;
  switch (pullRequestForge(integrations, repoUrl)) {
    case 'gitea': {
      const config = integrations.gitea.byHost(host)!.config;
      const repo = giteaRepo(config, repoUrl);
      if (!repo)
        throw notARepository(repoUrl, 'Gitea', '<baseUrl>/<owner>/<repo>.git');
      return openGiteaPullRequest(config, repo, pr);
    }
    case 'github':
      return githubPullRequest(
        integrations,
        integrations.github.byHost(host)!.config,
        repoUrl,
        pr,
      );
    case 'gitlab':
      return gitlabMergeRequest(
        integrations.gitlab.byHost(host)!.config,
        repoUrl,
        pr,
      );
    case 'bitbucketServer':
      return bitbucketServerPullRequest(
        integrations.bitbucketServer.byHost(host)!.config,
        repoUrl,
        pr,
      );
    default:
      return undefined;
  }
}

function notARepository(repoUrl: string, forge: string, shape: string): Error {
  const u = new URL(repoUrl);
  u.username = '';
  u.password = '';
  return new Error(
    `${u.toString()} is not a ${forge} repository's clone URL (${shape}): no pull request can be opened for it`,
  );
}

/** The path of a clone URL without `.git` and slashes at either end. */
function repoPath(repoUrl: string, under = ''): string | undefined {
  const path = decodeURIComponent(new URL(repoUrl).pathname)
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  const prefix = under.replace(/\/+$/, '');
  if (prefix && !path.startsWith(`${prefix}/`)) return undefined;
  return path.slice(prefix.length).replace(/^\/+/, '');
}

/** The forge's answer in words: its JSON message(s), never our request. */
async function forgeError(
  res: Response,
  forge: string,
  what: string,
): Promise<Error> {
  let message = '';
  try {
    const body = (await res.json()) as any;
    // GitLab's message is a string, a list or an object of lists; Bitbucket Server's are in errors[].message.
    const m = body?.message;
    let parts: unknown[] = [];
    if (typeof m === 'string') parts = [m];
    else if (Array.isArray(m)) parts = m;
    else if (m && typeof m === 'object') parts = Object.values(m).flat();
    if (Array.isArray(body?.errors))
      parts.push(
        ...body.errors.map((e: any) =>
          typeof e === 'string' ? e : e?.message,
        ),
      );
    message = parts.filter(p => typeof p === 'string' && p).join('; ');
  } catch {
    // not JSON: the status says enough
  }
  return new Error(
    `${forge} answered ${res.status} ${res.statusText} to ${what}${
      message ? `: ${message}` : ''
    }`,
  );
}

async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify(body),
  });
}

async function getJson(
  url: string,
  headers: Record<string, string>,
  forge: string,
  what: string,
): Promise<any> {
  const res = await fetch(url, {
    headers: { ...headers, Accept: 'application/json' },
  });
  if (!res.ok) throw await forgeError(res, forge, what);
  return res.json();
}

/**
 * Creates with `create`; on a 4xx, the open pull request `findOpen` lists for the same head and base, or the forge's
 * refusal when there is none.
 */
async function createOrFind(
  forge: string,
  what: string,
  create: () => Promise<Response>,
  created: (body: any) => { number: number; url: string },
  findOpen: () => Promise<{ number: number; url: string } | undefined>,
): Promise<ForgePullRequest> {
  const res = await create();
  if (res.ok) return { ...created(await res.json()), created: true };
  const refused = await forgeError(res, forge, what);
  if (res.status < 400 || res.status >= 500) throw refused;
  const open = await findOpen();
  if (!open) throw refused;
  return { ...open, created: false };
}

const githubProviders = new WeakMap<
  ScmIntegrationRegistry,
  DefaultGithubCredentialsProvider
>();

/** GitHub: docs/forge-facts.md#github-create-pull, #github-pull-conflict, #github-list-pulls. */
async function githubPullRequest(
  integrations: ScmIntegrationRegistry,
  config: GithubIntegrationConfig,
  repoUrl: string,
  pr: PullRequestRequest,
): Promise<ForgePullRequest> {
  const [owner, repo, ...rest] = (repoPath(repoUrl) ?? '').split('/');
  if (!owner || !repo || rest.length)
    throw notARepository(
      repoUrl,
      'GitHub',
      'https://<host>/<owner>/<repo>.git',
    );
  if (!config.apiBaseUrl)
    throw new Error(
      `integrations.github for ${config.host} has no apiBaseUrl: set it (https://<host>/api/v3 for GitHub Enterprise) to open pull requests`,
    );
  let provider = githubProviders.get(integrations);
  if (!provider) {
    provider = DefaultGithubCredentialsProvider.fromIntegrations(integrations);
    githubProviders.set(integrations, provider);
  }
  const { headers = {} } = await provider.getCredentials({
    url: `https://${config.host}/${owner}/${repo}`,
  });
  const api = `${config.apiBaseUrl}/repos/${encodeURIComponent(
    owner,
  )}/${encodeURIComponent(repo)}/pulls`;
  const h = { ...headers, 'X-GitHub-Api-Version': '2022-11-28' };
  const what = `opening the pull request ${pr.head} → ${pr.base} in ${owner}/${repo}`;
  return createOrFind(
    'GitHub',
    what,
    () => postJson(api, h, pr),
    (b: { number: number; html_url: string }) => ({
      number: b.number,
      url: b.html_url,
    }),
    async () => {
      const params = new URLSearchParams({
        state: 'open',
        head: `${owner}:${pr.head}`,
        base: pr.base,
        per_page: '100',
      });
      const list = (await getJson(
        `${api}?${params}`,
        h,
        'GitHub',
        `listing the open pull requests of ${owner}/${repo}`,
      )) as Array<{
        number: number;
        html_url: string;
        head?: { ref?: string };
        base?: { ref?: string };
      }>;
      const open = list.find(
        p => p.head?.ref === pr.head && p.base?.ref === pr.base,
      );
      return open && { number: open.number, url: open.html_url };
    },
  );
}

/** GitLab: docs/forge-facts.md#gitlab-create-mr, #gitlab-mr-conflict, #gitlab-list-mrs. */
async function gitlabMergeRequest(
  config: GitLabIntegrationConfig,
  repoUrl: string,
  pr: PullRequestRequest,
): Promise<ForgePullRequest> {
  // An instance under a relative path (baseUrl https://host/gitlab) has its projects below it.
  const project = repoPath(repoUrl, getGitLabIntegrationRelativePath(config));
  if (!project || !project.includes('/'))
    throw notARepository(
      repoUrl,
      'GitLab',
      `${config.baseUrl}/<group>/<project>.git`,
    );
  const { headers } = getGitLabRequestOptions(config);
  const api = `${config.apiBaseUrl}/projects/${encodeURIComponent(
    project,
  )}/merge_requests`;
  return createOrFind(
    'GitLab',
    `opening the merge request ${pr.head} → ${pr.base} in ${project}`,
    () =>
      postJson(api, headers, {
        source_branch: pr.head,
        target_branch: pr.base,
        title: pr.title,
        description: pr.body,
      }),
    (b: { iid: number; web_url: string }) => ({
      number: b.iid,
      url: b.web_url,
    }),
    async () => {
      const params = new URLSearchParams({
        state: 'opened',
        source_branch: pr.head,
        target_branch: pr.base,
      });
      const list = (await getJson(
        `${api}?${params}`,
        headers,
        'GitLab',
        `listing the open merge requests of ${project}`,
      )) as Array<{
        iid: number;
        web_url: string;
        source_branch?: string;
        target_branch?: string;
      }>;
      const open = list.find(
        m => m.source_branch === pr.head && m.target_branch === pr.base,
      );
      return open && { number: open.iid, url: open.web_url };
    },
  );
}

/**
 * A Bitbucket Server repository from its HTTP clone URL (`<base>/scm/<PROJECT>/<slug>.git`) or its page
 * (`<base>/projects/<PROJECT>/repos/<slug>`): docs/forge-facts.md#bitbucket-server-clone-url.
 */
function bitbucketServerRepo(
  config: BitbucketServerIntegrationConfig,
  repoUrl: string,
): { project: string; slug: string } | undefined {
  const context = new URL(config.apiBaseUrl).pathname.replace(
    /\/rest\/api\/1\.0\/?$/,
    '',
  );
  const path = repoPath(repoUrl, context);
  const m =
    path?.match(/^scm\/([^/]+)\/([^/]+)$/) ??
    path?.match(/^projects\/([^/]+)\/repos\/([^/]+)(\/browse)?$/);
  return m ? { project: m[1], slug: m[2] } : undefined;
}

/** Bitbucket Server: docs/forge-facts.md#bitbucket-server-create-pull, #bitbucket-server-pull-conflict, #bitbucket-server-list-pulls. */
async function bitbucketServerPullRequest(
  config: BitbucketServerIntegrationConfig,
  repoUrl: string,
  pr: PullRequestRequest,
): Promise<ForgePullRequest> {
  const target = bitbucketServerRepo(config, repoUrl);
  if (!target)
    throw notARepository(
      repoUrl,
      'Bitbucket Server',
      'https://<host>/scm/<PROJECT>/<repo>.git',
    );
  const { headers } = getBitbucketServerRequestOptions(config);
  const api = `${config.apiBaseUrl}/projects/${encodeURIComponent(
    target.project,
  )}/repos/${encodeURIComponent(target.slug)}/pull-requests`;
  const ref = (branch: string) => ({
    id: `refs/heads/${branch}`,
    repository: { slug: target.slug, project: { key: target.project } },
  });
  type Pull = {
    id: number;
    links?: { self?: Array<{ href?: string }> };
    fromRef?: { id?: string };
    toRef?: { id?: string };
  };
  const found = (p: Pull) => ({
    number: p.id,
    url: p.links?.self?.[0]?.href ?? `${api}/${p.id}`,
  });
  const where = `${target.project}/${target.slug}`;
  return createOrFind(
    'Bitbucket Server',
    `opening the pull request ${pr.head} → ${pr.base} in ${where}`,
    () =>
      postJson(api, headers, {
        title: pr.title,
        description: pr.body,
        fromRef: ref(pr.head),
        toRef: ref(pr.base),
      }),
    found,
    async () => {
      // Pages of `limit` from `start` until `isLastPage`.
      for (let start = 0; ; ) {
        const params = new URLSearchParams({
          state: 'OPEN',
          direction: 'OUTGOING',
          at: `refs/heads/${pr.head}`,
          start: String(start),
          limit: '100',
        });
        const page = (await getJson(
          `${api}?${params}`,
          headers,
          'Bitbucket Server',
          `listing the open pull requests of ${where}`,
        )) as { values?: Pull[]; isLastPage?: boolean; nextPageStart?: number };
        const open = page.values?.find(
          p =>
            p.fromRef?.id === `refs/heads/${pr.head}` &&
            p.toRef?.id === `refs/heads/${pr.base}`,
        );
        if (open) return found(open);
        if (page.isLastPage !== false || page.nextPageStart === undefined)
          return undefined;
        start = page.nextPageStart;
      }
    },
  );
}
