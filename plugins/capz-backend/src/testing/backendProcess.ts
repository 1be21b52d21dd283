/**
 * A real Backstage backend (packages/backend/src/index.ts) as a child process, for the integration tests that must
 * cross process boundaries: a backend killed mid-job and started again, two replicas on one database.
 *
 * Started the way `backstage-cli package start` starts it (cli-module-build runner/runBackend: node with the CLI's
 * TypeScript transform, cwd packages/backend), minus the file watcher and the IPC channel, with a config file
 * generated per process: its own port, the test's database, the test's management cluster and whatever else the
 * test needs (short job leases, Azure discovery). Its output goes to a log file under the test reports directory.
 *
 * Tests that start backends dozens of times (the crash tests) use the lighter entry (`entry: 'capz'`, testBackend.ts:
 * the CAPZ plugin with auth only, under the CLI transform's CommonJS half, testTransform.cjs) and may prepare the
 * next process while the current one runs (prepareBackend). Every backend gets Node's compile cache.
 */
import { ChildProcess, spawn } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Test-only helpers (used by *.integration.test.ts alone): the dev dependency is enough.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { listenPort, repoRoot as repo } from '@internal/mgmt-cluster';
import { until } from './realCluster';

const backendDir = join(repo, 'packages', 'backend');

/** The lighter backend (entry `capz`) and its TypeScript transform (testBackend.ts, testTransform.cjs). */
const testBackendEntry = require.resolve('./testBackend');
const testTransform = require.resolve('./testTransform.cjs');

/**
 * Node's compile cache for the backends' modules (NODE_COMPILE_CACHE), shared by every test process: safe to share
 * (docs/job-guarantees.md#any-crash-point).
 */
const compileCacheDir =
  process.env.NODE_COMPILE_CACHE ??
  join(tmpdir(), 'capz-backstage-node-compile-cache');

/** Where scripts/test.sh collects reports; the backends' logs go to `backends/` in it. */
export const reportsDir =
  process.env.CAPZ_REPORTS_DIR ?? join(repo, '.local', 'reports');

/** SQLite files in a directory (survives restarts of the process), or a PostgreSQL server with a per-test prefix. */
export type BackendDatabase =
  | { client: 'better-sqlite3'; directory: string }
  /** `prefix` names the databases (`<prefix>capz`, `<prefix>auth`, ...): fresh per test, shared by its replicas. */
  | { client: 'pg'; connection: string; prefix: string };

export interface BackendProcessOptions {
  /** Names the log file; a restart gets `-2`, `-3`, ... after it. */
  name: string;
  managementCluster: {
    name: string;
    url: string;
    caPem: string;
    token: string;
  };
  database: BackendDatabase;
  /** Merged over the generated `capz` section (e.g. `{ jobs: { leaseSeconds: 2 }, azureDiscovery: {...} }`). */
  capz?: Record<string, unknown>;
  /** Config files read between app-config.yaml and the generated one (e.g. capz-sim's app-config.azure-discovery.yaml). */
  configFiles?: string[];
  /** Extra environment (e.g. CAPZ_JOBS_FAULT). */
  env?: Record<string, string>;
  /**
   * The process may end before it is ready (a crash test's fault can fire as soon as the job engine resumes a job):
   * then the start resolves anyway, with `exited` already settled, instead of failing.
   */
  mayExitDuringStart?: boolean;
  /** How long to wait for /api/capz/health (a cold start compiles the backend: ~10-30 s on this machine). */
  startTimeoutMs?: number;
  /** The first port to try instead of a picked one (a test holds it taken). */
  port?: number;
  /**
   * Which backend: `backend` (default) is packages/backend, every plugin the product installs; `capz` is the lighter
   * testBackend.ts (the CAPZ plugin, auth and the guest sign-in), for tests that start backends many times.
   */
  entry?: 'backend' | 'capz';
}

export interface BackendResponse<T = any> {
  status: number;
  body: T;
}

