import {
  getGiteaRequestOptions,
  type GiteaIntegrationConfig,
} from '@backstage/integration';

/** A pull request on Gitea as the action reports it. @public */
export interface GiteaPullRequest {
  number: number;
  url: string;
  /** False when it was open already (the same head and base): nothing was created. */
  created: boolean;
}

/**
 * The owner and name of a Gitea repository from its clone URL (`<baseUrl>/<owner>/<repo>.git`) or the RepoUrlPicker's
 * `host?owner=o&repo=r`; undefined when it is neither.
 * @public
 */
export function giteaRepo(
  config: GiteaIntegrationConfig,
  repoUrl: string,
): { owner: string; repo: string; cloneUrl: string } | undefined {
  const base = config.baseUrl ?? `https://${config.host}`;
  const picker = /^[^/:?]+(:\d+)?\?/.test(repoUrl)
    ? new URL(`https://${repoUrl}`).searchParams
    : undefined;
  let owner: string | undefined;
  let repo: string | undefined;
  if (picker) {
    owner = picker.get('owner') ?? undefined;
    repo = picker.get('repo') ?? undefined;
  } else {
    const u = new URL(repoUrl);
    u.username = '';
    u.password = '';
    const rest = u.toString().startsWith(`${base}/`)
      ? u.toString().slice(base.length + 1)
      : undefined;
    [owner, repo] = (rest ?? '').replace(/\.git$/, '').split('/');
    if (rest?.replace(/\.git$/, '').split('/').length !== 2) return undefined;
  }
  if (!owner || !repo) return undefined;
  return {
    owner,
    repo,
    cloneUrl: `${base}/${encodeURIComponent(owner)}/${encodeURIComponent(
      repo,
    )}.git`,
  };
}

/** Gitea's answer in words: its JSON `message` (never our request, so never the credentials). */
async function giteaError(res: Response, what: string): Promise<Error> {
  let message = '';
  try {
    const body = (await res.json()) as { message?: string };
    message = body?.message ?? '';
  } catch {
    // not JSON: the status says enough
  }
  return new Error(
    `Gitea answered ${res.status} ${res.statusText} to ${what}${
      message ? `: ${message}` : ''
    }`,
  );
}

/**
 * Opens the pull request from `head` into `base` through Gitea's REST API (`POST /repos/{owner}/{repo}/pulls`), or
 * finds the open one for the same head and base: Gitea answers 409 to a second (docs/forge-facts.md#gitea-pull-conflict), so a
 * retried step reports the pull request it opened before.
 * @public
 */
export async function openGiteaPullRequest(
  config: GiteaIntegrationConfig,
  target: { owner: string; repo: string },
  pr: { head: string; base: string; title: string; body: string },
): Promise<GiteaPullRequest> {
  const base = config.baseUrl ?? `https://${config.host}`;
  const api = `${base}/api/v1/repos/${encodeURIComponent(
    target.owner,
  )}/${encodeURIComponent(target.repo)}/pulls`;
  const { headers } = getGiteaRequestOptions(config) as {
    headers?: Record<string, string>;
  };
  const res = await fetch(api, {
    method: 'POST',
    headers: {
      ...headers,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify(pr),
  });
  if (res.ok) {
    const created = (await res.json()) as { number: number; html_url: string };
    return { number: created.number, url: created.html_url, created: true };
  }
  if (res.status !== 409)
    throw await giteaError(
      res,
      `opening the pull request ${pr.head} → ${pr.base} in ${target.owner}/${target.repo}`,
    );
  // Open already: the open pull requests, a page at a time (docs/forge-facts.md#gitea-list-pulls: pages of at most 50), for this head and base.
  for (let page = 1; ; page++) {
    const list = await fetch(`${api}?state=open&limit=50&page=${page}`, {
      headers: { ...headers, Accept: 'application/json' },
    });
    if (!list.ok)
      throw await giteaError(
        list,
        `listing the open pull requests of ${target.owner}/${target.repo}`,
      );
    const prs = (await list.json()) as Array<{
      number: number;
      html_url: string;
      head?: { ref?: string };
      base?: { ref?: string };
    }>;
    const open = prs.find(
      p => p.head?.ref === pr.head && p.base?.ref === pr.base,
    );
    if (open)
      return { number: open.number, url: open.html_url, created: false };
    if (!prs.length)
      throw new Error(
        `Gitea answered 409 to opening the pull request ${pr.head} → ${pr.base} in ${target.owner}/${target.repo}, but lists no open pull request for them`,
      );
  }
}
