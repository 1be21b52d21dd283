/**
 * Starting and stopping the Backstage backends of the benchmark: the real one (packages/backend, as e2e starts it), a
 * minimal one with the stock @backstage/plugin-kubernetes-backend (src/stockBackend.ts), and the same minimal one with
 * our plugin and catalog module in place of the stock plugin (src/capzMinimalBackend.cts, on our packages' built JavaScript:
 * buildCapzPackages).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenPort, repoRoot, type ClusterInfo } from '@internal/mgmt-cluster';
import { databaseLines } from './database.ts';
import { KUBERNETES_ID, type SeededCluster } from './seed.ts';
import { listenerPid, log } from './util.ts';

/** The backends' log level: warn, so that their logs stay small; CAPZ_BENCH_LOG_LEVEL=info shows what they do meanwhile. */
const BACKEND_LOG_LEVEL = process.env.CAPZ_BENCH_LOG_LEVEL ?? 'warn';

/** packages/bench: the minimal backends run from there. */
export const benchDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface RunningBackend {
  name: string;
  port: number;
  baseUrl: string;
  token: string;
  /** The spawned wrapper (yarn, or node itself). */
  child: ChildProcess;
  /** The node process that serves HTTP (for VmRSS): found through its listening socket. */
  pid?: number;
  spawnedAt: number;
  logFile: string;
}

const yamlString = (s: string) => JSON.stringify(s);

function backendBlock(port: number, token: string): string[] {
  return [
    'backend:',
    `  baseUrl: http://127.0.0.1:${port}`,
    '  listen:',
    `    port: ${port}`,
    '    host: 127.0.0.1',
    '  cors:',
    `    origin: http://127.0.0.1:${port}`,
    ...databaseLines(),
    '  auth:',
    '    externalAccess:',
    '      - type: static',
    '        options:',
    `          token: ${token}`,
    '          subject: capz-bench',
  ];
}

/** The overrides for packages/backend: the bench management cluster only, the bench's database, a static token. */
export function writeCapzConfig(
  file: string,
  info: ClusterInfo,
  port: number,
  token: string,
  /** false: no management cluster at all (the app's own footprint, for the RSS comparison). */
  withCluster = true,
): void {
  writeFileSync(
    file,
    [
      '# Written by packages/bench: the benchmark backend (overrides app-config.yaml).',
      'app:',
      `  baseUrl: http://127.0.0.1:${port}`,
      ...backendBlock(port, token),
      'capz:',
      ...capzBlock(info, withCluster),
      '',
    ].join('\n'),
  );
}

/** The `capz` block of both CAPZ backends' configs: the bench management cluster, or none. */
function capzBlock(info: ClusterInfo, withCluster: boolean): string[] {
  return withCluster
    ? [
        '  managementClusters:',
        '    - name: bench',
        '      title: Benchmark management cluster',
        `      url: ${info.url}`,
        `      serviceAccountToken: ${info.backendToken}`,
        `      caData: ${yamlString(info.caPem)}`,
      ]
    : ['  managementClusters: []'];
}

/**
 * Config of the minimal CAPZ backend: the stock backend's block and catalog rules, the bench management cluster, and
 * the catalog module's provider as app-config.yaml sets it.
 */
export function writeCapzMinimalConfig(
  file: string,
  info: ClusterInfo,
  port: number,
  token: string,
  /** false: no management cluster (what the plugins and their loading cost without data). */
  withCluster = true,
): void {
  writeFileSync(
    file,
    [
      '# Written by packages/bench: the minimal CAPZ backend, for the like-for-like memory comparison.',
      ...backendBlock(port, token),
      'catalog:',
      '  rules:',
      '    - allow: [Component, System, Resource, Location]',
      '  providers:',
      '    capz:',
      '      defaultOwner: group:default/platform',
      '      refreshSeconds: 60',
      'capz:',
      ...capzBlock(info, withCluster),
      '',
    ].join('\n'),
  );
}

/** Config of the stock Kubernetes backend: a `config` cluster locator for the bench cluster and one catalog entity. */
export function writeStockConfig(
  file: string,
  info: ClusterInfo,
  port: number,
  token: string,
  entityFile: string,
  /** false: no cluster at all (what the plugins and their loading cost without data). */
  withCluster = true,
): void {
  writeFileSync(
    file,
    [
      '# Written by packages/bench: the stock @backstage/plugin-kubernetes-backend for comparison.',
      ...backendBlock(port, token),
      'catalog:',
      '  rules:',
      '    - allow: [Component]',
      '  locations:',
      '    - type: file',
      `      target: ${entityFile}`,
      'kubernetes:',
      '  serviceLocatorMethod:',
      '    type: multiTenant',
      '  clusterLocatorMethods:',
      '    - type: config',
      ...(withCluster
        ? [
            '      clusters:',
            '        - name: bench',
            `          url: ${info.url}`,
            '          authProvider: serviceAccount',
            `          serviceAccountToken: ${info.adminToken}`,
            `          caData: ${Buffer.from(info.caPem).toString('base64')}`,
            '          skipMetricsLookup: true',
          ]
        : ['      clusters: []']),
      '',
    ].join('\n'),
  );
}

