import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { apiGet, type ClusterInfo } from './api.ts';
import { ensureBinaries } from './binaries.ts';
import { crdSeedFor, plantCrdSeed, saveCrdSeed } from './crdSeed.ts';
import { installCrds, waitForCrds } from './install.ts';
import { launch } from './launch.ts';
import { loadCrds } from './crds.ts';
import { log } from './log.ts';
import { stateDirFor } from './paths.ts';
import { ensurePki } from './pki.ts';
import { listenPort } from './ports.ts';
import { isAlive, logSince, logTail, stopProcessGroups } from './processes.ts';

// Importers of this module have always found these here.
export { apiGet, apiRequest, type ClusterInfo } from './api.ts';

export interface StartOptions {
  /** Names the state folder `.local/mgmt-clusters/<name>` and the kubeconfig context `capz-<name>`. */
  name: string;
  /** Overrides the state folder (tests put it on tmpfs). */
  stateDir?: string;
  /** etcd without fsync and the state folder removed on stop: for test runs. */
  ephemeral?: boolean;
  /** Install the CAPI/CAPZ/ASO CRDs (default true). */
  crds?: boolean;
  /**
   * JWT authenticators (structured authentication configuration, `--authentication-config`), e.g. a simulated
   * Microsoft Entra ID as in AKS-managed Entra integration. Off by default; the static tokens keep working beside them.
   */
  jwtAuthenticators?: JwtAuthenticator[];
  /**
   * More kube-apiserver flags, after the defaults (a repeated flag's last value wins), e.g. `--profiling=true` to
   * read its Go heap at /debug/pprof/heap (the benchmark's `--apiserver-arg`).
   */
  extraApiserverArgs?: string[];
  /** Environment for kube-apiserver on top of ours, e.g. GOMEMLIMIT or GODEBUG=gctrace=1 (`--apiserver-env`). */
  apiserverEnv?: Record<string, string>;
  /**
   * GOMAXPROCS of etcd, kube-apiserver and kube-controller-manager; 0 leaves Go's own (the machine's cores). Default:
   * 1 for an ephemeral cluster (tests: several alive at once, each mostly idle), 0 otherwise. A GOMAXPROCS in our
   * environment or in `apiserverEnv` wins.
   */
  goMaxProcs?: number;
}

/** One `jwt` entry of an AuthenticationConfiguration (apiserver.config.k8s.io/v1). */
export interface JwtAuthenticator {
  /** The issuer URL (https): tokens' `iss`, and where `/.well-known/openid-configuration` is fetched from. */
  issuer: string;
  /** PEM CA the API server verifies the issuer's TLS certificate with (default: the system CAs). */
  certificateAuthority?: string;
  /** Accepted `aud` values (any of them). */
  audiences: string[];
  /** The claim that names the user, and a prefix that keeps those names apart from other authenticators'. */
  username: { claim: string; prefix: string };
  groups?: { claim: string; prefix: string };
}

/** The AuthenticationConfiguration file for `jwtAuthenticators` (JSON, which the API server reads as YAML). */
export function authenticationConfig(jwt: JwtAuthenticator[]): string {
  return JSON.stringify(
    {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: jwt.map(a => ({
        issuer: {
          url: a.issuer,
          ...(a.certificateAuthority
            ? { certificateAuthority: a.certificateAuthority }
            : {}),
          audiences: a.audiences,
          ...(a.audiences.length > 1
            ? { audienceMatchPolicy: 'MatchAny' }
            : {}),
        },
        claimMappings: {
          username: a.username,
          ...(a.groups ? { groups: a.groups } : {}),
        },
      })),
    },
    null,
    2,
  );
}

const tail = (file: string) => logTail(logSince(file), 15);

/**
 * Waits until `check` resolves true, failing early with the log of a component that died. Polls a condition, with a
 * deadline; never a fixed sleep.
 */
