/**
 * Flux's source-controller and kustomize-controller on a local management cluster.
 *
 * Given a running cluster (src/cluster.ts), this:
 *  - builds (or finds cached) both controllers and their CRDs (scripts/build-flux.sh: v1.9.6 from the Go modules;
 *    `installFluxCrds` alone fetches only the CRDs, in seconds);
 *  - installs every CRD of both (`crds/` of the build: source-controller runs a reconciler per source kind and
 *    kustomize-controller watches three of them, so all must exist before they start; docs/flux-facts.md#flux-main-crds);
 *  - starts both as detached local processes with the cluster's admin kubeconfig (`KUBECONFIG`: their pflag set has no
 *    `--kubeconfig`), health probes and source-controller's artifact server on free loopback ports, metrics and leader
 *    election off, their JSON logs in `<state>/flux/logs/`, artifacts in `<state>/flux/storage/`
 *    (docs/flux-facts.md#flux-flags, #flux-artifact-url), and waits until both are ready: /readyz, the artifact server
 *    answering, and the controllers the GitOps flow uses (GitRepository, Kustomization) past their cache sync.
 *
 * No RBAC objects are needed: the controllers act as the cluster's admin user. The real-controllers lane starts it
 * (test-flux/ and the backend's gitops.real-controllers test), the test command's e2e stage and
 * `./scripts/start.sh --gitops`.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runBuildScript } from './buildScript.ts';
import { apiRequest, type ClusterInfo } from './api.ts';
import type { Crd } from './crds.ts';
import { installCrds } from './install.ts';
import { launchServer, type LaunchedServer } from './launch.ts';
import { log } from './log.ts';
import { packageDir } from './paths.ts';
import { listenPort } from './ports.ts';
import { httpStatus } from './probe.ts';
import {
  isAlive,
  logSince,
  logTail as tail,
  stopProcessGroups,
} from './processes.ts';

/** One Flux release's two controllers (both modules at this tag; pinned in scripts/build-flux.sh). */
export const FLUX_VERSION = 'v1.9.6';

export type FluxControllerName = 'source' | 'kustomize';
export const FLUX_CONTROLLERS: FluxControllerName[] = ['source', 'kustomize'];

const BINARY: Record<FluxControllerName, string> = {
  source: 'source-controller',
  kustomize: 'kustomize-controller',
};

/**
 * The controller-runtime controllers each must have started (past their cache sync) before the Flux is ready: the
 * ones a Git-based Kustomization goes through. The source-controller built here runs no other reconciler
 * (docs/flux-facts.md#trimmed-source-controller); every Flux CRD is still installed, and a missing one fails the start
 * (`missingKind`): kustomize-controller watches the other source kinds too.
 */
const NEEDED: Record<FluxControllerName, string[]> = {
  source: ['gitrepository'],
  kustomize: ['kustomization'],
};

export interface FluxBinaries {
  dir: string;
  sourceController: string;
  kustomizeController: string;
  /** Every CRD of both modules' `config/crd/bases`. */
  crdsDir: string;
}

/** Builds (or finds cached) both controllers and their CRDs (scripts/build-flux.sh; minutes cold, nice'd). */
export async function ensureFluxBinaries(): Promise<FluxBinaries> {
  const dir = await runBuildScript(
    join(packageDir, 'scripts', 'build-flux.sh'),
  );
  return {
    dir,
    sourceController: join(dir, BINARY.source),
    kustomizeController: join(dir, BINARY.kustomize),
    crdsDir: join(dir, 'crds'),
  };
}

/** The CRDs of a build's `crds/` folder. */
export function loadFluxCrds(crdsDir: string): Crd[] {
  const crds: Crd[] = [];
  for (const f of readdirSync(crdsDir)
    .filter(n => n.endsWith('.yaml'))
    .sort()) {
    for (const d of parseAllDocuments(readFileSync(join(crdsDir, f), 'utf8'))) {
      const crd = d.toJS() as Crd | null;
      if (crd?.kind === 'CustomResourceDefinition') crds.push(crd);
    }
  }
  return crds;
}

/**
 * The folder of Flux's CRDs without building the controllers (`build-flux.sh --crds`: the two module zips, seconds
 * cold; the full build's `crds/` when that exists).
 */
export async function ensureFluxCrdsDir(): Promise<string> {
  const dir = await runBuildScript(
    join(packageDir, 'scripts', 'build-flux.sh'),
    ['--crds'],
  );
  return join(dir, 'crds');
}

/**
 * Installs every Flux CRD on a running cluster without starting the controllers: for a test that needs Kustomization
 * and GitRepository objects but no reconciler. It never waits for the controllers' build (an hour on a busy machine).
 */
