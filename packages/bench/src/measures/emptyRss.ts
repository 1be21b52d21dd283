/** The full app's backend configured with no management cluster: what the app costs without any CAPZ data. */
import {
  fetchJson,
  resolvePid,
  startCapzBackendAs,
  stopBackend,
  waitUntil,
} from '../backends.ts';
import { mib } from '../format.ts';
import type { Figures } from '../goals.ts';
import { rssKib } from '../util.ts';
import type { MeasureContext } from './context.ts';

export async function emptyBackendRss({
  info,
  localDir,
  record,
}: MeasureContext): Promise<Pick<Figures, 'emptyRssKib'>> {
  const b = await startCapzBackendAs('empty', info, localDir, false);
  try {
    await waitUntil(
      b,
      'the backend to answer /api/capz/health',
      async () => (await fetch(`${b.baseUrl}/api/capz/health`)).ok,
      300_000,
    );
    await fetchJson(b, '/api/capz/clusters');
    const pid = resolvePid(b);
    const emptyRssKib = pid ? rssKib(pid) : NaN;
    record(
      'CAPZ backend RSS with no management cluster',
      mib(emptyRssKib),
      'VmRSS of the same backend configured with `capz.managementClusters: []`, once HTTP is up and /api/capz/clusters answered: the app without any CAPZ data',
    );
    return { emptyRssKib };
  } finally {
    await stopBackend(b);
  }
}
