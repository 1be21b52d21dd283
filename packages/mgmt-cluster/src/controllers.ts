/**
 * The real Cluster API, CAPZ and ASO managers on a local management cluster.
 *
 * Given a running cluster (src/cluster.ts), this:
 *  - builds (or finds cached) the three managers (scripts/build-controllers.sh) and ASO's CRDs (scripts/gen-aso-crds.sh);
 *  - issues one serving certificate for 127.0.0.1 from the cluster's CA (the CA the API server already trusts for
 *    itself, so `caBundle` is that CA);
 *  - installs the CRDs as a real install has them: CAPI's and CAPZ's from their module zips with the conversion
 *    webhooks their config/crd/kustomization.yaml enables, ASO's generated ones with ASO's labels and a conversion
 *    webhook; every clientConfig is `url: https://127.0.0.1:<port>/convert` instead of an in-cluster Service;
 *  - starts each manager as a detached child process (webhook server, health and metrics on free ports, leader
 *    election off), waits for its /readyz and its webhook port, and only then
 *  - installs the validating/mutating webhook configurations of config/webhook/manifests.yaml (CAPI, CAPZ) and of
 *    the controller-gen webhook output (ASO), pointed at the managers' webhook ports.
 *
 * No Azure is needed to start. With capz-sim's proxy in `env` (HTTPS_PROXY, SSL_CERT_FILE) ASO and CAPZ reach the
 * simulated Entra ID and ARM under their real names (docs/real-controllers.md#plan, step 2); without it their Azure
 * calls fail.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { get as httpGet } from 'node:http';
import { connect as netConnect } from 'node:net';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runBuildScript } from './buildScript.ts';
import { apiRequest, type ClusterInfo } from './cluster.ts';
import type { Crd } from './crds.ts';
import { launch } from './launch.ts';
import { installCrds } from './install.ts';
import { log } from './log.ts';
import { packageDir } from './paths.ts';
import { ensurePki } from './pki.ts';
import { listenPort } from './ports.ts';

export type ManagerName = 'capi' | 'capz' | 'aso';
export const MANAGERS: ManagerName[] = ['capi', 'capz', 'aso'];

const BINARY: Record<ManagerName, string> = {
  capi: 'capi-manager',
  capz: 'capz-manager',
  aso: 'aso-controller',
};

/** The module versions, as pinned in go/{capi,capz,aso}/go.mod (CAPZ v1.26.0's own go.mod). */
export const CONTROLLER_MODULES = {
  capi: { module: 'sigs.k8s.io/cluster-api', version: 'v1.13.3' },
  capz: {
    module: 'sigs.k8s.io/cluster-api-provider-azure',
    version: 'v1.26.0',
  },
  aso: {
    module: 'github.com/Azure/azure-service-operator/v2',
    version: 'v2.18.0',
  },
} as const;

/**
 * The ASO kinds CAPZ v1.26.0 lets ASO manage: the `--crd-pattern` of CAPZ's config/aso/kustomization.yaml
 * (without ADDITIONAL_ASO_CRDS). ASO is run with `--crd-management=none`, so this is also the set of ASO CRDs
 * installed here: in that mode ASO watches exactly the CRDs labelled app.kubernetes.io/name=azure-service-operator.
 */
export const ASO_CRD_PATTERN = [
  'containerservice.azure.com/FleetsMember',
  'containerservice.azure.com/MaintenanceConfiguration',
  'containerservice.azure.com/ManagedCluster',
  'containerservice.azure.com/ManagedClustersAgentPool',
  'kubernetesconfiguration.azure.com/Extension',
  'network.azure.com/BastionHost',
  'network.azure.com/NatGateway',
  'network.azure.com/PrivateEndpoint',
  'network.azure.com/VirtualNetwork',
  'network.azure.com/VirtualNetworksSubnet',
  'resources.azure.com/ResourceGroup',
];

export interface ControllerBinaries {
  dir: string;
  capi: string;
  capz: string;
  aso: string;
}

function runScript(script: string, args: string[] = []): Promise<string> {
  return runBuildScript(join(packageDir, 'scripts', script), args);
}