export async function installFluxCrds(info: ClusterInfo): Promise<void> {
  await installCrds(info, loadFluxCrds(await ensureFluxCrdsDir()));
}

export interface FluxPorts {
  health: number;
  /** source-controller's artifact server (`--storage-addr` and `--storage-adv-addr`). */
  storage?: number;
}

export interface RunningFlux {
  cluster: string;
  version: string;
  /** `<cluster state>/flux`: logs/ and storage/. */
  stateDir: string;
  binaries: string;
  /** `http://127.0.0.1:<port>`: where source-controller serves artifacts (the host of every `status.artifact.url`). */
  storageUrl: string;
  controllers: Record<
    FluxControllerName,
    { pid: number; log: string; ports: FluxPorts; args: string[] }
  >;
}

export interface StartFluxOptions {
  /** Per-controller bound for becoming ready (a hang detector; default 180 s, as the managers'). */
  timeoutMs?: number;
  /** `--requeue-dependency` of both (default `5s`; upstream 30 s): how soon a source or Kustomization waiting on another is retried. */
  requeueDependency?: string;
  /** `--log-level` (default `info`; `debug` logs each reconcile's steps). */
  logLevel?: 'debug' | 'info' | 'error';
}

/** Why startFlux failed: the controller, the cause and its log tail (every process it had started is stopped). */
export class FluxStartError extends Error {
  readonly controller: FluxControllerName;
  /** The port a controller found taken (`bind: address already in use`), when that was the cause. */
  readonly takenPort?: number;
  constructor(
    message: string,
    controller: FluxControllerName,
    takenPort?: number,
  ) {
    super(message);
    this.name = 'FluxStartError';
    this.controller = controller;
    this.takenPort = takenPort;
  }
}

const fluxFile = (stateDir: string) => join(stateDir, 'flux.json');

/** The Flux this package started on the cluster (its pids, ports and logs), if any. */
export function runningFlux(info: ClusterInfo): RunningFlux | undefined {
  const f = fluxFile(info.stateDir);
  if (!existsSync(f)) return undefined;
  return JSON.parse(readFileSync(f, 'utf8')) as RunningFlux;
}

/** A log line as Flux writes it (`--log-encoding=json`, the default: fluxcd/pkg/runtime logger), or undefined. */
function entry(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * What a controller logged during this start: its last error (`"level":"error"`: `msg` and `error`), a port it found
 * taken, the controllers past their cache sync (controller-runtime's "Starting workers", logged once a controller's
 * sources synced) and a watched kind without its CRD ("if kind is a CRD, it should be installed before calling
 * Start", retried until the cache-sync timeout ends the manager).
 */
function progressOf(text: string): {
  cause?: string;
  port?: number;
  started: Set<string>;
  missingKind?: string;
} {
  const started = new Set<string>();
  let cause: string | undefined;
  let missingKind: string | undefined;
  for (const line of text.split('\n')) {
    const e = entry(line);
    if (!e) continue;
    const msg = String(e.msg ?? '');
    if (e.level === 'error')
      cause = `${msg}${e.error ? `: ${String(e.error)}` : ''}`;
    if (msg === 'Starting workers' && typeof e.controller === 'string')
      started.add(e.controller);
    if (
      !missingKind &&
      line.includes(
        'if kind is a CRD, it should be installed before calling Start',
      )
    )
      missingKind = `${msg}${e.error ? `: ${String(e.error)}` : ''}`;
  }
  const bind = /listen tcp [^ ]*:(\d+): bind: address already in use/.exec(
    text,
  );
  return {
    cause,
    port: bind ? Number(bind[1]) : undefined,
    started,
    missingKind,
  };
}

/**
 * Installs Flux's CRDs and starts source-controller and kustomize-controller against a running management cluster
 * (a Flux already started there is stopped first). Stops what it started when either fails to become ready, with its
 * log tail in the error. A port taken between the pick and the bind is retried with new ports up to twice.
 */
export async function startFlux(
  info: ClusterInfo,
  opts: StartFluxOptions = {},
): Promise<RunningFlux> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(info, opts);
    } catch (e) {
      if (
        attempt >= 3 ||
        !(e instanceof FluxStartError) ||
        e.takenPort === undefined
      )
        throw e;
      log(
        `flux: a port was taken while starting (attempt ${attempt}); retrying with new ports`,
      );
    }
  }
}

