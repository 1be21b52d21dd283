/** The clusters table's columns, its rows and their order. */
import {
  CLUSTER_SORT_COLUMNS,
  ClusterApi,
  ClusterSortColumn,
  ClusterSummary,
  describePools,
  sortClusters,
  hintFor,
  splitReason,
} from '@capz-backstage/plugin-capz-common';
import { createContext, useContext, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
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
 * The name cell of a cluster whose AKS cluster other ASO ManagedClusters also manage, in two lines like every other
 * row: the name and its namespace, then a danger badge with how many places in all and the other places in text
 * (ellipsised when long; the badge's title and the alert above the table give them in full).
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
    <div className="capz-cells">
      <div className="capz-cells-side">
        {href ? (
          <RouterLink className="capz-line capz-link" to={href}>
            {row.name}
          </RouterLink>
        ) : (
          <span className="capz-line">{row.name}</span>
        )}
        <span className="capz-line capz-small capz-secondary">
          {row.namespace}
        </span>
      </div>
      <div className="capz-cells-side">
        <span
          className="capz-badge-danger"
          title={`This AKS cluster is also managed by ManagedCluster ${list}. Two owners both write it, and deleting either deletes it under the other.`}
        >
          {label}
        </span>
        <span
          className="capz-line capz-small capz-secondary"
          title={`Also: ${list}`}
          style={{ flex: '1 0 3em', minWidth: '3em' }}
        >{`Also: ${list}`}</span>
      </div>
    </div>
  );
}

/**
 * A cell's two lines: its title (a link when `href` is given) and a secondary description, each cut with an ellipsis
 * and whole in its tooltip. Plain elements styled by the table's sheet (ClustersTable.tsx): a page of 50 rows draws
 * 400 of these.
 */
export function TwoLines({
  title,
  description,
  href,
  secondary,
}: {
  title: string;
  description?: string;
  href?: string;
  /** The title in the secondary colour too. */
  secondary?: boolean;
}) {
  return (
    <div className="capz-cells">
      {href ? (
        <RouterLink className="capz-line capz-link" to={href} title={title}>
          {title}
        </RouterLink>
      ) : (
        <span
          className={secondary ? 'capz-line capz-secondary' : 'capz-line'}
          title={title}
        >
          {title}
        </span>
      )}
      {description && (
        <span className="capz-line capz-secondary" title={description}>
          {description}
        </span>
      )}
    </div>
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
    return <TwoLines title={label} secondary />;
  return (
    // The link opens the migration wizard (the row itself opens the cluster page).
    <div className="capz-cells">
      <span className="capz-line" title={label}>
        {label}
      </span>
      <RouterLink
        className="capz-line capz-link"
        to={migrateLink({
          managementCluster: r.managementCluster,
          namespace: r.namespace,
          name: r.name,
        })}
        aria-label={`Migration candidate: migrate ${r.name} to the ASO API`}
      >
        Migration candidate
      </RouterLink>
    </div>
  );
}

/** A column of the clusters table: every one sorts (by its `id`, GET /clusters' `sort`). */
export interface ClusterColumn {
  id: ClusterSortColumn;
  label: string;
  /** Its `<col>` width; the columns without one share what is left. */
  width?: string;
  /** The column that names its row (a row header). */
  rowHeader?: boolean;
  /** The cell's content; `href` is the cluster's page. */
  cell: (r: Row, href: string | undefined) => ReactNode;
}

/**
 * The clusters table's columns. A migration candidate's API cell links the migration wizard when
 * {@link MigrateLinkContext} gives its link.
 */
export const CLUSTER_COLUMNS: readonly ClusterColumn[] = [
  {
    id: 'health',
    label: 'Health',
    width: '130px',
    cell: r => <HealthLabel health={r.health} />,
  },
  {
    id: 'name',
    label: 'Cluster',
    rowHeader: true,
    // Wider than the others: a name, its namespace and (managed from elsewhere) the badge fit its two lines.
    width: '15%',
    cell: (r, href) =>
      r.managedFrom?.length ? (
        <ManagedFromCell row={r} href={href} />
      ) : (
        <TwoLines title={r.name} description={r.namespace} href={href} />
      ),
  },
  {
    id: 'managementCluster',
    label: 'Management cluster',
    cell: r => <TwoLines title={r.managementCluster} />,
  },
  {
    id: 'reason',
    label: 'Reason',
    // The widest column: the why is what a person scans the list for (a narrow column cut it to "Managed…").
    width: '25%',
    // The reason wraps (a cut reason hid the why at 1280 px); its message stays one line, whole in its tooltip.
    cell: r => {
      const { title, description } = reasonText(r);
      return (
        <div className="capz-cells">
          <span className="capz-wrap">{title}</span>
          {description && (
            <span className="capz-line capz-secondary" title={description}>
              {description}
            </span>
          )}
        </div>
      );
    },
  },
  {
    id: 'api',
    label: 'API',
    cell: r => <ApiCell row={r} />,
  },
  {
    id: 'version',
    label: 'Kubernetes',
    cell: r => (
      <TwoLines
        title={r.kubernetesVersion ?? '—'}
        description={versionCellWords(r.attention)}
      />
    ),
  },
  {
    id: 'location',
    label: 'Location',
    cell: r => <TwoLines title={r.location ?? '—'} />,
  },
  {
    id: 'pools',
    label: 'Pools',
    cell: r => (
      <TwoLines
        title={r.pools ? describePools(r.pools, '') : '—'}
        description={r.pools ? `${r.pools.replicas} nodes` : undefined}
      />
    ),
  },
];