async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  opts: {
    timeoutMs: number;
    watch: Array<{ pid: number; log: string; name: string }>;
  },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError = '';
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    for (const p of opts.watch) {
      if (!isAlive(p.pid))
        throw new Error(
          `${p.name} exited while waiting for ${what}:\n${tail(p.log)}`,
        );
    }
    try {
      if (await check()) return;
    } catch (e) {
      lastError = (e as Error).message;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${opts.timeoutMs} ms waiting for ${what}${
          lastError ? ` (${lastError})` : ''
        }`,
      );
    }
    await new Promise(r => setTimeout(r, delay));
  }
}

/** Starts one of the cluster's servers in its own process group, so that a developer's cluster outlives the command. */
async function startServer(
  bin: string,
  args: string[],
  logFile: string,
  env?: Record<string, string>,
): Promise<number> {
  const child = await launch(bin, args, {
    logFile,
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  child.unref();
  return child.pid;
}

/**
 * The Go runtime's environment for the cluster's servers (StartOptions.goMaxProcs). On one processor an idle API
 * server with the CRDs spent 1.30 CPU-seconds a minute against 1.61 on both of a 2-core machine's, the rest being the
 * scheduler's wake-ups and idle GC workers (README.md "A test cluster's CPU"); a test run keeps several alive at once.
 */
function serverEnv(
  opts: StartOptions,
  extra?: Record<string, string>,
): Record<string, string> | undefined {
  const procs = opts.goMaxProcs ?? (opts.ephemeral ? 1 : 0);
  if (procs <= 0 || process.env.GOMAXPROCS) return extra;
  return { GOMAXPROCS: String(procs), ...extra };
}

function auditPolicy(stateDir: string): string {
  const file = join(stateDir, 'audit-policy.yaml');
  writeFileSync(
    file,
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '- level: Metadata',
      '',
    ].join('\n'),
  );
  return file;
}

function writeAuthenticationConfig(
  stateDir: string,
  jwt: JwtAuthenticator[],
): string {
  const file = join(stateDir, 'authentication-config.yaml');
  writeFileSync(file, authenticationConfig(jwt), { mode: 0o600 });
  return file;
}

function kubeconfigYaml(
  name: string,
  url: string,
  caPem: string,
  token: string,
): string {
  const ca = Buffer.from(caPem).toString('base64');
  const ctx = `capz-${name}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${ctx}`,
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${ctx}-admin`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    `- name: ${ctx}`,
    '  context:',
    `    cluster: ${ctx}`,
    `    user: ${ctx}-admin`,
    `current-context: ${ctx}`,
    '',
  ].join('\n');
}

/** Reads the state of a named cluster if it is running, else undefined. */
export function runningCluster(
  name: string,
  stateDir = stateDirFor(name),
): ClusterInfo | undefined {
  const file = join(stateDir, 'cluster.json');
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, 'utf8')) as ClusterInfo;
  if (!info.pids.controllerManager) return undefined;
  // An API server stopped on purpose has no process (pid 0, which kill(0, 0) would call alive): the rest must run.
  const pids = Object.entries(info.pids)
    .filter(([k]) => !(k === 'apiserver' && info.apiserverDown === 'stopped'))
    .map(([, pid]) => pid);
  return pids.every(p => p > 0 && isAlive(p)) ? info : undefined;
}

/**
 * Starts etcd, kube-apiserver and kube-controller-manager on loopback, each on a free port, and installs the CRDs.
 * Idempotent: when the named cluster already runs and answers /readyz, it is reused. Keeps etcd data in the state
 * folder, so a restarted (non-ephemeral) cluster still has its objects.
 */
