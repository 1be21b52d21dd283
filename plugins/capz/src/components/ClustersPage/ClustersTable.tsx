/**
 * The clusters table: one page of the server's view as a plain HTML table. Not BUI's `Table`: its react-aria
 * collection, layout and virtualizer took two thirds of the clusters page's render for 50 rows (README, "In the
 * browser"), while a native table needs no script to lay out, and is a table to assistive technology as it is.
 */
import type { RouteFunc } from '@backstage/frontend-plugin-api';
import {
  Link,
  TablePagination,
  Text,
  type SortDescriptor,
} from '@backstage/ui';
import { RiArrowUpLine } from '@remixicon/react';
import { memo, useCallback, useMemo, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { CLUSTER_COLUMNS, Row } from './columns';

/** Clusters a page of the table. */
export const PAGE_SIZE = 50;

// BUI's table look (its tokens), states through CSS: hovering a row re-renders nothing.
const CSS = `
.capz-clusters { width: 100%; border-collapse: collapse; table-layout: fixed; transition: opacity 0.2s ease-in-out;
  font-family: var(--bui-font-regular); color: var(--bui-fg-primary); }
.capz-clusters[data-stale='true'] { opacity: 0.6; }
.capz-clusters thead tr, .capz-clusters tbody tr { border-bottom: 1px solid var(--bui-border-2); }
.capz-clusters th, .capz-clusters td { text-align: left; vertical-align: middle; font-size: var(--bui-font-size-3);
  line-height: 1.15; min-width: 0; overflow: hidden; }
.capz-clusters td, .capz-clusters tbody th { padding: var(--bui-space-3); font-weight: var(--bui-font-weight-regular); }
.capz-clusters thead th { padding: 0; font-weight: var(--bui-font-weight-bold); }
.capz-clusters tbody tr[data-href] { cursor: pointer; }
.capz-clusters tbody tr:hover { background-color: var(--bui-bg-neutral-1); }
.capz-sort { display: flex; align-items: center; gap: var(--bui-space-1); width: 100%; padding: var(--bui-space-3);
  border: 0; background: none; font: inherit; color: inherit; text-align: left; cursor: pointer; }
.capz-sort:focus-visible { outline: 2px solid var(--bui-ring); outline-offset: -2px; }
.capz-sort > span { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.capz-sort > svg { flex: none; color: var(--bui-fg-secondary); opacity: 0; transition: opacity 0.1s ease-in-out; }
.capz-sort:hover > svg, th[aria-sort] .capz-sort > svg { opacity: 1; }
th[aria-sort='descending'] .capz-sort > svg { transform: rotate(180deg); }
.capz-cells { display: flex; flex-direction: column; gap: var(--bui-space-1); min-width: 0; }
.capz-cells-side { display: flex; gap: var(--bui-space-2); align-items: baseline; min-width: 0; }
.capz-line { display: block; min-width: 0; margin: 0; font-size: var(--bui-font-size-3); line-height: 140%;
  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.capz-wrap { display: block; font-size: var(--bui-font-size-3); line-height: 140%; }
.capz-small { font-size: var(--bui-font-size-2); }
.capz-secondary { color: var(--bui-fg-secondary); }
.capz-link { color: var(--bui-fg-primary); text-decoration-line: underline; text-decoration-style: solid;
  text-decoration-thickness: min(2px, max(1px, 0.05em)); text-underline-offset: calc(0.025em + 2px);
  text-decoration-color: color-mix(in srgb, currentColor 30%, transparent); }
.capz-link:focus-visible { outline: 2px solid var(--bui-ring); outline-offset: 2px; }
.capz-badge-danger { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding: 0 6px;
  border-radius: 4px; border: 1px solid var(--bui-negative-border); background: var(--bui-negative-bg);
  color: var(--bui-negative-fg); font-size: var(--bui-font-size-2); font-weight: 600; line-height: 1.3; }
`;

type ClusterLink = RouteFunc<{
  managementCluster: string;
  namespace: string;
  name: string;
}>;

/** The sort a click on a column's header asks for: the same column turns around, another starts ascending. */
export function nextSort(
  current: SortDescriptor,
  column: string,
): SortDescriptor {
  if (current.column !== column) return { column, direction: 'ascending' };
  return {
    column,
    direction: current.direction === 'ascending' ? 'descending' : 'ascending',
  };
}

/**
 * A click anywhere on a row opens its cluster's page, as the name's link does (the keyboard's way); a click on a
 * link or button of the row, or one that ends a text selection, is left to them.
 */
function useRowClick() {
  const navigate = useNavigate();
  return useCallback(
    (e: MouseEvent<HTMLTableSectionElement>) => {
      const target = e.target as Element;
      if (target.closest('a, button')) return;
      const href = target.closest('tr')?.getAttribute('data-href');
      if (!href || window.getSelection()?.toString()) return;
      if (e.ctrlKey || e.metaKey) window.open(href, '_blank', 'noopener');
      else navigate(href);
    },
    [navigate],
  );
}

/** One cluster's row. Memoised: a new page object with the same rows draws none of them again. */
const ClusterRow = memo(function ClusterRowView({
  row,
  href,
}: {
  row: Row;
  href?: string;
}) {
  return (
    <tr data-href={href}>
      {CLUSTER_COLUMNS.map(c =>
        c.rowHeader ? (
          <th key={c.id} scope="row">
            {c.cell(row, href)}
          </th>
        ) : (
          <td key={c.id}>{c.cell(row, href)}</td>
        ),
      )}
    </tr>
  );
});

/**
 * The table of one page of the view: every column sorts (the sort lives in the address, ClustersPage), the pages are
 * turned under it. Memoised: its rows render again only when the page, the sort or the rows change.
 */
export const ClustersTable = memo(function ClustersTableView(props: {
  rows: Row[];
  sort: SortDescriptor;
  onSortChange: (sort: SortDescriptor) => void;
  /** Where the page starts in the view, and how many clusters the view keeps. */
  offset: number;
  total: number;
  /** True while a newer page is being read (the rows shown are the last answer). */
  stale: boolean;
  onOffsetChange: (offset: number) => void;
  /** No cluster at all (rather than none that matches the filters). */
  empty: boolean;
  clusterLink?: ClusterLink;
  /** The "New AKS cluster" template, when the scaffolder is there. */
  createHref?: string;
}) {
  const { rows, sort, onSortChange, offset, total, stale } = props;
  const { onOffsetChange, empty, clusterLink, createHref } = props;
  const onRowClick = useRowClick();
  const hrefs = useMemo(
    () =>
      rows.map(c =>
        clusterLink?.({
          managementCluster: c.managementCluster,
          namespace: c.namespace,
          name: c.name,
        }),
      ),
    [rows, clusterLink],
  );
  return (
    <section aria-label="Clusters">
      <style>{CSS}</style>
      <table className="capz-clusters" data-stale={stale}>
        <colgroup>
          {CLUSTER_COLUMNS.map(c => (
            <col key={c.id} style={c.width ? { width: c.width } : undefined} />
          ))}
        </colgroup>
        <thead>
          <tr>
            {CLUSTER_COLUMNS.map(c => {
              const sorted = sort.column === c.id;
              return (
                <th
                  key={c.id}
                  scope="col"
                  aria-sort={sorted ? sort.direction : undefined}
                >
                  <button
                    type="button"
                    className="capz-sort"
                    onClick={() => onSortChange(nextSort(sort, c.id))}
                  >
                    <span title={c.label}>{c.label}</span>
                    <RiArrowUpLine size={16} aria-hidden />
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        {/* Mouse only: the row's name is its link for the keyboard (ClusterRow). */}
        {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions */}
        <tbody onClick={onRowClick}>
          {rows.length ? (
            rows.map((r, i) => (
              <ClusterRow key={r.id} row={r} href={hrefs[i]} />
            ))
          ) : (
            <tr>
              <td colSpan={CLUSTER_COLUMNS.length}>
                {empty ? (
                  <Text as="p">
                    No Cluster API clusters were found on the management
                    clusters. Ask for a new one with the{' '}
                    <Link href={createHref ?? '/create'}>New AKS cluster</Link>{' '}
                    template, or adopt an existing AKS cluster.
                  </Text>
                ) : (
                  <Text as="p">
                    No cluster matches these filters. Clear the filters or
                    search for something else.
                  </Text>
                )}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <TablePagination
        pageSize={PAGE_SIZE}
        pageSizeOptions={[]}
        showPageSizeOptions={false}
        offset={offset}
        totalCount={total}
        hasNextPage={offset + PAGE_SIZE < total}
        hasPreviousPage={offset > 0}
        onNextPage={() => onOffsetChange(offset + PAGE_SIZE)}
        onPreviousPage={() => onOffsetChange(Math.max(0, offset - PAGE_SIZE))}
      />
    </section>
  );
});
