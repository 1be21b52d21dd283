/**
 * The soak benchmark (`yarn bench:soak [--clusters 1000] [--users 20] [--minutes 10] [--changes-per-second 10]`):
 * the read-path benchmark's world (an ephemeral local management cluster, N seeded ASO-managed
 * clusters, the real CAPZ backend) held under load for a while:
 *
 * - `--users` simulated people, each looping over a cluster page's reads (the clusters list, then a random cluster's
 *   tree, its timeline, its active jobs and one object's YAML) with a short think time;
 * - `--changes-per-second` changes to random seeded objects through the API server (an annotation of a CAPI Cluster, the
 *   Ready condition of a ManagedCluster: its message, or its status flipped), each awaited on the backend's pushes
 *   (signals channel `capz:changes`): a change whose push does not name its cluster within `--push-bound-ms` is lost;
 * - capz-sim's simulated Azure/ASO/CAPZ/CAPI controllers for the scenario `legacy-to-migrate` only (namespaces
 *   `team-data*`: the seeded clusters stay static), and a migration job of `team-data/data-lake` started through the
 *   backend's jobs API early in the soak and followed to its end;
 * - the backend's RSS sampled every 5 s.
 *
 * The backend is packages/backend as `backstage-cli package start` runs it, minus the CLI's file watcher: an edit in
 * the working tree during a soak of several minutes would otherwise restart it (503s, lost pushes).
 *
 * Prints one markdown table (also written to .local/bench/soak-<N>.md): errors, requests and p50/p99 per route, the
 * pushes expected/received/lost, the backend's RSS at the start, after the first minute and at the end, the job's
 * outcome and duration, the machine and the git commit. Not part of the test suite: it prints numbers, it asserts
 * nothing. Everything it starts is stopped at the end, on an error, and on Ctrl-C (SIGINT) or SIGTERM.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  listenPort,
  repoRoot,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '@internal/mgmt-cluster';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { K } from '@internal/capz-sim';
import {
  fetchJson,
  resolvePid,
  startCapzBackendUnwatched,
  stopBackend,
  waitUntil,
  writeCapzConfig,
  type RunningBackend,
} from './backends.ts';
import { rng, Seeder, seedClusters, type SeededCluster } from './seed.ts';
import { SignalListener } from './signals.ts';
import {
  cpuMs,
  log,
  median,
  mib,
  ms,
  percentile,
  rssKib,
  sec,
} from './util.ts';

const { values: args } = parseArgs({
  options: {
    clusters: { type: 'string', default: '1000' },
    users: { type: 'string', default: '20' },
    minutes: { type: 'string', default: '10' },
    'changes-per-second': { type: 'string', default: '10' },
    pools: { type: 'string', default: '3' },
    namespaces: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '16' },
    'think-ms': { type: 'string', default: '500' },
    'push-bound-ms': { type: 'string', default: '10000' },
    'operation-ms': { type: 'string', default: '500' },
    name: { type: 'string', default: 'soak' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'yarn bench:soak [--clusters 1000] [--users 20] [--minutes 10] [--changes-per-second 10] [--pools 3] [--namespaces 20]\n' +
      '                [--concurrency 16] [--think-ms 500] [--push-bound-ms 10000] [--operation-ms 500] [--name soak]\n' +
      "  --users: simulated people, each looping: GET /clusters, then a random cluster's tree, timeline (last 6 h),\n" +
      "    active jobs and one object's YAML, with a think time of 0.5-1.5 x --think-ms after each page\n" +
      '  --changes-per-second: changes to random seeded objects (Cluster annotation, ManagedCluster Ready condition)\n' +
      '  --push-bound-ms: a change whose capz:changes push has not named its cluster by then counts as lost\n' +
      "  --operation-ms: the simulated Azure's operation time (the migration job's pace)\n" +
      '  --name: name of the ephemeral management cluster (unique when several people share a machine)\n',
  );
  process.exit(0);
}
const N = Number(args.clusters);
const USERS = Number(args.users);
const MINUTES = Number(args.minutes);
const CPS = Number(args['changes-per-second']);
const P = Number(args.pools);
const NAMESPACES = Number(args.namespaces);
const CONCURRENCY = Number(args.concurrency);
const THINK_MS = Number(args['think-ms']);
const PUSH_BOUND_MS = Number(args['push-bound-ms']);
const OPERATION_MS = Number(args['operation-ms']);
for (const [k, v] of Object.entries({
  clusters: N,
  users: USERS,
  pools: P,
  namespaces: NAMESPACES,
  concurrency: CONCURRENCY,
})) {
  if (!Number.isInteger(v) || v < 1)
    throw new Error(`--${k} must be a positive integer`);
}
for (const [k, v] of Object.entries({
  minutes: MINUTES,
  'changes-per-second': CPS,
  'think-ms': THINK_MS,
  'push-bound-ms': PUSH_BOUND_MS,
  'operation-ms': OPERATION_MS,
})) {
  if (!Number.isFinite(v) || v < 0)
    throw new Error(`--${k} must be a number ≥ 0`);
}
const SOAK_MS = MINUTES * 60_000;

/** The management cluster's name in the backend's config (writeCapzConfig). */
const MC = 'bench';
/** The legacy cluster of capz-sim's `legacy-to-migrate` scenario that the job migrates, and where to. */
const LEGACY = {
  namespace: 'team-data',
  name: 'data-lake',
  targetNamespace: 'team-data-aso',
};
/** capz-sim simulates only the namespaces with this prefix (the legacy one and the job's target). */
const SIM_PREFIX = 'team-data';
/** When in the soak the migration job is started (its preview is then asked until every preflight check passes). */
const JOB_START_MS = 5_000;
/** How long the job is still followed once the load has ended. */
const JOB_AFTER_LOAD_MS = 300_000;
const RSS_SAMPLE_MS = 5_000;
const FINAL_JOB_STATES = ['succeeded', 'failed', 'cancelled'];
const JOB_ROUTES = ['POST /jobs/preview', 'POST /jobs', 'GET /jobs/{id}'];

