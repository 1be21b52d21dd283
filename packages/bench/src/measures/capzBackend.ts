/**
 * The real CAPZ backend (packages/backend as `yarn workspace backend start` runs it, without the file watcher): time to HTTP up and to a synced watch, its RSS, the API
 * requests it makes after its sync, then page views (the clusters list, trees of random clusters and of the compared
 * one, the HTTP floor, a user's token). It stays up for the measures after it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenPort, repoRoot } from '@internal/mgmt-cluster';
import {
  fetchJson,
  resolvePid,
  startCapzBackendUnwatched,
  writeCapzConfig,
  type RunningBackend,
} from '../backends.ts';
import { median, mib, ms, percentile, sec } from '../format.ts';
import type { Figures } from '../goals.ts';
import {
  auditCount,
  backendIdle,
  backgroundSettled,
  heapSnapshot,
  IDLE_CPU_MS,
  inspectOption,
  SETTLE_MS,
  timeRequests,
  timeSync,
} from '../probes.ts';
import { rng, type SeededCluster } from '../seed.ts';
import { auditSize, log, rssKib } from '../util.ts';
import { WATCHED } from '../watched.ts';
import type { MeasureContext } from './context.ts';

export interface CapzBackendOptions {
  clusters: SeededCluster[];
  /** The cluster compared with `clusterctl describe` and the stock query. */
  target: SeededCluster;
  /** The checkout whose backend runs: this one, or a --baseline. */
  root?: string;
  /** Names its config, log and profile directory apart (`-baseline`). */
  suffix?: string;
  /** The initial syncs of the starts before this one (extraSyncs), in ms. */
  extraSyncSamples: number[];
  /** --profile: the backend runs with --cpu-prof. */
  profile: boolean;
  listRequests: number;
  treeRequests: number;
  /** When the seeding ended (Date.now()): the page views wait for the seeded objects' grace period to end. */
  seededAt?: number;
}

/**
 * capz-common's grace for a new object (tree/health/verdict.ts DEFAULT_GRACE_SECONDS, 300 s): a view built while an
 * object of its cluster is younger is valid only until it is not, and is built again at the next read. Objects seeded
 * in the last 5 minutes of a long seeding (a third of them at 10,000) would expire, one after another, during the page
 * views and be measured as a rebuild of the fleet, which a fleet whose objects are not new does not pay.
 */
export const NEW_OBJECT_GRACE_MS = 300_000;

type CapzFigures = Pick<
  Figures,
  'syncMs' | 'rssAfterSyncKib' | 'clustersP50' | 'clustersP99' | 'treeTargetMs'
>;

const treePath = (c: SeededCluster) =>
  `/api/capz/clusters/bench/${c.namespace}/${c.name}/tree`;

/** Starts the backend and measures it; returns it still running, with its figures. */
export async function capzBackend(
  ctx: MeasureContext,
  opts: CapzBackendOptions,
): Promise<{ backend: RunningBackend; figures: CapzFigures }> {
  const { b, pid, syncMs, rssAfterSyncKib } = await startAndSync(ctx, opts);
  const listed = await afterSync(ctx, b, opts.clusters);
  if (opts.seededAt !== undefined) {
    const wait = opts.seededAt + NEW_OBJECT_GRACE_MS + 5_000 - Date.now();
    if (wait > 0) {
      log(
        `waiting ${Math.round(
          wait / 1000,
        )} s until the last seeded objects are 5 minutes old (their views would otherwise expire during the page views)`,
      );
      await new Promise(r => setTimeout(r, wait));
    }
  }
  const views = await pageViews(ctx, b, opts, listed);
  const treeTargetMs = await oneTree(ctx, b, opts.target);
  ctx.record(
    'CAPZ backend RSS after the latency runs',
    mib(pid ? rssKib(pid) : NaN),
    'VmRSS, same process',
  );
  return {
    backend: b,
    figures: { syncMs, rssAfterSyncKib, ...views, treeTargetMs },
  };
}