export async function startManagementCluster(
  opts: StartOptions,
): Promise<ClusterInfo> {
  const stateDir = opts.stateDir ?? stateDirFor(opts.name);
  const existing = runningCluster(opts.name, stateDir);
  if (
    existing &&
    (await apiGet(existing, '/readyz').catch(() => ({ status: 0 }))).status ===
      200
  ) {
    log(`${opts.name}: already running at ${existing.url}`);
    if (opts.crds !== false) await installCrds(existing, loadCrds());
    return existing;
  }
  if (existing) await stopManagementCluster(existing);

  const started = Date.now();
  const bins = await ensureBinaries();
  mkdirSync(join(stateDir, 'logs'), { recursive: true });
  const pki = ensurePki(stateDir);
  const caPem = readFileSync(pki.caCert, 'utf8');
  const [etcdPort, peerPort, apiPort] = [
    await listenPort(),
    await listenPort(),
    await listenPort(),
  ];
  const logs = {
    etcd: join(stateDir, 'logs', 'etcd.log'),
    apiserver: join(stateDir, 'logs', 'kube-apiserver.log'),
    controllerManager: join(stateDir, 'logs', 'kube-controller-manager.log'),
  };

  // A new data folder gets the CRDs' etcd records of an earlier cluster (src/crdSeed.ts); a kept one has its own.
  const crds = opts.crds !== false ? loadCrds() : [];
  const freshEtcd = !existsSync(join(stateDir, 'etcd', 'member'));
  const seed = freshEtcd ? crdSeedFor(bins, crds) : undefined;

  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const etcdPid = await startServer(
    bins.etcd,
    [
      `--name=capz-${opts.name}`,
      `--data-dir=${join(stateDir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=capz-${opts.name}=${peerUrl}`,
      // The ASO ManagedCluster CRD alone is about 0.5 MB; leave room above etcd's 1.5 MiB default.
      '--max-request-bytes=8388608',
      '--log-level=warn',
      ...(opts.ephemeral ? ['--unsafe-no-fsync'] : []),
    ],
    logs.etcd,
    serverEnv(opts),
  );
  if (seed?.records) {
    const etcdLog = { pid: etcdPid, log: logs.etcd, name: 'etcd' };
    await waitFor(
      'etcd /health',
      async () => (await fetch(`${etcdUrl}/health`)).ok,
      { timeoutMs: 60_000, watch: [etcdLog] },
    )
      .then(() => plantCrdSeed(etcdUrl, seed.records!))
      .catch(async e => {
        await stopProcessGroups([etcdPid]);
        throw e;
      });
  }

  const url = `https://127.0.0.1:${apiPort}`;
  const apiserverArgs = [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    `--cert-dir=${pki.dir}`,
    `--tls-cert-file=${pki.serverCert}`,
    `--tls-private-key-file=${pki.serverKey}`,
    `--client-ca-file=${pki.caCert}`,
    `--token-auth-file=${pki.tokenFile}`,
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.0.0.0/24',
    `--service-account-issuer=${url}`,
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    // No service-account controller runs; pods are never created here.
    '--disable-admission-plugins=ServiceAccount',
    '--allow-privileged=true',
    '--profiling=false',
    // Metadata-level audit of every request, written before each response returns (blocking mode): tests use it
    // to attribute requests to a user, which the request metrics cannot.
    `--audit-policy-file=${auditPolicy(stateDir)}`,
    `--audit-log-path=${join(stateDir, 'logs', 'audit.log')}`,
    '--audit-log-mode=blocking',
    '--audit-log-maxsize=200',
    ...(opts.jwtAuthenticators?.length
      ? [
          `--authentication-config=${writeAuthenticationConfig(
            stateDir,
            opts.jwtAuthenticators,
          )}`,
        ]
      : []),
    '--v=1',
    ...(opts.extraApiserverArgs ?? []),
  ];
  const apiserverEnv = serverEnv(opts, opts.apiserverEnv);
  const apiPid = await startServer(
    bins.kubeApiserver,
    apiserverArgs,
    logs.apiserver,
    apiserverEnv,
  );

  const info: ClusterInfo = {
    name: opts.name,
    url,
    caPem,
    adminToken: pki.adminToken,
    backendToken: pki.backendToken,
    auditLog: join(stateDir, 'logs', 'audit.log'),
    kubeconfigPath: join(stateDir, 'kubeconfig'),
    stateDir,
    ephemeral: Boolean(opts.ephemeral),
    pids: { etcd: etcdPid, apiserver: apiPid, controllerManager: 0 },
    apiserverArgs,
    ...(apiserverEnv ? { apiserverEnv } : {}),
  };
  writeFileSync(
    info.kubeconfigPath,
    kubeconfigYaml(opts.name, url, caPem, pki.adminToken),
    { mode: 0o600 },
  );
  const watch = [
    { pid: etcdPid, log: logs.etcd, name: 'etcd' },
    { pid: apiPid, log: logs.apiserver, name: 'kube-apiserver' },
  ];
  try {
    await waitFor(
      'kube-apiserver /readyz',
      async () => (await apiGet(info, '/readyz')).status === 200,
      {
        timeoutMs: 90_000,
        watch,
      },
    );
    // CRDs go in before the controller manager starts: its garbage collector discovers resource types at start and
    // then only every 30 s, and owner-reference cascades on custom resources need it to know them.
    if (seed?.records) {
      const t = Date.now();
      await waitForCrds(info, crds);
      log(
        `${opts.name}: ${crds.length} CRDs from the seed established in ${
          Date.now() - t
        } ms`,
      );
    } else if (crds.length) {
      await installCrds(info, crds);
      if (seed) await saveCrdSeed(etcdUrl, seed, crds);
    }
    info.pids.controllerManager = await startServer(
      bins.kubeControllerManager,
      [
        `--kubeconfig=${info.kubeconfigPath}`,
        '--leader-elect=false',
        // Garbage collection (owner references) and namespace deletion are what the product relies on.
        '--controllers=garbage-collector-controller,namespace-controller',
        '--use-service-account-credentials=false',
        '--bind-address=127.0.0.1',
        '--secure-port=0', // no health endpoint then: readiness is read from its log below
        '--v=1',
      ],
      logs.controllerManager,
      serverEnv(opts),
    );
    watch.push({
      pid: info.pids.controllerManager,
      log: logs.controllerManager,
      name: 'kube-controller-manager',
    });
    await waitFor(
      'the garbage collector to sync',
      async () =>
        readFileSync(logs.controllerManager, 'utf8').includes(
          'Proceeding to collect garbage',
        ),
      { timeoutMs: 60_000, watch },
    );
    writeFileSync(
      join(stateDir, 'cluster.json'),
      JSON.stringify(info, null, 2),
      { mode: 0o600 },
    );
  } catch (e) {
    await stopManagementCluster(info);
    throw e;
  }
  log(
    `${opts.name}: ready at ${url} in ${((Date.now() - started) / 1000).toFixed(
      1,
    )}s (kubeconfig ${info.kubeconfigPath})`,
  );
  return info;
}

