import type {
  LoggerService,
  RootConfigService,
} from '@backstage/backend-plugin-api';
import {
  ScmIntegrations,
  type ScmIntegrationRegistry,
} from '@backstage/integration';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  clusterProposal,
  normalizeKubernetesVersion,
  validateAksAsoClusterParams,
  type ClusterProposal,
} from '@capz-backstage/plugin-capz-common';
import {
  cloneBranch,
  credentialsFor,
  describeGitError,
  giteaRepo,
  listRemoteBranches,
  openGiteaPullRequest,
  repositoryWebUrl,
  urlWithoutCredentials,
  type GitClone,
} from '@capz-backstage/plugin-capz-node';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { clusterPageUrl } from './clusterPage';
import { clusterInputSchema } from './createCluster';
import { examples } from './proposeCluster.examples';

/** What `capz:cluster:propose` needs from the backend. @public */
export interface ProposeClusterActionOptions {
  /** `integrations.*` (credentials for the repository's host) and `scaffolder.defaultAuthor`. */
  config: RootConfigService;
  /** Injected in tests; from `config` otherwise. */
  integrations?: ScmIntegrationRegistry;
}

/** Where a person opens the pull request for the branch, for the hosted providers that have such a page. */
export function compareUrl(
  type: string | undefined,
  repoUrl: string,
  base: string,
  branch: string,
): string | undefined {
  const web = repositoryWebUrl(repoUrl);
  const b = encodeURIComponent(branch);
  const t = encodeURIComponent(base);
  switch (type) {
    case 'github':
      return `${web}/compare/${t}...${b}?expand=1`;
    case 'gitea':
      return `${web}/compare/${t}...${b}`;
    case 'gitlab':
      return `${web}/-/merge_requests/new?merge_request[source_branch]=${b}&merge_request[target_branch]=${t}`;
    case 'bitbucketCloud':
      return `${web}/pull-requests/new?source=${b}&dest=${t}`;
    case 'azure':
      return `${web}/pullrequestcreate?sourceRef=${b}&targetRef=${t}`;
    default:
      return undefined;
  }
}

function authorOf(
  user: { entity?: { spec?: any; metadata?: any }; ref?: string } | undefined,
  config: RootConfigService,
) {
  const fallback = {
    name:
      config.getOptionalString('scaffolder.defaultAuthor.name') ??
      'Backstage Scaffolder',
    email:
      config.getOptionalString('scaffolder.defaultAuthor.email') ??
      'scaffolder@backstage.io',
  };
  const profile = user?.entity?.spec?.profile;
  return {
    committer: fallback,
    author: profile?.email
      ? {
          name:
            profile.displayName ??
            user?.entity?.metadata?.name ??
            profile.email,
          email: profile.email,
        }
      : fallback,
  };
}

/**
 * `capz:cluster:propose`: proposes a new AKS cluster through Git instead of applying it. Renders the same manifests as
 * `capz:cluster:render`, clones `repoUrl` at `baseBranch`, writes them under `path`, commits on the new branch
 * `capz/new-cluster-<namespace>-<name>` and pushes it, for a person to review and merge (GitOps: Flux or Argo CD apply
 * what is merged). Refuses when the branch or the path exists already (on a Gitea host, a branch that holds exactly this proposal is a re-run: the pull request is opened or found). In a template dry run everything happens but
 * the push.
 *
 * A plain Git server has no pull requests: the action outputs the branch and how to review it. On a Gitea host (an
 * `integrations.gitea` entry) it opens the pull request through Gitea's API (or finds the open one for the branch) and
 * outputs its URL and number: Backstage has no Gitea pull-request action. On another hosted provider it outputs the
 * provider's compare page.
 *
 * @public
 */
