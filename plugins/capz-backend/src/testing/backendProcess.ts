/**
 * A real Backstage backend (packages/backend/src/index.ts) as a child process, for the integration tests that must
 * cross process boundaries: a backend killed mid-job and started again, two replicas on one database.
 *
 * Started the way `backstage-cli package start` starts it (cli-module-build runner/runBackend: node with the CLI's
 * TypeScript transform, cwd packages/backend), minus the file watcher and the IPC channel, with a config file
 * generated per process: its own port, the test's database, the test's management cluster and whatever else the
 * test needs (short job leases, Azure discovery). Its output goes to a log file under the test reports directory.
 */
import { ChildProcess, spawn } from 'node:child_process';
import {
  createWriteStream,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
// Test-only helpers (used by *.integration.test.ts alone): the dev dependency is enough.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { listenPort, repoRoot as repo } from '@internal/mgmt-cluster';
import { until } from './realCluster';

const backendDir = join(repo, 'packages', 'backend');

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
 * Starts a backend and resolves once it serves /api/capz/health on the port it was given and issued a guest user
 * token. A port taken between the pick and the bind gets the start retried on another one: a Backstage backend
 * that cannot listen logs `EADDRINUSE` as an unhandled rejection and keeps running, and its test would otherwise
 * talk to whichever process holds the port (a CI run's 401s).
 */
export async function startBackend(
  o: BackendProcessOptions,
): Promise<BackendProcess> {
  const seq = (starts.get(o.name) ?? 0) + 1;
  starts.set(o.name, seq);
  // The pid keeps two test processes' backends of the same name (the lane's `main` and the integration stage's)
  // from writing one file.
  const label = seq === 1 ? o.name : `${o.name}-${seq}`;
  const taken: number[] = [];
  for (;;) {
    try {
      const port = taken.length === 0 && o.port ? o.port : await listenPort();
      return await startOnPort(o, label, port, taken);
    } catch (e) {
      if (!(e instanceof PortTakenError) || taken.length >= 3) throw e;
    }
  }
}

async function startOnPort(
  o: BackendProcessOptions,
  label: string,
  port: number,
  taken: number[],
): Promise<BackendProcess> {
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
  const transform = require.resolve(
    '@backstage/cli-node/config/nodeTransform.cjs',
    { paths: [backendDir] },
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      '--require',
      transform,
      'src/index.ts',
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
        ...o.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
  }>(res =>
    child.once('exit', (code, signal) => {
      log.write(`\n[backendProcess] exited: code ${code} signal ${signal}\n`);
      res({ code, signal });
    }),
  );
  // Closed once the child's output has all arrived (stdio closes after the exit).
  const closed = new Promise<void>(res =>
    child.once('close', () => {
      log.end();
      res();
    }),
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const readLog = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const tail = () => readLog().split('\n').slice(-40).join('\n');

  let token = '';
  try {
    // `until` retries on a throw: an end of the wait that is not "ready" is returned instead.
    const outcome = await until(
      `backend ${label} to serve ${url}/api/capz/health`,
      async () => {
        if (hasExited) return 'exited';
        const text = readLog();
        if (/EADDRINUSE/.test(text)) return 'port taken';
        // Only this process's own "Listening on" makes an answer on the port its answer.
        if (!text.includes(`Listening on 127.0.0.1:${port}`)) return false;
        const health = await httpJson(`${url}/api/capz/health`, 'GET').catch(
          () => ({ status: 0 }),
        );
        return health.status === 200 && 'ready';
      },
      o.startTimeoutMs ?? 180_000,
    );
    // A backend that ends on a taken port (packages/backend does) has said why by the time its output closes.
    if (outcome === 'exited') await closed;
    if (outcome === 'port taken' || /EADDRINUSE/.test(readLog())) {
      taken.push(port);
      throw new PortTakenError(`port ${port} was taken`);
    }
    if (outcome === 'exited') throw new Error('exited');
    // The guest provider's refresh issues a user token (the proxy providers want X-Requested-With, as the app sends).
    const refresh = await httpJson(
      `${url}/api/auth/guest/refresh`,
      'GET',
      undefined,
      { 'X-Requested-With': 'XMLHttpRequest' },
    );
    token = refresh.body?.backstageIdentity?.token;
    if (refresh.status !== 200 || !token)
      throw new Error(
        `guest sign-in: HTTP ${refresh.status} ${JSON.stringify(refresh.body)}`,
      );
  } catch (e) {
    // A request cut off by the process dying ("socket hang up") can come before its exit event: give the exit up
    // to 5 s to arrive before deciding whether it ended by itself.
    await Promise.race([exited, new Promise(r => setTimeout(r, 5000).unref())]);
    const endedByItself = hasExited;
    if (!hasExited) child.kill('SIGKILL');
    await exited;
    if (e instanceof PortTakenError) throw e;
    if (!(endedByItself && o.mayExitDuringStart))
      throw new Error(
        `${(e as Error).message}\n--- last lines of ${logFile}:\n${tail()}`,
      );
  }
  const startMs = Date.now() - t0;
  if (!log.writableEnded)
    log.write(`\n[backendProcess] ready in ${startMs} ms\n`);

  return {
    name: label,
    url,
    pid: child.pid!,
    logFile,
    startMs,
    exited,
    log: readLog,
    request: (method, path, body) =>
      httpJson(`${url}/api/${path.replace(/^\//, '')}`, method, body, {
        Authorization: `Bearer ${token}`,
      }),
    async kill(signal = 'SIGTERM') {
      if (!hasExited) child.kill(signal);
      // A SIGTERM that does not end it within 30 s (a hung shutdown hook) becomes a SIGKILL.
      const timer = setTimeout(
        () => !hasExited && child.kill('SIGKILL'),
        30_000,
      );
      await exited;
      clearTimeout(timer);
    },
  };
}
