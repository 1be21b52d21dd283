/**
 * `GET /api/capz/clusters` as the clusters page asks for it: one page of a view filtered, sorted and paged on the
 * server (capz-common's `pageOfClusters`), not the whole list. Three views, each timed over as many sequential
 * requests as the whole list's measure: the first page by name, a page of the biggest namespace by health, and the
 * first page of the clusters needing attention now (judged on the server for its day with the configured calendar).
 */
import type { RunningBackend } from '../backends.ts';
import { fetchJson } from '../backends.ts';
import { median, ms, percentile } from '../format.ts';
import type { Figures } from '../goals.ts';
import { timeRequests } from '../probes.ts';
import { biggestNamespace, type SeededCluster } from '../seed.ts';
import { log } from '../util.ts';
import type { MeasureContext } from './context.ts';

/** The page size the views ask for: the clusters page shows 50 rows. */
export const VIEW_LIMIT = 50;

/** The three views' query strings, the namespace one on `namespace`. */
export function clustersViewPaths(namespace: string) {
  const base = '/api/capz/clusters';
  return {
    page: `${base}?sort=name&limit=${VIEW_LIMIT}`,
    namespacePage: `${base}?namespace=${encodeURIComponent(
      namespace,
    )}&sort=health&limit=${VIEW_LIMIT}`,
    attentionPage: `${base}?attention=now&limit=${VIEW_LIMIT}`,
  };
}

type ViewFigures = Pick<
  Figures,
  | 'clustersPageP50'
  | 'clustersPageP99'
  | 'clustersNamespacePageP50'
  | 'clustersNamespacePageP99'
  | 'clustersAttentionPageP50'
  | 'clustersAttentionPageP99'
  | 'namespaceClusters'
>;

export async function clustersViews(
  { record }: MeasureContext,
  b: RunningBackend,
  clusters: SeededCluster[],
  requests: number,
): Promise<ViewFigures> {
  const ns = biggestNamespace(clusters);
  const paths = clustersViewPaths(ns.namespace);
  const time = async (label: string, path: string, expectTotal?: number) => {
    // One answer read whole first: the view's total and page, checked, and printed beside the figure.
    const first = await fetchJson(b, path);
    if (first.status !== 200)
      throw new Error(
        `GET ${path}: HTTP ${first.status} ${JSON.stringify(first.body).slice(
          0,
          300,
        )}`,
      );
    const total: unknown = first.body?.total;
    const items: unknown[] = first.body?.items ?? [];
    if (typeof total !== 'number' || items.length > VIEW_LIMIT)
      throw new Error(
        `GET ${path}: not a page (total ${String(total)}, ${
          items.length
        } items): the backend answered the whole list`,
      );
    if (expectTotal !== undefined && total !== expectTotal)
      log(
        `WARNING: ${path} counts ${total} clusters, ${expectTotal} were seeded there`,
      );
    const timed = await timeRequests(
      b,
      Array.from({ length: requests }, () => path),
    );
    const p50 = median(timed.times);
    const p99 = percentile(timed.times, 99);
    record(
      `${label} p50 / p99`,
      `${ms(p50)} / ${ms(p99)}`,
      `\`${path.replace(
        '/api/capz',
        '',
      )}\`: ${requests} sequential requests; a page of ${
        items.length
      } of the view's ${total} clusters (of ${clusters.length}), ${(
        timed.bytes / 1024
      ).toFixed(1)} KiB JSON`,
    );
    return { p50, p99 };
  };
  const page = await time(
    'GET /api/capz/clusters, first page by name',
    paths.page,
    clusters.length,
  );
  const nsPage = await time(
    `GET /api/capz/clusters, a page of namespace ${ns.namespace} (${ns.clusters} clusters) by health`,
    paths.namespacePage,
    ns.clusters,
  );
  const attention = await time(
    'GET /api/capz/clusters, first page needing attention now',
    paths.attentionPage,
  );
  return {
    clustersPageP50: page.p50,
    clustersPageP99: page.p99,
    clustersNamespacePageP50: nsPage.p50,
    clustersNamespacePageP99: nsPage.p99,
    clustersAttentionPageP50: attention.p50,
    clustersAttentionPageP99: attention.p99,
    namespaceClusters: ns.clusters,
  };
}