export function createProposeClusterAction(o: ProposeClusterActionOptions) {
  const integrations = o.integrations ?? ScmIntegrations.fromConfig(o.config);
  /** The Gitea integration of the repository's host and the repository on it, when the host is a Gitea. */
  function giteaOf(repoUrl: string) {
    let host: string;
    try {
      host = new URL(
        /^https?:\/\//.test(repoUrl) ? repoUrl : `https://${repoUrl}`,
      ).host;
    } catch {
      return undefined;
    }
    const integration = integrations.gitea.byHost(host)?.config;
    const repo = integration && giteaRepo(integration, repoUrl);
    return repo ? { integration, repo } : undefined;
  }
  return createTemplateAction({
    id: 'capz:cluster:propose',
    description:
      'Proposes a new AKS cluster (CAPZ aks-aso flavor) through Git: commits its manifests on a new branch of a GitOps repository and pushes the branch for review',
    examples,
    supportsDryRun: true,
    schema: {
      input: {
        ...clusterInputSchema,
        repoUrl: z =>
          z
            .string()
            .optional()
            .describe(
              'Git smart-HTTP URL of the GitOps repository, e.g. https://git.example.com/platform/clusters.git, or on a Gitea host as RepoUrlPicker writes it (host?owner=o&repo=r). Default: scaffolder.capz.gitops.repoUrl',
            ),
        baseBranch: z =>
          z
            .string()
            .optional()
            .describe(
              'Branch the proposal starts from. Default: scaffolder.capz.gitops.baseBranch, else main',
            ),
        path: z =>
          z
            .string()
            .optional()
            .describe(
              'Directory the manifests go to, relative to the repository root. Default: clusters/<namespace>/<name>/',
            ),
        includeCatalogEntity: z =>
          z
            .boolean()
            .optional()
            .describe(
              "Also commit the cluster's catalog entity (a Resource of type kubernetes-cluster) as catalog-info.yaml",
            ),
      },
      output: {
        branch: z => z.string().describe('The branch that holds the proposal'),
        commit: z => z.string().describe("The proposal's commit id"),
        files: z =>
          z
            .array(z.string())
            .describe('The files written, relative to the repository root'),
        url: z =>
          z
            .string()
            .describe(
              "Where to review the branch: the pull request on a Gitea host, the provider's compare (pull request) page on another host with an integration, else the repository URL",
            ),
        pullRequestUrl: z =>
          z
            .string()
            .optional()
            .describe(
              'On a Gitea host (not in a dry run): the pull request opened, or the open one found for the branch',
            ),
        pullRequestNumber: z =>
          z
            .number()
            .optional()
            .describe('On a Gitea host (not in a dry run): its number'),
        reviewHint: z =>
          z
            .string()
            .describe('How to review the branch, in words (and git commands)'),
        pushed: z =>
          z.boolean().describe('False in a dry run: nothing was pushed'),
      },
    },
    async handler(ctx) {
      const {
        repoUrl: repoInput,
        baseBranch: baseInput,
        path: pathInput,
        includeCatalogEntity,
        managementCluster,
        ...input
      } = ctx.input;
      // `1.33.2` as AKS and people write it is taken for CAPI's `v1.33.2`.
      const params = {
        ...input,
        kubernetesVersion: normalizeKubernetesVersion(input.kubernetesVersion),
      };
      const baseBranch =
        baseInput ||
        o.config.getOptionalString('scaffolder.capz.gitops.baseBranch') ||
        'main';
      const dryRun = ctx.isDryRun === true;
      const target = `${managementCluster}/${params.namespace}/${params.name}`;
      const fail = (why: string): never => {
        throw new Error(`Cannot propose cluster ${target}: ${why}`);
      };

      const errors = validateAksAsoClusterParams(params);
      if (errors.length) fail(errors.join('; '));
      const repoInputUrl =
        repoInput ||
        o.config.getOptionalString('scaffolder.capz.gitops.repoUrl') ||
        fail(
          'no repository: give repoUrl, or configure scaffolder.capz.gitops.repoUrl',
        );
      // A Gitea host's repository as RepoUrlPicker writes it (host?owner=o&repo=r) is cloned at <baseUrl>/<owner>/<repo>.git.
      const gitea = giteaOf(repoInputUrl);
      const repoUrl = gitea?.repo.cloneUrl ?? repoInputUrl;
      if (!/^https?:\/\//.test(repoUrl))
        fail(
          `repoUrl ${urlWithoutCredentials(
            repoUrl,
          )} is not an http(s) URL (smart HTTP only)`,
        );
      // The files and words capz:cluster:render writes for the forges' pull-request actions (one function in
      // capz-common; the tests of both compare the bytes).
      let proposal: ClusterProposal;
      try {
        proposal = clusterProposal({
          params,
          managementCluster,
          path: pathInput,
          includeCatalogEntity,
          requester: ctx.user?.ref,
          clusterPageUrl: clusterPageUrl(o.config, {
            managementCluster,
            namespace: params.namespace,
            name: params.name,
          }),
        });
      } catch (e) {
        return fail((e as Error).message);
      }
      const { dir, branch } = proposal;
      const integration = integrations.byUrl(repoUrl);
      const credentials = credentialsFor(integration);
      const where = urlWithoutCredentials(repoUrl);
      const log: LoggerService = ctx.logger;

      // The branch first (one cheap request): a second proposal for the same cluster is refused before any clone.
      let refs;
      try {
        refs = await listRemoteBranches(repoUrl, credentials);
      } catch (e) {
        return fail(`cannot read ${where}: ${describeGitError(e)}`);
      }
      const branchRef = refs.find(r => r.branch === branch);
      if (branchRef) {
        // A re-run after a push whose pull request failed (Gitea down, a token without the right): the branch holds
        // exactly this proposal, so the step goes on with the pull request instead of refusing.
        if (gitea && !dryRun && (await branchHoldsProposal())) {
          const pr = await openPullRequest();
          report({
            commit: branchRef.commit,
            url: pr.url,
            pullRequest: pr,
            reviewHint: reviewOf(pr),
            pushed: false,
          });
          return undefined;
        }
        fail(
          `branch ${branch} exists already in ${where} (a proposal for this cluster is open or was merged without deleting its branch)`,
        );
      }
      if (!refs.some(r => r.branch === baseBranch))
        fail(`${where} has no branch ${baseBranch}`);

      /** The step's outputs, the same for a proposal pushed now and for a re-run that found it pushed. */
      function report(r: {
        commit: string;
        url: string;
        pullRequest?: { number: number; url: string };
        reviewHint: string;
        pushed: boolean;
      }) {
        ctx.output('branch', branch);
        ctx.output('commit', r.commit);
        ctx.output(
          'files',
          proposal.files.map(f => f.path),
        );
        ctx.output('url', r.url);
        if (r.pullRequest) {
          ctx.output('pullRequestUrl', r.pullRequest.url);
          ctx.output('pullRequestNumber', r.pullRequest.number);
        }
        ctx.output('reviewHint', r.reviewHint);
        ctx.output('pushed', r.pushed);
      }
      function reviewOf(pr: { number: number; url: string }) {
        return `Review and merge pull request #${pr.number} (${branch} into ${baseBranch}): ${pr.url}`;
      }

      /** Whether `branch` already holds this proposal's files, byte for byte (a shallow clone of it). */
      async function branchHoldsProposal(): Promise<boolean> {
        let work: GitClone | undefined;
        try {
          work = await cloneBranch({
            url: repoUrl,
            branch,
            credentials,
            prefix: 'capz-propose-check-',
          });
          const workDir = work.dir;
          return proposal.files.every(f => {
            const file = join(workDir, f.path);
            return (
              fs.existsSync(file) &&
              fs.readFileSync(file).equals(Buffer.from(f.content))
            );
          });
        } catch (e) {
          return fail(
            `cannot read branch ${branch} of ${where}: ${describeGitError(e)}`,
          );
        } finally {
          await work?.remove();
        }
      }

      /** Gitea: the pull request through its API (Backstage has no action for it). */
      async function openPullRequest() {
        try {
          const pr = await openGiteaPullRequest(
            gitea!.integration,
            gitea!.repo,
            {
              head: branch,
              base: baseBranch,
              title: proposal.title,
              body: proposal.description,
            },
          );
          log.info(
            `${pr.created ? 'Opened' : 'Found the open'} pull request #${
              pr.number
            }: ${pr.url}`,
          );
          return pr;
        } catch (e) {
          return fail(
            `branch ${branch} is pushed to ${where}, but the pull request was not opened: ${
              (e as Error).message
            }`,
          );
        }
      }

      // A clone of our own, removed when done (a dry run's workspace is the scaffolder's; this is not the template's).
      const t0 = Date.now();
      log.info(`Cloning ${where} at ${baseBranch}`);
      const clone = await cloneBranch({
        url: repoUrl,
        branch: baseBranch,
        credentials,
        prefix: 'capz-propose-',
      });
      try {
        return await proposeIn(clone);
      } finally {
        await clone.remove();
      }

      async function proposeIn(work: GitClone): Promise<void> {
        if (fs.existsSync(join(work.dir, dir)))
          fail(
            `${dir}/ exists already on ${baseBranch} in ${where}; choose another path or name`,
          );

        const files = proposal.files.map(f => f.path);
        const { author, committer } = authorOf(ctx.user, o.config);
        const commit = await work.commitFiles({
          branch,
          files: proposal.files,
          message: proposal.commitMessage,
          author,
          committer,
        });

        const compare = compareUrl(
          integration?.type,
          repoUrl,
          baseBranch,
          branch,
        );
        let reviewHint = compare
          ? `Open a pull request from ${branch} into ${baseBranch}: ${compare}`
          : `Review and merge branch ${branch} into ${baseBranch} (this Git server has no pull requests): git fetch ${where} ${branch} && git diff ${baseBranch}...FETCH_HEAD`;
        let pullRequest: { number: number; url: string } | undefined;
        // On a forge with a pull-request action, the template's pull-request delivery opens it (capz:cluster:render
        // writes the same files into the workspace for publish:github:pull-request and the like); here, the link.

        if (dryRun) {
          log.info(
            `Dry run: committed ${commit.slice(0, 12)} on ${branch} (${
              files.length
            } files under ${dir}/) in a local clone; the branch is NOT pushed to ${where}`,
          );
        } else {
          try {
            await work.pushBranch(branch);
          } catch (e) {
            const err = e as { code?: string };
            if (err.code === 'PushRejectedError')
              fail(
                `branch ${branch} appeared in ${where} while proposing (someone proposed the same cluster)`,
              );
            if ((e as Error).message?.startsWith('Cannot propose')) throw e;
            fail(
              `the push of ${branch} to ${where} failed: ${describeGitError(
                e,
              )}`,
            );
          }
          log.info(
            `Pushed ${branch} (${commit.slice(0, 12)}, ${
              files.length
            } files under ${dir}/) to ${where} in ${
              Date.now() - t0
            } ms. ${reviewHint}`,
          );
          if (gitea) {
            // The branch stays if this fails: a re-run finds it holding this proposal and opens the pull request.
            const pr = await openPullRequest();
            pullRequest = pr;
            reviewHint = reviewOf(pr);
          }
        }

        report({
          commit,
          url: pullRequest?.url ?? compare ?? where,
          pullRequest,
          reviewHint,
          pushed: !dryRun,
        });
      }
    },
  });
}
