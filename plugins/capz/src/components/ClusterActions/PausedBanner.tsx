import { Alert } from '@backstage/ui';
import {
  isTreePaused,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';

/** Shown on the cluster page while `Cluster.spec.paused` is set: nothing the user changes reaches Azure. */
export function PausedBanner({ tree }: { tree: TreeNode }) {
  if (!isTreePaused(tree)) return null;
  return (
    <Alert
      status="warning"
      icon
      title="Reconciliation is paused"
      description={`Cluster ${tree.name} has spec.paused set: CAPI and CAPZ do not reconcile it and its ASO objects are set to reconcile-policy skip, so no change reaches Azure, not even a deletion. Resume it from Cluster actions.`}
    />
  );
}
