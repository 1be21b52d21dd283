import { useApi } from '@backstage/frontend-plugin-api';
import { Alert } from '@backstage/ui';
import type { ManagementClustersResponse } from '@capz-backstage/plugin-capz-common';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';

/** One management cluster as GET /management-clusters shows it, with its connection state. */
export type ManagementClusterItem = ManagementClustersResponse['items'][number];

/**
 * The connection state of one management cluster, read again whenever `refreshKey` changes (the page's live updates
 * and its Refresh button): never polled. A failed read shows nothing: the page's own read says what went wrong.
 */
export function useManagementClusterState(
  name: string,
  refreshKey: number,
): { value?: ManagementClusterItem; retry: () => void } {
  const api = useApi(capzApiRef);
  const { value, retry } = useAsyncRetry(
    async () => (await api.listManagementClusters()).items,
    [api, refreshKey],
  );
  return { value: value?.find(mc => mc.name === name), retry };
}

/** The name a person knows a management cluster by. */
export const managementClusterLabel = (mc: ManagementClusterItem) =>
  mc.title ?? mc.name;

/**
 * Says that a cluster's management cluster does not answer: the page shows the cluster as last seen (the backend's
 * watch cache) and a day-2 action answers that nothing was written until it answers again.
 */
export function ManagementClusterUnreachableAlert({
  mc,
}: {
  mc: ManagementClusterItem;
}) {
  const label = managementClusterLabel(mc);
  return (
    <Alert
      role="alert"
      aria-label={`Management cluster ${label} is unreachable`}
      status="warning"
      icon
      title={`Management cluster ${label} is unreachable${
        mc.status.message ? ` (${mc.status.message})` : ''
      }.`}
      description="This page shows the cluster as last seen; actions answer that nothing was written until it answers again. The page updates by itself once it answers."
    />
  );
}
