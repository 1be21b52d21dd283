/**
 * The read-path benchmark (`yarn bench [--clusters N] [--pools P] [--keep]`): seeds N ASO-managed clusters into an
 * ephemeral local management cluster and prints, as one markdown table (also written to .local/bench/result-<N>.md):
 * seeding time; plain LISTs of every watched kind; the CAPZ backend's initial sync, RSS, clusters-list and tree
 * latency, pages of the clusters list's server-side views, API requests per page view, a fleet run's preview over every cluster and change-to-push latency; and, for
 * one cluster, `clusterctl describe cluster` (built from Go modules) and the stock @backstage/plugin-kubernetes-backend
 * custom-resource query.
 * Not part of the test suite: it prints numbers, it asserts nothing.
 *
 * This file parses the arguments and runs the measures (src/measures, one module each) in order; src/goals.ts judges
 * their figures and src/report.ts prints them.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  repoRoot,
  startManagementCluster,
  stopManagementCluster,
} from '@internal/mgmt-cluster';
import { buildCapzPackages, stopBackend } from './backends.ts';
import { ensureClusterctl, installDescribeCrds } from './clusterctl.ts';
import { sec } from './format.ts';
import { judge, newFigures, withReferences, type Figures } from './goals.ts';
import { capzBackend } from './measures/capzBackend.ts';
import { changeToPush } from './measures/changeToPush.ts';
import { quietWindow } from './measures/quietWindow.ts';
import type { MeasureContext } from './measures/context.ts';
import { clustersViews } from './measures/clustersViews.ts';
import { clusterctlDescribe } from './measures/describe.ts';
import { emptyBackendRss } from './measures/emptyRss.ts';
import { fleetPreview } from './measures/fleetPreview.ts';
import { plainLists } from './measures/lists.ts';
import { minimalCapzRss } from './measures/minimalRss.ts';
import { seeding } from './measures/seeding.ts';
import { stockEmptyRss } from './measures/stockEmptyRss.ts';
import { stockQuery } from './measures/stockQuery.ts';
import { extraSyncs } from './measures/syncSamples.ts';
import {
  goalLogLines,
  Recorder,
  renderReport,
  resultFileName,
} from './report.ts';
import { log } from './util.ts';
import {
  databaseInWords,
  dropBenchDatabases,
  usePostgres,
} from './database.ts';

const HELP =
  'yarn bench [--clusters 1000] [--pools 3] [--namespaces 20] [--concurrency 16] [--list-requests 50] [--tree-requests 500] [--changes 100] [--keep] [--profile] [--heap-snapshot] [--no-build] [--pages-only] [--name bench]\n' +
  '  --name <name>: name of the ephemeral management cluster (default bench; unique when several people share a machine)\n' +
  '  --heap-snapshot: after sync, each backend (full, minimal CAPZ, stock) reports its V8 heap, code, external and\n' +
  '    anonymous/file-backed RSS before and after a full GC, and writes a heap snapshot to .local/bench/*.heapsnapshot\n' +
  '    (read with node packages/bench/src/heapSummary.ts <file>); the figures after it are disturbed by it\n' +
  '  --no-build: the minimal CAPZ backend runs on the dist/ of our packages as the last run built them (by default\n' +
  '    the run first builds them: `yarn tsc`, then `backstage-cli package build` of each)\n' +
  '  --pages-only: seed, then only the CAPZ backend (one start): its sync, page views, the clusters list and its\n' +
  '    server-side views, the fleet preview and change → push; no plain LISTs, extra starts, baseline or reference\n' +
  '    backends (their goals print "not measured"): the 10,000-cluster point in less than half the time\n' +
  '  --start-after <file>: after seeding, wait until <file> exists before any backend starts: seed beside other\n' +
  '    work (at nice 19, say) and measure with the machine to itself\n' +
  '  --profile: the CAPZ backend runs with --cpu-prof (written to .local/bench/profile when it stops)\n' +
  '  --baseline <checkout>: also measure the CAPZ backend of another checkout (e.g. a git worktree of an older\n' +
  '    commit with its node_modules), against the same seeded cluster in the same run\n' +
  "  --seed-only: start the management cluster and seed it, report the API server's and etcd's RSS, then stop\n" +
  '    (or keep it with --keep); no backend is started\n' +
  '  --apiserver-arg <flag=value>, --apiserver-env <NAME=value> (repeatable): more kube-apiserver flags or\n' +
  '    environment, e.g. --apiserver-arg=--profiling=true --apiserver-env GOMEMLIMIT=4GiB\n' +
  '  --postgres <connection string>: the backends use PostgreSQL (a role that may create databases), as a production\n' +
  '    deployment does, instead of in-memory SQLite: each start its own databases (capz_bench_<pid>_<n>_<plugin>),\n' +
  '    dropped at the end, e.g. --postgres postgresql://postgres@127.0.0.1:5499\n' +
  "  --backend-config <file> (repeatable): more config for the CAPZ backend, after the bench's own (e.g. the catalog\n" +
  '    settings docs/scale.md gives for large fleets)\n' +
  '  --quiet-seconds <s>: after the pushes, a page view every 500 ms for this long with nothing else asked of the\n' +
  "    backend: its background work (the catalog's processing, the module's full refresh) and what views meet then\n" +
  "    (default 150, longer than the catalog's 100-150 s processing interval; 0: skip)\n" +
  '  CAPZ_BENCH_LOG_LEVEL=info (environment): the backends log at that level (default warn), e.g. to see when the\n' +
  "    notifications' scans ran and what they told\n" +
  '  CAPZ_BENCH_TRACE_GC=<ms> (environment): each garbage collection of the CAPZ backend that took <ms> or longer, a\n' +
  "    line with its time in its log (src/traceGc.cjs), to see whether the quiet window's slow views meet them;\n" +
  "    with CAPZ_BENCH_TRACE_GC_NVP=1 also V8's --trace-gc-nvp (each pause split into its phases) on that log\n" +
  '  CAPZ_BENCH_NODE_OPTIONS (environment): more Node.js options for the CAPZ backend (those NODE_OPTIONS allows)\n';

interface BenchOptions {
  clusters: number;
  pools: number;
  namespaces: number;
  concurrency: number;
  listRequests: number;
  treeRequests: number;
  changes: number;
  keep: boolean;
  profile: boolean;
  name: string;
  heapSnapshot: boolean;
  build: boolean;
  pagesOnly: boolean;
  startAfter?: string;
  baseline?: string;
  seedOnly: boolean;
  apiserverArgs: string[];
  apiserverEnv: { [name: string]: string };
  backendConfigs: string[];
  postgres?: string;
  quietSeconds: number;
}

/** The options, or undefined after printing the help. */
function parseOptions(argv: string[]): BenchOptions | undefined {
  const { values: args } = parseArgs({
    args: argv,
    allowNegative: true,
    options: {
      clusters: { type: 'string', default: '1000' },
      pools: { type: 'string', default: '3' },
      namespaces: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '16' },
      'list-requests': { type: 'string', default: '50' },
      'tree-requests': { type: 'string', default: '500' },
      changes: { type: 'string', default: '100' },
      keep: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      name: { type: 'string', default: 'bench' },
      'heap-snapshot': { type: 'boolean', default: false },
      build: { type: 'boolean', default: true },
      'pages-only': { type: 'boolean', default: false },
      'start-after': { type: 'string' },
      baseline: { type: 'string' },
      'seed-only': { type: 'boolean', default: false },
      'apiserver-arg': { type: 'string', multiple: true, default: [] },
      'apiserver-env': { type: 'string', multiple: true, default: [] },
      'backend-config': { type: 'string', multiple: true, default: [] },
      postgres: { type: 'string' },
      'quiet-seconds': { type: 'string', default: '150' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (args.help) {
    process.stdout.write(HELP);
    return undefined;
  }
  const o: BenchOptions = {
    clusters: Number(args.clusters),
    pools: Number(args.pools),
    namespaces: Number(args.namespaces),
    concurrency: Number(args.concurrency),
    listRequests: Number(args['list-requests']),
    treeRequests: Number(args['tree-requests']),
    changes: Number(args.changes),
    keep: args.keep,
    profile: args.profile,
    name: args.name,
    heapSnapshot: args['heap-snapshot'],
    build: args.build,
    pagesOnly: args['pages-only'],
    ...(args['start-after']
      ? { startAfter: resolve(args['start-after']) }
      : {}),
    baseline: args.baseline,
    seedOnly: args['seed-only'],
    apiserverArgs: args['apiserver-arg'],
    backendConfigs: args['backend-config'],
    ...(args.postgres ? { postgres: args.postgres } : {}),
    quietSeconds: Number(args['quiet-seconds']),
    apiserverEnv: Object.fromEntries(
      args['apiserver-env'].map(e => {
        const at = e.indexOf('=');
        if (at < 1)
          throw new Error(`--apiserver-env ${e}: expected NAME=value`);
        return [e.slice(0, at), e.slice(at + 1)];
      }),
    ),
  };
  for (const [k, v] of Object.entries({
    clusters: o.clusters,
    pools: o.pools,
    namespaces: o.namespaces,
    concurrency: o.concurrency,
  })) {
    if (!Number.isInteger(v) || v < 1)
      throw new Error(`--${k} must be a positive integer`);
  }
  return o;
}

/** Waits until `file` exists (--start-after), saying so once. */
async function fileExists(file: string): Promise<void> {
  if (existsSync(file)) return;
  log(`seeded; waiting for ${file} before starting a backend (--start-after)`);
  while (!existsSync(file))
    await new Promise(resolveWait => setTimeout(resolveWait, 2000));
  log(`${file} exists: measuring`);
}

async function main(o: BenchOptions): Promise<void> {
  if (o.postgres) usePostgres(o.postgres);
  const localDir = join(repoRoot, '.local', 'bench');
  mkdirSync(localDir, { recursive: true });
  const started = performance.now();
  const cores = availableParallelism();
  log(
    `N=${o.clusters} clusters, P=${o.pools} pools, ${
      o.namespaces
    } namespaces; ${cores} cores; the backends on ${databaseInWords()}`,
  );

  if (o.build) {
    log(
      "building the minimal CAPZ backend's packages (`yarn tsc`, `backstage-cli package build`)",
    );
    const t = performance.now();
    const built = await buildCapzPackages(repoRoot);
    log(`built ${built.join(', ')} in ${sec(performance.now() - t)}`);
  } else
    log(
      '--no-build: the minimal CAPZ backend runs on the dist/ of the last build',
    );
  const clusterctl = await ensureClusterctl(repoRoot);
  log(
    `clusterctl: ${clusterctl.path} (${sec(
      clusterctl.ms,
    )}; a cold build takes minutes)`,
  );
  const info = await startManagementCluster({
    name: o.name,
    ephemeral: true,
    // The machine's cores, as every earlier run of this benchmark measured (tests use one: StartOptions.goMaxProcs).
    goMaxProcs: 0,
    extraApiserverArgs: o.apiserverArgs,
    apiserverEnv: o.apiserverEnv,
  });
  const recorder = new Recorder(log);
  const ctx: MeasureContext = {
    info,
    localDir,
    record: recorder.record,
    heapSnapshot: o.heapSnapshot,
    backendConfigs: o.backendConfigs.map(f => resolve(f)),
  };
  const stops: Array<() => Promise<void>> = [];
  let capzPgid: number | undefined;
  let ok = false;
  try {
    await installDescribeCrds(info);
    const seeded = await seeding(ctx, o);
    const seededAt = Date.now();
    if (o.startAfter) await fileExists(o.startAfter);
    if (o.seedOnly) {
      ok = true;
      return;
    }
    const target = seeded.clusters[Math.floor(o.clusters / 2)];
    ctx.apiServerPid = info.pids.apiserver || undefined;

    const ours: Figures = {
      ...newFigures(),
      ...(o.pagesOnly ? {} : await plainLists(ctx)),
    };
    const extraSyncSamples = o.pagesOnly ? [] : await extraSyncs(ctx);
    const measured = {
      clusters: seeded.clusters,
      target,
      profile: o.profile,
      listRequests: o.listRequests,
      treeRequests: o.treeRequests,
      seededAt,
    };
    const capz = await capzBackend(ctx, { ...measured, extraSyncSamples });
    stops.push(() => stopBackend(capz.backend));
    capzPgid = capz.backend.child.pid;
    Object.assign(ours, capz.figures);
    // Pages of server-side views, as many requests as the whole list's measure in capzBackend.
    Object.assign(
      ours,
      await clustersViews(ctx, capz.backend, seeded.clusters, o.listRequests),
    );
    // Before the changes below, which flip ManagedClusters' Ready: the preview plans the clusters as seeded.
    Object.assign(ours, await fleetPreview(ctx, capz.backend, seeded.clusters));
    Object.assign(
      ours,
      await changeToPush(ctx, capz.backend, seeded.clusters, o.changes),
    );
    if (o.quietSeconds > 0)
      await quietWindow(ctx, capz.backend, o.quietSeconds);
    // It stays up, idle, until the stock query: its tree is timed again around that query (below).

    let baseline: Figures | undefined;
    if (o.baseline && !o.pagesOnly) {
      // The same measurements of another checkout's backend, against the same objects, in the same run.
      const root = resolve(o.baseline);
      const labelled = { ...ctx, record: recorder.as(`Baseline (${root})`) };
      baseline = {
        ...newFigures(),
        listSequentialMs: ours.listSequentialMs,
        rawBytes: ours.rawBytes,
      };
      const base = await capzBackend(labelled, {
        ...measured,
        root,
        suffix: '-baseline',
        extraSyncSamples: [],
      });
      Object.assign(baseline, base.figures);
      try {
        Object.assign(
          baseline,
          await changeToPush(
            labelled,
            base.backend,
            seeded.clusters,
            o.changes,
          ),
        );
      } finally {
        await stopBackend(base.backend);
      }
    }

    if (!o.pagesOnly) {
      Object.assign(ours, await emptyBackendRss(ctx));
      ours.minimalEmptyRssKib = await minimalCapzRss(ctx, false);
      await stockEmptyRss(ctx, target, ours.minimalEmptyRssKib);
      ours.minimalRssKib = await minimalCapzRss(ctx, true);
      Object.assign(
        ours,
        await clusterctlDescribe(ctx, clusterctl.path, target),
      );
      Object.assign(ours, await stockQuery(ctx, target, capz.backend));
    }
    if (!o.keep) await stops.shift()!();

    const runAt = new Date();
    const totalMs = performance.now() - started;
    const goals = judge(ours);
    for (const line of goalLogLines(goals)) log(line);
    const report = renderReport({
      ...o,
      objects: seeded.objects,
      cores,
      cpu: cpus()[0]?.model ?? 'unknown CPU',
      memoryBytes: totalmem(),
      nodeVersion: process.version,
      database: databaseInWords(),
      runAt,
      totalMs,
      rows: recorder.rows,
      goals,
      baselineGoals: baseline && judge(withReferences(baseline, ours)),
    });
    const out = join(localDir, resultFileName(o));
    writeFileSync(out, report);
    process.stdout.write(`\n${report}\n`);
    log(`written to ${out}`);
    ok = true;
  } finally {
    if (o.keep) {
      log(
        `--keep: the management cluster bench (${
          info.kubeconfigPath
        }) and the CAPZ backend stay up; stop them with: yarn mgmt stop --name ${
          o.name
        }${capzPgid ? `; kill -- -${capzPgid}` : ''}`,
      );
    } else {
      for (const stop of stops.reverse())
        await stop().catch(e => log(`stop failed: ${(e as Error).message}`));
      await stopManagementCluster(info);
      log('stopped the backend(s) and the management cluster');
      await dropBenchDatabases().catch(e =>
        log(`dropping the run's databases failed: ${(e as Error).message}`),
      );
    }
    if (!ok) process.exitCode = 1;
  }
}

const options = parseOptions(process.argv.slice(2));
if (options)
  main(options).catch(e => {
    process.stderr.write(`[bench] failed: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  });
