import { useApi } from '@backstage/frontend-plugin-api';
import type {
  ClusterPlace,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef } from '../../api/CapzApi';

/**
 * The cluster's ungrouped tree (every pool on its own; the page's tree may merge pools into a group), read only while
 * `active` is set, and again on each live update: `pageTree` changes identity then. Served from the backend's watch
 * cache.
 */
export function useUngroupedTree(
  cluster: ClusterPlace,
  active: unknown,
  pageTree: TreeNode,
) {
  const api = useApi(capzApiRef);
  return useAsync(
    async () =>
      active
        ? (await api.getClusterTree(cluster, { group: 0 })).tree
        : undefined,
    [api, active, pageTree],
  );
}
