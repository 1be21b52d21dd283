/** The clusters table's columns, its rows and their order. */
import { Cell, CellText, ColumnConfig, Flex, Link, Text } from '@backstage/ui';
import {
  CLUSTER_SORT_COLUMNS,
  ClusterApi,
  ClusterSummary,
  describePools,
  sortClusters,
  hintFor,
  splitReason,
} from '@capz-backstage/plugin-capz-common';
import { createContext, useContext } from 'react';
import { placeText } from '../shared/managedFrom';
import { HealthLabel } from '../shared/health';
import { versionCellWords, type Attention } from '../shared/lifecycle';

/**
 * A row of the clusters table: a cluster, its id (`<managementCluster>/<namespace>/<name>`) and what needs attention
 * about its lifecycle today.
 */
export type Row = ClusterSummary & { id: string; attention?: Attention };

export const API_LABEL: Record<ClusterApi, string> = {
  'aso-v1beta1': 'ASO-managed (v1beta1)',
  'aso-v1alpha1': 'ASO-managed (v1alpha1, deprecated)',
  'azure-managed': 'AzureManaged (deprecated)',
};

/** The columns `sortRows` sorts by (the address's `sort` is one of them). */
export const SORTABLE_COLUMNS: readonly string[] = CLUSTER_SORT_COLUMNS;

/** The rows sorted by a column (health: worst first when ascending); ties by id, so the order is stable. */
export function sortRows(
  rows: Row[],
  column: string,
  direction: 'ascending' | 'descending',
): Row[] {
  return sortClusters(rows, column, direction);
}

/**
 * The name cell of a cluster whose AKS cluster other ASO ManagedClusters also manage, in two lines like
 * every other row of the virtualized table (one row height): the name and its namespace, then a danger
 * badge with how many places in all and the other places in text (ellipsised when long; the badge's title and the
 * alert above the table give them in full).
 */
function ManagedFromCell({
  row,
  href,
}: {
  row: ClusterSummary;
  href?: string;
}) {
  const others = row.managedFrom ?? [];
  const label = `Managed from ${others.length + 1} places`;
  const list = others.map(placeText).join(', ');
  return (
    <Cell>
      <Flex direction="column" gap="1" style={{ minWidth: 0 }}>
        <Flex gap="2" align="baseline" style={{ minWidth: 0 }}>
          {href ? (
            <Link variant="body-medium" href={href} truncate>
              {row.name}
            </Link>
          ) : (
            <Text variant="body-medium" truncate>
              {row.name}
            </Text>
          )}
          <Text variant="body-small" color="secondary" truncate>
            {row.namespace}
          </Text>
        </Flex>
        <Flex gap="2" align="center" style={{ minWidth: 0 }}>
          <span
            title={`This AKS cluster is also managed by ManagedCluster ${list}. Two owners both write it, and deleting either deletes it under the other.`}
            style={{
              // Shrinks (ellipsised) before the places beside it go: both stay on the row's one line.
              minWidth: 0,
              overflow: 'hidden',
              textOverflow: 'ellipsis',
              whiteSpace: 'nowrap',
              padding: '0 6px',
              borderRadius: 4,
              // Solid intent colours: white on red (4.8:1, WCAG AA) in both themes.
              border: '1px solid var(--bui-negative-border)',
              background: 'var(--bui-negative-bg)',
              color: 'var(--bui-negative-fg)',
              fontSize: 'var(--bui-font-size-2)',
              fontWeight: 600,
              lineHeight: 1.3,
            }}
          >
            {label}
          </span>
          <Text
            variant="body-small"
            color="secondary"
            truncate
            title={`Also: ${list}`}
            style={{ flex: '1 0 3em', minWidth: '3em' }}
          >{`Also: ${list}`}</Text>
        </Flex>
      </Flex>
    </Cell>
  );
}

/**
 * A row's why in two lines: plain words first (the hint's title, else the bare reason: "Azure is busy with another
 * operation"), then the deciding object and its message ("ManagedCluster search-prod: … provisioningState Updating").
 * Each line's full text is its tooltip.
 */
export function reasonText(r: ClusterSummary): {
  title: string;
  description?: string;
} {
  if (!r.reason) return { title: '—' };
  const { object, reason } = splitReason(r.reason);
  return {
    title: hintFor(r.reason, r.message)?.title ?? reason,
    description: r.message ?? object,
  };
}

/** The cluster a link points at. */
type ClusterParams = {
  managementCluster: string;
  namespace: string;
  name: string;
};

/**
 * The migration wizard's link for whoever may migrate (undefined until the permission answers, and when it denies).
 * A context rather than a column option: the permission answers after the first rows are drawn, and a new column
 * set then redrew the whole table (~300 ms on this machine kind); now only the candidates' cells draw again.
 */
export const MigrateLinkContext = createContext<
  ((params: ClusterParams) => string) | undefined
>(undefined);

/** The API column of a cluster: its API, and for a migration candidate a link to migrate it when the user may. */
function ApiCell({ row: r }: { row: ClusterSummary }) {
  const migrateLink = useContext(MigrateLinkContext);
  const label = API_LABEL[r.api] ?? r.api;
  if (!r.migrationCandidate || !migrateLink)
    return <CellText title={label} color="secondary" />;
  return (
    // The badge opens the migration wizard (the row itself opens the cluster page).
    <Cell>
      <Flex direction="column" gap="1" style={{ minWidth: 0 }}>
        <Text variant="body-medium" truncate title={label}>
          {label}
        </Text>
        <Link
          truncate
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
  );
}

/**
 * The clusters table's columns. `href` is a cluster's page; a migration candidate's API cell links the migration
 * wizard when {@link MigrateLinkContext} gives its link.
 */
export function clusterColumns(opts: {
  href: (c: ClusterSummary) => string | undefined;
}): ColumnConfig<Row>[] {
  const { href } = opts;
  return [
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
      // Wider than the others: a name, its namespace and (managed from elsewhere) the badge fit its two lines.
      width: '1.5fr',
      cell: r =>
        r.managedFrom?.length ? (
          <ManagedFromCell row={r} href={href(r)} />
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
      // The widest column: the why is what a person scans the list for (a 1fr column cut it to "Managed…").
      width: '2.5fr',
      // The reason wraps (a cut reason hid the why at 1280 px); its message stays one line, whole in its tooltip.
      cell: r => {
        const { title, description } = reasonText(r);
        return (
          <Cell>
            <Flex direction="column" gap="1" style={{ minWidth: 0 }}>
              <Text variant="body-medium">{title}</Text>
              {description && (
                <Text
                  variant="body-medium"
                  color="secondary"
                  truncate
                  title={description}
                >
                  {description}
                </Text>
              )}
            </Flex>
          </Cell>
        );
      },
    },
    {
      id: 'api',
      label: 'API',
      isSortable: true,
      cell: r => <ApiCell row={r} />,
    },
    {
      id: 'version',
      label: 'Kubernetes',
      isSortable: true,
      cell: r => (
        <CellText
          title={r.kubernetesVersion ?? '—'}
          description={versionCellWords(r.attention)}
        />
      ),
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
          title={r.pools ? describePools(r.pools, '') : '—'}
          description={r.pools ? `${r.pools.replicas} nodes` : undefined}
        />
      ),
    },
  ];
}
