/**
 * The clusters page's filters: what they are, how they live in the address (so a filtered view is a link), and
 * which clusters they keep. The pure parts are exported for the unit tests; {@link useClusterFilters} binds them to
 * the address.
 */
import {
  CLUSTER_FILTER_KEYS,
  filterClusters,
  worstAttention,
  type ClusterFilters,
  type ClusterSummary,
  type FilterableCluster as CommonFilterableCluster,
  type Health,
} from '@capz-backstage/plugin-capz-common';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { Attention } from '../shared/lifecycle';

/** A cluster as the filters read it: its summary, and what needs attention today when the page computed it. */
export type FilterableCluster = CommonFilterableCluster & {
  attention?: Attention;
};

// The filters and their matching are capz-common's (clusters/query.ts), shared with GET /clusters' paging.
export type { ClusterFilters };
export const FILTER_KEYS = CLUSTER_FILTER_KEYS;

export function readFilters(params: URLSearchParams): ClusterFilters {
  const f: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f as ClusterFilters;
}

/** The address with one filter set (or removed, for no value); the other parameters are kept. */
export function withFilter(
  params: URLSearchParams,
  key: keyof ClusterFilters,
  value: string | undefined,
): URLSearchParams {
  const next = new URLSearchParams(params);
  if (value) next.set(key, value);
  else next.delete(key);
  return next;
}

/** The address with every filter removed; the other parameters are kept. */
export function withoutFilters(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  FILTER_KEYS.forEach(k => next.delete(k));
  return next;
}

/** Whether any filter is set. */
export const isFiltered = (f: ClusterFilters): boolean =>
  FILTER_KEYS.some(k => f[k]);

export function applyFilters<T extends FilterableCluster>(
  items: T[],
  f: ClusterFilters,
): T[] {
  return filterClusters(items, f);
}

/** How many clusters need attention now, and how many only soon. */
export function countAttention(items: FilterableCluster[]): {
  now: number;
  soon: number;
} {
  const n = { now: 0, soon: 0 };
  for (const c of items) {
    const worst = worstAttention(c.attention?.items ?? []);
    if (worst) n[worst]++;
  }
  return n;
}

/** How many clusters there are of each health (none counted as `unknown`), for the at-a-glance buttons. */
export function countByHealth(items: ClusterSummary[]): Map<Health, number> {
  const m = new Map<Health, number>();
  for (const c of items)
    m.set(c.health ?? 'unknown', (m.get(c.health ?? 'unknown') ?? 0) + 1);
  return m;
}

export const distinct = (values: Array<string | undefined>): string[] =>
  [...new Set(values.filter((v): v is string => Boolean(v)))].sort((a, b) =>
    a.localeCompare(b),
  );

/** What {@link useClusterFilters} gives the page. */
export interface ClusterFiltersState {
  /** The filters the address holds (the same object while the address's query is the same). */
  filters: ClusterFilters;
  /** Whether any filter is set. */
  filtered: boolean;
  /** Sets one filter in the address (replacing the history entry); no value removes it. */
  setFilter: (key: keyof ClusterFilters, value: string | undefined) => void;
  /** Removes every filter from the address. */
  clearFilters: () => void;
}

/** The filters of the address: the server keeps the clusters they match (GET /clusters' view). */
export function useClusterFilters(): ClusterFiltersState {
  const [params, setParams] = useSearchParams();
  const query = new URLSearchParams(
    FILTER_KEYS.flatMap(k => {
      const v = params.get(k);
      return v ? [[k, v]] : [];
    }),
  ).toString();
  const filters = useMemo(
    () => readFilters(new URLSearchParams(query)),
    [query],
  );

  const setFilter = useCallback(
    (key: keyof ClusterFilters, value: string | undefined) => {
      setParams(prev => withFilter(prev, key, value), { replace: true });
    },
    [setParams],
  );
  const clearFilters = useCallback(
    () => setParams(prev => withoutFilters(prev), { replace: true }),
    [setParams],
  );

  return useMemo(
    () => ({
      filters,
      filtered: isFiltered(filters),
      setFilter,
      clearFilters,
    }),
    [filters, setFilter, clearFilters],
  );
}