/** Spawn → HTTP up → watch synced, the API server's CPU meanwhile, and the RSS once synced. */
async function startAndSync(
  {
    info,
    localDir,
    record,
    heapSnapshot: snapshot,
    apiServerPid,
    backendConfigs,
  }: MeasureContext,
  {
    root = repoRoot,
    suffix = '',
    extraSyncSamples,
    profile,
  }: CapzBackendOptions,
) {
  const port = await listenPort();
  const token = randomBytes(24).toString('hex');
  const configFile = join(localDir, `app-config.bench${suffix}.yaml`);
  const logFile = join(localDir, `backend${suffix}.log`);
  writeCapzConfig(configFile, info, port, token);
  log(
    `starting the CAPZ backend (${root}/packages/backend) on port ${port}; log: ${logFile}`,
  );
  const profileDir = join(localDir, `profile${suffix}`);
  if (profile) {
    mkdirSync(profileDir, { recursive: true });
    log(`--profile: CPU profiles of the CAPZ backend go to ${profileDir}`);
  }
  const inspectPort = await listenPort();
  const nodeOptions = [
    ...(profile ? [`--cpu-prof --cpu-prof-dir=${profileDir}`] : []),
    ...(snapshot ? [inspectOption(inspectPort)] : []),
    // Each garbage collection over CAPZ_BENCH_TRACE_GC ms, a line in the backend's log beside its requests.
    ...(process.env.CAPZ_BENCH_TRACE_GC
      ? [
          `--require ${fileURLToPath(
            new URL('../traceGc.cjs', import.meta.url),
          )}`,
        ]
      : []),
    ...(process.env.CAPZ_BENCH_NODE_OPTIONS
      ? [process.env.CAPZ_BENCH_NODE_OPTIONS]
      : []),
  ].join(' ');
  const b = startCapzBackendUnwatched(
    root,
    configFile,
    port,
    token,
    info,
    logFile,
    nodeOptions ? { NODE_OPTIONS: nodeOptions } : {},
    backendConfigs,
  );
  const { up, synced, apiCpuMs, watch } = await timeSync(b, apiServerPid);
  // A sync is one sample of a few seconds, and the API server's own background work (its watch caches' consistency
  // checks, every 5 minutes: docs/scale.md) can land in it: the goal takes the median of this one and the starts
  // before it (extraSyncs; not for a --baseline checkout), as the LIST it is compared with is a median of 3.
  const syncSamples = [...extraSyncSamples, synced - up];
  const pid = resolvePid(b);
  const syncMs = median(syncSamples);
  const rssAfterSyncKib = pid ? rssKib(pid) : NaN;
  record(
    'CAPZ backend: process start → HTTP up',
    sec(up - b.spawnedAt),
    "node with the Backstage CLI's TypeScript transform, `src/index.ts --config app-config.yaml --config <bench>` (as `yarn workspace backend start` runs it, without yarn, the CLI and its file watcher; before 2026-12-07 with them, about 1 s more) until /api/capz/health answers",
  );
  record(
    'CAPZ backend: initial sync (HTTP up → watch synced)',
    sec(synced - up),
    '/api/capz/management-clusters polled every 50 ms until `bench` reports watch.synced (list+watch of every kind)',
  );
  if (syncSamples.length > 1)
    record(
      `CAPZ backend: initial sync, median of ${syncSamples.length} starts`,
      sec(syncMs),
      `this start and ${
        syncSamples.length - 1
      } before it (the same backend and config, stopped once synced): ${syncSamples
        .map(sec)
        .join(', ')}; the goal's figure`,
    );
  record(
    'API server CPU from the backend spawn to synced',
    ms(apiCpuMs),
    'utime+stime of kube-apiserver (/proc/<pid>/stat): discovery, the lists, the watches and the polling; compare with the plain LISTs above',
  );
  record(
    'CAPZ backend: initial sync from process start',
    sec(synced - b.spawnedAt),
    'spawn → watch.synced',
  );
  // The kinds the API server serves: the backend also asks for Flux's, which the bench's cluster does not serve.
  const reported = Object.entries(watch?.kinds ?? {})
    .filter(([, k]) => k.version !== undefined)
    .map(([kind]) => kind)
    .sort();
  const mine = WATCHED.map(k => k.kind).sort();
  if (reported.join() !== mine.join())
    log(
      `WARNING: the backend watches ${reported.join(
        ', ',
      )}; the LIST baseline covered ${mine.join(', ')}`,
    );
  record(
    'CAPZ backend RSS after sync',
    mib(rssAfterSyncKib),
    `VmRSS of the serving node process (pid ${
      pid ?? '?'
    }, found by its listening socket), not the yarn wrapper`,
  );
  if (snapshot)
    await heapSnapshot(record, b, inspectPort, `capz${suffix}`, localDir);
  return { b, pid, syncMs, rssAfterSyncKib };
}

/**
 * The backend's own work after its sync, before the page views: its background reads of the API server, then its
 * CPU. Returns how many seeded clusters it lists.
 */
async function afterSync(
  { info, record }: MeasureContext,
  b: RunningBackend,
  clusters: SeededCluster[],
): Promise<number> {
  const list = await fetchJson(b, '/api/capz/clusters');
  const listed = (list.body?.items ?? []).filter(
    (c: { managementCluster?: string }) => c.managementCluster === 'bench',
  ).length;
  if (listed !== clusters.length)
    log(
      `WARNING: /api/capz/clusters lists ${listed} bench clusters, ${clusters.length} seeded`,
    );

  // The backend's own background reads after a sync (the API servers' credential Secrets, once per namespace and
  // minute: src/connect) are not page views: wait for them to end, and count them apart.
  const settled = await backgroundSettled(info);
  record(
    'API requests by the backend after sync, before the page views',
    String(settled.count),
    `non-watch requests by user capz-backend until none came for ${
      SETTLE_MS / 1000
    } s (${settled.detail}); the page-view window below starts after them`,
  );

  // Then the backend's own work after a start (the catalog stitching one entity per cluster, the condition history's
  // first write): page views are measured on a backend that is otherwise idle, as the stock one is.
  const idle = await backendIdle(b.pid);
  record(
    'CAPZ backend busy after sync, before the page views',
    `${(idle.ms / 1000).toFixed(1)} s`,
    `until one second passed with < ${IDLE_CPU_MS} ms of CPU in the serving process (${ms(
      idle.cpuMs,
    )} of CPU meanwhile: the catalog stitching the ${
      clusters.length
    } cluster entities, the condition history's first write)${
      idle.timedOut ? '; NOT idle after 3 minutes, measured anyway' : ''
    }`,
  );
  return listed;
}

