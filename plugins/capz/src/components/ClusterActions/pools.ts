/** The pools of a cluster's ungrouped tree: capz-common's, under the names the dialogs use. */
export {
  isTreePaused as isPaused,
  sameKubernetesVersion as sameVersion,
  treePools as poolsOf,
  type TreePool as PoolView,
} from '@capz-backstage/plugin-capz-common';
