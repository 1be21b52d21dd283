import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Button,
  ButtonLink,
  Cell,
  CellText,
  ColumnConfig,
  Flex,
  Link,
  SearchField,
  Select,
  Skeleton,
  Table,
  Text,
  useTable,
} from '@backstage/ui';
import {
  ClusterSummary,
  Health,
  ManagementClustersResponse,
} from '@capz-backstage/plugin-capz-common';
import { useCallback, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { ManagedFromAlert, placeText } from '../shared/managedFrom';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { adoptRouteRef, clusterRouteRef, migrateRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';
import {
  HEALTH_LABEL,
  HEALTH_ORDER,
  HealthIcon,
  HealthLabel,
} from '../shared/health';
import { useLiveRefresh } from '../shared/useLiveRefresh';
import {
  API_LABEL,
  applyFilters,
  ClusterFilters,
  distinct,
  FILTER_KEYS,
  readFilters,
} from './filters';

type Row = ClusterSummary & { id: string };

const ALL = '__all__';
const MC_STATE = {
  connected: 'Connected',
  unreachable: 'Unreachable',
  unknown: 'Checking…',
} as const;
const HEALTH_RANK = new Map(HEALTH_ORDER.map((h, i) => [h, i]));

function sortRows(
  rows: Row[],
  column: string,
  direction: 'ascending' | 'descending',
): Row[] {
  const key = (r: Row): string | number => {
    switch (column) {
      case 'health':
        return HEALTH_RANK.get(r.health ?? 'unknown') ?? 99;
      case 'name':
        return r.name;
      case 'managementCluster':
        return `${r.managementCluster}/${r.namespace}/${r.name}`;
      case 'api':
        return r.api;
      case 'version':
        return r.kubernetesVersion ?? '';
      case 'location':
        return r.location ?? '';
      case 'pools':
        return r.pools?.total ?? 0;
      default:
        return r.reason ?? '';
    }
  };
  const sign = direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const c =
      typeof ka === 'number' && typeof kb === 'number'
        ? ka - kb
        : String(ka).localeCompare(String(kb));
    return c !== 0 ? sign * c : a.id.localeCompare(b.id);
  });
}

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

function FilterSelect(props: {
  label: string;
  value: string | undefined;
  options: Array<{ id: string; label: string }>;
  onChange: (value: string | undefined) => void;
}) {
  return (
    <Select
      label={props.label}
      size="small"
      style={{ minWidth: 160 }}
      value={props.value ?? ALL}
      onChange={key =>
        props.onChange(key === ALL || key === null ? undefined : String(key))
      }
      options={[{ id: ALL, label: 'All' }, ...props.options]}
    />
  );
}

/**
 * The danger badge of a cluster whose AKS cluster other ASO ManagedClusters also manage (issue 16): how many places
 * in all, and the others in text (also on hover).
 */
function ManagedFromBadge({ row }: { row: ClusterSummary }) {
  const others = row.managedFrom ?? [];
  const label = `Managed from ${others.length + 1} places`;
  const list = others.map(placeText).join(', ');
  return (
    <Flex direction="column" gap="1" style={{ minWidth: 0 }}>
      <span
        title={`This AKS cluster is also managed by ManagedCluster ${list}. Two owners both write it, and deleting either deletes it under the other.`}
        style={{
          alignSelf: 'flex-start',
          display: 'inline-block',
          padding: '1px 6px',
          borderRadius: 4,
          // Solid intent colours: white on red (4.8:1, WCAG AA) in both themes.
          border: '1px solid var(--bui-negative-border)',
          background: 'var(--bui-negative-bg)',
          color: 'var(--bui-negative-fg)',
          fontSize: 'var(--bui-font-size-2)',
          fontWeight: 600,
          lineHeight: 1.4,
        }}
      >
        {label}
      </span>
      <Text
        variant="body-small"
        color="secondary"
        style={{ overflowWrap: 'anywhere' }}
      >{`Also: ${list}`}</Text>
    </Flex>
  );
}

