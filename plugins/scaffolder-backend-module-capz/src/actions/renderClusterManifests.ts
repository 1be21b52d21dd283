import {
  resolveSafeChildPath,
  type RootConfigService,
} from '@backstage/backend-plugin-api';
import {
  ScmIntegrations,
  type ScmIntegrationRegistry,
} from '@backstage/integration';
import { createTemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  PULL_REQUEST_ACTIONS,
  clusterProposal,
  generateAksAsoClusterManifests,
  manifestsYaml,
  normalizeKubernetesVersion,
  validateAksAsoClusterParams,
} from '@capz-backstage/plugin-capz-common';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { clusterPageUrl } from './clusterPage';
import { clusterInputSchema } from './createCluster';
import { examples } from './renderClusterManifests.examples';

/** The cluster's parameters; the management cluster only names the proposal (rendering touches no cluster). */
const { managementCluster: _managementCluster, ...renderInputSchema } =
  clusterInputSchema;

/** What `capz:cluster:render` reads from the backend, all optional. @public */
export interface RenderClusterManifestsActionOptions {
  /** `integrations.*` (the forge of `repoUrl`'s host) and `app.baseUrl` (the cluster page in the description). */
  config?: RootConfigService;
  /** Injected in tests; from `config` otherwise. */
  integrations?: ScmIntegrationRegistry;
}

/**
 * The host of a repository given as the RepoUrlPicker writes it (`github.com?owner=o&repo=r`) or as a clone URL
 * (`https://git.example.com/o/r.git`).
 */
export function repoHost(repoUrl: string): string {
  try {
    return new URL(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(repoUrl) ? repoUrl : `https://${repoUrl}`,
    ).host;
  } catch {
    throw new Error(
      `repoUrl ${JSON.stringify(
        repoUrl,
      )} is neither host?owner=…&repo=… nor a URL`,
    );
  }
}

/**
 * `capz:cluster:render`: the manifests of a new ASO-managed AKS cluster (CAPZ's aks-aso flavor) as YAML. With
 * `writeFiles`, also the files `capz:cluster:propose` commits (the same bytes: one function in capz-common) written
 * into the scaffolder's workspace under `path`, with the pull request's title, description and branch, for a forge's
 * own pull-request action (`publish:github:pull-request` and the like) in the next step. Pure but for the workspace,
 * so it also runs in template dry-runs.
 *
 * @public
 */
