/** Plain LISTs of every watched kind as raw HTTPS GETs: what the backend's initial sync is compared with. */
import { median, ms } from '../format.ts';
import type { Figures } from '../goals.ts';
import { cpuMs, RawKube } from '../util.ts';
import { listPath, WATCHED, type WatchedKind } from '../watched.ts';
import type { MeasureContext } from './context.ts';

/** One LIST of every watched kind; `limit` pages through with continue tokens. Returns wall time, items, bytes. */
async function listAll(
  kube: RawKube,
  apiServerPid: number | undefined,
  parallel: boolean,
  limit?: number,
): Promise<{
  ms: number;
  items: number;
  bytes: number;
  requests: number;
  apiCpuMs: number;
  clientCpuMs: number;
}> {
  let items = 0;
  let bytes = 0;
  let requests = 0;
  const one = async (k: WatchedKind) => {
    let cont = '';
    do {
      const q = limit
        ? `?limit=${limit}${
            cont ? `&continue=${encodeURIComponent(cont)}` : ''
          }`
        : '';
      const res = await kube.get(`${listPath(k)}${q}`);
      requests++;
      if (res.status !== 200)
        throw new Error(
          `LIST ${k.kind}: HTTP ${res.status} ${res.body
            .toString()
            .slice(0, 200)}`,
        );
      bytes += res.body.length;
      const body = JSON.parse(res.body.toString('utf8')) as {
        items: unknown[];
        metadata: { continue?: string };
      };
      items += body.items.length;
      cont = limit ? body.metadata.continue ?? '' : '';
    } while (cont);
  };
  const started = performance.now();
  const apiCpu = apiServerPid ? cpuMs(apiServerPid) : NaN;
  const ownCpu = process.cpuUsage();
  if (parallel) await Promise.all(WATCHED.map(one));
  else for (const k of WATCHED) await one(k);
  const own = process.cpuUsage(ownCpu);
  return {
    ms: performance.now() - started,
    items,
    bytes,
    requests,
    apiCpuMs: (apiServerPid ? cpuMs(apiServerPid) : NaN) - apiCpu,
    clientCpuMs: (own.user + own.system) / 1000,
  };
}

/** Sequential and parallel, with and without `limit=500`, each the median of 3 after a warm-up. */
export async function plainLists({
  info,
  record,
  apiServerPid,
}: MeasureContext): Promise<Pick<Figures, 'listSequentialMs' | 'rawBytes'>> {
  const figures = { listSequentialMs: NaN, rawBytes: NaN };
  const kube = new RawKube({
    url: info.url,
    caPem: info.caPem,
    token: info.adminToken,
  });
  try {
    // Warm-up (TLS connection, the API server's watch cache), paged and one kind at a time as a loaded API server can
    // serve it: at 10,000 clusters an unpaginated parallel warm-up got a 504 after the API server's 60 s timeout.
    await listAll(kube, apiServerPid, false, 500);
    for (const [label, parallel, limit] of [
      ['sequential, no pagination', false, undefined],
      ['parallel, no pagination', true, undefined],
      ['sequential, limit=500', false, 500],
      ['parallel, limit=500', true, 500],
    ] as const) {
      const runs = [];
      try {
        for (let i = 0; i < 3; i++)
          runs.push(await listAll(kube, apiServerPid, parallel, limit));
      } catch (e) {
        // One row the API server cannot serve (a 504 at 10,000 clusters) should not cost the run's other figures.
        record(
          `Plain LIST of the ${WATCHED.length} watched kinds, ${label}`,
          'failed',
          `${(e as Error).message.slice(0, 300)} (after ${
            runs.length
          } of 3 runs)`,
        );
        continue;
      }
      const r = runs[0];
      if (!parallel && !limit)
        figures.listSequentialMs = median(runs.map(x => x.ms));
      // The same objects whichever row read them (the sequential unpaginated one may have failed).
      if (Number.isNaN(figures.rawBytes)) figures.rawBytes = r.bytes;
      record(
        `Plain LIST of the ${WATCHED.length} watched kinds, ${label}`,
        ms(median(runs.map(x => x.ms))),
        `raw HTTPS GETs (keep-alive, JSON, admin token), all namespaces, median of 3 after a warm-up; ${
          r.items
        } objects, ${(r.bytes / 1048576).toFixed(1)} MiB, ${
          r.requests
        } requests; CPU: API server ${ms(
          median(runs.map(x => x.apiCpuMs)),
        )}, client (JSON.parse) ${ms(median(runs.map(x => x.clientCpuMs)))}`,
      );
    }
  } finally {
    kube.close();
  }
  return figures;
}
