import { usePermission } from '@backstage/plugin-permission-react';
import {
  Button,
  Menu,
  MenuItem,
  MenuSeparator,
  MenuTrigger,
} from '@backstage/ui';
import {
  capzClusterDeletePermission,
  capzClusterNodePoolPermission,
  capzClusterPausePermission,
  capzClusterReadPermission,
  capzClusterScalePermission,
  capzClusterUpgradePermission,
  type ClusterPlace,
  day2ClusterFromTree,
  isTreePaused,
  treePools,
  type Day2Plan,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { RiArrowDownSLine } from '@remixicon/react';
import { useCallback, useState } from 'react';
import { ActionProgress, actionDone } from './ActionProgress';
import { ConnectDialog } from './ConnectDialog';
import { DeleteDialog } from './DeleteDialog';
import { AddPoolDialog, PauseDialog, RemovePoolDialog } from './PoolDialogs';
import { AutoscaleDialog, ScaleDialog } from './ScaleDialogs';
import { UpgradeDialog } from './UpgradeDialog';
import { useUngroupedTree } from './useUngroupedTree';

type Open =
  | 'scale'
  | 'autoscale'
  | 'upgrade'
  | 'addPool'
  | 'removePool'
  | 'pause'
  | 'resume'
  | 'connect'
  | 'delete';

/** The permission-API resourceRef of a cluster: `managementCluster/namespace/name`, as the backend parses it. */
export const clusterResourceRef = (c: ClusterPlace) =>
  `${c.managementCluster}/${c.namespace}/${c.name}`;

/**
 * The day-2 action menu of a cluster page (and entity tab): each action behind its permission, hidden when denied.
 * `tree` is the page's tree; it changes identity on every live update, which refetches the ungrouped tree the
 * dialogs read pools and progress from (the page's tree may merge pools into a group).
 */
export function ClusterActions({
  cluster,
  tree,
  pausedUntil,
}: {
  cluster: ClusterPlace;
  tree: TreeNode;
  /** The management cluster that does not answer, if any: a dialog's progress is as last seen, not live. */
  pausedUntil?: string;
}) {
  const resourceRef = clusterResourceRef(cluster);
  const can = {
    scale: usePermission({
      permission: capzClusterScalePermission,
      resourceRef,
    }),
    upgrade: usePermission({
      permission: capzClusterUpgradePermission,
      resourceRef,
    }),
    nodePool: usePermission({
      permission: capzClusterNodePoolPermission,
      resourceRef,
    }),
    pause: usePermission({
      permission: capzClusterPausePermission,
      resourceRef,
    }),
    delete: usePermission({
      permission: capzClusterDeletePermission,
      resourceRef,
    }),
    connect: usePermission({
      permission: capzClusterReadPermission,
      resourceRef,
    }),
  };
  const [open, setOpen] = useState<{ what: Open; pool?: string }>();
  // Only while a dialog is open (progress lives in it): the page's own tree stays the only request otherwise.
  const detail = useUngroupedTree(cluster, open?.what, tree);
  const full = detail.value;
  const pools = full ? treePools(full) : undefined;
  const day2 =
    full && pools
      ? day2ClusterFromTree(full, cluster.namespace, pools)
      : undefined;
  const close = useCallback(() => setOpen(undefined), []);
  const progress = useCallback(
    (plan: Day2Plan) => ({
      view: (
        <ActionProgress
          plan={plan}
          tree={full}
          title={
            pausedUntil === undefined
              ? undefined
              : `Progress paused until management cluster ${pausedUntil} answers (as last seen, not live)`
          }
        />
      ),
      done: full ? actionDone(plan, full) : false,
    }),
    [full, pausedUntil],
  );
  const paused = isTreePaused(tree);

  const items: Array<{ id: Open; label: string; allowed: boolean }> = [
    { id: 'scale', label: 'Scale pool', allowed: can.scale.allowed },
    { id: 'autoscale', label: 'Autoscaling', allowed: can.scale.allowed },
    {
      id: 'upgrade',
      label: 'Upgrade Kubernetes',
      allowed: can.upgrade.allowed,
    },
    { id: 'addPool', label: 'Add node pool', allowed: can.nodePool.allowed },
    {
      id: 'removePool',
      label: 'Remove node pool',
      allowed: can.nodePool.allowed,
    },
    paused
      ? { id: 'resume', label: 'Resume', allowed: can.pause.allowed }
      : { id: 'pause', label: 'Pause', allowed: can.pause.allowed },
    { id: 'connect', label: 'Connect', allowed: can.connect.allowed },
  ];
  const shown = items.filter(i => i.allowed);
  if (!shown.length && !can.delete.allowed) return null;

  const needsPools =
    open && ['scale', 'autoscale', 'addPool', 'removePool'].includes(open.what);
  const common = { cluster, onClose: close, progress };
  const withPools = pools && day2 ? { ...common, pools, day2 } : undefined;
  return (
    <>
      <MenuTrigger>
        <Button
          size="small"
          variant="secondary"
          iconEnd={<RiArrowDownSLine size={16} aria-hidden />}
        >
          Cluster actions
        </Button>
        <Menu onAction={key => setOpen({ what: String(key) as Open })}>
          {shown.map(i => (
            <MenuItem key={i.id} id={i.id}>
              {i.label}
            </MenuItem>
          ))}
          {can.delete.allowed && shown.length > 0 && <MenuSeparator />}
          {can.delete.allowed && (
            <MenuItem id="delete" color="danger">
              Delete cluster
            </MenuItem>
          )}
        </Menu>
      </MenuTrigger>
      {needsPools && !pools && detail.loading && (
        <span role="status" aria-label="Loading the node pools" />
      )}
      {open?.what === 'scale' && withPools && (
        <ScaleDialog
          {...withPools}
          initialPool={open.pool}
          onAutoscale={pool => setOpen({ what: 'autoscale', pool })}
        />
      )}
      {open?.what === 'autoscale' && withPools && (
        <AutoscaleDialog {...withPools} initialPool={open.pool} />
      )}
      {open?.what === 'addPool' && withPools && (
        <AddPoolDialog {...withPools} />
      )}
      {open?.what === 'removePool' && withPools && (
        <RemovePoolDialog {...withPools} />
      )}
      {open?.what === 'upgrade' && <UpgradeDialog {...common} day2={day2} />}
      {(open?.what === 'pause' || open?.what === 'resume') && (
        <PauseDialog {...common} resume={open.what === 'resume'} />
      )}
      {open?.what === 'connect' && (
        <ConnectDialog cluster={cluster} onClose={close} />
      )}
      {open?.what === 'delete' && (
        <DeleteDialog cluster={cluster} tree={full ?? tree} onClose={close} />
      )}
    </>
  );
}
