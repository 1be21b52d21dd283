import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import {
  Alert,
  ButtonLink,
  Flex,
  Link,
  Skeleton,
  Table,
  Text,
  useTable,
} from '@backstage/ui';
import {
  ClusterSummary,
  ManagementClustersResponse,
} from '@capz-backstage/plugin-capz-common';
import { useCallback, useMemo, useState } from 'react';
import { ManagedFromAlert } from '../shared/managedFrom';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { adoptRouteRef, clusterRouteRef, migrateRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';
import { useLiveRefresh } from '../shared/useLiveRefresh';
import { clusterColumns, Row, sortRows } from './columns';
import { FilterBar, HealthButtons } from './FilterBar';
import { countByHealth, useClusterFilters } from './useClusterFilters';

const MC_STATE = {
  connected: 'Connected',
  unreachable: 'Unreachable',
  unknown: 'Checking…',
} as const;

function ManagementClusterAlerts({
  value,
}: {
  value: ManagementClustersResponse;
}) {
  const unreachable = value.items.filter(
    mc => mc.status.state === 'unreachable',
  );
  const syncing = value.items.filter(
    mc => mc.status.state === 'connected' && mc.watch && !mc.watch.synced,
  );
  return (
    <>
      {unreachable.map(mc => (
        <Alert
          key={mc.name}
          status="warning"
          icon
          title={`Management cluster ${mc.title ?? mc.name} is unreachable`}
          description={
            `${
              mc.status.message ? `${mc.status.message}. ` : ''
            }Its clusters are missing below or may be out of ` +
            `date. Check that its API server is up and that the credentials under capz.managementClusters ` +
            `(${mc.authMethod}) are still valid; this page updates by itself once it answers.`
          }
        />
      ))}
      {syncing.map(mc => (
        <Alert
          key={mc.name}
          status="info"
          icon
          title={`Still reading ${mc.title ?? mc.name}`}
          description={`The backend has not listed every kind on this management cluster yet${
            mc.watch?.error ? ` (${mc.watch.error})` : ''
          }; some clusters may be missing for a moment.`}
        />
      ))}
    </>
  );
}

/** Every CAPI cluster across the management clusters, with search, filters and sorting. */
export function ClustersPage() {
  const api = useApi(capzApiRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  const migrateLink = useRouteRef(migrateRouteRef);
  const adoptLink = useRouteRef(adoptRouteRef);

  // A new key per change starts a fresh read: useAsyncRetry's retry() does nothing while a read is in flight, so a
  // change arriving during one would be lost (and the page does not poll).
  const [refreshKey, setRefreshKey] = useState(0);
  const clusters = useAsyncRetry(() => api.listClusters(), [api, refreshKey]);
  const mcs = useAsyncRetry(
    () => api.listManagementClusters(),
    [api, refreshKey],
  );
  const refreshAll = useCallback(() => setRefreshKey(k => k + 1), []);
  // Any change can add, remove or move a cluster in this list: refetch on every message (debounced).
  useLiveRefresh(refreshAll, () => true, 500);

  const all = useMemo(
    (): Row[] =>
      (clusters.value?.items ?? []).map(c => ({
        ...c,
        id: `${c.managementCluster}/${c.namespace}/${c.name}`,
      })),
    [clusters.value],
  );
  const filterState = useClusterFilters(all);
  const { filters, filtered, rows } = filterState;
  const href = (c: ClusterSummary) =>
    clusterLink?.({
      managementCluster: c.managementCluster,
      namespace: c.namespace,
      name: c.name,
    });

  const { tableProps } = useTable<Row>({
    mode: 'complete',
    data: clusters.value ? rows : undefined,
    initialSort: { column: 'health', direction: 'ascending' },
    sortFn: (data, sort) => sortRows(data, String(sort.column), sort.direction),
    paginationOptions: { pageSize: 50 },
  });

  const counts = useMemo(() => countByHealth(all), [all]);
  const columns = clusterColumns({ href, migrateLink });

  const error = clusters.error;
  const noManagementClusters = mcs.value && mcs.value.items.length === 0;

  return (
    // The page title (h1) comes from the plugin header that PageBlueprint renders.
    <Flex direction="column" gap="4" p="4">
      {adoptLink && (
        <Flex justify="end">
          <ButtonLink variant="primary" size="small" href={adoptLink()}>
            Adopt AKS cluster
          </ButtonLink>
        </Flex>
      )}
      {mcs.value && <ManagementClusterAlerts value={mcs.value} />}
      <ManagedFromAlert clusters={all} />
      {error && (
        <ErrorAlert title="Could not load the clusters" error={error} />
      )}
      {mcs.error && !error && (
        <ErrorAlert
          title="Could not load the management clusters"
          error={mcs.error}
        />
      )}
      {noManagementClusters && (
        <Alert
          status="info"
          icon
          title="No management cluster is configured"
          description="Add one under capz.managementClusters in app-config.yaml (kubeconfig, service account token or Entra ID), then restart Backstage."
        />
      )}

      {mcs.value && mcs.value.items.length > 0 && (
        <ul
          aria-label="Management clusters"
          style={{
            display: 'flex',
            flexWrap: 'wrap',
            gap: 16,
            listStyle: 'none',
            padding: 0,
            margin: 0,
          }}
        >
          {mcs.value.items.map(mc => (
            <li key={mc.name}>
              <Text
                variant="body-small"
                color={
                  mc.status.state === 'unreachable' ? 'danger' : 'secondary'
                }
              >
                <strong>{mc.title ?? mc.name}</strong>
                {` ${MC_STATE[mc.status.state]}${
                  mc.status.state === 'connected' && mc.status.version
                    ? ` · ${mc.status.version}`
                    : ''
                }`}
              </Text>
            </li>
          ))}
        </ul>
      )}

      {clusters.value && all.length > 0 && (
        <HealthButtons
          counts={counts}
          filters={filters}
          setFilter={filterState.setFilter}
        />
      )}

      <FilterBar
        all={all}
        managementClusters={mcs.value?.items.map(m => m.name) ?? []}
        state={filterState}
      />

      {clusters.loading && !clusters.value && (
        <div role="status" aria-label="Loading clusters">
          <Skeleton width="100%" height={32} />
        </div>
      )}

      {clusters.value && (
        <>
          <Text
            as="p"
            variant="body-small"
            color="secondary"
            aria-live="polite"
          >
            {filtered
              ? `${rows.length} of ${all.length} clusters`
              : `${all.length} clusters`}
          </Text>
          {/* BUI's Table names its grid "Data table"; the region gives it this page's name. */}
          <section aria-label="Clusters">
            <Table<Row>
              {...tableProps}
              columnConfig={columns}
              rowConfig={{ getHref: r => href(r) }}
              emptyState={
                all.length === 0 ? (
                  <Text as="p">
                    No Cluster API clusters were found on the management
                    clusters. Ask for a new one with the{' '}
                    <Link href="/create">New AKS cluster</Link> template, or
                    adopt an existing AKS cluster.
                  </Text>
                ) : (
                  <Text as="p">
                    No cluster matches these filters. Clear the filters or
                    search for something else.
                  </Text>
                )
              }
            />
          </section>
        </>
      )}
    </Flex>
  );
}