/**
 * Page views: the clusters list and trees of random clusters; the API server's audit log says whether the backend
 * asked it anything meanwhile.
 */
async function pageViews(
  { info, record }: MeasureContext,
  b: RunningBackend,
  { clusters, listRequests, treeRequests }: CapzBackendOptions,
  listed: number,
): Promise<Pick<Figures, 'clustersP50' | 'clustersP99'>> {
  const auditStart = auditSize(info.auditLog);
  const lists = await timeRequests(
    b,
    Array.from({ length: listRequests }, () => '/api/capz/clusters'),
  );
  const clustersP50 = median(lists.times);
  const clustersP99 = percentile(lists.times, 99);
  record(
    'GET /api/capz/clusters, the whole list, p50 / p99',
    `${ms(clustersP50)} / ${ms(clustersP99)}`,
    `${listRequests} sequential requests without view parameters: every cluster's summary in one answer; ${listed} clusters, ${(
      lists.bytes / 1024
    ).toFixed(0)} KiB JSON`,
  );
  const random = rng(7);
  const treePaths = Array.from({ length: treeRequests }, () =>
    treePath(clusters[Math.floor(random() * clusters.length)]),
  );
  const trees = await timeRequests(b, treePaths);
  record(
    'GET …/tree p50 / p99',
    `${ms(median(trees.times))} / ${ms(percentile(trees.times, 99))}`,
    `${treeRequests} sequential requests on random clusters (grouping on, default)`,
  );
  await new Promise(r => setTimeout(r, 500)); // let the audit backend flush
  const audited = auditCount(
    info,
    auditStart,
    e => e.user?.username === 'capz-backend',
  );
  record(
    'API requests by the backend during those page views',
    String(audited.count),
    `non-watch requests by user capz-backend in the API server's audit log over ${
      listRequests + treeRequests
    } page views (${audited.detail})`,
  );
  return { clustersP50, clustersP99 };
}

/** The compared cluster's tree, the HTTP floor under it, and the same tree with a user's token. */
async function oneTree(
  { record }: MeasureContext,
  b: RunningBackend,
  target: SeededCluster,
): Promise<number> {
  const same = await timeRequests(
    b,
    Array.from({ length: 20 }, () => treePath(target)),
  );
  const treeTargetMs = median(same.times);
  record(
    `GET …/tree of ${target.namespace}/${target.name} (median)`,
    ms(treeTargetMs),
    `20 sequential requests, ${(same.bytes / 1024).toFixed(
      1,
    )} KiB JSON; the cluster compared below (the goals use its figure around the stock query)`,
  );
  // What any request costs on this stack (client, Node's HTTP server, Backstage's helmet, CORS, compression, auth and
  // the OpenAPI validator): the floor under the tree's figure.
  const floor = await timeRequests(
    b,
    Array.from({ length: 100 }, () => '/api/capz/health'),
  );
  record(
    'GET /api/capz/health (median): the HTTP floor',
    ms(median(floor.times)),
    `100 sequential requests, same client, token and middleware as the tree's, a ${
      floor.bytes
    }-byte answer; the tree's own cost is about ${ms(
      Math.max(0, treeTargetMs - median(floor.times)),
    )} above it`,
  );
  // A person's page view carries a user token (here a guest sign-in's: app-config.yaml enables the guest provider),
  // which Backstage verifies as a signed JWT and, unlike the static service token above, authorizes through the
  // permission backend (the app's allow-all policy).
  const guest = await fetchJson(b, '/api/auth/guest/refresh', {
    headers: { 'X-Requested-With': 'XMLHttpRequest' },
  });
  const userToken: string | undefined = guest.body?.backstageIdentity?.token;
  if (userToken) {
    const asUser = await timeRequests(
      b,
      Array.from({ length: 20 }, () => treePath(target)),
      userToken,
    );
    record(
      `GET …/tree of ${target.namespace}/${target.name} with a user token (median)`,
      ms(median(asUser.times)),
      `20 sequential requests with a guest sign-in's token: a signed JWT verified, and capz.cluster.read asked of the permission backend (allow-all policy), which a service token skips; ${ms(
        median(asUser.times) - treeTargetMs,
      )} above the same tree with the service token`,
    );
  } else
    record(
      'GET …/tree with a user token (median)',
      'not measured',
      `guest sign-in answered HTTP ${guest.status}`,
    );
  return treeTargetMs;
}
