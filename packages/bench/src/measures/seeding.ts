/** Seeding N clusters, and what the API server and etcd hold once they are seeded. */
import { mib, sec } from '../format.ts';
import { seedClusters, type SeedResult } from '../seed.ts';
import { log, rssKib } from '../util.ts';
import type { MeasureContext } from './context.ts';

export async function seeding(
  { info, record }: MeasureContext,
  opts: {
    clusters: number;
    pools: number;
    namespaces: number;
    concurrency: number;
  },
): Promise<SeedResult> {
  log(`seeding ${opts.clusters} clusters (${opts.concurrency} at a time)`);
  const seeded = await seedClusters(info, {
    ...opts,
    onProgress: done => log(`seeded ${done}/${opts.clusters}`),
  });
  record(
    'Seeding',
    sec(seeded.ms),
    `${seeded.objects} objects (${
      seeded.requests
    } API requests: create, then status through the status subresource), ${
      opts.concurrency
    } clusters in flight; ${(seeded.requests / (seeded.ms / 1000)).toFixed(
      0,
    )} requests/s`,
  );
  record(
    'API server and etcd RSS after seeding',
    `${mib(rssKib(info.pids.apiserver))} / ${mib(rssKib(info.pids.etcd))}`,
    `VmRSS of kube-apiserver / etcd right after the last seeding request (${(
      (rssKib(info.pids.apiserver) * 1024) /
      seeded.objects
    ).toFixed(0)} bytes of API server RSS an object)`,
  );
  return seeded;
}