function launch(
  name: string,
  command: string,
  args: string[],
  opts: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    logFile: string;
    port: number;
    token: string;
  },
): RunningBackend {
  const out = openSync(opts.logFile, 'w');
  const spawnedAt = performance.now();
  // Its own process group, so that stopping it also stops what yarn and the Backstage CLI start below it.
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out); // the child holds its own copy
  return {
    name,
    port: opts.port,
    baseUrl: `http://127.0.0.1:${opts.port}`,
    token: opts.token,
    child,
    spawnedAt,
    logFile: opts.logFile,
  };
}

/** This checkout's CAPZ backend on a free port, its config and log named `app-config.bench-<name>.yaml`, `backend-<name>.log`. */
export async function startCapzBackendAs(
  name: string,
  info: ClusterInfo,
  localDir: string,
  withCluster = true,
): Promise<RunningBackend> {
  const port = await listenPort();
  const token = randomBytes(24).toString('hex');
  const configFile = join(localDir, `app-config.bench-${name}.yaml`);
  writeCapzConfig(configFile, info, port, token, withCluster);
  return startCapzBackendUnwatched(
    repoRoot,
    configFile,
    port,
    token,
    info,
    join(localDir, `backend-${name}.log`),
  );
}

/**
 * packages/backend (the full app) with app-config.yaml and the bench's config, started as `backstage-cli package start`
 * starts it (cli-module-build's runBackend: node with the CLI's TypeScript transform, cwd packages/backend) minus its
 * file watcher and IPC channel, as the jobs integration tests do (plugins/capz-backend/src/testing/backendProcess.ts):
 * a run is not restarted by an edit in the working tree (the watcher's restart failed a run and left the restarted
 * backend running after it).
 */
export function startCapzBackendUnwatched(
  repoRoot: string,
  configFile: string,
  port: number,
  token: string,
  info: ClusterInfo,
  logFile: string,
  extraEnv: NodeJS.ProcessEnv = {},
  extraConfigs: string[] = [],
): RunningBackend {
  const backendDir = join(repoRoot, 'packages', 'backend');
  const transform = createRequire(join(backendDir, 'package.json')).resolve(
    '@backstage/cli-node/config/nodeTransform.cjs',
  );
  return launch(
    'capz',
    process.execPath,
    [
      '--enable-source-maps',
      '--require',
      transform,
      'src/index.ts',
      '--config',
      '../../app-config.yaml',
      '--config',
      configFile,
      ...extraConfigs.flatMap(f => ['--config', f]),
    ],
    {
      cwd: backendDir,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        ESBK_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json'),
        CAPZ_KUBECONFIG: info.kubeconfigPath,
        LOG_LEVEL: BACKEND_LOG_LEVEL,
        ...extraEnv,
      },
      logFile,
      port,
      token,
    },
  );
}

/** A bench backend script of packages/bench/src, started with plain node and its config (as a deployment would). */
function startScriptBackend(
  name: string,
  script: string,
  benchDir: string,
  configFile: string,
  port: number,
  token: string,
  logFile: string,
  extraEnv: NodeJS.ProcessEnv,
): RunningBackend {
  return launch(
    name,
    process.execPath,
    [join(benchDir, 'src', script), '--config', configFile],
    {
      cwd: benchDir,
      env: { ...process.env, LOG_LEVEL: BACKEND_LOG_LEVEL, ...extraEnv },
      logFile,
      port,
      token,
    },
  );
}

/** The stock Backstage backend with the Kubernetes plugin (the comparison). */
export const startStockBackend = (
  benchDir: string,
  configFile: string,
  port: number,
  token: string,
  logFile: string,
  extraEnv: NodeJS.ProcessEnv = {},
): RunningBackend =>
  startScriptBackend(
    'stock-kubernetes',
    'stockBackend.ts',
    benchDir,
    configFile,
    port,
    token,
    logFile,
    extraEnv,
  );

/**
 * The minimal CAPZ backend, started as the stock backend is (plain node, same arguments) on the built JavaScript of our
 * packages (see buildCapzPackages).
 */
export const startCapzMinimalBackend = (
  benchDir: string,
  configFile: string,
  port: number,
  token: string,
  logFile: string,
  extraEnv: NodeJS.ProcessEnv = {},
): RunningBackend =>
  startScriptBackend(
    'capz-minimal',
    'capzMinimalBackend.cts',
    benchDir,
    configFile,
    port,
    token,
    logFile,
    extraEnv,
  );