const writeInfo = (info: ClusterInfo) =>
  writeFileSync(
    join(info.stateDir, 'cluster.json'),
    JSON.stringify(info, null, 2),
    { mode: 0o600 },
  );

/**
 * Stops the kube-apiserver (SIGKILL: every connection drops at once, as in a crash or a control-plane upgrade) and
 * waits for the process to be gone; from then on its port refuses connections (ECONNREFUSED) until
 * {@link startApiServer}. etcd and the controller manager keep running. Returns the updated info, also written to
 * cluster.json (so `stop` and `start-apiserver` find the cluster). For tests of an API server that goes away.
 */
export async function stopApiServer(info: ClusterInfo): Promise<ClusterInfo> {
  const pid = info.pids.apiserver;
  if (pid > 0) {
    await stopProcessGroups([pid], { killAtOnce: [pid] });
    if (isAlive(pid))
      throw new Error(
        `kube-apiserver (pid ${pid}) still runs 15 s after SIGKILL`,
      );
  }
  const updated: ClusterInfo = {
    ...info,
    pids: { ...info.pids, apiserver: 0 },
    apiserverDown: 'stopped',
  };
  writeInfo(updated);
  log(`${info.name}: kube-apiserver stopped (was pid ${pid})`);
  return updated;
}

/**
 * Starts the kube-apiserver again on the same port with the same etcd and arguments, after {@link stopApiServer},
 * and waits for /readyz. Returns the updated info (new pid), also written to cluster.json.
 */
