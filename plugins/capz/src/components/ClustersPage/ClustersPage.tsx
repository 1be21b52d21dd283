import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  Alert,
  Button,
  ButtonLink,
  Flex,
  Skeleton,
  Text,
  type SortDescriptor,
} from '@backstage/ui';
import { useSearchParams } from 'react-router-dom';
import {
  capzClusterAdoptPermission,
  capzClusterMigratePermission,
  ClusterPlace,
  ClusterSortColumn,
  ClusterSummary,
  Health,
  ManagementClustersResponse,
} from '@capz-backstage/plugin-capz-common';
import { useCallback, useMemo, useState } from 'react';
import { ManagedFromAlert } from '../shared/managedFrom';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { CapzApi, capzApiRef, ClustersQuery } from '../../api/CapzApi';
import {
  adoptRouteRef,
  clusterRouteRef,
  createClusterRouteRef,
  fleetRunsRouteRef,
  jobsRouteRef,
  migrateRouteRef,
  NEW_CLUSTER_TEMPLATE,
} from '../../routes';
import { ErrorAlert } from '../shared/errors';
import { useLiveRefresh } from '../shared/useLiveRefresh';
import { MigrateLinkContext, Row, SORTABLE_COLUMNS } from './columns';
import { ClustersTable, PAGE_SIZE } from './ClustersTable';
import { AttentionButtons, FilterBar, HealthButtons } from './FilterBar';
import { useClusterFilters } from './useClusterFilters';
import { attentionOf, useLifecycleSettings } from '../shared/lifecycle';
import { FleetPlanDialog } from './FleetPlanDialog';
import { CatalogQueryDialog } from './CatalogQueryDialog';

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

/** The promise, marked as handled: a read whose render React throws away must not be an unhandled rejection. */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

const NO_NAMES: string[] = [];
const NO_ATTENTION = { now: 0, soon: 0 };
const NO_CLUSTERS: ClusterSummary[] = [];
/** The sort the page opens with: worst health first. */
const DEFAULT_SORT: SortDescriptor = {
  column: 'health',
  direction: 'ascending',
};

/** The sort in the address (`?sort=<column>&dir=descending`); the default when absent or not a column. */
export function sortFromParams(params: URLSearchParams): SortDescriptor {
  const column = params.get('sort');
  if (!column || !SORTABLE_COLUMNS.includes(column)) return DEFAULT_SORT;
  return {
    column,
    direction: params.get('dir') === 'descending' ? 'descending' : 'ascending',
  };
}

/** The address's parameters with `sort` (none for the default sort, so the plain page stays a plain link). */
export function withSort(prev: URLSearchParams, sort: SortDescriptor) {
  const next = new URLSearchParams(prev);
  next.delete('sort');
  next.delete('dir');
  if (
    sort.column !== DEFAULT_SORT.column ||
    sort.direction !== DEFAULT_SORT.direction
  ) {
    next.set('sort', String(sort.column));
    if (sort.direction === 'descending') next.set('dir', 'descending');
  }
  return next;
}

/** Reads every cluster a view keeps, a thousand at a time (GET /clusters' largest page). */
async function everyClusterOf(
  api: CapzApi,
  query: ClustersQuery,
): Promise<ClusterSummary[]> {
  const all: ClusterSummary[] = [];
  for (;;) {
    const r = await api.listClusters({
      ...query,
      offset: all.length,
      limit: 1000,
    });
    all.push(...r.items);
    if (!r.items.length || all.length >= (r.total ?? 0)) return all;
  }
}

