/**
 * RSS of the minimal CAPZ backend (src/capzMinimalBackend.cts: the stock backend's catalog and permissions, our plugin
 * and catalog module) once its watch of the bench cluster has synced, or with no management cluster: the
 * like-for-like figures for the RSS goals.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { listenPort } from '@internal/mgmt-cluster';
import {
  benchDir,
  fetchJson,
  resolvePid,
  startCapzMinimalBackend,
  stopBackend,
  waitUntil,
  writeCapzMinimalConfig,
} from '../backends.ts';
import { mib } from '../format.ts';
import { heapSnapshot, inspectOption } from '../probes.ts';
import { rssKib } from '../util.ts';
import type { MeasureContext } from './context.ts';

/** The backend's RSS in KiB: minimalRssKib with a cluster, minimalEmptyRssKib without. */
export async function minimalCapzRss(
  { info, localDir, record, heapSnapshot: snapshot }: MeasureContext,
  withCluster: boolean,
): Promise<number> {
  const port = await listenPort();
  const inspectPort = await listenPort();
  const token = randomBytes(24).toString('hex');
  const suffix = withCluster ? 'minimal' : 'minimal-empty';
  const configFile = join(localDir, `app-config.bench-${suffix}.yaml`);
  writeCapzMinimalConfig(configFile, info, port, token, withCluster);
  const b = startCapzMinimalBackend(
    benchDir,
    configFile,
    port,
    token,
    join(localDir, `backend-${suffix}.log`),
    snapshot ? { NODE_OPTIONS: inspectOption(inspectPort) } : {},
  );
  try {
    await waitUntil(
      b,
      'the minimal backend to answer /api/capz/health',
      async () => (await fetch(`${b.baseUrl}/api/capz/health`)).ok,
      300_000,
    );
    if (withCluster)
      await waitUntil(
        b,
        'the minimal backend watch to sync',
        async () => {
          const res = await fetchJson(b, '/api/capz/management-clusters');
          return (
            res.status === 200 &&
            res.body?.items?.find((c: { name: string }) => c.name === 'bench')
              ?.watch?.synced === true
          );
        },
        600_000,
        50,
      );
    else await fetchJson(b, '/api/capz/clusters');
    const pid = resolvePid(b);
    const kib = pid ? rssKib(pid) : NaN;
    if (withCluster)
      record(
        'Minimal CAPZ backend RSS after sync',
        mib(kib),
        "VmRSS of a minimal backend as the stock one below (catalog, allow-all permissions) with our backend plugin and catalog module in place of the stock Kubernetes plugin (src/capzMinimalBackend.cts), started as the stock one is (plain node, same flags) on built JavaScript (our packages' dist/ from `backstage-cli package build`, no require hook), once its watch has synced",
      );
    else
      record(
        'Minimal CAPZ backend RSS with no management cluster',
        mib(kib),
        'VmRSS of the same minimal backend (built JavaScript) with `capz.managementClusters: []`, once HTTP is up and /api/capz/clusters answered: its plugins without data',
      );
    if (snapshot)
      await heapSnapshot(record, b, inspectPort, `capz-${suffix}`, localDir);
    return kib;
  } finally {
    await stopBackend(b);
  }
}
