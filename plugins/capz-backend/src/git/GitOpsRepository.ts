/**
 * The Git edge: the repository a Flux GitRepository points at, read and changed over smart HTTP with the credentials
 * of its host's `integrations` entry (the ones the scaffolder's publish actions use), through
 * `@capz-backstage/plugin-capz-node`. A change is proposed, never merged: a branch, and on a Gitea, GitHub, GitLab
 * or Bitbucket Server host its pull request.
 */
import type { RootConfigService } from '@backstage/backend-plugin-api';
import {
  ScmIntegrations,
  type ScmIntegrationRegistry,
} from '@backstage/integration';
import {
  cloneBranch,
  credentialsFor,
  listRemoteBranches,
  openPullRequest,
  urlWithoutCredentials,
  type GitFile,
  type GitIdentity,
} from '@capz-backstage/plugin-capz-node';

/** A repository's files by repository-relative path. */
export type RepositoryFiles = Record<string, string>;

/** A change proposed as a branch, with its pull request where the host has one the backend can open. */
export interface ProposedChange {
  branch: string;
  commit: string;
  /** The pull request (Gitea, GitHub, GitLab, Bitbucket Server); absent on a plain Git server or another host. */
  pullRequest?: { number: number; url: string };
}

/** What the backend does with a GitOps repository. */
export interface GitOpsRepository {
  /**
   * The files under `path` (repository-relative, `./` allowed) at `revision`, a commit of `branch` (default: the
   * branch's tip).
   */
  readFiles(o: {
    url: string;
    branch: string;
    path: string;
    revision?: string;
  }): Promise<RepositoryFiles>;
  /**
   * Commits `files` on the new branch `branch` from `from` (a commit of `base`; default its tip), pushes it, and opens
   * its pull request into `base` where it can. A branch of that name already on the remote is the change proposed
   * before (branch names are made from the change itself): nothing is pushed again, its pull request is found.
   */
  proposeChange(o: {
    url: string;
    base: string;
    from?: string;
    branch: string;
    files: readonly GitFile[];
    title: string;
    body: string;
    author: GitIdentity;
  }): Promise<ProposedChange>;
}

/** The GitOps repositories reached with the `integrations` config. */
export function gitOpsRepository(o: {
  config: RootConfigService;
  /** Injected in tests; from `config` otherwise. */
  integrations?: ScmIntegrationRegistry;
}): GitOpsRepository {
  const integrations = o.integrations ?? ScmIntegrations.fromConfig(o.config);
  const credentials = (url: string) => credentialsFor(integrations.byUrl(url));
  const where = urlWithoutCredentials;

  return {
    async readFiles({ url, branch, path, revision }) {
      const clone = await cloneBranch({
        url,
        branch,
        credentials: credentials(url),
        prefix: 'capz-gitops-read-',
      }).catch(e => {
        throw new Error(
          `cannot clone branch ${branch} of ${where(url)}: ${
            (e as Error).message
          }`,
        );
      });
      try {
        return await clone.readFiles({ path, revision });
      } finally {
        await clone.remove();
      }
    },

    async proposeChange({
      url,
      base,
      from,
      branch,
      files,
      title,
      body,
      author,
    }) {
      const existing = (await listRemoteBranches(url, credentials(url))).find(
        b => b.branch === branch,
      );
      const clone = existing
        ? undefined
        : await cloneBranch({
            url,
            branch: base,
            credentials: credentials(url),
            prefix: 'capz-gitops-propose-',
          });
      try {
        let commit = existing?.commit;
        if (clone) {
          commit = await clone.commitFiles({
            branch,
            files,
            message: `${title}\n\n${body}`,
            author,
            from,
          });
          await clone.pushBranch(branch);
        }
        const pr = await openPullRequest(integrations, url, {
          head: branch,
          base,
          title,
          body,
        });
        if (!pr) return { branch, commit: commit! };
        return {
          branch,
          commit: commit!,
          pullRequest: { number: pr.number, url: pr.url },
        };
      } finally {
        await clone?.remove();
      }
    },
  };
}
