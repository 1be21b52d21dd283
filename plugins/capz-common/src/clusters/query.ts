/**
 * Which clusters a view keeps and in what order: the clusters page's filters and sort, and a page of the result. Pure,
 * written once for the page (in the browser) and for `GET /clusters` (paged on the server).
 */
import type { ClusterApi, ClusterFacets, ClusterSummary } from '../api';
import type { AttentionItem } from '../lifecycle';
import { HEALTH_ORDER } from '../tree/health/order';
import type { Health } from '../tree/types';

/** A cluster as the filters read it: its summary, and what needs attention today when it was judged. @public */
export type FilterableCluster = ClusterSummary & {
  attention?: { items: AttentionItem[] };
};

/** The clusters page's filters; every one is optional ("all"). @public */
export interface ClusterFilters {
  q?: string;
  managementCluster?: string;
  namespace?: string;
  health?: Health;
  api?: ClusterApi;
  migration?: 'yes' | 'no';
  location?: string;
  /** `now`: something needs attention now; `soon`: only soon; `any`: either. */
  attention?: 'now' | 'soon' | 'any';
}

/** The filters' names, as the page's address and `GET /clusters` spell them. @public */
export const CLUSTER_FILTER_KEYS = [
  'q',
  'managementCluster',
  'namespace',
  'health',
  'api',
  'migration',
  'location',
  'attention',
] as const;

/** Every parameter of a view of `GET /clusters` (any one given asks for a view rather than the whole list). @public */
export const CLUSTER_VIEW_KEYS = [
  ...CLUSTER_FILTER_KEYS,
  'sort',
  'dir',
  'offset',
  'limit',
  'facets',
  'today',
] as const;

/** The columns clusters sort by. @public */
export const CLUSTER_SORT_COLUMNS = [
  'health',
  'name',
  'managementCluster',
  'reason',
  'api',
  'version',
  'location',
  'pools',
] as const;

/** A column clusters sort by. @public */
export type ClusterSortColumn = (typeof CLUSTER_SORT_COLUMNS)[number];

/** The most urgent severity of a cluster's attention items, if any: `now` before `soon`. @public */
export function worstAttention(
  items: ReadonlyArray<Pick<AttentionItem, 'severity'>>,
): 'now' | 'soon' | undefined {
  if (items.some(i => i.severity === 'now')) return 'now';
  if (items.some(i => i.severity === 'soon')) return 'soon';
  return undefined;
}

/** Each summary's searchable text, lower-cased once (a summary is replaced, never changed, when its cluster changes). */
const searchTexts = new WeakMap<ClusterSummary, string>();

/** Whether a cluster matches the search text: any of its names, reason, message, version, location or owner. */
function matchesSearch(c: ClusterSummary, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  let text = searchTexts.get(c);
  if (text === undefined) {
    // NUL between the fields: a search never matches across two of them.
    text = [
      c.name,
      c.namespace,
      c.managementCluster,
      c.reason,
      c.message,
      c.kubernetesVersion,
      c.location,
      c.owner,
    ]
      .map(v => v?.toLowerCase() ?? '')
      .join('\u0000');
    searchTexts.set(c, text);
  }
  return !needle.includes('\u0000') && text.includes(needle);
}

/** Whether a cluster matches every filter set. @public */
export function clusterMatches(
  c: FilterableCluster,
  f: ClusterFilters,
): boolean {
  if (f.q && !matchesSearch(c, f.q)) return false;
  if (f.managementCluster && c.managementCluster !== f.managementCluster)
    return false;
  if (f.namespace && c.namespace !== f.namespace) return false;
  if (f.health && (c.health ?? 'unknown') !== f.health) return false;
  if (f.api && c.api !== f.api) return false;
  if (f.migration && Boolean(c.migrationCandidate) !== (f.migration === 'yes'))
    return false;
  if (f.location && c.location !== f.location) return false;
  if (f.attention && !attentionMatches(c.attention, f.attention)) return false;
  return true;
}

/**
 * Whether a cluster's attention judgement passes the attention filter (clusterMatches' test, for a caller that holds
 * the judgement apart from the summary and would otherwise copy the summary to add it). @public
 */
export function attentionMatches(
  attention: FilterableCluster['attention'],
  filter: NonNullable<ClusterFilters['attention']>,
): boolean {
  const worst = worstAttention(attention?.items ?? []);
  return filter === 'any' ? worst !== undefined : worst === filter;
}

/** The clusters every set filter keeps, in their order. @public */
export function filterClusters<T extends FilterableCluster>(
  items: readonly T[],
  f: ClusterFilters,
): T[] {
  return items.filter(c => clusterMatches(c, f));
}

const HEALTH_RANK = new Map(
  [...HEALTH_ORDER].reverse().map((h, i) => [h, i] as const),
);
/** The page's order of strings; one collator (as `localeCompare` without arguments), far cheaper per comparison. */
const collator = new Intl.Collator();

/** A cluster's place, `managementCluster/namespace/name`: what ties are broken by. @public */
export const clusterId = (c: ClusterSummary) =>
  `${c.managementCluster}/${c.namespace}/${c.name}`;

