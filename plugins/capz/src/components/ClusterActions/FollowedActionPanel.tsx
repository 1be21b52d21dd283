import { Alert, Button } from '@backstage/ui';
import type {
  ClusterPlace,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { absoluteTime, relativeTime } from '../shared/time';
import { ActionProgress, actionDone } from './ActionProgress';
import {
  actionTitle,
  dismissAction,
  useFollowedAction,
} from './followedActions';
import { useUngroupedTree } from './useUngroupedTree';

/**
 * The last applied action's live progress on the cluster page, after its dialog is closed: which pool or condition
 * is still moving, then "done". It stays until the user dismisses it (a reload keeps it: sessionStorage).
 * `tree` is the page's tree; each live update changes its identity and refetches the ungrouped tree (from the
 * backend's watch cache) the progress reads pools from.
 */
export function FollowedActionPanel({
  cluster,
  tree,
  pausedUntil,
}: {
  cluster: ClusterPlace;
  tree: TreeNode;
  /**
   * The management cluster that does not answer, if any: the tree is as last seen, so the progress is not live; it is
   * paused until that management cluster answers.
   */
  pausedUntil?: string;
}) {
  const followed = useFollowedAction(cluster);
  const full = useUngroupedTree(cluster, followed, tree).value;
  if (!followed) return null;
  const done = full ? actionDone(followed.plan, full) : false;
  const title = actionTitle(followed.plan.action);
  const paused = !done && pausedUntil !== undefined;
  let status: 'success' | 'warning' | 'info' = 'info';
  let state = 'in progress';
  let progressNote = '; progress (live)';
  if (done) {
    status = 'success';
    state = 'done';
    progressNote = '';
  } else if (paused) {
    // The tree is the watch cache's last view: nothing is followed until the management cluster answers.
    status = 'warning';
    state = `progress paused until management cluster ${pausedUntil} answers`;
    progressNote = '; progress as last seen, not live';
  }
  return (
    <Alert
      role="region"
      aria-label={`Last action: ${title}`}
      status={status}
      icon
      isPending={!done && !paused}
      title={`${title}: ${state}`}
      description={
        <ActionProgress
          plan={followed.plan}
          tree={full}
          title={`Applied ${relativeTime(
            new Date(followed.appliedAt).toISOString(),
          )} (${absoluteTime(followed.appliedAt)})${progressNote}`}
        />
      }
      customActions={
        <Button
          size="small"
          variant="tertiary"
          onPress={() => dismissAction(cluster)}
        >
          Dismiss
        </Button>
      }
    />
  );
}