export async function startApiServer(info: ClusterInfo): Promise<ClusterInfo> {
  if (info.pids.apiserver > 0 && isAlive(info.pids.apiserver))
    throw new Error(
      `${info.name}: kube-apiserver still runs (pid ${info.pids.apiserver})${
        info.apiserverDown === 'paused' ? ': paused, resume it instead' : ''
      }`,
    );
  const bins = await ensureBinaries();
  const apiLog = join(info.stateDir, 'logs', 'kube-apiserver.log');
  // The port can linger for a moment after the kill; retry the launch until the new process stays up.
  let pid = 0;
  for (let attempt = 0; ; attempt++) {
    pid = await startServer(
      bins.kubeApiserver,
      info.apiserverArgs,
      apiLog,
      info.apiserverEnv,
    );
    try {
      await waitFor(
        'kube-apiserver /readyz after its start',
        async () => (await apiGet(info, '/readyz')).status === 200,
        {
          timeoutMs: 90_000,
          watch: [{ pid, log: apiLog, name: 'kube-apiserver' }],
        },
      );
      break;
    } catch (e) {
      if (attempt >= 3 || isAlive(pid)) throw e;
    }
  }
  const { apiserverDown: _up, ...rest } = info;
  const updated: ClusterInfo = {
    ...rest,
    pids: { ...info.pids, apiserver: pid },
  };
  writeInfo(updated);
  log(`${info.name}: kube-apiserver started (pid ${pid})`);
  return updated;
}

/**
 * Kills the kube-apiserver and starts it again on the same port with the same etcd ({@link stopApiServer}, then
 * {@link startApiServer}). For tests of how clients survive an API-server restart.
 */
export async function restartApiServer(
  info: ClusterInfo,
): Promise<ClusterInfo> {
  return startApiServer(await stopApiServer(info));
}

/**
 * Freezes the kube-apiserver with SIGSTOP: its listening socket stays open, so the kernel still completes TCP
 * handshakes (up to the listen backlog) but nothing answers: a new connection hangs in its TLS handshake, a request
 * in flight and an open watch get no byte, as behind a network partition or a hung control plane. Nothing is
 * refused and nothing is closed. {@link resumeApiServer} lets it go on where it stopped.
 */
export async function pauseApiServer(info: ClusterInfo): Promise<ClusterInfo> {
  const pid = info.pids.apiserver;
  if (!(pid > 0) || !isAlive(pid))
    throw new Error(`${info.name}: no kube-apiserver process to pause`);
  process.kill(-pid, 'SIGSTOP');
  const updated: ClusterInfo = { ...info, apiserverDown: 'paused' };
  writeInfo(updated);
  log(`${info.name}: kube-apiserver paused (pid ${pid}, SIGSTOP)`);
  return updated;
}

/** SIGCONT to a kube-apiserver {@link pauseApiServer} froze, then waits for /readyz. */
export async function resumeApiServer(info: ClusterInfo): Promise<ClusterInfo> {
  const pid = info.pids.apiserver;
  if (!(pid > 0) || !isAlive(pid))
    throw new Error(`${info.name}: no kube-apiserver process to resume`);
  process.kill(-pid, 'SIGCONT');
  const apiLog = join(info.stateDir, 'logs', 'kube-apiserver.log');
  await waitFor(
    'kube-apiserver /readyz after SIGCONT',
    async () => (await apiGet(info, '/readyz')).status === 200,
    {
      timeoutMs: 90_000,
      watch: [{ pid, log: apiLog, name: 'kube-apiserver' }],
    },
  );
  const { apiserverDown: _up, ...updated } = info;
  writeInfo(updated);
  log(`${info.name}: kube-apiserver resumed (pid ${pid})`);
  return updated;
}

/** Stops the processes (SIGTERM, then SIGKILL after 10 s) and removes the state of an ephemeral cluster. */
export async function stopManagementCluster(info: ClusterInfo): Promise<void> {
  const pids = [
    info.pids.controllerManager,
    info.pids.apiserver,
    info.pids.etcd,
  ].filter(p => p > 0);
  // A paused API server (pauseApiServer) is a test's fault: ended at once (SIGTERM would wait for its SIGCONT and
  // then for its graceful shutdown, >10 s measured).
  await stopProcessGroups(pids, {
    killAtOnce: info.apiserverDown === 'paused' ? [info.pids.apiserver] : [],
  });
  if (info.ephemeral) rmSync(info.stateDir, { recursive: true, force: true });
  else rmSync(join(info.stateDir, 'cluster.json'), { force: true });
}