export interface BackendProcess {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly logFile: string;
  /** How long it took from spawn to a working user token. */
  readonly startMs: number;
  /**
   * When each phase of the start ended, in ms after the spawn (those seen before it was ready or died): `config`
   * (Node started and the backend's modules loaded, "Loading config"), `plugins` (services made, plugins start
   * initializing), `capz` (the CAPZ plugin initializing), `initialized` (every plugin initialized), `health`
   * (/api/capz/health answers), `token` (a guest user token issued). A prepared backend's count from its start(),
   * and `preloaded` says when it had loaded its modules, counted from its spawn.
   */
  readonly phases: Readonly<Record<string, number>>;
  /** Resolves when the process has exited (a fault the test set, a crash, or kill()). */
  readonly exited: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
  }>;
  /** A JSON request to `/api/<path>` as the guest user. */
  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<BackendResponse<T>>;
  /** The log so far. */
  log(): string;
  /** Stops it (SIGTERM: shutdown hooks run; SIGKILL: a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const starts = new Map<string, number>();

/** A user's sign-in as the app asks for it: the token and identity a sign-in provider's refresh issues. */
export async function signIn(
  url: string,
  provider: string,
): Promise<{
  token: string;
  identity: { userEntityRef: string; ownershipEntityRefs: string[] };
}> {
  // The proxy providers (guest, demo-team-member) want X-Requested-With, as the app sends it.
  const refresh = await httpJson(
    `${url}/api/auth/${provider}/refresh`,
    'GET',
    undefined,
    { 'X-Requested-With': 'XMLHttpRequest' },
  );
  const identity = refresh.body?.backstageIdentity;
  if (refresh.status !== 200 || !identity?.token)
    throw new Error(
      `${provider} sign-in: HTTP ${refresh.status} ${JSON.stringify(
        refresh.body,
      )}`,
    );
  return { token: identity.token, identity: identity.identity };
}