/** The plugins src/capzMinimalBackend.cts loads from the workspace; what they import from it is built with them. */
const MINIMAL_PLUGINS = [
  '@capz-backstage/plugin-capz-backend',
  '@capz-backstage/plugin-catalog-backend-module-capz',
];

/**
 * Builds the minimal CAPZ backend's workspace packages as a release does: `yarn tsc` (the declarations that
 * `backstage-cli package build` bundles), then `backstage-cli package build` of each plugin and of the workspace
 * packages it depends on, dependencies first; each writes its package's dist/ (not in git). Returns their names.
 */
export async function buildCapzPackages(repoRoot: string): Promise<string[]> {
  const dirOf = new Map<string, string>();
  for (const parent of ['plugins', 'packages'])
    for (const d of readdirSync(join(repoRoot, parent))) {
      const file = join(repoRoot, parent, d, 'package.json');
      if (existsSync(file))
        dirOf.set(JSON.parse(readFileSync(file, 'utf8')).name, dirname(file));
    }
  const order: string[] = [];
  const visit = (name: string) => {
    if (order.includes(name)) return;
    const dir = dirOf.get(name);
    if (!dir) throw new Error(`${name} is not a workspace package`);
    const deps = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      .dependencies as Record<string, string> | undefined;
    for (const [dep, range] of Object.entries(deps ?? {}))
      if (range.startsWith('workspace:')) visit(dep);
    order.push(name);
  };
  MINIMAL_PLUGINS.forEach(visit);
  await run('yarn', ['tsc'], repoRoot);
  for (const name of order)
    await run('yarn', ['backstage-cli', 'package', 'build'], dirOf.get(name)!);
  return order;
}

function run(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', code =>
      code === 0
        ? resolvePromise()
        : reject(
            new Error(
              `\`${command} ${args.join(' ')}\` in ${cwd} exited with ${code}`,
            ),
          ),
    );
  });
}

/** The one catalog entity of the stock backend: the target cluster, by the stock plugin's annotations. */
export function writeStockEntity(
  target: SeededCluster,
  localDir: string,
): string {
  const entityFile = join(localDir, 'stock-entity.yaml');
  writeFileSync(
    entityFile,
    [
      'apiVersion: backstage.io/v1alpha1',
      'kind: Component',
      'metadata:',
      `  name: ${target.name}`,
      '  annotations:',
      `    ${KUBERNETES_ID}: ${target.name}`,
      `    backstage.io/kubernetes-namespace: ${target.namespace}`,
      'spec:',
      '  type: service',
      '  owner: platform',
      '  lifecycle: production',
      '',
    ].join('\n'),
  );
  return entityFile;
}

/** Waits until the stock backend's catalog serves the compared cluster's entity (its query needs the entity). */
export async function stockCatalogReady(
  b: RunningBackend,
  target: SeededCluster,
): Promise<void> {
  await waitUntil(
    b,
    'the catalog to ingest the entity',
    async () =>
      (
        await fetchJson(
          b,
          `/api/catalog/entities/by-name/component/default/${target.name}`,
        )
      ).status === 200,
    300_000,
    200,
  );
}

export async function fetchJson(
  b: RunningBackend,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${b.baseUrl}${path}`, {
    ...init,
    headers: {
      Authorization: `Bearer ${b.token}`,
      'Content-Type': 'application/json',
      ...(init.headers ?? {}),
    },
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

/** Polls `check` every `intervalMs` until it returns true; fails when the backend exits or the deadline passes. */
export async function waitUntil(
  b: RunningBackend,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (b.child.exitCode !== null)
      throw new Error(
        `${b.name} backend exited (code ${b.child.exitCode}) while waiting for ${what}; see ${b.logFile}`,
      );
    try {
      if (await check()) return performance.now();
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; see ${b.logFile}`,
      );
    await new Promise(r => setTimeout(r, intervalMs));
  }
}

/** Finds the serving node process once the port listens. */
export function resolvePid(b: RunningBackend): number | undefined {
  b.pid ??= b.child.pid ? listenerPid(b.child.pid, b.port) : undefined;
  return b.pid;
}

export async function stopBackend(b: RunningBackend): Promise<void> {
  const pgid = b.child.pid;
  if (!pgid || b.child.exitCode !== null) return;
  const exited = new Promise<void>(r => b.child.once('exit', () => r()));
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    return;
  }
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>(r => setTimeout(() => r(true), 15_000)),
  ]);
  if (timedOut) {
    log(`${b.name} backend did not stop on SIGTERM within 15 s: SIGKILL`);
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  // The group may still hold the serving process after the wrapper exited.
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise(r => setTimeout(r, 100));
  }
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* gone */
  }
}