export function createRenderClusterManifestsAction(
  options: RenderClusterManifestsActionOptions = {},
) {
  const integrations =
    options.integrations ??
    (options.config ? ScmIntegrations.fromConfig(options.config) : undefined);
  return createTemplateAction({
    id: 'capz:cluster:render',
    description:
      'Renders the Cluster API and CAPZ (ASO-managed) manifests of a new AKS cluster as multi-document YAML; with writeFiles, writes them (and a kustomization) into the workspace for a pull-request action',
    examples,
    supportsDryRun: true,
    schema: {
      input: {
        ...renderInputSchema,
        managementCluster: z =>
          z
            .string()
            .optional()
            .describe(
              'The management cluster the GitOps controller applies the files to; named in the kustomization and the description. Required with writeFiles',
            ),
        writeFiles: z =>
          z
            .boolean()
            .optional()
            .describe(
              "Write the files capz:cluster:propose commits into the workspace under path (for a forge's pull-request action)",
            ),
        path: z =>
          z
            .string()
            .optional()
            .describe(
              'Directory of the files, relative to the workspace and to the repository root. Default: clusters/<namespace>/<name>',
            ),
        includeCatalogEntity: z =>
          z
            .boolean()
            .optional()
            .describe(
              "Also write the cluster's catalog entity (a Resource of type kubernetes-cluster) as catalog-info.yaml",
            ),
        repoUrl: z =>
          z
            .string()
            .optional()
            .describe(
              'The GitOps repository, as RepoUrlPicker writes it (github.com?owner=o&repo=r) or a URL: its host names the forge',
            ),
        pullRequest: z =>
          z
            .boolean()
            .optional()
            .describe(
              "Refuse, before writing anything, when repoUrl's forge has no pull-request action the template can use",
            ),
      },
      output: {
        manifests: z =>
          z.string().describe('Multi-document YAML of every object'),
        objectCount: z => z.number().describe('How many objects were rendered'),
        path: z =>
          z
            .string()
            .optional()
            .describe(
              'With writeFiles: the directory written, normalised (sourcePath and targetPath of the pull-request action)',
            ),
        files: z =>
          z
            .array(z.string())
            .optional()
            .describe(
              'With writeFiles: the files written, relative to the workspace (and to the repository root)',
            ),
        branchName: z =>
          z
            .string()
            .optional()
            .describe('With writeFiles: the branch for the pull request'),
        title: z =>
          z
            .string()
            .optional()
            .describe('With writeFiles: the pull request title'),
        description: z =>
          z
            .string()
            .optional()
            .describe(
              'With writeFiles: the pull request description (what is created in Azure, how to check it after merge)',
            ),
        commitMessage: z =>
          z
            .string()
            .optional()
            .describe(
              "With writeFiles: the commit message, title and description (capz:cluster:propose's commit has the same)",
            ),
        forge: z =>
          z
            .string()
            .optional()
            .describe(
              "With repoUrl: the integrations type of its host (github, gitlab, bitbucketServer, azure, gitea...), 'git' when none is configured",
            ),
        pullRequestAction: z =>
          z
            .string()
            .optional()
            .describe(
              'With repoUrl: the action that opens the pull request on that forge; absent when there is none',
            ),
      },
    },
    async handler(ctx) {
      const {
        managementCluster,
        writeFiles,
        path,
        includeCatalogEntity,
        repoUrl,
        pullRequest,
        ...cluster
      } = ctx.input;
      // `1.33.2` as AKS and people write it is taken for CAPI's `v1.33.2`.
      const input = {
        ...cluster,
        kubernetesVersion: normalizeKubernetesVersion(
          cluster.kubernetesVersion,
        ),
      };
      function fail(why: string): never {
        throw new Error(`Cannot render cluster ${input.name}: ${why}`);
      }
      const errors = validateAksAsoClusterParams(input);
      if (errors.length) fail(errors.join('; '));

      let forge: string | undefined;
      let pullRequestAction: string | undefined;
      if (repoUrl) {
        const host = repoHost(repoUrl);
        forge = integrations?.byHost(host)?.type ?? 'git';
        pullRequestAction = PULL_REQUEST_ACTIONS[forge];
        if (pullRequest && !pullRequestAction)
          fail(
            forge === 'git'
              ? `${host} has no integrations entry, so no pull-request action can reach it: configure integrations for it, or choose the "Propose through git" delivery (a branch for review)`
              : `Backstage has no pull-request action for ${forge} (the host ${host}) among the installed scaffolder modules (${Object.keys(
                  PULL_REQUEST_ACTIONS,
                ).join(
                  ', ',
                )}): choose the "Propose through git" delivery, which pushes a branch and links the page that opens the pull request`,
          );
      }

      if (writeFiles) {
        if (!managementCluster)
          fail('writeFiles needs managementCluster (named in the files)');
        let proposal;
        try {
          proposal = clusterProposal({
            params: input,
            managementCluster: managementCluster!,
            path,
            includeCatalogEntity,
            requester: ctx.user?.ref,
            clusterPageUrl: clusterPageUrl(options.config, {
              managementCluster: managementCluster!,
              namespace: input.namespace,
              name: input.name,
            }),
          });
        } catch (e) {
          fail((e as Error).message);
        }
        for (const f of proposal.files) {
          // The path is checked already; resolveSafeChildPath also refuses a symlink out of the workspace.
          const target = resolveSafeChildPath(ctx.workspacePath, f.path);
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, f.content);
        }
        ctx.logger.info(
          `Wrote ${proposal.files.length} files under ${proposal.dir}/ in the workspace (branch ${proposal.branch})`,
        );
        ctx.output('path', proposal.dir);
        ctx.output(
          'files',
          proposal.files.map(f => f.path),
        );
        ctx.output('branchName', proposal.branch);
        ctx.output('title', proposal.title);
        ctx.output('description', proposal.description);
        ctx.output('commitMessage', proposal.commitMessage);
      }

      const objects = generateAksAsoClusterManifests(input);
      ctx.logger.info(
        `Rendered ${objects.length} objects for cluster ${input.namespace}/${input.name}`,
      );
      ctx.output('manifests', manifestsYaml(objects));
      ctx.output('objectCount', objects.length);
      if (forge) ctx.output('forge', forge);
      if (pullRequestAction) ctx.output('pullRequestAction', pullRequestAction);
    },
  });
}