/** Every CAPI cluster across the management clusters, with search, filters and sorting. */
export function ClustersPage() {
  const api = useApi(capzApiRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  const createLink = useRouteRef(createClusterRouteRef);
  // The jobs (adopt, migrate) are behind their own permissions: their links are hidden when the policy denies them,
  // and until it has answered (a denied user never sees them flash). "New AKS cluster" stays: the scaffolder's
  // action asks capz.cluster.create for the cluster it creates (a policy may allow it per owner).
  const canAdopt = usePermission({ permission: capzClusterAdoptPermission });
  const canMigrate = usePermission({
    permission: capzClusterMigratePermission,
  });
  const adoptRoute = useRouteRef(adoptRouteRef);
  const jobsRoute = useRouteRef(jobsRouteRef);
  // Fleet runs are listed for everyone: the list holds the runs whose every cluster the user may read.
  const fleetRunsLink = useRouteRef(fleetRunsRouteRef);
  const migrateRoute = useRouteRef(migrateRouteRef);
  const adoptLink = canAdopt.allowed ? adoptRoute : undefined;
  // A migration candidate's badge links the wizard only for whoever may migrate (plain text otherwise).
  const migrateLink = canMigrate.allowed ? migrateRoute : undefined;
  // The jobs page is where adoptions and migrations are run and followed: for whoever may start either.
  const jobsLink =
    canAdopt.allowed || canMigrate.allowed ? jobsRoute : undefined;

  // A new key per change starts a fresh read: useAsyncRetry's retry() does nothing while a read is in flight, so a
  // change arriving during one would be lost (and the page does not poll).
  const [refreshKey, setRefreshKey] = useState(0);
  const filterState = useClusterFilters();
  const { filters, filtered } = filterState;
  // The sort is kept in the address (`sort`, `dir`) like the filters: a sorted view is a link, and Back restores it.
  const [params, setParams] = useSearchParams();
  const sortInAddress = sortFromParams(params);
  const sort = useMemo(
    () => sortInAddress,
    // The same sort keeps the same object: the memoised table does not draw again for a new one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [sortInAddress.column, sortInAddress.direction],
  );
  const onSortChange = useCallback(
    (next: SortDescriptor) =>
      setParams(prev => withSort(prev, next), { replace: true }),
    [setParams],
  );
  // The page of the view: back to the first when the view (filters, sort) changes.
  const viewKey = JSON.stringify([filters, sort.column, sort.direction]);
  const [paging, setPaging] = useState({ viewKey, offset: 0 });
  const offset = paging.viewKey === viewKey ? paging.offset : 0;
  const onOffsetChange = useCallback(
    (next: number) => setPaging({ viewKey, offset: next }),
    [viewKey],
  );
  const query = useMemo(
    (): ClustersQuery => ({
      ...filters,
      sort: sort.column as ClusterSortColumn,
      dir: sort.direction,
    }),
    // viewKey stands for filters and sort.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [viewKey],
  );
  // Both reads start in the render that needs them, not in an effect after the page's first paint.
  const requests = useMemo(
    () => ({
      clusters: handled(
        api.listClusters({
          ...query,
          offset,
          limit: PAGE_SIZE,
          facets: true,
          // The attention filter and counts for the browser's day, the day its rows are judged for.
          today: new Date().toISOString().slice(0, 10),
        }),
      ),
    }),
    [api, query, offset, refreshKey], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const mcsRequest = useMemo(
    () => handled(api.listManagementClusters()),
    [api, refreshKey], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const clusters = useAsyncRetry(() => requests.clusters, [requests]);
  const mcs = useAsyncRetry(() => mcsRequest, [mcsRequest]);
  const refreshAll = useCallback(() => setRefreshKey(k => k + 1), []);
  // Any change can add, remove or move a cluster in this view: read the page again on every message (debounced).
  useLiveRefresh(refreshAll, () => true, 500);

  const lifecycle = useLifecycleSettings();
  // "Plan an upgrade of these": the fleet preview of every cluster the view keeps (FleetPlanDialog).
  const [planning, setPlanning] = useState<ClusterPlace[]>();
  // "Plan from a catalog query": the run's clusters picked by the catalog (CatalogQueryDialog).
  const [querying, setQuerying] = useState(false);
  const [planError, setPlanError] = useState<Error>();
  const [gathering, setGathering] = useState(false);
  const planThese = useCallback(() => {
    setGathering(true);
    setPlanError(undefined);
    everyClusterOf(api, query)
      .then(setPlanning, e => setPlanError(e as Error))
      .finally(() => setGathering(false));
  }, [api, query]);
  const rows = useMemo((): Row[] => {
    // One day for the whole page: every row judged against the same today.
    const today = new Date();
    return (clusters.value?.items ?? []).map(c => ({
      ...c,
      id: `${c.managementCluster}/${c.namespace}/${c.name}`,
      attention: attentionOf(c, lifecycle, today),
    }));
  }, [clusters.value, lifecycle]);
  const facets = clusters.value?.facets;
  const total = clusters.value?.total ?? 0;
  const counts = useMemo(
    () =>
      new Map(Object.entries(facets?.health ?? {}) as Array<[Health, number]>),
    [facets],
  );
  const attentionCounts = facets?.attention ?? NO_ATTENTION;
  const mcNames = useMemo(
    () => mcs.value?.items.map(m => m.name) ?? NO_NAMES,
    [mcs.value],
  );

  const error = clusters.error;
  const noManagementClusters = mcs.value && mcs.value.items.length === 0;
  const everyCluster = facets?.total ?? 0;

  return (
    // The page title (h1) comes from the plugin header that PageBlueprint renders.
    <Flex direction="column" gap="4" p="4">
      {(adoptLink || createLink || jobsLink || fleetRunsLink) && (
        <Flex justify="end" gap="2">
          {fleetRunsLink && (
            <ButtonLink variant="tertiary" size="small" href={fleetRunsLink()}>
              Fleet runs
            </ButtonLink>
          )}
          {jobsLink && (
            <ButtonLink variant="tertiary" size="small" href={jobsLink()}>
              Jobs
            </ButtonLink>
          )}
          {createLink && (
            <ButtonLink
              variant="primary"
              size="small"
              href={createLink(NEW_CLUSTER_TEMPLATE)}
            >
              New AKS cluster
            </ButtonLink>
          )}
          {adoptLink && (
            <ButtonLink
              variant={createLink ? 'secondary' : 'primary'}
              size="small"
              href={adoptLink()}
            >
              Adopt AKS cluster
            </ButtonLink>
          )}
        </Flex>
      )}
      {mcs.value && <ManagementClusterAlerts value={mcs.value} />}
      <ManagedFromAlert clusters={facets?.managedFrom ?? NO_CLUSTERS} />
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

      {clusters.value && everyCluster > 0 && (
        <Flex gap="4" align="center" style={{ flexWrap: 'wrap' }}>
          <HealthButtons
            counts={counts}
            filters={filters}
            setFilter={filterState.setFilter}
          />
          <AttentionButtons
            counts={attentionCounts}
            filters={filters}
            setFilter={filterState.setFilter}
          />
        </Flex>
      )}

      <FilterBar
        options={facets}
        managementClusters={mcNames}
        state={filterState}
      />

      {clusters.loading && !clusters.value && (
        <div role="status" aria-label="Loading clusters">
          <Skeleton width="100%" height={32} />
        </div>
      )}

      {clusters.value && (
        <>
          <Flex align="center" justify="between" gap="2">
            <Text
              as="p"
              variant="body-small"
              color="secondary"
              aria-live="polite"
            >
              {filtered
                ? `${total} of ${everyCluster} clusters`
                : `${everyCluster} clusters`}
            </Text>
            <Flex gap="2">
              {everyCluster > 0 && (
                <Button
                  variant="tertiary"
                  size="small"
                  onPress={() => setQuerying(true)}
                >
                  Plan from a catalog query
                </Button>
              )}
              {total > 0 && (
                <Button
                  variant="tertiary"
                  size="small"
                  isDisabled={gathering}
                  onPress={planThese}
                >
                  Plan an upgrade of these
                </Button>
              )}
            </Flex>
          </Flex>
          {planError && (
            <ErrorAlert
              title="Could not read the clusters to plan"
              error={planError}
            />
          )}
          {querying && (
            <CatalogQueryDialog
              onPlan={places => {
                setQuerying(false);
                setPlanning(places);
              }}
              onClose={() => setQuerying(false)}
            />
          )}
          {planning && (
            <FleetPlanDialog
              clusters={planning}
              onClose={() => setPlanning(undefined)}
            />
          )}
          <MigrateLinkContext.Provider value={migrateLink}>
            <ClustersTable
              rows={rows}
              sort={sort}
              onSortChange={onSortChange}
              offset={offset}
              total={total}
              stale={clusters.loading}
              onOffsetChange={onOffsetChange}
              empty={everyCluster === 0}
              clusterLink={clusterLink}
              createHref={createLink?.(NEW_CLUSTER_TEMPLATE)}
            />
          </MigrateLinkContext.Provider>
        </>
      )}
    </Flex>
  );
}
