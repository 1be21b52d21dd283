/**
 * RSS of the stock minimal backend with no cluster: the reference for the minimal CAPZ backend's RSS with no
 * management cluster (what each plugin and its loading cost without data).
 */
import { fetchJson, resolvePid, stopBackend } from '../backends.ts';
import { mib } from '../format.ts';
import { heapSnapshot } from '../probes.ts';
import type { SeededCluster } from '../seed.ts';
import { rssKib } from '../util.ts';
import type { MeasureContext } from './context.ts';
import { startStockForMeasure } from './stockBackend.ts';

/** Its RSS in KiB (a row of its own, no goal's figure). */
export async function stockEmptyRss(
  { info, localDir, record, heapSnapshot: snapshot }: MeasureContext,
  target: SeededCluster,
  /** The minimal CAPZ backend's, with no management cluster: the row says how far above this one it is. */
  minimalEmptyRssKib: number,
): Promise<number> {
  const { backend: b, inspectPort } = await startStockForMeasure({
    info,
    target,
    localDir,
    name: 'stock-empty',
    withCluster: false,
    snapshot,
  });
  try {
    await fetchJson(b, '/api/kubernetes/clusters');
    const pid = resolvePid(b);
    const kib = pid ? rssKib(pid) : NaN;
    record(
      'Stock kubernetes backend RSS with no cluster',
      mib(kib),
      `VmRSS of the stock minimal backend below with \`kubernetes.clusterLocatorMethods[0].clusters: []\`, once its catalog served the entity and /api/kubernetes/clusters answered; the minimal CAPZ backend with no management cluster is ${mib(
        minimalEmptyRssKib - kib,
      )} above it`,
    );
    if (snapshot)
      await heapSnapshot(record, b, inspectPort, 'stock-empty', localDir);
    return kib;
  } finally {
    await stopBackend(b);
  }
}