/** Builds (or finds cached) the three managers; one at a time, nice'd (scripts/build-controllers.sh). */
export async function ensureControllerBinaries(
  which: ManagerName[] = MANAGERS,
): Promise<ControllerBinaries> {
  const dir = await runScript('build-controllers.sh', which);
  return {
    dir,
    capi: join(dir, BINARY.capi),
    capz: join(dir, BINARY.capz),
    aso: join(dir, BINARY.aso),
  };
}

type Doc = Record<string, any>;

function readYamlDocs(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map(d => d.toJS() as Doc | null)
    .filter((d): d is Doc => Boolean(d));
}

function moduleDir(module: string, version: string): string {
  const info = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], {
      cwd: tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as { Dir?: string; Error?: string };
  if (!info.Dir)
    throw new Error(
      `go mod download ${module}@${version}: ${info.Error ?? 'no Dir'}`,
    );
  return info.Dir;
}

/** The generated ASO CRDs (only the kinds of ASO_CRD_PATTERN) and webhook configurations. */
export async function loadAsoCrds(): Promise<{
  dir: string;
  version: string;
  crds: Crd[];
  webhooks: Doc[];
}> {
  const dir = await runScript('gen-aso-crds.sh');
  const version = readFileSync(join(dir, 'aso-version'), 'utf8').trim();
  const wanted = new Set(ASO_CRD_PATTERN);
  const crds: Crd[] = [];
  for (const f of readdirSync(join(dir, 'crd')).sort()) {
    for (const crd of readYamlDocs(join(dir, 'crd', f)) as Crd[]) {
      if (wanted.has(`${crd.spec.group}/${crd.spec.names.kind}`))
        crds.push(crd);
    }
  }
  const missing = [...wanted].filter(
    p => !crds.some(c => `${c.spec.group}/${c.spec.names.kind}` === p),
  );
  if (missing.length)
    throw new Error(`ASO CRDs not generated: ${missing.join(', ')}`);
  const webhooks = readYamlDocs(join(dir, 'webhook', 'manifests.yaml'));
  return { dir, version, crds, webhooks };
}

/** The CRD files a project's config/crd/kustomization.yaml lists, and the CRDs its patches give a conversion webhook. */
function kustomizedCrds(root: string): {
  crds: Crd[];
  conversion: Set<string>;
} {
  const k = readYamlDocs(join(root, 'config/crd/kustomization.yaml'))[0];
  const crds: Crd[] = [];
  for (const r of k.resources as string[]) {
    for (const d of readYamlDocs(join(root, 'config/crd', r)) as Crd[]) {
      if (d.kind === 'CustomResourceDefinition') crds.push(d);
    }
  }
  const conversion = new Set<string>();
  const labels = new Map<string, Record<string, string>>();
  for (const p of (k.patches ?? []) as Array<{ path?: string }>) {
    if (!p.path) continue;
    const patch = readYamlDocs(join(root, 'config/crd', p.path))[0] as Crd;
    if (patch.spec?.conversion?.strategy === 'Webhook')
      conversion.add(patch.metadata.name);
    if (patch.metadata.labels)
      labels.set(patch.metadata.name, patch.metadata.labels);
  }
  for (const crd of crds) {
    const l = labels.get(crd.metadata.name);
    if (l) crd.metadata.labels = { ...crd.metadata.labels, ...l };
  }
  return { crds, conversion };
}

export interface ControllerPorts {
  webhook: number;
  health: number;
  metrics: number;
}

export interface RunningControllers {
  cluster: string;
  stateDir: string;
  certDir: string;
  binaries: string;
  asoCrdsDir: string;
  /** The extra environment the managers were started with (`StartControllersOptions.env`: proxy and CA bundle). */
  env?: Record<string, string>;
  managers: Record<
    ManagerName,
    { pid: number; log: string; ports: ControllerPorts; args: string[] }
  >;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

function withConversionWebhook(crd: Crd, port: number, caPem: string): Crd {
  const out = structuredClone(crd);
  out.spec.conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      clientConfig: {
        url: `https://127.0.0.1:${port}/convert`,
        caBundle: b64(caPem),
      },
    },
  };
  if (out.metadata.annotations) {
    delete out.metadata.annotations['cert-manager.io/inject-ca-from'];
  }
  return out;
}

