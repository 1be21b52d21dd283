/**
 * GET /clusters as the backend answers it, for msw: the whole list without a view's parameters, else one page of the
 * view with its total and (`facets=true`) its facets, from capz-common's pageOfClusters and clusterFacets, the rules
 * the backend's kept orders are tested against (plugins/capz-backend/src/views/clusterViews.test.ts).
 */
import {
  CLUSTER_FILTER_KEYS,
  CLUSTER_VIEW_KEYS,
  clusterAttention,
  clusterFacets,
  pageOfClusters,
  type ClusterPageQuery,
  type ClusterSummary,
  type ClustersResponse,
} from '@capz-backstage/plugin-capz-common';

/** The answer to one GET /clusters of `url` over `items` (attention judged today with the shipped calendar). */
export function clustersAnswer(
  items: readonly ClusterSummary[],
  url: string,
): ClustersResponse {
  const params = new URL(url).searchParams;
  if (!CLUSTER_VIEW_KEYS.some(k => params.has(k))) return { items: [...items] };
  const query: Record<string, string | number> = {};
  for (const k of [...CLUSTER_FILTER_KEYS, 'sort', 'dir']) {
    const v = params.get(k);
    if (v) query[k] = v;
  }
  for (const k of ['offset', 'limit']) {
    const v = params.get(k);
    if (v) query[k] = Number(v);
  }
  const today = params.get('today') ?? new Date();
  const judged = items.map(c => ({
    ...c,
    attention: clusterAttention(c, { today }),
  }));
  const page = pageOfClusters(judged, query as ClusterPageQuery);
  const strip = (c: ClusterSummary & { attention?: unknown }) => {
    const { attention: _judged, ...summary } = c;
    return summary as ClusterSummary;
  };
  const facets = clusterFacets(judged);
  return {
    items: page.items.map(strip),
    total: page.total,
    offset: page.offset,
    ...(params.get('facets') === 'true'
      ? { facets: { ...facets, managedFrom: facets.managedFrom.map(strip) } }
      : {}),
  };
}
