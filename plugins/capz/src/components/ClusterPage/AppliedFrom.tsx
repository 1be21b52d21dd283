import { Text } from '@backstage/ui';
import {
  describeAppliedBy,
  describeGitSource,
  type ClusterSummary,
  type GitSourceWords,
} from '@capz-backstage/plugin-capz-common';

const TONE: Record<
  GitSourceWords['state'],
  'success' | 'warning' | 'danger' | 'secondary'
> = {
  'in-sync': 'success',
  suspended: 'warning',
  'not-in-sync': 'warning',
  'not-ready': 'danger',
  unknown: 'secondary',
};

/**
 * Who applies the cluster from outside, and, when Flux applies it from Git, from which repository, branch, path and
 * revision, and whether Flux is in sync (the summary's `gitSource`, read by the backend from its watch cache):
 * "Applied by Flux's Kustomization flux-system/clusters from https://…/gitops.git, branch main, path ./clusters, at
 * revision 1a2b3c4 — in sync. Change it in Git." Nothing for a cluster nobody applies from outside.
 */
export function AppliedFrom({ summary }: { summary: ClusterSummary }) {
  const git = summary.gitSource;
  const words = git ? describeGitSource(git) : undefined;
  // Who applies it, when that is not the Kustomization of the Git source (Argo CD on the Cluster, Flux on a pool).
  const other =
    summary.appliedBy &&
    summary.appliedBy !==
      (git &&
        describeAppliedBy({
          tool: 'flux-kustomization',
          source: git.kustomization,
          reconciles: true,
        }))
      ? summary.appliedBy
      : undefined;
  return (
    <>
      {words && (
        <Text variant="body-small" color="secondary">
          {`Applied by ${words.from} — `}
          <Text as="span" variant="body-small" color={TONE[words.state]}>
            {words.verdict}
          </Text>
          . Change it in Git.
        </Text>
      )}
      {other && (
        <Text variant="body-small" color="secondary">
          {`Applied by ${other}: change it in Git.`}
        </Text>
      )}
    </>
  );
}