async function startOnce(
  info: ClusterInfo,
  opts: StartFluxOptions,
): Promise<RunningFlux> {
  if (runningFlux(info)) await stopFlux(info);
  const started = Date.now();
  const bins = await ensureFluxBinaries();
  await installFluxCrds(info);

  const dir = join(info.stateDir, 'flux');
  const storageDir = join(dir, 'storage');
  mkdirSync(join(dir, 'logs'), { recursive: true });
  // The artifact storage must exist (fluxcd/pkg/artifact storage.New does not create it).
  mkdirSync(storageDir, { recursive: true });
  const taken = new Set<number>();
  const ports: Record<FluxControllerName, FluxPorts> = {
    source: {
      health: await listenPort(taken),
      storage: await listenPort(taken),
    },
    kustomize: { health: await listenPort(taken) },
  };
  const storageAddr = `127.0.0.1:${ports.source.storage}`;
  const common = (c: FluxControllerName) => [
    '--metrics-addr=0',
    `--health-addr=127.0.0.1:${ports[c].health}`,
    '--enable-leader-election=false',
    `--requeue-dependency=${opts.requeueDependency ?? '5s'}`,
    `--log-level=${opts.logLevel ?? 'info'}`,
  ];
  const args: Record<FluxControllerName, string[]> = {
    source: [
      ...common('source'),
      `--storage-path=${storageDir}`,
      `--storage-addr=${storageAddr}`,
      // kustomize-controller downloads exactly the advertised URL: a loopback address both processes reach.
      `--storage-adv-addr=${storageAddr}`,
    ],
    kustomize: common('kustomize'),
  };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    KUBECONFIG: info.kubeconfigPath,
  };

  const running: RunningFlux = {
    cluster: info.name,
    version: FLUX_VERSION,
    stateDir: dir,
    binaries: bins.dir,
    storageUrl: `http://${storageAddr}`,
    controllers: {} as RunningFlux['controllers'],
  };
  const save = () =>
    writeFileSync(fluxFile(info.stateDir), JSON.stringify(running, null, 2), {
      mode: 0o600,
    });
  try {
    const launched = {} as Record<FluxControllerName, LaunchedServer>;
    for (const c of FLUX_CONTROLLERS) {
      const logFile = join(dir, 'logs', `${BINARY[c]}.log`);
      launched[c] = await launchServer(join(bins.dir, BINARY[c]), args[c], {
        logFile,
        env,
      });
      running.controllers[c] = {
        pid: launched[c].pid,
        log: logFile,
        ports: ports[c],
        args: args[c],
      };
      save();
    }
    for (const c of FLUX_CONTROLLERS) {
      const p = running.controllers[c];
      const timeoutMs = opts.timeoutMs ?? 180_000;
      const deadline = Date.now() + timeoutMs;
      const logTail = (text: string) =>
        `\n--- ${BINARY[c]} log tail (${p.log}) ---\n${tail(text)}`;
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        const text = logSince(p.log, launched[c].logStart);
        const progress = progressOf(text);
        if (launched[c].exited() || !isAlive(p.pid)) {
          throw new FluxStartError(
            `${BINARY[c]} exited (${
              launched[c].exited() ?? 'gone'
            }) while starting: ${
              progress.port
                ? `port ${progress.port} is taken by another listener; `
                : ''
            }${progress.cause ?? 'no error logged'}${logTail(text)}`,
            c,
            progress.port,
          );
        }
        if (progress.missingKind)
          throw new FluxStartError(
            `${
              BINARY[c]
            } cannot start a controller: a kind it watches has no CRD: ${
              progress.missingKind
            }${logTail(text)}`,
            c,
          );
        const readyz = await httpStatus(
          `http://127.0.0.1:${p.ports.health}/readyz`,
        );
        // The artifact server starts once the manager is leader (at once, election off): any HTTP answer will do.
        const storage = p.ports.storage
          ? await httpStatus(`http://127.0.0.1:${p.ports.storage}/`)
          : 200;
        const waiting = NEEDED[c].filter(n => !progress.started.has(n));
        if (readyz === 200 && storage > 0 && !waiting.length) break;
        if (Date.now() > deadline)
          throw new FluxStartError(
            `${BINARY[c]} not ready after ${timeoutMs} ms: readyz on ${
              p.ports.health
            } ${readyz || 'not answering'}${
              p.ports.storage
                ? `, artifact server on ${p.ports.storage} ${
                    storage || 'not answering'
                  }`
                : ''
            }, controllers not started: ${
              waiting.join(', ') || 'none'
            }${logTail(text)}`,
            c,
          );
        await new Promise(r => setTimeout(r, delay));
      }
    }
    log(
      `flux ${FLUX_VERSION} ready on ${info.name} in ${(
        (Date.now() - started) /
        1000
      ).toFixed(1)}s ` +
        `(artifacts at ${running.storageUrl}); logs in ${join(dir, 'logs')}`,
    );
  } catch (e) {
    await stopFlux(info);
    throw e;
  }
  return running;
}

