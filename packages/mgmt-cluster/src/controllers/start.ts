/**
 * Starting the real Cluster API, CAPZ and ASO managers on a running local management cluster (src/cluster.ts):
 *  - builds (or finds cached) the three managers and ASO's CRDs (managers.ts, managerCrds.ts);
 *  - issues one serving certificate for 127.0.0.1 from the cluster's CA (servingCert.ts);
 *  - installs the CRDs as a real install has them, their conversion webhooks pointed at the managers' loopback ports
 *    (managerCrds.ts);
 *  - starts each manager as a detached child process (webhook server, health and metrics on free ports, leader
 *    election off; commandLines.ts), waits for it to be ready (readiness.ts), and only then
 *  - installs the validating/mutating webhook configurations, pointed at the managers' webhook ports
 *    (admissionWebhooks.ts).
 *
 * No Azure is needed to start. With capz-sim's proxy in `env` (HTTPS_PROXY, SSL_CERT_FILE) ASO and CAPZ reach the
 * simulated Entra ID and ARM under their real names (docs/real-controllers.md#plan, step 2; azureEnv.ts checks that
 * wiring first); without it their Azure calls fail.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { apiRequest, type ClusterInfo } from '../api.ts';
import { installCrds } from '../install.ts';
import { launchServer, type LaunchedServer } from '../launch.ts';
import { log } from '../log.ts';
import { listenPort } from '../ports.ts';
import {
  admissionWebhookConfigs,
  installAdmissionWebhooks,
} from './admissionWebhooks.ts';
import { checkAzureEnv } from './azureEnv.ts';
import { managerArgs, managerEnv } from './commandLines.ts';
import { loadAsoCrds, managerCrds } from './managerCrds.ts';
import {
  ensureControllerBinaries,
  MANAGERS,
  moduleDir,
  type ManagerName,
} from './managers.ts';
import { waitUntilReady } from './readiness.ts';
import { issueServingCert } from './servingCert.ts';
import {
  runningControllers,
  saveRunningControllers,
  type ControllerPorts,
  type RunningControllers,
} from './state.ts';
import { stopControllers } from './stop.ts';

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
  /**
   * Per-manager hang detector for /readyz and the webhook port (default 420 s). The wait ends at once when a manager
   * exits, lacks a CRD or serves a certificate the CA does not verify, and a controller stuck in its cache sync exits
   * after 2 min; this bound only catches a manager that hangs. 14.6 s for all three on an idle machine; on CI beside
   * the other stages a simulator's whole start passed 240 s.
   */
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

const pinnedPorts = (opts: StartControllersOptions): number[] =>
  Object.values(opts.ports ?? {}).flatMap(p => Object.values(p ?? {}));

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
  const webhookPorts = {
    capi: ports.capi.webhook,
    capz: ports.capz.webhook,
    aso: ports.aso.webhook,
  };

  // CRDs first (their conversion webhooks point at servers that start next; nothing converts until objects exist).
  const capiRoot = moduleDir('capi');
  const capzRoot = moduleDir('capz');
  const crds = managerCrds({
    capiRoot,
    capzRoot,
    aso,
    webhookPorts,
    caPem: info.caPem,
  });
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

  const args = managerArgs(ports, certDir);
  const running: RunningControllers = {
    cluster: info.name,
    stateDir: dir,
    certDir,
    binaries: bins.dir,
    asoCrdsDir: aso.dir,
    env: opts.env,
    managers: {} as RunningControllers['managers'],
  };
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
    const launched = {} as Record<ManagerName, LaunchedServer>;
    for (const m of which) {
      const logFile = join(dir, 'logs', `${m}.log`);
      launched[m] = await launchServer(bins[m], args[m], {
        logFile,
        env: managerEnv(m, info, opts.env),
      });
      running.managers[m] = {
        pid: launched[m].pid,
        log: logFile,
        ports: ports[m],
        args: args[m],
      };
      saveRunningControllers(info, running);
    }
    for (const m of which) {
      const p = running.managers[m];
      await waitUntilReady(
        { name: m, ...p, ...launched[m] },
        {
          timeoutMs: opts.timeoutMs ?? 420_000,
          caPem: info.caPem,
          certDir,
          clusterStateDir: info.stateDir,
          fail: (message, takenPort) => fail(m, message, takenPort),
        },
      );
      log(
        `${m} manager ready (pid ${p.pid}, webhook :${p.ports.webhook}, health :${p.ports.health})`,
      );
    }

    // Admission webhooks last, so that nothing is refused while a server is still starting.
    const webhooks = await installAdmissionWebhooks(
      info,
      admissionWebhookConfigs({
        which,
        capiRoot,
        capzRoot,
        aso,
        webhookPorts,
        caPem: info.caPem,
      }),
    );
    log(
      `real controllers (${which.join(', ')}) ready on ${info.name} in ${(
        (Date.now() - started) /
        1000
      ).toFixed(1)}s; ` +
        `${webhooks} admission webhooks installed; logs in ${join(
          dir,
          'logs',
        )}`,
    );
  } catch (e) {
    await stopControllers(info);
    throw e;
  }
  return running;
}
