import {
  capzClusterNodePoolPermission,
  capzClusterPausePermission,
  capzClusterScalePermission,
  capzClusterUpgradePermission,
} from '../permissions';
import type { Day2ActionName } from './api';

/**
 * The permission each action needs (the frontend hides an action its user is denied; the backend answers 403).
 * Deleting needs `capzClusterDeletePermission`; the connect commands `capzClusterReadPermission`, the kubeconfig
 * download `capzClusterConnectPermission`.
 * @public
 */
export const day2ActionPermissions = {
  scale: capzClusterScalePermission,
  autoscale: capzClusterScalePermission,
  upgrade: capzClusterUpgradePermission,
  addPool: capzClusterNodePoolPermission,
  removePool: capzClusterNodePoolPermission,
  pause: capzClusterPausePermission,
  resume: capzClusterPausePermission,
} as const satisfies Record<Day2ActionName, unknown>;