/** Every CAPI cluster across the management clusters, with search, filters and sorting. */
export function ClustersPage() {
  const api = useApi(capzApiRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  const migrateLink = useRouteRef(migrateRouteRef);
  const adoptLink = useRouteRef(adoptRouteRef);
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);

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

  const setFilter = useCallback(
    (key: keyof ClusterFilters, value: string | undefined) => {
      setParams(
        prev => {
          const next = new URLSearchParams(prev);
          if (value) next.set(key, value);
          else next.delete(key);
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  const clearFilters = () =>
    setParams(
      prev => {
        const next = new URLSearchParams(prev);
        FILTER_KEYS.forEach(k => next.delete(k));
        return next;
      },
      { replace: true },
    );

  const all = useMemo(
    () =>
      (clusters.value?.items ?? []).map(c => ({
        ...c,
        id: `${c.managementCluster}/${c.namespace}/${c.name}`,
      })),
    [clusters.value],
  );
  const rows = useMemo(
    () => applyFilters(all, filters) as Row[],
    [all, filters],
  );
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

  const counts = useMemo(() => {
    const m = new Map<Health, number>();
    for (const c of all)
      m.set(c.health ?? 'unknown', (m.get(c.health ?? 'unknown') ?? 0) + 1);
    return m;
  }, [all]);

  const columns: ColumnConfig<Row>[] = [
    {
      id: 'health',
      label: 'Health',
      isSortable: true,
      width: 130,
      cell: r => (
        <Cell>
          <HealthLabel health={r.health} />
        </Cell>
      ),
    },
    {
      id: 'name',
      label: 'Cluster',
      isSortable: true,
      isRowHeader: true,
      cell: r =>
        r.managedFrom?.length ? (
          <Cell>
            <Flex direction="column" gap="1">
              {href(r) ? (
                <Link variant="body-medium" href={href(r)!}>
                  {r.name}
                </Link>
              ) : (
                <Text variant="body-medium">{r.name}</Text>
              )}
              <Text variant="body-small" color="secondary">
                {r.namespace}
              </Text>
              <ManagedFromBadge row={r} />
            </Flex>
          </Cell>
        ) : (
          <CellText title={r.name} description={r.namespace} href={href(r)} />
        ),
    },
    {
      id: 'managementCluster',
      label: 'Management cluster',
      isSortable: true,
      cell: r => <CellText title={r.managementCluster} />,
    },
    {
      id: 'reason',
      label: 'Reason',
      isSortable: true,
      cell: r => <CellText title={r.reason ?? '—'} description={r.message} />,
    },
    {
      id: 'api',
      label: 'API',
      isSortable: true,
      cell: r =>
        r.migrationCandidate && migrateLink ? (
          // The badge opens the migration wizard (the row itself opens the cluster page).
          <Cell>
            <Flex direction="column" gap="1">
              <Text variant="body-medium">{API_LABEL[r.api] ?? r.api}</Text>
              <Link
                variant="body-medium"
                href={migrateLink({
                  managementCluster: r.managementCluster,
                  namespace: r.namespace,
                  name: r.name,
                })}
                aria-label={`Migration candidate: migrate ${r.name} to the ASO API`}
              >
                Migration candidate
              </Link>
            </Flex>
          </Cell>
        ) : (
          <CellText title={API_LABEL[r.api] ?? r.api} color="secondary" />
        ),
    },
    {
      id: 'version',
      label: 'Kubernetes',
      isSortable: true,
      cell: r => <CellText title={r.kubernetesVersion ?? '—'} />,
    },
    {
      id: 'location',
      label: 'Location',
      isSortable: true,
      cell: r => <CellText title={r.location ?? '—'} />,
    },
    {
      id: 'pools',
      label: 'Pools',
      isSortable: true,
      cell: r => (
        <CellText
          title={r.pools ? `${r.pools.ready}/${r.pools.total} ready` : '—'}
          description={r.pools ? `${r.pools.replicas} nodes` : undefined}
        />
      ),
    },
  ];

  const error = clusters.error;
  const noManagementClusters = mcs.value && mcs.value.items.length === 0;
  const filtered = FILTER_KEYS.some(k => filters[k]);

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
        <Flex
          gap="2"
          align="center"
          role="group"
          aria-label="Health at a glance"
        >
          {HEALTH_ORDER.filter(h => counts.get(h)).map(h => (
            <Button
              key={h}
              size="small"
              variant={filters.health === h ? 'primary' : 'secondary'}
              aria-pressed={filters.health === h}
              iconStart={<HealthIcon health={h} />}
              onPress={() =>
                setFilter('health', filters.health === h ? undefined : h)
              }
            >
              {`${counts.get(h)} ${HEALTH_LABEL[h].toLowerCase()}`}
            </Button>
          ))}
        </Flex>
      )}

      <Flex gap="3" align="end" style={{ flexWrap: 'wrap' }}>
        <SearchField
          label="Search"
          size="small"
          placeholder="Name, reason, version…"
          value={filters.q ?? ''}
          onChange={v => setFilter('q', v || undefined)}
        />
        <FilterSelect
          label="Management cluster"
          value={filters.managementCluster}
          options={distinct([
            ...all.map(c => c.managementCluster),
            ...(mcs.value?.items.map(m => m.name) ?? []),
          ]).map(v => ({ id: v, label: v }))}
          onChange={v => setFilter('managementCluster', v)}
        />
        <FilterSelect
          label="Namespace"
          value={filters.namespace}
          options={distinct(all.map(c => c.namespace)).map(v => ({
            id: v,
            label: v,
          }))}
          onChange={v => setFilter('namespace', v)}
        />
        <FilterSelect
          label="Health"
          value={filters.health}
          options={HEALTH_ORDER.map(h => ({ id: h, label: HEALTH_LABEL[h] }))}
          onChange={v => setFilter('health', v)}
        />
        <FilterSelect
          label="API"
          value={filters.api}
          options={Object.entries(API_LABEL).map(([id, label]) => ({
            id,
            label,
          }))}
          onChange={v => setFilter('api', v)}
        />
        <FilterSelect
          label="Migration candidate"
          value={filters.migration}
          options={[
            { id: 'yes', label: 'Yes' },
            { id: 'no', label: 'No' },
          ]}
          onChange={v => setFilter('migration', v)}
        />
        <FilterSelect
          label="Location"
          value={filters.location}
          options={distinct(all.map(c => c.location)).map(v => ({
            id: v,
            label: v,
          }))}
          onChange={v => setFilter('location', v)}
        />
        {filtered && (
          <Button size="small" variant="tertiary" onPress={clearFilters}>
            Clear filters
          </Button>
        )}
      </Flex>

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