/** One HTTP request with a JSON body; resolves with status and parsed body (text if not JSON). */
export function httpJson(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<BackendResponse> {
  return new Promise((res, rej) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent: false,
        headers: {
          Accept: 'application/json',
          ...headers,
          ...(payload
            ? {
                'Content-Type': 'application/json',
                'Content-Length': Buffer.byteLength(payload),
              }
            : {}),
        },
        timeout: 60_000,
      },
      r => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', d => (text += d));
        r.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          res({ status: r.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${method} ${url}: no answer in 60 s`)),
    );
    req.on('error', rej);
    if (payload) req.write(payload);
    req.end();
  });
}

function databaseConfig(db: BackendDatabase): Record<string, unknown> {
  if (db.client === 'better-sqlite3') {
    mkdirSync(db.directory, { recursive: true });
    return {
      client: 'better-sqlite3',
      connection: { directory: db.directory },
    };
  }
  return { client: 'pg', connection: db.connection, prefix: db.prefix };
}

/** The PostgreSQL server scripts/test.sh started (BACKSTAGE_TEST_DATABASE_POSTGRES<major>_CONNECTION_STRING). */
export function postgresConnection(
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const key = Object.keys(env)
    .filter(k =>
      /^BACKSTAGE_TEST_DATABASE_POSTGRES\d+_CONNECTION_STRING$/.test(k),
    )
    .sort((a, b) => Number(b.match(/\d+/)![0]) - Number(a.match(/\d+/)![0]))[0];
  return key ? env[key] : undefined;
}

/** The port the backend was given was taken before it could bind it (it logs EADDRINUSE and keeps running). */
class PortTakenError extends Error {}

/**
 * The test file that starts a backend, as a file name part (`day2-gitops` for `day2/gitops.real-controllers.test.ts`):
 * `--runInBand` runs every file in one process, and each file gets a fresh module registry (a fresh `starts`), so
 * without it the next file's `main` overwrote the last one's log.
 */
function testFileLabel(): string {
  const path = (
    globalThis as { expect?: { getState?(): { testPath?: string } } }
  ).expect?.getState?.().testPath;
  if (!path) return '';
  const rel = path.split(/[\\/]src[\\/]/).pop() ?? path;
  return rel
    .replace(/\.(integration|real-controllers)?\.?test\.ts$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-');
}

/** The log file name of the next start of a backend of this name: `-2`, `-3`, ... for restarts. */
function nextLabel(name: string): string {
  const seq = (starts.get(name) ?? 0) + 1;
  starts.set(name, seq);
  const file = testFileLabel();
  const label = file ? `${file}.${name}` : name;
  return seq === 1 ? label : `${label}-${seq}`;
}

/**
 * Starts a backend and resolves once it serves /api/capz/health on the port it was given and issued a guest user
 * token. A port taken between the pick and the bind gets the start retried on another one: a Backstage backend
 * that cannot listen logs `EADDRINUSE` as an unhandled rejection and keeps running, and its test would otherwise
 * talk to whichever process holds the port (a CI run's 401s).
 */
export async function startBackend(
  o: BackendProcessOptions,
): Promise<BackendProcess> {
  return startLabelled(o, nextLabel(o.name), []);
}

async function startLabelled(
  o: BackendProcessOptions,
  label: string,
  taken: number[],
): Promise<BackendProcess> {
  for (;;) {
    try {
      const port = taken.length === 0 && o.port ? o.port : await listenPort();
      return await awaitReady(spawnBackend(o, label, port, taken, false), o);
    } catch (e) {
      if (!(e instanceof PortTakenError) || taken.length >= 3) throw e;
    }
  }
}

/** A backend process that has loaded its modules and waits to be told to start (entry `capz` only). */
export interface PreparedBackend {
  readonly pid: number;
  readonly logFile: string;
  /**
   * Starts it with this extra environment (e.g. CAPZ_JOBS_FAULT) and resolves as startBackend does; `startMs` and
   * `phases` count from here. A port taken meanwhile gets a fresh process on another one.
   */
  start(
    env?: Record<string, string>,
    options?: Pick<BackendProcessOptions, 'mayExitDuringStart'>,
  ): Promise<BackendProcess>;
  /** Ends it unstarted (SIGKILL) and waits for the exit; nothing when it was started. */
  discard(): Promise<void>;
}

/**
 * Spawns a backend of the lighter entry that loads its modules (most of a start's CPU) and then waits: a test that
 * restarts backends one after another prepares the next while the current one runs. The process touches neither
 * the database nor its port before start().
 */
export async function prepareBackend(
  o: BackendProcessOptions,
): Promise<PreparedBackend> {
  if ((o.entry ?? 'backend') !== 'capz')
    throw new Error('prepareBackend needs the lighter entry (entry: capz)');
  const label = nextLabel(o.name);
  const port = o.port ?? (await listenPort());
  const spawned = spawnBackend(o, label, port, [], true);
  let used = false;
  return {
    pid: spawned.child.pid!,
    logFile: spawned.logFile,
    async start(env = {}, options = {}) {
      used = true;
      const withEnv = { ...o, ...options, env: { ...o.env, ...env } };
      try {
        return await awaitReady(spawned, withEnv, env);
      } catch (e) {
        if (!(e instanceof PortTakenError)) throw e;
        return startLabelled(withEnv, label, [port]);
      }
    },
    async discard() {
      if (used) return;
      used = true;
      spawned.child.kill('SIGKILL');
      await spawned.exited;
    },
  };
}

interface Spawned {
  label: string;
  port: number;
  url: string;
  taken: number[];
  child: ChildProcess;
  logFile: string;
  /** When the start began (the spawn, or start() of a prepared process). */
  t0: number;
  phases: Record<string, number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  closed: Promise<void>;
  hasExited: () => boolean;
  log: ReturnType<typeof createWriteStream>;
  readLog: () => string;
}

/** The phases' markers in the backend's output (see BackendProcess.phases). */
const PHASE_MARKERS: Array<[string, string]> = [
  ['loaded', '[testBackend] modules loaded'],
  ['config', 'Loading config from'],
  ['plugins', 'Plugin initialization started'],
  ['capz', 'management cluster(s) configured'],
  ['initialized', 'Plugin initialization complete'],
];

function spawnBackend(
  o: BackendProcessOptions,
  label: string,
  port: number,
  taken: number[],
  awaitStart: boolean,
): Spawned {
  const t0 = Date.now();
  const dir = join(reportsDir, 'backends');
  mkdirSync(dir, { recursive: true });
  // A retry gets files of its own: the first attempt's output may still be arriving in the first.
  const name = `${label}.${process.pid}${
    taken.length ? `.retry${taken.length}` : ''
  }`;
  const logFile = join(dir, `${name}.log`);
  const configFile = join(dir, `${name}.app-config.yaml`);
  const url = `http://127.0.0.1:${port}`;
  const config = {
    // No copy of the built app's assets into the database on every start (app-backend's static fallback cache).
    app: { baseUrl: url, disableStaticFallbackCache: true },
    backend: {
      baseUrl: url,
      listen: { port, host: '127.0.0.1' },
      cors: { origin: url },
      database: databaseConfig(o.database),
    },
    auth: {
      providers: { guest: { dangerouslyAllowOutsideDevelopment: true } },
    },
    // No catalog files to read: the backends under test only need the CAPZ plugin, and less work starts faster.
    catalog: {
      locations: [],
      providers: {
        capz: { defaultOwner: 'group:default/platform', refreshSeconds: 3600 },
      },
    },
    capz: {
      managementClusters: [
        {
          name: o.managementCluster.name,
          url: o.managementCluster.url,
          caData: o.managementCluster.caPem,
          serviceAccountToken: o.managementCluster.token,
        },
      ],
      ...o.capz,
    },
  };
  // YAML is a superset of JSON: the generated file is plain JSON.
  writeFileSync(configFile, JSON.stringify(config, null, 2));

  const log = createWriteStream(logFile, { flags: 'w' });
  for (const p of taken)
    log.write(
      `[backendProcess] port ${p} was taken before the backend bound it; started again on ${port}\n`,
    );
  const light = (o.entry ?? 'backend') === 'capz';
  const transform = light
    ? testTransform
    : require.resolve('@backstage/cli-node/config/nodeTransform.cjs', {
        paths: [backendDir],
      });
  const entry = light ? testBackendEntry : 'src/index.ts';
  const child: ChildProcess = spawn(
    process.execPath,
    [
      // Source maps cost the lighter backend a tenth of its start (Node reads every module's map as it loads it);
      // its transform still inlines them, for a run with NODE_OPTIONS=--enable-source-maps.
      ...(light ? [] : ['--enable-source-maps']),
      '--require',
      transform,
      entry,
      ...[
        '../../app-config.yaml',
        ...(o.configFiles ?? []),
        configFile,
      ].flatMap(f => ['--config', f]),
    ],
    {
      cwd: backendDir,
      env: {
        ...process.env,
        // Jest sets NODE_ENV=test; the backend runs as `backstage-cli package start` runs it.
        NODE_ENV: 'development',
        ESBK_TSCONFIG_PATH: join(repo, 'tsconfig.json'),
        // V8's compiled code of the modules, kept on disk across starts.
        NODE_COMPILE_CACHE: compileCacheDir,
        ...(awaitStart ? { CAPZ_TEST_BACKEND_AWAIT_START: '1' } : {}),
        ...o.env,
      },
      stdio: [awaitStart ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  let exitedFlag = false;
  const s: Spawned = {
    label,
    port,
    url,
    taken,
    child,
    logFile,
    t0,
    phases: {},
    log,
    exited: new Promise(res =>
      child.once('exit', (code, signal) => {
        log.write(`\n[backendProcess] exited: code ${code} signal ${signal}\n`);
        res({ code, signal });
      }),
    ),
    // Closed once the child's output has all arrived (stdio closes after the exit).
    closed: new Promise<void>(res =>
      child.once('close', () => {
        log.end();
        res();
      }),
    ),
    hasExited: () => exitedFlag,
    readLog: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
  };
  void s.exited.then(() => (exitedFlag = true));
  // The phases as the output arrives (not as the log file is polled): a marker may straddle two chunks.
  let recent = '';
  const watchPhases = (d: Buffer) => {
    recent = (recent + d.toString('utf8')).slice(-4096);
    for (const [phase, marker] of PHASE_MARKERS)
      if (!(phase in s.phases) && recent.includes(marker))
        s.phases[phase] = Date.now() - s.t0;
  };
  child.stdout!.on('data', watchPhases);
  child.stderr!.on('data', watchPhases);
  // A prepared process whose test ends without starting it sees its stdin close and exits.
  child.stdin?.on('error', () => undefined);
  return s;
}

/** Starts a prepared process (`env` sent to it) or waits for a spawned one, until it serves and signs in. */
async function awaitReady(
  s: Spawned,
  o: BackendProcessOptions,
  startEnv?: Record<string, string>,
): Promise<BackendProcess> {
  const { label, port, url, child, logFile, phases, exited, readLog } = s;
  if (startEnv) {
    // The time spent loading before start() is not the start's: its phases count from here.
    if (phases.loaded !== undefined) phases.preloaded = phases.loaded;
    delete phases.loaded;
    s.t0 = Date.now();
    if (!s.hasExited())
      child.stdin!.end(`${JSON.stringify({ env: startEnv })}\n`);
  }
  const t0 = s.t0;
  const tail = () => readLog().split('\n').slice(-40).join('\n');

  let token = '';
  try {
    // `until` retries on a throw: an end of the wait that is not "ready" is returned instead.
    const outcome = await until(
      `backend ${label} to serve ${url}/api/capz/health`,
      async () => {
        if (s.hasExited()) return 'exited';
        const text = readLog();
        if (/EADDRINUSE/.test(text)) return 'port taken';
        // Only this process's own "Listening on" makes an answer on the port its answer.
        if (!text.includes(`Listening on 127.0.0.1:${port}`)) return false;
        const health = await httpJson(`${url}/api/capz/health`, 'GET').catch(
          () => ({ status: 0 }),
        );
        if (health.status !== 200) return false;
        phases.health = Date.now() - t0;
        return 'ready';
      },
      o.startTimeoutMs ?? 180_000,
    );
    // A backend that ends on a taken port (packages/backend does) has said why by the time its output closes.
    if (outcome === 'exited') await s.closed;
    if (outcome === 'port taken' || /EADDRINUSE/.test(readLog())) {
      s.taken.push(port);
      throw new PortTakenError(`port ${port} was taken`);
    }
    if (outcome === 'exited') throw new Error('exited');
    token = (await signIn(url, 'guest')).token;
    phases.token = Date.now() - t0;
  } catch (e) {
    // A request cut off by the process dying ("socket hang up") can come before its exit event: give the exit up
    // to 5 s to arrive before deciding whether it ended by itself.
    await Promise.race([exited, new Promise(r => setTimeout(r, 5000).unref())]);
    const endedByItself = s.hasExited();
    if (!s.hasExited()) child.kill('SIGKILL');
    await exited;
    if (e instanceof PortTakenError) throw e;
    if (!(endedByItself && o.mayExitDuringStart))
      throw new Error(
        `${(e as Error).message}\n--- last lines of ${logFile}:\n${tail()}`,
      );
  }
  const startMs = Date.now() - t0;
  if (!s.log.writableEnded)
    s.log.write(`\n[backendProcess] ready in ${startMs} ms\n`);

  return {
    name: label,
    url,
    pid: child.pid!,
    logFile,
    startMs,
    phases,
    exited,
    log: readLog,
    request: (method, path, body) =>
      httpJson(`${url}/api/${path.replace(/^\//, '')}`, method, body, {
        Authorization: `Bearer ${token}`,
      }),
    async kill(signal = 'SIGTERM') {
      if (!s.hasExited()) child.kill(signal);
      // A SIGTERM that does not end it within 30 s (a hung shutdown hook) becomes a SIGKILL.
      const timer = setTimeout(
        () => !s.hasExited() && child.kill('SIGKILL'),
        30_000,
      );
      await exited;
      clearTimeout(timer);
    },
  };
}
