/**
 * The stock @backstage/plugin-kubernetes-backend custom-resource query for the compared cluster, on a minimal backend
 * of its own, with our tree of the same cluster timed around it; and that backend's RSS.
 */
import { K } from '@internal/capz-sim';
import {
  fetchJson,
  resolvePid,
  stopBackend,
  type RunningBackend,
} from '../backends.ts';
import { median, mib, ms } from '../format.ts';
import type { Figures } from '../goals.ts';
import { auditCount, heapSnapshot, timeRequests } from '../probes.ts';
import { KUBERNETES_ID, type SeededCluster } from '../seed.ts';
import { auditSize, rssKib } from '../util.ts';
import type { MeasureContext } from './context.ts';
import { startStockForMeasure } from './stockBackend.ts';

/** With our backend, also the tree the goals compare (timed around the stock queries). */
type StockFigures = Pick<Figures, 'stockQueryMs' | 'stockRssKib'> &
  Partial<Pick<Figures, 'treeTargetMs'>>;

export async function stockQuery(
  { info, localDir, record, heapSnapshot: snapshot }: MeasureContext,
  target: SeededCluster,
  /** Our backend, still up: its tree of the same cluster is timed right before and after the stock queries. */
  capz?: RunningBackend,
): Promise<StockFigures> {
  const figures: StockFigures = { stockQueryMs: NaN, stockRssKib: NaN };
  const { backend: b, inspectPort } = await startStockForMeasure({
    info,
    target,
    localDir,
    name: 'stock',
    withCluster: true,
    snapshot,
  });
  try {
    const customResources = [
      K.Cluster,
      K.MachinePool,
      K.AzureASOManagedCluster,
      K.AzureASOManagedControlPlane,
      K.AzureASOManagedMachinePool,
      K.ResourceGroup,
      K.ManagedCluster,
      K.ManagedClustersAgentPool,
    ].map(k => ({ group: k.group, apiVersion: k.version, plural: k.plural }));
    const body = JSON.stringify({
      entityRef: `component:default/${target.name}`,
      customResources,
    });
    const query = async () => {
      const started = performance.now();
      const res = await fetchJson(b, '/api/kubernetes/resources/custom/query', {
        method: 'POST',
        body,
      });
      const elapsed = performance.now() - started;
      if (res.status !== 200)
        throw new Error(
          `stock custom query: HTTP ${res.status} ${JSON.stringify(
            res.body,
          ).slice(0, 300)}`,
        );
      const objects = (res.body.items ?? []).flatMap(
        (i: { resources: Array<{ resources: unknown[] }> }) =>
          i.resources.flatMap(r => r.resources),
      ).length;
      return { elapsed, objects, bytes: JSON.stringify(res.body).length };
    };
    const treePath = `/api/capz/clusters/bench/${target.namespace}/${target.name}/tree`;
    const first = await query();
    if (capz) await timeRequests(capz, [treePath]);
    const auditStart = auditSize(info.auditLog);
    const runs = [];
    // Our tree just before and just after the stock queries, each run back to back as a page's reads are: the same
    // minutes for both figures. (Alternating one of each timed each tree right after another process's 15 ms of work,
    // and doubled it: 1.93 against 0.77 ms back to back, in the same run.)
    const trees: number[] = [];
    const timeTrees = async () => {
      if (capz)
        trees.push(
          ...(await timeRequests(capz, Array(20).fill(treePath))).times,
        );
    };
    await timeTrees();
    for (let i = 0; i < 20; i++) runs.push(await query());
    await timeTrees();
    await new Promise(r => setTimeout(r, 500));
    const audited = auditCount(
      info,
      auditStart,
      e =>
        e.user?.username === 'capz-admin' &&
        !(e.userAgent ?? '').startsWith('clusterctl'),
    );
    figures.stockQueryMs = median(runs.map(r => r.elapsed));
    if (capz) {
      figures.treeTargetMs = median(trees);
      record(
        `GET …/tree of ${target.namespace}/${target.name}, around the stock query (median)`,
        ms(figures.treeTargetMs),
        '20 sequential requests to our backend (still up, idle) right before the 20 stock queries below and 20 right after them: the tree both goals compare',
      );
    }
    record(
      `Stock kubernetes-backend custom-resource query for ${target.name} (median)`,
      ms(figures.stockQueryMs),
      `@backstage/plugin-kubernetes-backend 0.21.11, POST /api/kubernetes/resources/custom/query for ${
        customResources.length
      } CAPI/CAPZ/ASO kinds, label ${KUBERNETES_ID}=${
        target.name
      } in namespace ${
        target.namespace
      }; 20 runs after one warm-up (first: ${ms(first.elapsed)}); ${
        runs[0].objects
      } objects, ${(runs[0].bytes / 1024).toFixed(1)} KiB; ${
        audited.count / 20
      } API requests per query (flat lists, no tree or health)`,
    );
    const pid = resolvePid(b);
    figures.stockRssKib = pid ? rssKib(pid) : NaN;
    record(
      'Stock kubernetes backend RSS',
      mib(figures.stockRssKib),
      'VmRSS of that minimal backend (catalog, permissions, kubernetes), for scale',
    );
    if (snapshot) await heapSnapshot(record, b, inspectPort, 'stock', localDir);
  } finally {
    await stopBackend(b);
  }
  return figures;
}