/**
 * Stops the Flux controllers this package started (stopProcessGroups: SIGTERM, SIGKILL after 10 s). Their CRDs
 * and objects stay: a Kustomization's finalizer then waits for a kustomize-controller (delete it before stopping, or
 * remove the finalizer, to delete it).
 */
export async function stopFlux(info: ClusterInfo): Promise<void> {
  const running = runningFlux(info);
  if (!running) return;
  await stopProcessGroups(Object.values(running.controllers).map(c => c.pid));
  rmSync(fluxFile(info.stateDir), { force: true });
}

export interface FollowOptions {
  /** The repository's smart-HTTP URL (`http://…/owner/repo.git`). */
  url: string;
  /** HTTP basic auth (docs/flux-facts.md#flux-git-auth), kept in a Secret `<name>-auth`. */
  username: string;
  password: string;
  /** Default `main`. */
  branch?: string;
  /** The Kustomization's `spec.path` (default `./`: every manifest of the repository, docs/flux-facts.md#flux-generated-kustomization). */
  path?: string;
  /** Name of the GitRepository and the Kustomization (default `clusters`), in `flux-system`. */
  name?: string;
  /** Both intervals (default `1m`): how soon a merge is applied without asking. */
  interval?: string;
}

const FLUX_NS = 'flux-system';
const SOURCE_API = `/apis/source.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}`;
const KUSTOMIZE_API = `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${FLUX_NS}`;

/**
 * Points Flux at a Git repository: in `flux-system`, a Secret with the credentials, a GitRepository and a Kustomization
 * (`prune: true`) of the same name. Server-side apply as `capz-mgmt-cluster`, so a second call with another URL (a
 * restarted local Gitea on another port) updates them in place.
 */
export async function followGitRepository(
  info: ClusterInfo,
  o: FollowOptions,
): Promise<void> {
  const name = o.name ?? 'clusters';
  const interval = o.interval ?? '1m';
  const apply = async (path: string, obj: Record<string, unknown>) => {
    const r = await apiRequest(
      info,
      'PATCH',
      `${path}?fieldManager=capz-mgmt-cluster&force=true`,
      obj,
      'application/apply-patch+yaml',
    );
    if (r.status >= 300)
      throw new Error(
        `apply ${(obj as any).kind} ${name}: ${r.status} ${r.body}`,
      );
  };
  await apply(`/api/v1/namespaces/${FLUX_NS}`, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: FLUX_NS },
  });
  await apply(`/api/v1/namespaces/${FLUX_NS}/secrets/${name}-auth`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-auth`, namespace: FLUX_NS },
    stringData: { username: o.username, password: o.password },
  });
  await apply(`${SOURCE_API}/gitrepositories/${name}`, {
    apiVersion: 'source.toolkit.fluxcd.io/v1',
    kind: 'GitRepository',
    metadata: { name, namespace: FLUX_NS },
    spec: {
      url: o.url,
      ref: { branch: o.branch ?? 'main' },
      secretRef: { name: `${name}-auth` },
      interval,
    },
  });
  await apply(`${KUSTOMIZE_API}/kustomizations/${name}`, {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: FLUX_NS },
    spec: {
      sourceRef: { kind: 'GitRepository', name },
      path: o.path ?? './',
      prune: true,
      interval,
    },
  });
}

/**
 * Flux's state in words, one line per GitRepository and Kustomization of `flux-system`: Ready or why not, the
 * revision fetched or applied (what `flux get sources git` and `flux get kustomizations` show).
 */
export async function fluxStatus(info: ClusterInfo): Promise<string[]> {
  const list = async (path: string) => {
    const r = await apiRequest(info, 'GET', path);
    if (r.status === 404) return [];
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
    return (JSON.parse(r.body).items ?? []) as Array<Record<string, any>>;
  };
  const line = (kind: string, o: Record<string, any>, revision?: string) => {
    const ready = (o.status?.conditions ?? []).find(
      (c: any) => c.type === 'Ready',
    );
    return `${kind} ${o.metadata.namespace}/${o.metadata.name}: ${
      ready
        ? `Ready=${ready.status} (${ready.reason}) ${ready.message}`
        : 'not reconciled yet'
    }${revision ? `; ${revision}` : ''}`;
  };
  return [
    ...(await list(`${SOURCE_API}/gitrepositories`)).map(g =>
      line(
        'GitRepository',
        g,
        g.status?.artifact?.revision && `fetched ${g.status.artifact.revision}`,
      ),
    ),
    ...(await list(`${KUSTOMIZE_API}/kustomizations`)).map(k =>
      line(
        'Kustomization',
        k,
        k.status?.lastAppliedRevision &&
          `applied ${k.status.lastAppliedRevision}`,
      ),
    ),
  ];
}
