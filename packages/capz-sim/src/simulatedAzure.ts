/**
 * Only Azure, simulated, for the real CAPI, CAPZ and ASO managers (docs/real-controllers.md#plan): one Azure model
 * served by the simulated Entra ID and ARM endpoint, both reached under their real host names through the HTTPS proxy,
 * and one local kube-apiserver as the workload cluster of every simulated AKS cluster, holding a Node per VMSS
 * instance. `managerEnv` is what the managers' processes need (`startControllers({ env })` of
 * `@internal/mgmt-cluster`); nothing of this runs a controller.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterInfo } from '@internal/mgmt-cluster';
import {
  ARM_AUDIENCES,
  entraAuthorizer,
  startArmServer,
  type ArmServer,
} from './arm/server.ts';
import {
  SIM_SERVICE_PRINCIPAL,
  type SimServicePrincipal,
} from './azure/credential.ts';
import { AzureWorld, type AzureSnapshot } from './azure/model.ts';
import {
  AKS_SERVER_APPLICATION_ID,
  startEntraSim,
  type EntraSim,
} from './entra/server.ts';
import {
  ARM_HOST,
  ENTRA_HOST,
  startSimProxy,
  type SimProxy,
} from './proxy/server.ts';
import {
  attachWorkloadApiServer,
  startWorkloadApiServer,
  type WorkloadApiServer,
} from './workload/apiserver.ts';
import { WorkloadNodeSync } from './workload/sync.ts';

export interface SimulatedAzureOptions {
  /** Where the endpoints' certificates and the CA bundle live. */
  stateDir: string;
  /** Subscriptions the simulator's service principal may use. */
  subscriptions: string[];
  /** How long an Azure operation takes (default 300 ms). */
  operationMs?: number;
  /** AKS's cluster auto-upgrade runs on this period (`AzureWorldOptions.autoUpgradeMs`); default never. */
  autoUpgradeMs?: number;
  /** Azure as an earlier run left it (the demo persists it). */
  restore?: AzureSnapshot;
  /**
   * The workload clusters' API server: a running one to attach to (e.g. the management cluster itself in tests), or
   * options to start one; default: start an ephemeral one named `<stateDir basename>-workload`.
   */
  workload?:
    | { attach: ClusterInfo }
    | {
        name: string;
        ephemeral?: boolean;
        /**
         * Accept the simulated Entra ID's tokens for the AKS server application (audience
         * `6dae42f8-4368-4678-94ff-3960e28e3630`, user name = the token's `oid`), as the API server of an AKS cluster
         * with AKS-managed Entra ID does (docs/azure-facts.md#aks-entra-token): what a kubelogin user, or
         * Backstage's Kubernetes plugin with `kubernetes.io/auth-provider: aks`, sends. Default off.
         */
        entraIdTokens?: boolean;
      };
  /** Static bearer tokens ARM accepts besides Entra's (token -> subscriptions), for quick calls and test checks. */
  tokens?: Record<string, string[]>;
  /** The Node sync's owner label: stable across restarts of one persisted world (default random). */
  nodeOwner?: string;
  log?: (line: string) => void;
}

export interface SimulatedAzure {
  world: AzureWorld;
  entra: EntraSim;
  arm: ArmServer;
  proxy: SimProxy;
  workload: WorkloadApiServer;
  nodes: WorkloadNodeSync;
  /** The identity the credential Secrets name (AZURE_CLIENT_ID/SECRET/TENANT_ID). */
  servicePrincipal: SimServicePrincipal;
  /** `HTTPS_PROXY`, `SSL_CERT_FILE`, `NO_PROXY` for the managers. */
  managerEnv: Record<string, string>;
  close(): Promise<void>;
}

export async function startSimulatedAzure(
  opts: SimulatedAzureOptions,
): Promise<SimulatedAzure> {
  mkdirSync(opts.stateDir, { recursive: true });
  const log = opts.log ?? (() => {});
  const sp = SIM_SERVICE_PRINCIPAL;
  const stack: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const f of stack.reverse()) await f();
  };
  try {
    // The world answers kubeconfigs for the workload server, which starts after it: resolved at request time.
    let workload: WorkloadApiServer | undefined;
    const worldOpts = {
      operationMs: opts.operationMs ?? 300,
      autoUpgradeMs: opts.autoUpgradeMs,
      kubeconfigFor: () => {
        if (!workload)
          throw new Error('the workload API server is not running');
        return workload.kubeconfig;
      },
    };
    const world = opts.restore
      ? AzureWorld.restore(opts.restore, worldOpts)
      : new AzureWorld({ ...worldOpts, subscriptions: opts.subscriptions });
    for (const s of opts.subscriptions) world.addSubscription(s);
    stack.push(() => world.close());

    const entra = await startEntraSim({
      stateDir: opts.stateDir,
      applications: [AKS_SERVER_APPLICATION_ID, ...ARM_AUDIENCES],
      servicePrincipals: [sp],
    });
    stack.push(() => entra.close());
    const arm = await startArmServer({
      world,
      stateDir: opts.stateDir,
      tokens: opts.tokens,
      authorize: entraAuthorizer(entra, { [sp.clientId]: opts.subscriptions }),
    });
    stack.push(() => arm.close());
    const proxy = await startSimProxy({
      stateDir: opts.stateDir,
      upstreams: { [ENTRA_HOST]: entra, [ARM_HOST]: arm },
      log,
    });
    stack.push(() => proxy.close());
    const managerEnv = proxy.clientEnv(
      proxy.writeCaBundle(join(opts.stateDir, 'ca-bundle.pem')),
    );

    const w = opts.workload;
    workload =
      w && 'attach' in w
        ? attachWorkloadApiServer(w.attach)
        : await startWorkloadApiServer({
            name: w?.name ?? 'workload',
            ephemeral: w?.ephemeral ?? true,
            ...(w?.entraIdTokens
              ? {
                  jwtAuthenticators: [
                    {
                      issuer: entra.issuer(sp.tenantId),
                      certificateAuthority: entra.caPem,
                      audiences: [AKS_SERVER_APPLICATION_ID],
                      username: { claim: 'oid', prefix: '' },
                    },
                  ],
                }
              : {}),
          });
    const started = workload;
    stack.push(() => started.stop());
    const nodes = await WorkloadNodeSync.start({
      world,
      server: workload.info,
      owner: opts.nodeOwner,
      log,
    });
    stack.push(() => nodes.stop());
    return {
      world,
      entra,
      arm,
      proxy,
      workload,
      nodes,
      servicePrincipal: sp,
      managerEnv,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