/** A webhook configuration with every Service reference turned into `url: https://127.0.0.1:<port><path>`. */
function pointWebhooksAt(
  doc: Doc,
  name: string,
  port: number,
  caPem: string,
): Doc {
  return {
    apiVersion: doc.apiVersion,
    kind: doc.kind,
    metadata: { name, labels: { 'capz-backstage/real-controllers': 'true' } },
    webhooks: (doc.webhooks as Doc[]).map(w => ({
      ...w,
      clientConfig: {
        url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`,
        caBundle: b64(caPem),
      },
    })),
  };
}

async function ok(r: Promise<{ status: number; body: string }>, what: string) {
  const res = await r;
  if (res.status >= 300)
    throw new Error(`${what}: HTTP ${res.status}: ${res.body.slice(0, 1500)}`);
  return JSON.parse(res.body) as Doc;
}

/** Create or replace (plain PUT with the live resourceVersion) a cluster-scoped object. */
async function upsert(
  info: ClusterInfo,
  collection: string,
  obj: Doc,
): Promise<void> {
  const created = await apiRequest(info, 'POST', collection, obj);
  if (created.status === 409) {
    const live = await ok(
      apiRequest(info, 'GET', `${collection}/${obj.metadata.name}`),
      `read ${obj.metadata.name}`,
    );
    await ok(
      apiRequest(info, 'PUT', `${collection}/${obj.metadata.name}`, {
        ...obj,
        metadata: {
          ...obj.metadata,
          resourceVersion: live.metadata.resourceVersion,
        },
      }),
      `replace ${obj.kind} ${obj.metadata.name}`,
    );
  } else if (created.status >= 300) {
    throw new Error(
      `create ${obj.kind} ${obj.metadata.name}: HTTP ${
        created.status
      }: ${created.body.slice(0, 1500)}`,
    );
  }
}

const openssl = (args: string[]) =>
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** tls.crt/tls.key for 127.0.0.1 and localhost, signed by the cluster's CA (one cert for the three servers). */
function issueServingCert(stateDir: string, certDir: string): void {
  const pki = ensurePki(stateDir);
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const crt = join(certDir, 'tls.crt');
  if (existsSync(crt)) return;
  const ext = join(certDir, 'san.ext');
  writeFileSync(
    ext,
    [
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      'extendedKeyUsage=serverAuth',
      'keyUsage=digitalSignature,keyEncipherment',
    ].join('\n'),
  );
  const key = join(certDir, 'tls.key');
  const csr = join(certDir, 'tls.csr');
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    csr,
    '-subj',
    '/CN=127.0.0.1',
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    pki.caCert,
    '-CAkey',
    pki.caKey,
    '-CAcreateserial',
    '-out',
    crt,
    '-days',
    '3650',
    '-extfile',
    ext,
  ]);
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** What a manager wrote since `offset`: the log file is appended to by every start in the same state directory. */
function logSince(file: string, offset = 0): string {
  if (!existsSync(file)) return '';
  const buf = readFileSync(file);
  return buf.subarray(Math.min(offset, buf.length)).toString('utf8');
}

function tail(text: string, lines = 25): string {
  return text.trim()
    ? text.trimEnd().split('\n').slice(-lines).join('\n')
    : '(nothing logged)';
}

/** The message of a klog line (`E1123 11:14:49.860172   31163 main.go:400] "msg" err="..."`), without its header. */
const klogMessage = (line: string) =>
  line.replace(/^[IWEF]\d{4} [^\]]*\] /, '');

/**
 * Why a manager is failing, from what it logged during this start: its last error line (klog `E…`), and the port it
 * found taken. controller-runtime v0.23.3 returns the listener's error from `mgr.Start` (webhook server:
 * `pkg/webhook/server.go` line 237; health probes and metrics likewise), which CAPI and CAPZ log as "problem running manager"
 * before exiting 1 (CAPZ v1.26.0 `main.go` lines 399-402).
 */
function causeOf(text: string): { cause?: string; port?: number } {
  const errors = text.split('\n').filter(l => /^[EF]\d{4} /.test(l));
  const last = errors.at(-1);
  const bind = /listen tcp [^ ]*:(\d+): bind: address already in use/.exec(
    text,
  );
  return {
    cause: last ? klogMessage(last) : undefined,
    port: bind ? Number(bind[1]) : undefined,
  };
}

/**
 * How far a manager's controllers got, from controller-runtime's log lines (v0.23.3
 * `pkg/internal/controller/controller.go`): "Starting EventSource" per watch (line 370), "Starting workers" once all
 * of a controller's sources synced (line 306). A watched kind without its CRD is logged by the kind source as "if kind
 * is a CRD, it should be installed before calling Start" and retried every 10 s (`pkg/internal/source/kind.go` lines
 * 68-82) until the controller's CacheSyncTimeout, 2 min by default (`pkg/controller/controller.go` lines 248-250),
 * ends the manager: its /readyz (CAPI, CAPZ: the webhook server's StartedChecker) is 200 all that while.
 */
function controllerProgress(text: string): {
  waiting: string[];
  started: number;
  missingKind?: string;
} {
  const withSources = new Set<string>();
  const withWorkers = new Set<string>();
  let missingKind: string | undefined;
  for (const line of text.split('\n')) {
    const c = /controller="([^"]+)"/.exec(line)?.[1];
    if (line.includes('"Starting EventSource"') && c) withSources.add(c);
    else if (line.includes('"Starting workers"') && c) withWorkers.add(c);
    else if (
      !missingKind &&
      line.includes(
        'if kind is a CRD, it should be installed before calling Start',
      )
    )
      missingKind = klogMessage(line);
  }
  return {
    waiting: [...withSources].filter(c => !withWorkers.has(c)).sort(),
    started: withWorkers.size,
    missingKind,
  };
}

function httpStatus(url: string): Promise<number> {
  return new Promise(resolvePromise => {
    const req = httpGet(url, { timeout: 2000 }, res => {
      res.resume();
      resolvePromise(res.statusCode ?? 0);
    });
    req.on('error', () => resolvePromise(0));
    req.on('timeout', () => req.destroy());
  });
}

/**
 * Whether a TLS server on 127.0.0.1:<port> presents a certificate the cluster CA verifies: `ok`, or the error, with
 * `certificate` set when a server answered but its certificate failed verification (OpenSSL's verify codes such as
 * DEPTH_ZERO_SELF_SIGNED_CERT, or Node's ERR_TLS_CERT_ALTNAME_INVALID), which waiting will not mend.
 */
function tlsCheck(
  port: number,
  caPem: string,
): Promise<{ ok: true } | { ok: false; error: string; certificate: boolean }> {
  return new Promise(resolvePromise => {
    const s = connect(
      { host: '127.0.0.1', port, ca: caPem, servername: 'localhost' },
      () => {
        s.end();
        resolvePromise({ ok: true });
      },
    );
    s.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      resolvePromise({
        ok: false,
        // Node's advice to use the system CA does not apply: the cluster CA is the one to trust.
        error: `${e.message.replace(
          /; if the root CA is installed locally.*$/,
          '',
        )}${code ? ` (${code})` : ''}`,
        // Socket errors are E*-codes (ECONNREFUSED while the server starts); verify errors are OpenSSL's names.
        certificate:
          code === 'ERR_TLS_CERT_ALTNAME_INVALID' ||
          (code !== '' && !code.startsWith('E')),
      });
    });
    s.setTimeout(2000, () => {
      s.destroy();
      resolvePromise({ ok: false, error: 'timed out', certificate: false });
    });
  });
}

const pinnedPorts = (opts: StartControllersOptions): number[] =>
  Object.values(opts.ports ?? {}).flatMap(p => Object.values(p ?? {}));

function controllersFile(stateDir: string) {
  return join(stateDir, 'controllers.json');
}

export function runningControllers(
  info: ClusterInfo,
): RunningControllers | undefined {
  const f = controllersFile(info.stateDir);
  if (!existsSync(f)) return undefined;
  return JSON.parse(readFileSync(f, 'utf8')) as RunningControllers;
}

export interface StartControllersOptions {
  /** Which managers to start (default all three). CRDs and webhooks of all three are installed regardless. */
  managers?: ManagerName[];
  /**
   * Extra environment for every manager, on top of PATH, HOME, KUBECONFIG and the POD_* variables. For the simulated
   * Azure: `HTTPS_PROXY`, `SSL_CERT_FILE` and `NO_PROXY` from capz-sim's proxy (`clientEnv`), which serves the
   * simulated Entra ID and ARM under their real names (docs/real-controllers.md#plan, step 2); checked before
   * anything starts (`checkAzureEnv`).
   */
  env?: Record<string, string>;
  /** Per-manager timeout for /readyz and the webhook port (default 180 s: ASO's start is slow on 2 shared cores). */
  timeoutMs?: number;
  /**
   * Ports to use instead of picked ones (e.g. fixed firewall holes, or a fault test). A pinned port that is taken is
   * not retried with new ports: it would be taken again.
   */
  ports?: Partial<Record<ManagerName, Partial<ControllerPorts>>>;
  /** CRDs (by name) not to install, for fault tests; one already on the cluster is left as it is. */
  skipCrds?: string[];
}

/** Why startControllers failed: the manager, the cause, its log tail, and every process it had started (all stopped). */
export class ControllersStartError extends Error {
  readonly manager: ManagerName;
  readonly started: Partial<Record<ManagerName, { pid: number; log: string }>>;
  /** The port a manager found taken (`bind: address already in use`), when that was the cause. */
  readonly takenPort?: number;
  constructor(
    message: string,
    manager: ManagerName,
    started: Partial<Record<ManagerName, { pid: number; log: string }>>,
    takenPort?: number,
  ) {
    super(message);
    this.name = 'ControllersStartError';
    this.manager = manager;
    this.started = started;
    this.takenPort = takenPort;
  }
}

/** True when something accepts TCP connections on host:port within 2 s. */
function accepts(host: string, port: number): Promise<string | undefined> {
  return new Promise(resolvePromise => {
    const s = netConnect({ host, port });
    s.setTimeout(2000, () => {
      s.destroy();
      resolvePromise('timed out');
    });
    s.once('connect', () => {
      s.end();
      resolvePromise(undefined);
    });
    s.once('error', e => resolvePromise(e.message));
  });
}

/**
 * Fails with the cause when the managers' proxy wiring cannot work, before anything is started or stopped. Without
 * this the managers start fine and fail only at their first Azure call, inside a condition: a proxy that does not
 * listen (`proxyconnect tcp: ... connection refused`), or an `SSL_CERT_FILE` that is missing, which Go does not report
 * at all (it falls back to the certificate directories: `src/crypto/x509/root_unix.go` lines 35-75, Go 1.26) and the
 * proxy's names are then `x509: certificate signed by unknown authority`.
 */
export async function checkAzureEnv(
  env: Record<string, string> = {},
): Promise<void> {
  const problems: string[] = [];
  const bundle = env.SSL_CERT_FILE;
  if (bundle !== undefined) {
    if (!existsSync(bundle))
      problems.push(`SSL_CERT_FILE ${bundle} does not exist`);
    else if (
      !readFileSync(bundle, 'utf8').includes('-----BEGIN CERTIFICATE-----')
    )
      problems.push(`SSL_CERT_FILE ${bundle} holds no PEM certificate`);
  }
  // Go reads HTTPS_PROXY, then https_proxy (net/http ProxyFromEnvironment, golang.org/x/net/http/httpproxy).
  const proxy = env.HTTPS_PROXY ?? env.https_proxy;
  if (proxy) {
    let u: URL | undefined;
    try {
      u = new URL(proxy);
    } catch {
      problems.push(`HTTPS_PROXY ${proxy} is not a URL`);
    }
    if (u) {
      const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
      const err = await accepts(u.hostname, port);
      if (err)
        problems.push(
          `HTTPS_PROXY ${proxy} does not accept connections (${err})`,
        );
    }
  }
  if (problems.length)
    throw new Error(
      `the managers' environment cannot reach the (simulated) Azure: ${problems.join(
        '; ',
      )}; nothing was started`,
    );
}

/**
 * Installs CRDs and webhooks and starts the real managers against a running management cluster. Stops every
 * process it started when any of them fails to become ready, with that manager's log tail in the error. A port
 * taken between the pick and a manager's bind is retried (all managers, new ports) up to twice.
 */
export async function startControllers(
  info: ClusterInfo,
  opts: StartControllersOptions = {},
): Promise<RunningControllers> {
  await checkAzureEnv(opts.env);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(info, opts);
    } catch (e) {
      const msg = (e as Error).message;
      const port = e instanceof ControllersStartError ? e.takenPort : undefined;
      // A pinned port would be taken again: only picked ports are worth a retry.
      if (
        attempt >= 3 ||
        !msg.includes('address already in use') ||
        (port !== undefined && pinnedPorts(opts).includes(port))
      )
        throw e;
      log(
        `a port was taken while starting (attempt ${attempt}); retrying with new ports`,
      );
    }
  }
}

async function startOnce(
  info: ClusterInfo,
  opts: StartControllersOptions,
): Promise<RunningControllers> {
  const which = opts.managers ?? MANAGERS;
  const existing = runningControllers(info);
  if (existing) await stopControllers(info);
  const started = Date.now();
  const bins = await ensureControllerBinaries(which);
  const aso = await loadAsoCrds();
  const dir = join(info.stateDir, 'controllers');
  const certDir = join(dir, 'certs');
  mkdirSync(join(dir, 'logs'), { recursive: true });
  issueServingCert(info.stateDir, certDir);

  const ports = {} as Record<ManagerName, ControllerPorts>;
  const taken = new Set<number>(pinnedPorts(opts));
  for (const m of MANAGERS) {
    const pin = opts.ports?.[m] ?? {};
    ports[m] = {
      webhook: pin.webhook ?? (await listenPort(taken)),
      health: pin.health ?? (await listenPort(taken)),
      metrics: pin.metrics ?? (await listenPort(taken)),
    };
  }

  // CRDs first (their conversion webhooks point at servers that start next; nothing converts until objects exist).
  const capiRoot = moduleDir(
    CONTROLLER_MODULES.capi.module,
    CONTROLLER_MODULES.capi.version,
  );
  const capzRoot = moduleDir(
    CONTROLLER_MODULES.capz.module,
    CONTROLLER_MODULES.capz.version,
  );
  const crds: Crd[] = [];
  for (const [m, root] of [
    ['capi', capiRoot],
    ['capz', capzRoot],
  ] as const) {
    const k = kustomizedCrds(root);
    for (const crd of k.crds) {
      crds.push(
        k.conversion.has(crd.metadata.name)
          ? withConversionWebhook(crd, ports[m].webhook, info.caPem)
          : crd,
      );
    }
  }
  // CAPI's kubeadm bootstrap/control-plane CRDs: CAPZ's AzureMachinePool controller watches KubeadmConfig.
  for (const f of [
    'bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigs.yaml',
    'bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigtemplates.yaml',
  ]) {
    for (const crd of readYamlDocs(join(capiRoot, f)) as Crd[]) {
      const c = structuredClone(crd);
      // Their conversion webhook lives in the kubeadm bootstrap manager, which does not run here.
      c.spec.conversion = { strategy: 'None' };
      crds.push(c);
    }
  }
  for (const crd of aso.crds) {
    const c = withConversionWebhook(crd, ports.aso.webhook, info.caPem);
    c.metadata.labels = {
      ...c.metadata.labels,
      'app.kubernetes.io/name': 'azure-service-operator',
      'app.kubernetes.io/version': aso.version,
    };
    crds.push(c);
  }
  const skip = new Set(opts.skipCrds ?? []);
  await installCrds(
    info,
    crds.filter(c => !skip.has(c.metadata.name)),
  );

  for (const ns of [
    'capi-system',
    'capz-system',
    'azureserviceoperator-system',
  ]) {
    const r = await apiRequest(info, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    if (r.status >= 300 && r.status !== 409)
      throw new Error(`namespace ${ns}: HTTP ${r.status}`);
  }

  const common = (m: ManagerName) => [
    `--webhook-port=${ports[m].webhook}`,
    `--webhook-cert-dir=${certDir}`,
    `--health-addr=127.0.0.1:${ports[m].health}`,
  ];
  const args: Record<ManagerName, string[]> = {
    capi: [
      ...common('capi'),
      `--diagnostics-address=127.0.0.1:${ports.capi.metrics}`,
      '--insecure-diagnostics=true',
      // config/manager/manager.yaml defaults of CAPI v1.13.3 (ClusterTopology/RuntimeSDK off as there).
      '--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,PriorityQueue=true,ReconcilerRateLimiting=true',
      '--v=2',
    ],
    capz: [
      ...common('capz'),
      `--diagnostics-address=127.0.0.1:${ports.capz.metrics}`,
      '--insecure-diagnostics=true',
      // config/manager/manager.yaml defaults of CAPZ v1.26.0. ASOAPI is GA (default true) in v1.26.
      '--feature-gates=MachinePool=true,AKSResourceHealth=false,EdgeZone=false,ASOAPI=true,APIServerILB=false',
      '--v=2',
    ],
    aso: [
      ...common('aso'),
      // Metrics off ("0" is ASO's own default); no CRD management: the CRDs above are ASO's whole world.
      '--metrics-addr=0',
      '--crd-management=none',
      `--crd-pattern=${ASO_CRD_PATTERN.join(';')}`,
      '--v=2',
    ],
  };
  const envFor = (m: ManagerName): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    KUBECONFIG: info.kubeconfigPath,
    POD_NAMESPACE: m === 'aso' ? 'azureserviceoperator-system' : `${m}-system`,
    POD_NAME: `${m}-controller-manager-local`,
    ...(m === 'aso'
      ? {
          // As CAPZ's config/aso/settings.yaml: no global credential; per-resource Secrets from AzureClusterIdentity.
          AZURE_SUBSCRIPTION_ID: '',
          AZURE_TENANT_ID: '',
          AZURE_CLIENT_ID: '',
          AZURE_USER_AGENT_SUFFIX: 'cluster-api-provider-azure/main',
        }
      : {}),
    ...opts.env,
  });

  const running: RunningControllers = {
    cluster: info.name,
    stateDir: dir,
    certDir,
    binaries: bins.dir,
    asoCrdsDir: aso.dir,
    env: opts.env,
    managers: {} as RunningControllers['managers'],
  };
  const save = () =>
    writeFileSync(
      controllersFile(info.stateDir),
      JSON.stringify(running, null, 2),
      { mode: 0o600 },
    );
  const fail = (m: ManagerName, message: string, takenPort?: number) =>
    new ControllersStartError(
      message,
      m,
      Object.fromEntries(
        Object.entries(running.managers).map(([k, v]) => [
          k,
          { pid: v.pid, log: v.log },
        ]),
      ),
      takenPort,
    );
  try {
    const logStart = {} as Record<ManagerName, number>;
    const exits: Partial<Record<ManagerName, string>> = {};
    for (const m of which) {
      const logFile = join(dir, 'logs', `${m}.log`);
      logStart[m] = existsSync(logFile) ? statSync(logFile).size : 0;
      const child = await launch(bins[m], args[m], {
        logFile,
        env: envFor(m),
      });
      child.on('exit', (code, signal) => {
        exits[m] = signal ? `signal ${signal}` : `exit code ${code}`;
      });
      child.unref();
      running.managers[m] = {
        pid: child.pid,
        log: logFile,
        ports: ports[m],
        args: args[m],
      };
      save();
    }
    const logTail = (m: ManagerName, text: string) =>
      `\n--- ${m} log tail (${running.managers[m].log}) ---\n${tail(text)}`;
    for (const m of which) {
      const p = running.managers[m];
      const timeoutMs = opts.timeoutMs ?? 180_000;
      const deadline = Date.now() + timeoutMs;
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        if (exits[m] || !isAlive(p.pid)) {
          const text = logSince(p.log, logStart[m]);
          const { cause, port } = causeOf(text);
          const role = port
            ? (Object.keys(p.ports) as Array<keyof ControllerPorts>).find(
                k => p.ports[k] === port,
              )
            : undefined;
          throw fail(
            m,
            `${m} manager exited (${exits[m] ?? 'gone'}) while starting: ${
              port
                ? `its ${role ?? ''}${
                    role ? ' ' : ''
                  }port ${port} is taken by another listener; `
                : ''
            }${cause ?? 'no error logged'}${logTail(m, text)}`,
            port,
          );
        }
        const text = logSince(p.log, logStart[m]);
        const progress = controllerProgress(text);
        if (progress.missingKind)
          throw fail(
            m,
            `${m} manager cannot start a controller: a kind it watches has no CRD: ${
              progress.missingKind
            }${logTail(m, text)}`,
          );
        const tls = await tlsCheck(p.ports.webhook, info.caPem);
        if (!tls.ok && tls.certificate)
          throw fail(
            m,
            `${m} manager's webhook server on 127.0.0.1:${
              p.ports.webhook
            } presents a certificate the cluster CA does not verify: ${
              tls.error
            }; the serving certificate is ${join(
              certDir,
              'tls.crt',
            )}, the cluster CA ${
              info.stateDir
            }/pki/ca.crt: remove ${certDir} to have it issued again${logTail(
              m,
              text,
            )}`,
          );
        const readyz = await httpStatus(
          `http://127.0.0.1:${p.ports.health}/readyz`,
        );
        // Ready: /readyz, the webhook's TLS, and every controller past its cache sync (a controller stuck before its
        // workers would end the manager later, see controllerProgress).
        if (
          readyz === 200 &&
          tls.ok &&
          progress.started > 0 &&
          !progress.waiting.length
        )
          break;
        if (Date.now() > deadline)
          throw fail(
            m,
            `${m} manager not ready after ${timeoutMs} ms: readyz on ${
              p.ports.health
            } ${readyz || 'not answering'}, webhook on ${p.ports.webhook} ${
              tls.ok ? 'ok' : tls.error
            }, controllers ${
              progress.started
                ? `waiting for their caches: ${
                    progress.waiting.join(', ') || 'none'
                  }`
                : 'not started'
            }${logTail(m, text)}`,
          );
        await new Promise(r => setTimeout(r, delay));
      }
      log(
        `${m} manager ready (pid ${p.pid}, webhook :${p.ports.webhook}, health :${p.ports.health})`,
      );
    }

    // Admission webhooks last, so that nothing is refused while a server is still starting.
    const configs: Doc[] = [];
    const fromManifests = (m: 'capi' | 'capz', root: string) => {
      for (const d of readYamlDocs(
        join(root, 'config/webhook/manifests.yaml'),
      )) {
        configs.push(
          pointWebhooksAt(
            d,
            `${m}-${d.metadata.name}`,
            ports[m].webhook,
            info.caPem,
          ),
        );
      }
    };
    if (which.includes('capi')) fromManifests('capi', capiRoot);
    if (which.includes('capz')) fromManifests('capz', capzRoot);
    const asoResources = new Set(
      aso.crds.map(c => `${c.spec.group}/${c.spec.names.plural}`),
    );
    for (const d of which.includes('aso') ? aso.webhooks : []) {
      const doc = pointWebhooksAt(
        d,
        `azureserviceoperator-${d.metadata.name}`,
        ports.aso.webhook,
        info.caPem,
      );
      // Only the kinds whose CRDs are installed: ASO registers webhook handlers for ready CRDs only.
      doc.webhooks = (doc.webhooks as Doc[]).filter(w =>
        (w.rules as Doc[]).every(r =>
          (r.resources as string[]).every(res =>
            (r.apiGroups as string[]).some(g =>
              asoResources.has(`${g}/${res}`),
            ),
          ),
        ),
      );
      configs.push(doc);
    }
    for (const c of configs) {
      await upsert(
        info,
        `/apis/admissionregistration.k8s.io/v1/${
          c.kind === 'MutatingWebhookConfiguration'
            ? 'mutatingwebhookconfigurations'
            : 'validatingwebhookconfigurations'
        }`,
        c,
      );
    }
    log(
      `real controllers (${which.join(', ')}) ready on ${info.name} in ${(
        (Date.now() - started) /
        1000
      ).toFixed(1)}s; ` +
        `${configs.reduce(
          (n, c) => n + c.webhooks.length,
          0,
        )} admission webhooks installed; logs in ${join(dir, 'logs')}`,
    );
  } catch (e) {
    await stopControllers(info);
    throw e;
  }
  return running;
}

/**
 * Stops the managers this package started (SIGTERM to each process group, SIGKILL after 10 s) and removes the
 * webhook configurations that point at them, so that the cluster keeps accepting writes.
 */
export async function stopControllers(info: ClusterInfo): Promise<void> {
  const running = runningControllers(info);
  if (!running) return;
  const pids = Object.values(running.managers).map(m => m.pid);
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 10_000;
  while (pids.some(isAlive) && Date.now() < deadline)
    await new Promise(r => setTimeout(r, 50));
  for (const pid of pids.filter(isAlive)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const kind of [
    'mutatingwebhookconfigurations',
    'validatingwebhookconfigurations',
  ]) {
    await apiRequest(
      info,
      'DELETE',
      `/apis/admissionregistration.k8s.io/v1/${kind}?labelSelector=${encodeURIComponent(
        'capz-backstage/real-controllers=true',
      )}`,
    ).catch(() => undefined);
  }
  rmSync(controllersFile(info.stateDir), { force: true });
}