/** A cluster with its key for one sort column and its id, compared by {@link compareClusterKeys}. @public */
export interface KeyedCluster<T extends ClusterSummary = ClusterSummary> {
  r: T;
  k: string | number;
  id: string;
}

/** The key a column sorts by (health: worst first when ascending; an unknown column sorts by reason). @public */
export function clusterSortKey(
  column: string,
): (r: ClusterSummary) => string | number {
  switch (column) {
    case 'health':
      return r => HEALTH_RANK.get(r.health ?? 'unknown') ?? 99;
    case 'name':
      return r => r.name;
    case 'managementCluster':
      return clusterId;
    case 'api':
      return r => r.api;
    case 'version':
      return r => r.kubernetesVersion ?? '';
    case 'location':
      return r => r.location ?? '';
    case 'pools':
      return r => r.pools?.total ?? 0;
    default:
      return r => r.reason ?? '';
  }
}

/** The comparison of keyed clusters in one direction; ties by id, so the order is total. @public */
export function compareClusterKeys(
  direction: 'ascending' | 'descending',
): (a: KeyedCluster, b: KeyedCluster) => number {
  const sign = direction === 'ascending' ? 1 : -1;
  return (a, b) => {
    const c =
      typeof a.k === 'number' && typeof b.k === 'number'
        ? a.k - b.k
        : collator.compare(String(a.k), String(b.k));
    return c !== 0 ? sign * c : collator.compare(a.id, b.id);
  };
}

/**
 * The clusters sorted by a column (see {@link clusterSortKey}); ties by `managementCluster/namespace/name`, so the
 * order is stable and a page of it is well defined.
 * @public
 */
export function sortClusters<T extends ClusterSummary>(
  rows: readonly T[],
  column: string,
  direction: 'ascending' | 'descending',
): T[] {
  const key = clusterSortKey(column);
  const keyed = rows.map(r => ({ r, k: key(r), id: clusterId(r) }));
  keyed.sort(compareClusterKeys(direction));
  return keyed.map(x => x.r);
}

/** A view of the clusters: the filters, a sort and a page of the result. @public */
export interface ClusterPageQuery extends ClusterFilters {
  sort?: ClusterSortColumn;
  dir?: 'ascending' | 'descending';
  /** The first cluster of the page in the sorted result (default 0). */
  offset?: number;
  /** At most this many (default: every one). */
  limit?: number;
}

/** The sort a view opens with: worst health first. @public */
export const DEFAULT_CLUSTER_SORT = {
  column: 'health' as ClusterSortColumn,
  direction: 'ascending' as const,
};

/** One page of the clusters a query keeps, in its order, and how many it keeps in all. @public */
export function pageOfClusters<T extends FilterableCluster>(
  items: readonly T[],
  q: ClusterPageQuery,
): { items: T[]; total: number; offset: number } {
  const kept = sortClusters(
    filterClusters(items, q),
    q.sort ?? DEFAULT_CLUSTER_SORT.column,
    q.dir ?? DEFAULT_CLUSTER_SORT.direction,
  );
  const offset = Math.max(0, q.offset ?? 0);
  return {
    items:
      q.limit === undefined
        ? kept.slice(offset)
        : kept.slice(offset, offset + q.limit),
    total: kept.length,
    offset,
  };
}

/** Counts and options of {@link ClusterFacets}, added one cluster at a time (a walk of the fleet, once). @public */
export class ClusterFacetsCounter {
  private total = 0;
  private readonly health: Partial<Record<Health, number>> = {};
  private readonly attention = { now: 0, soon: 0 };
  private readonly managementClusters = new Set<string>();
  private readonly namespaces = new Set<string>();
  private readonly locations = new Set<string>();
  private readonly managedFrom: ClusterSummary[] = [];

  /** One cluster; `attention` is its judgement today, when known. */
  add(c: ClusterSummary, attention?: FilterableCluster['attention']): void {
    this.total++;
    const h = c.health ?? 'unknown';
    this.health[h] = (this.health[h] ?? 0) + 1;
    const worst = worstAttention(attention?.items ?? []);
    if (worst) this.attention[worst]++;
    this.managementClusters.add(c.managementCluster);
    this.namespaces.add(c.namespace);
    if (c.location) this.locations.add(c.location);
    if (c.managedFrom?.length) this.managedFrom.push(c);
  }

  facets(): ClusterFacets {
    const sorted = (s: Set<string>) => [...s].sort(collator.compare);
    return {
      total: this.total,
      health: { ...this.health },
      attention: { ...this.attention },
      managementClusters: sorted(this.managementClusters),
      namespaces: sorted(this.namespaces),
      locations: sorted(this.locations),
      managedFrom: [...this.managedFrom],
    };
  }
}

/** The facets of every cluster of a list (judged for attention when it carries its judgement). @public */
export function clusterFacets(
  items: Iterable<FilterableCluster>,
): ClusterFacets {
  const counter = new ClusterFacetsCounter();
  for (const c of items) counter.add(c, c.attention);
  return counter.facets();
}