const sleep = (t: number) =>
  new Promise<void>(r => setTimeout(r, Math.max(0, t)));

// ---- stopping: everything started is registered here, stopped in reverse order, once ----

/** Set on SIGINT/SIGTERM: every loop ends, the main flow throws at its next check. */
let stopping = false;
/** While the management cluster is starting its processes are not known yet: a signal then waits for it. */
let startingCluster = false;
const cleanups: Array<{ what: string; fn: () => Promise<void> }> = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of [...cleanups].reverse()) {
      log(`stopping ${c.what}`);
      await c
        .fn()
        .catch(e => log(`stopping ${c.what} failed: ${(e as Error).message}`));
    }
  })();
  return cleaning;
}
function checkStopping(): void {
  if (stopping) throw new Error('interrupted');
}
let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    stopping = true;
    if (++signals > 1) {
      log(`${sig} again: still stopping what this run started`);
      return;
    }
    if (startingCluster) {
      log(`${sig}: stopping once the management cluster has started`);
      return; // main() registers it, sees `stopping` and cleans up in its finally
    }
    log(`${sig}: stopping what this run started`);
    void cleanup().finally(() => {
      log('stopped everything this run started');
      process.exit(130);
    });
  });

/** SIGTERM to a detached child's process group, SIGKILL after 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (!pgid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>(r => child.once('exit', () => r()));
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    return;
  }
  const timedOut = await Promise.race([
    exited.then(() => false),
    sleep(10_000).then(() => true),
  ]);
  if (timedOut)
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
}

// ---- per-route statistics ----

interface RouteStats {
  requests: number;
  errors: number;
  times: number[];
  firstErrors: string[];
}
const routes = new Map<string, RouteStats>();
/** 404s on the migration's source cluster once the job has started (it deletes that cluster): no errors. */
let goneAnswers = 0;
/** Set once POST /jobs has created the migration job. */
let jobStarted = false;
function record(route: string, t: number, error?: string): void {
  if (stopping) return; // requests cut by the stop are not the backend's errors
  let s = routes.get(route);
  if (!s) {
    s = { requests: 0, errors: 0, times: [], firstErrors: [] };
    routes.set(route, s);
  }
  s.requests++;
  if (error === undefined) s.times.push(t);
  else {
    s.errors++;
    if (s.firstErrors.length < 3) {
      s.firstErrors.push(error);
      log(`error on ${route}: ${error}`);
    }
  }
}

