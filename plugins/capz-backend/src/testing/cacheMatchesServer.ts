/**
 * The watch cache equals what a fresh LIST returns, kind by kind: nothing missed, nothing duplicated, nothing stale
 * (the check of the tests that end watches under the cache: an API-server restart, a 410 Gone).
 */
import type { WatchCache } from '../cluster/WatchCache';
import { WATCHED_KINDS } from '../cluster/watchedKinds';
import { kube, type ClusterInfo } from './realCluster';

/** `true` when they match, else which kind differs and how. */
export async function cacheMatchesServer(
  cache: WatchCache,
  clusterName: string,
  info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
): Promise<string | true> {
  const status = cache.status(clusterName);
  for (const kind of WATCHED_KINDS) {
    const version = status.kinds[kind.name]?.version;
    if (!version) continue;
    const path = kind.group
      ? `/apis/${kind.group}/${version}/${kind.plural}`
      : `/api/${version}/${kind.plural}`;
    const list = await kube(info, 'GET', path);
    const server = new Map<string, string>(
      list.body.items.map((o: any) => [
        o.metadata.uid,
        o.metadata.resourceVersion,
      ]),
    );
    const cached = cache.list(clusterName, kind.name);
    const mismatch =
      cached.length !== server.size ||
      cached.some(
        o => server.get(o.metadata.uid) !== o.metadata.resourceVersion,
      );
    if (mismatch)
      return `${kind.name}: cache has ${cached.length}, server ${server.size}`;
  }
  return true;
}