/** Backstage's error body's message (its stack left out), or the start of the text. */
function errorMessage(text: string): string {
  try {
    const m = JSON.parse(text)?.error?.message;
    if (typeof m === 'string') return m.slice(0, 200);
  } catch {
    /* not JSON */
  }
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/**
 * One timed request to the backend, recorded under `route`; the body is parsed only when asked (the clusters list at
 * 1,000 clusters is large, and the client shares the machine with the backend). Never throws.
 */
async function call(
  b: RunningBackend,
  token: string,
  route: string,
  path: string,
  opts: {
    method?: string;
    body?: unknown;
    parse?: boolean;
    /** The statuses that are no error (default 200). */
    ok?: number[];
  } = {},
): Promise<{ status: number; body?: any }> {
  const started = performance.now();
  try {
    const res = await fetch(`${b.baseUrl}${path}`, {
      method: opts.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${token}`,
        ...(opts.body !== undefined
          ? { 'Content-Type': 'application/json' }
          : {}),
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
    const text = await res.text();
    const t = performance.now() - started;
    const expected = opts.ok ?? [200];
    if (res.status === 404 && expected.includes(404) && !stopping)
      goneAnswers++;
    record(
      route,
      t,
      expected.includes(res.status)
        ? undefined
        : `HTTP ${res.status} on ${path}: ${errorMessage(text)}`,
    );
    let body: any;
    if (opts.parse)
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
    return { status: res.status, body };
  } catch (e) {
    record(
      route,
      performance.now() - started,
      `${(e as Error).message} on ${path}`,
    );
    return { status: 0 };
  }
}

// ---- the guest user's token (the pages' reads carry a user token) ----

let userToken = '';
let userTokenAt = 0;
async function refreshUserToken(b: RunningBackend): Promise<void> {
  const guest = await fetchJson(b, '/api/auth/guest/refresh', {
    headers: { 'X-Requested-With': 'XMLHttpRequest' },
  });
  const token: string | undefined = guest.body?.backstageIdentity?.token;
  if (!token)
    throw new Error(
      `guest sign-in: HTTP ${guest.status} ${JSON.stringify(guest.body).slice(
        0,
        300,
      )}`,
    );
  userToken = token;
  userTokenAt = performance.now();
}
/** The token, renewed after 20 minutes (Backstage user tokens last an hour). */
async function currentUserToken(b: RunningBackend): Promise<string> {
  if (performance.now() - userTokenAt > 20 * 60_000)
    await refreshUserToken(b).catch(e =>
      log(`renewing the guest token failed: ${(e as Error).message}`),
    );
  return userToken;
}

// ---- the simulated users ----

const clusterPath = (c: ClusterPlace) =>
  `/api/capz/clusters/${encodeURIComponent(
    c.managementCluster,
  )}/${encodeURIComponent(c.namespace)}/${encodeURIComponent(c.name)}`;

function treeUids(node: any, out: string[] = []): string[] {
  if (node?.uid) out.push(node.uid);
  for (const child of node?.children ?? []) treeUids(child, out);
  return out;
}

const TIMELINE_RANGE_MS = 6 * 3600_000; // the cluster page's default range

async function simulatedUser(
  b: RunningBackend,
  id: number,
  until: number,
  seeded: ClusterPlace[],
): Promise<number> {
  const random = rng(1000 + id);
  let known: ClusterPlace[] = seeded;
  let pages = 0;
  while (!stopping && performance.now() < until) {
    const token = await currentUserToken(b);
    // The list is parsed on the first page and every tenth: the clusters to pick from (the migrated one included).
    const list = await call(b, token, 'GET /clusters', '/api/capz/clusters', {
      parse: pages % 10 === 0,
    });
    if (Array.isArray(list.body?.items) && list.body.items.length)
      known = list.body.items;
    const c = known[Math.floor(random() * known.length)];
    const base = clusterPath(c);
    // The migration deletes its source cluster: picked from a list read before, it may be gone (404) by now.
    const ok =
      jobStarted &&
      c.managementCluster === MC &&
      c.namespace === LEGACY.namespace &&
      c.name === LEGACY.name
        ? [200, 404]
        : [200];
    const tree = await call(b, token, 'GET …/tree', `${base}/tree`, {
      parse: true,
      ok,
    });
    const to = Date.now();
    const range = new URLSearchParams({
      from: new Date(to - TIMELINE_RANGE_MS).toISOString(),
      to: new Date(to).toISOString(),
    });
    await call(b, token, 'GET …/timeline', `${base}/timeline?${range}`, {
      ok,
    });
    const jobs = new URLSearchParams({
      managementCluster: c.managementCluster,
      namespace: c.namespace,
      name: c.name,
      active: 'true',
    });
    await call(b, token, 'GET /jobs?active=true', `/api/capz/jobs?${jobs}`);
    const uids = treeUids(tree.body?.tree);
    if (uids.length) {
      const uid = uids[Math.floor(random() * uids.length)];
      await call(
        b,
        token,
        'GET …/objects/{uid}',
        `${base}/objects/${encodeURIComponent(uid)}`,
        { ok },
      );
    }
    pages++;
    await sleep(THINK_MS * (0.5 + random()));
  }
  return pages;
}

// ---- the changes and their pushes ----

const pushes = {
  attempted: 0,
  patchErrors: 0,
  expected: 0,
  received: 0,
  lost: 0,
  skipped: 0,
  latencies: [] as number[],
  lostExamples: [] as string[],
  listenerClosed: false,
};

const condition = (status: 'True' | 'False', message: string) => ({
  type: 'Ready',
  status,
  severity: status === 'True' ? '' : 'Warning',
  reason: status === 'True' ? 'Succeeded' : 'BenchSoak',
  message,
  observedGeneration: 1,
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

async function changeLoop(
  info: ClusterInfo,
  listener: SignalListener,
  clusters: SeededCluster[],
  until: number,
): Promise<void> {
  if (CPS <= 0) return;
  const seeder = new Seeder(info);
  const random = rng(33);
  const healthy = clusters.filter(c => !c.failing);
  /** Clusters whose change awaits its push: not changed again meanwhile, so that each push is attributed to one change. */
  const pending = new Set<string>();
  /** Healthy clusters whose ManagedCluster this run set Ready=False. */
  const flipped = new Set<string>();
  const inflight = new Set<Promise<void>>();
  const interval = 1000 / CPS;
  const t0 = performance.now();

  const one = async (i: number) => {
    const kind = i % 4; // 0, 2: Cluster annotation; 1: Ready message; 3: Ready status flipped
    const from = kind % 2 === 0 || !healthy.length ? clusters : healthy;
    let c: SeededCluster | undefined;
    for (let tries = 0; tries < 20 && !c; tries++) {
      const x = from[Math.floor(random() * from.length)];
      if (!pending.has(x.uid)) c = x;
    }
    if (!c) {
      pushes.skipped++;
      return;
    }
    pending.add(c.uid);
    pushes.attempted++;
    try {
      const arrived = listener.waitFor(c.uid, PUSH_BOUND_MS);
      const sent = performance.now();
      try {
        if (kind % 2 === 0 || from === clusters) {
          await seeder.patch(K.Cluster, c.namespace, c.name, {
            metadata: {
              annotations: { 'bench.capz.io/soak-change': String(i) },
            },
          });
        } else {
          if (kind === 3) {
            if (flipped.has(c.uid)) flipped.delete(c.uid);
            else flipped.add(c.uid);
          }
          await seeder.patch(
            K.ManagedCluster,
            c.namespace,
            c.name,
            {
              status: {
                conditions: [
                  condition(
                    flipped.has(c.uid) ? 'False' : 'True',
                    `soak change ${i}`,
                  ),
                ],
              },
            },
            'status',
          );
        }
      } catch (e) {
        pushes.patchErrors++;
        if (pushes.patchErrors <= 3)
          log(`change ${i} failed: ${(e as Error).message.slice(0, 300)}`);
        await arrived; // the uid stays pending until its waiter ends
        return;
      }
      pushes.expected++;
      const at = await arrived;
      if (at === undefined) {
        pushes.lost++;
        if (!listener.open) pushes.listenerClosed = true;
        if (pushes.lostExamples.length < 5)
          pushes.lostExamples.push(
            `${kind % 2 === 0 ? 'Cluster' : 'ManagedCluster'} ${c.namespace}/${
              c.name
            }`,
          );
      } else {
        pushes.received++;
        pushes.latencies.push(at - sent);
      }
    } finally {
      pending.delete(c.uid);
    }
  };

  for (let i = 0; !stopping; i++) {
    const at = t0 + i * interval;
    if (at >= until) break;
    await sleep(at - performance.now());
    if (stopping) break;
    const p: Promise<void> = one(i).finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await Promise.all(inflight);
}

// ---- the migration job ----

interface JobOutcome {
  outcome: string;
  detail: string;
}

async function migrationJob(
  b: RunningBackend,
  loadEnds: number,
): Promise<JobOutcome> {
  const request = {
    type: 'migrate',
    params: { managementCluster: MC, ...LEGACY },
  };
  const what = `migrate ${LEGACY.namespace}/${LEGACY.name} → ${LEGACY.targetNamespace}`;
  await sleep(JOB_START_MS);
  // The simulator may still be bringing the legacy cluster up: the preview is asked until no check fails.
  const previewSince = performance.now();
  let lastFail = '';
  for (;;) {
    if (stopping) return { outcome: 'not started', detail: 'the run stopped' };
    const token = await currentUserToken(b);
    const r = await call(
      b,
      token,
      'POST /jobs/preview',
      '/api/capz/jobs/preview',
      {
        method: 'POST',
        body: request,
        parse: true,
      },
    );
    if (r.status === 200) {
      const fails = (r.body?.preflight ?? []).filter(
        (p: { status: string }) => p.status === 'fail',
      );
      if (!fails.length) break;
      lastFail = fails
        .map((p: { id: string; message: string }) => `${p.id}: ${p.message}`)
        .join('; ');
    } else lastFail = `HTTP ${r.status}`;
    if (performance.now() - previewSince > 300_000)
      return {
        outcome: 'not started',
        detail: `${what}: a preflight check still failed after 5 minutes (${lastFail})`,
      };
    await sleep(2_000);
  }
  const previewMs = performance.now() - previewSince;
  const started = await call(
    b,
    await currentUserToken(b),
    'POST /jobs',
    '/api/capz/jobs',
    { method: 'POST', body: request, parse: true, ok: [201] },
  );
  if (started.status !== 201)
    return {
      outcome: 'refused',
      detail: `${what}: POST /jobs answered HTTP ${
        started.status
      } ${JSON.stringify(started.body).slice(0, 300)}`,
    };
  jobStarted = true;
  const id: string = started.body.id;
  const t0 = performance.now();
  log(`migration job ${id} started (${what})`);
  let job: any = started.body;
  let lastState = '';
  while (!FINAL_JOB_STATES.includes(job?.state)) {
    if (stopping && performance.now() < loadEnds)
      return { outcome: 'interrupted', detail: `job ${id} ${job?.state}` };
    if (performance.now() > loadEnds + JOB_AFTER_LOAD_MS)
      return {
        outcome: `not finished (${job?.state} at ${job?.currentStep ?? '?'})`,
        detail: `job ${id} (${what}) still ${job?.state} ${sec(
          JOB_AFTER_LOAD_MS,
        )} after the load ended; ${stepsDone(job)}`,
      };
    await sleep(2_000);
    const r = await call(
      b,
      await currentUserToken(b),
      'GET /jobs/{id}',
      `/api/capz/jobs/${encodeURIComponent(id)}`,
      { parse: true },
    );
    if (r.status === 200 && r.body) job = r.body;
    const state = `${job?.state} ${job?.currentStep ?? ''}`;
    if (state !== lastState) log(`migration job: ${state}`);
    lastState = state;
  }
  const finishedAt = performance.now();
  const duration =
    job.finishedAt && job.createdAt
      ? Date.parse(job.finishedAt) - Date.parse(job.createdAt)
      : finishedAt - t0;
  const afterLoad =
    finishedAt > loadEnds
      ? `; finished ${sec(finishedAt - loadEnds)} after the load ended`
      : '; finished under load';
  return {
    outcome: `${job.state} in ${sec(duration)}`,
    detail: `job ${id} (${what}), createdAt → finishedAt; ${stepsDone(
      job,
    )}; started at ${sec(
      JOB_START_MS + previewMs,
    )} into the soak once the preview's checks passed${afterLoad}${
      job.error ? `; error: ${String(job.error).slice(0, 300)}` : ''
    }`,
  };
}

const stepsDone = (job: any) =>
  `${(job?.steps ?? []).filter((s: any) => s.state === 'succeeded').length}/${
    (job?.steps ?? []).length
  } steps succeeded`;

// ---- the backend ----

/** The simulator's AKS discovery (its ARM endpoint and Entra ID) merged into the backend's config. */
function addDiscovery(configFile: string, discoveryFile: string): void {
  const config = parseYaml(readFileSync(configFile, 'utf8'));
  const discovery = parseYaml(readFileSync(discoveryFile, 'utf8'));
  config.capz.azureDiscovery = discovery.capz.azureDiscovery;
  writeFileSync(
    configFile,
    `# Written by packages/bench (soak): the benchmark backend with capz-sim's AKS discovery.\n${stringifyYaml(
      config,
      { lineWidth: 0 },
    )}`,
  );
}

/** Waits (at most three minutes) for a second in which the process used less than 50 ms of CPU. */
async function backendIdle(pid: number | undefined): Promise<number> {
  const started = performance.now();
  if (!pid) return 0;
  while (performance.now() - started < 180_000 && !stopping) {
    const before = cpuMs(pid);
    await sleep(1000);
    if (!(cpuMs(pid) - before >= 50)) break;
  }
  return performance.now() - started;
}

// ---- the report ----

interface Row {
  metric: string;
  value: string;
  goal: string;
  how: string;
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: repoRoot,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync(
      'git',
      ['status', '--porcelain', '--untracked-files=no'],
      { cwd: repoRoot, encoding: 'utf8' },
    ).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

/** Least-squares slope of (t, kib) in MiB per minute. */
function slopeMibPerMin(samples: Array<{ t: number; kib: number }>): number {
  if (samples.length < 3) return NaN;
  const n = samples.length;
  const mt = samples.reduce((a, s) => a + s.t, 0) / n;
  const mk = samples.reduce((a, s) => a + s.kib, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - mt) * (s.kib - mk);
    den += (s.t - mt) ** 2;
  }
  return den ? ((num / den) * 60_000) / 1024 : NaN;
}

async function main(): Promise<void> {
  const localDir = join(repoRoot, '.local', 'bench');
  mkdirSync(localDir, { recursive: true });
  const runStarted = performance.now();
  const startedIso = new Date().toISOString().slice(0, 16);
  const loadAtStart = loadavg();
  log(
    `soak: N=${N} clusters, ${USERS} users, ${MINUTES} min, ${CPS} changes/s; ${availableParallelism()} cores, load average ${loadAtStart
      .map(l => l.toFixed(1))
      .join(' ')}`,
  );
  const rows: Row[] = [];
  const row = (metric: string, value: string, goal: string, how: string) => {
    rows.push({ metric, value, goal, how });
  };

  startingCluster = true;
  let info: ClusterInfo;
  try {
    // The machine's cores, as the read-path benchmark (tests use one: StartOptions.goMaxProcs).
    info = await startManagementCluster({
      name: args.name!,
      ephemeral: true,
      goMaxProcs: 0,
    });
  } finally {
    startingCluster = false;
  }
  cleanups.push({
    what: `the management cluster ${info.name}`,
    fn: () => stopManagementCluster(info),
  });
  const simState = join(
    process.env.CAPZ_STATE_DIR ?? join(repoRoot, '.local'),
    'capz-sim',
    info.name,
  );
  let ok = false;
  try {
    checkStopping();
    log(`seeding ${N} clusters (${CONCURRENCY} at a time)`);
    const seeded = await seedClusters(info, {
      clusters: N,
      pools: P,
      namespaces: NAMESPACES,
      concurrency: CONCURRENCY,
      onProgress: done => log(`seeded ${done}/${N}`),
    });
    log(`seeded ${seeded.objects} objects in ${sec(seeded.ms)}`);
    checkStopping();

    // capz-sim for the legacy cluster only: its state of an earlier run would be restored, so it starts afresh.
    rmSync(simState, { recursive: true, force: true });
    const simLog = join(localDir, `capz-sim-${info.name}.log`);
    const out = openSync(simLog, 'w');
    const sim = spawn(
      process.execPath,
      [
        join(repoRoot, 'packages', 'capz-sim', 'src', 'cli.ts'),
        'run',
        '--cluster',
        info.name,
        '--scenarios',
        'legacy-to-migrate',
        '--namespace-prefix',
        SIM_PREFIX,
        '--operation-ms',
        String(OPERATION_MS),
        '--backend-name',
        MC,
      ],
      { cwd: repoRoot, detached: true, stdio: ['ignore', out, out] },
    );
    closeSync(out);
    cleanups.push({
      what: 'capz-sim',
      fn: async () => {
        await stopChild(sim);
        rmSync(simState, { recursive: true, force: true });
      },
    });
    log(
      `capz-sim (scenario legacy-to-migrate, namespaces ${SIM_PREFIX}*); log: ${simLog}`,
    );
    const discoveryFile = join(simState, 'app-config.azure-discovery.yaml');
    const simSince = Date.now();
    while (!existsSync(discoveryFile)) {
      checkStopping();
      if (sim.exitCode !== null)
        throw new Error(`capz-sim exited with ${sim.exitCode}; see ${simLog}`);
      if (Date.now() - simSince > 120_000)
        throw new Error(
          `capz-sim wrote no discovery config in 2 minutes; see ${simLog}`,
        );
      await sleep(200);
    }

    const port = await listenPort();
    const token = randomBytes(24).toString('hex');
    const configFile = join(localDir, 'app-config.bench-soak.yaml');
    const logFile = join(localDir, 'backend-soak.log');
    writeCapzConfig(configFile, info, port, token);
    addDiscovery(configFile, discoveryFile);
    log(`starting the CAPZ backend on port ${port}; log: ${logFile}`);
    const b = startCapzBackendUnwatched(
      repoRoot,
      configFile,
      port,
      token,
      info,
      logFile,
    );
    cleanups.push({ what: 'the CAPZ backend', fn: () => stopBackend(b) });
    const up = await waitUntil(
      b,
      'the backend to answer /api/capz/health',
      async () => {
        checkStopping();
        return (await fetch(`${b.baseUrl}/api/capz/health`)).ok;
      },
      300_000,
    );
    const synced = await waitUntil(
      b,
      'the bench watch to sync',
      async () => {
        checkStopping();
        const res = await fetchJson(b, '/api/capz/management-clusters');
        return (
          res.status === 200 &&
          res.body?.items?.find((c: { name: string }) => c.name === MC)?.watch
            ?.synced === true
        );
      },
      600_000,
      100,
    );
    log(
      `backend up in ${sec(up - b.spawnedAt)}, synced ${sec(
        synced - up,
      )} later`,
    );
    const pid = resolvePid(b);
    const idleMs = await backendIdle(pid);
    checkStopping();
    log(`backend idle after ${sec(idleMs)}`);
    await refreshUserToken(b);

    const listener = await SignalListener.connect(b.baseUrl);
    cleanups.push({
      what: 'the signals listener',
      fn: async () => listener.close(),
    });
    await sleep(300); // the subscription reaches the server

    // ---- the soak ----
    const rss: Array<{ t: number; kib: number; apiKib: number }> = [];
    const t0 = performance.now();
    const sample = () =>
      rss.push({
        t: performance.now() - t0,
        kib: pid ? rssKib(pid) : NaN,
        apiKib: rssKib(info.pids.apiserver),
      });
    sample();
    const cpuAtStart = pid ? cpuMs(pid) : NaN;
    const sampler = setInterval(sample, RSS_SAMPLE_MS);
    cleanups.push({
      what: 'the RSS sampler',
      fn: async () => clearInterval(sampler),
    });
    const loadEnds = t0 + SOAK_MS;
    log(`soak: ${USERS} users and ${CPS} changes/s for ${MINUTES} min`);
    const seededRefs: ClusterPlace[] = seeded.clusters.map(c => ({
      managementCluster: MC,
      namespace: c.namespace,
      name: c.name,
    }));
    const job = migrationJob(b, loadEnds);
    const progress = setInterval(() => {
      const reqs = [...routes.values()].reduce((a, s) => a + s.requests, 0);
      const errs = [...routes.values()].reduce((a, s) => a + s.errors, 0);
      log(
        `${sec(
          performance.now() - t0,
        )}: ${reqs} requests (${errs} errors), pushes ${pushes.received}/${
          pushes.expected
        } (${pushes.lost} lost), backend RSS ${mib(
          rss[rss.length - 1]?.kib ?? NaN,
        )}`,
      );
    }, 30_000);
    cleanups.push({
      what: 'the progress log',
      fn: async () => clearInterval(progress),
    });
    const [pages] = await Promise.all([
      Promise.all(
        Array.from({ length: USERS }, (_, i) =>
          simulatedUser(b, i, loadEnds, seededRefs),
        ),
      ),
      changeLoop(info, listener, seeded.clusters, loadEnds),
    ]);
    const loadMs = performance.now() - t0;
    sample();
    clearInterval(sampler);
    clearInterval(progress);
    const cpuUsed = (pid ? cpuMs(pid) : NaN) - cpuAtStart;
    const backendExited =
      b.child.exitCode !== null || !Number.isFinite(rss[rss.length - 1].kib);
    checkStopping();
    if (performance.now() < loadEnds + JOB_AFTER_LOAD_MS)
      log('load ended; following the migration job to its end');
    const jobOutcome = await job;
    checkStopping();

    // ---- the report ----
    const start = rss[0];
    const minute = rss.find(s => s.t >= 60_000) ?? rss[rss.length - 1];
    const end = rss[rss.length - 1];
    const afterMinute = rss.filter(s => s.t >= 60_000);
    const maxKib = Math.max(...rss.map(s => s.kib).filter(Number.isFinite));
    const growth = end.kib - minute.kib;
    const slope = slopeMibPerMin(afterMinute);
    const totalRequests = [...routes.values()].reduce(
      (a, s) => a + s.requests,
      0,
    );
    const totalErrors = [...routes.values()].reduce((a, s) => a + s.errors, 0);
    const pageCount = pages.reduce((a, p) => a + p, 0);

    for (const [route, s] of routes)
      row(
        route,
        `${s.errors} errors / ${s.requests} requests; p50 ${ms(
          median(s.times),
        )}, p99 ${ms(percentile(s.times, 99))}`,
        '0 errors',
        `${
          JOB_ROUTES.includes(route)
            ? 'the migration job (below), as its page asks'
            : 'the simulated users'
        }; wall time to the last body byte of the answered requests, max ${ms(
          s.times.length ? Math.max(...s.times) : NaN,
        )}${
          s.firstErrors.length
            ? `; first errors: ${s.firstErrors.join(' · ')}`
            : ''
        }`,
      );
    row(
      'Requests made',
      `${totalRequests} (${(totalRequests / (loadMs / 1000)).toFixed(
        1,
      )}/s), ${totalErrors} errors`,
      '0 errors',
      `${pageCount} cluster-page views by ${USERS} users over ${sec(
        loadMs,
      )} (each: /clusters, tree, timeline of the last 6 h, active jobs, one object's YAML; think time ${
        THINK_MS * 0.5
      }-${
        THINK_MS * 1.5
      } ms), with a guest user's token; ${goneAnswers} answers 404 on the migration's source cluster ${
        LEGACY.namespace
      }/${
        LEGACY.name
      } once the job had started, not counted as errors (it deletes that cluster)`,
    );
    row(
      'Pushes expected / received / lost',
      `${pushes.expected} / ${pushes.received} / ${pushes.lost}`,
      '0 lost',
      `${pushes.attempted} changes made at ${CPS}/s (${
        pushes.patchErrors
      } PATCHes failed, not expected; ${
        pushes.skipped
      } skipped: every picked cluster awaited a push); a change is lost when no capz:changes push names its cluster within ${sec(
        PUSH_BOUND_MS,
      )}; changes alternate an annotation of a random Cluster with the Ready condition of a random healthy ManagedCluster (status subresource: its message, every other one flipping True/False)${
        pushes.lostExamples.length
          ? `; lost e.g. ${pushes.lostExamples.join(', ')}`
          : ''
      }${pushes.listenerClosed ? '; the signals WebSocket had CLOSED' : ''}`,
    );
    row(
      'Change → push p50 / p99 / max',
      `${ms(median(pushes.latencies))} / ${ms(
        percentile(pushes.latencies, 99),
      )} / ${ms(
        pushes.latencies.length ? Math.max(...pushes.latencies) : NaN,
      )}`,
      '',
      'PATCH sent → first push naming its cluster, on /api/signals (WebSocket, guest)',
    );
    row(
      'Backend RSS: start / after 1 min / end',
      `${mib(start.kib)} / ${mib(minute.kib)} / ${mib(end.kib)}`,
      'no growth beyond noise after the first minute',
      `VmRSS of the serving node process (pid ${
        pid ?? '?'
      }), sampled every ${sec(
        RSS_SAMPLE_MS,
      )}: start = synced and idle, before the load; "after 1 min" = the first sample at ≥ 60 s (${sec(
        minute.t,
      )}); end = when the load stopped; end − 1 min ${
        growth >= 0 ? '+' : '−'
      }${mib(Math.abs(growth))}, least-squares trend after the first minute ${
        Number.isFinite(slope)
          ? `${slope >= 0 ? '+' : ''}${slope.toFixed(1)} MiB/min`
          : 'n/a (under 3 samples)'
      }, max ${mib(maxKib)}${
        backendExited
          ? `; the backend process EXITED during the soak: see ${logFile}`
          : ''
      }`,
    );
    row(
      'Backend CPU during the load',
      `${((cpuUsed / loadMs) * 100).toFixed(0)}% of a core`,
      '',
      `${sec(cpuUsed)} of utime+stime over ${sec(loadMs)}`,
    );
    row(
      'API server RSS: start / end',
      `${mib(start.apiKib)} / ${mib(end.apiKib)}`,
      '',
      'VmRSS of kube-apiserver',
    );
    row('Migration job', jobOutcome.outcome, 'succeeded', jobOutcome.detail);

    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    const loadAtEnd = loadavg();
    const table = [
      `## Soak benchmark: N=${N} clusters, ${USERS} users, ${MINUTES} min, ${CPS} changes/s`,
      '',
      `Parameters: N=${N} clusters × P=${P} pools over ${Math.min(
        NAMESPACES,
        N,
      )} namespaces = ${
        seeded.objects
      } seeded objects (static; about 5% with a blocked ManagedCluster), the real CAPZ backend (packages/backend, in-memory SQLite, without the CLI's file watcher), plus capz-sim's scenario legacy-to-migrate (namespace ${
        LEGACY.namespace
      }, simulated controllers, operations ${OPERATION_MS} ms). ` +
        `Machine: ${availableParallelism()} cores (${cpu}), ${(
          totalmem() /
          2 ** 30
        ).toFixed(0)} GiB; load average ${loadAtStart[0].toFixed(
          1,
        )} at the start, ${loadAtEnd[0].toFixed(1)} at the end; Node ${
          process.version
        }. Commit ${gitCommit()}; run ${startedIso}Z, ${sec(
          performance.now() - runStarted,
        )} in all (seeding ${sec(seeded.ms)}, backend sync ${sec(
          synced - up,
        )}).`,
      '',
      '| metric | value | goal | how |',
      '|---|---|---|---|',
      ...rows.map(
        r =>
          `| ${r.metric} | ${r.value} | ${r.goal} | ${r.how.replace(
            /\|/g,
            '\\|',
          )} |`,
      ),
      '',
    ].join('\n');
    const outFile = join(localDir, `soak-${N}.md`);
    writeFileSync(outFile, table);
    process.stdout.write(`\n${table}\n`);
    log(`written to ${outFile}`);
    ok = true;
  } finally {
    stopping = true;
    await cleanup();
    log('stopped everything this run started');
    if (!ok) process.exitCode = 1;
  }
}

main().catch(e => {
  if (stopping && (e as Error).message === 'interrupted') {
    log('interrupted');
    process.exitCode = 130;
    return;
  }
  process.stderr.write(`[bench] soak failed: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
