#!/usr/bin/env node
/**
 * capz-sim: runs the simulated Azure, ASO, CAPZ and CAPI controllers against a running local management cluster.
 *
 *   run [--cluster demo] [--scenarios a,b|all|none] [--subscription <id>] [--operation-ms 1500] [--namespace-prefix team-]
 *       [--backend-name <name>] [--auto-upgrade-ms <ms>]
 *       Serves the simulated Entra ID and the ARM endpoint, seeds the scenarios (idempotent), persists the Azure state
 *       in .local/capz-sim/<cluster>/azure.json so the demo survives restarts, and runs until SIGINT/SIGTERM.
 *       The simulator's service principal (the one the seeded ASO credential Secrets name) gets tokens from the Entra
 *       ID for ARM, which let it read the run's subscription. Connection details go to arm.json there, and the
 *       backend's discovery config to app-config.azure-discovery.yaml there (for `--config`): `capz.azureDiscovery`
 *       itself, or with --backend-name the override for the backend's management cluster of that name. Both files
 *       are removed at start and written once the endpoints serve, so a script can wait for them.
 *       With --real-controllers, only Azure is simulated (Entra ID and ARM behind the HTTPS proxy, a workload API server
 *       with the clusters' Nodes) and the real CAPI, CAPZ and ASO managers run on the cluster (built and cached by
 *       `mgmt-cluster build-controllers`); scenarios then must be `none` or `real-demo` (the others need the simulated
 *       controllers; real-demo: see seedRealDemo).
 *       With --control-stdin, reads fault-injection commands as JSON lines on standard input (tests only; see
 *       {@link controlFromStdin}) and answers each with `capz-sim control <id> ok|error <message>` on standard output.
 *       With --auto-upgrade-ms <ms>, AKS's cluster auto-upgrade runs on that period (default never: the control's
 *       `autoUpgradeNow` runs it once).
 *   scenarios   lists the named scenarios
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  apiRequest,
  repoRoot,
  runningCluster,
  type ClusterInfo,
} from '@internal/mgmt-cluster';
import {
  startControllers,
  stopControllers,
} from '@internal/mgmt-cluster/controllers';
import {
  entraAuthorizer,
  startArmServer,
  type ArmServer,
} from './arm/server.ts';
import {
  SIM_SERVICE_PRINCIPAL,
  servicePrincipalSecretData,
} from './azure/credential.ts';
import { capzTemplate } from './capzTemplates.ts';
import {
  AzureWorld,
  type AzureSnapshot,
  type UpgradeFailureRule,
} from './azure/model.ts';
import {
  DEMO_SCENARIOS,
  DEMO_SUBSCRIPTION,
  scenarios,
  seedScenarios,
} from './scenarios/index.ts';
import {
  AKS_SERVER_APPLICATION_ID,
  ARM_RESOURCE,
  startEntraSim,
  type EntraSim,
} from './entra/server.ts';
import { startSimulatedAzure } from './simulatedAzure.ts';
import { Simulator } from './simulator.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    cluster: { type: 'string', default: 'demo' },
    scenarios: { type: 'string', default: 'all' },
    subscription: { type: 'string', default: DEMO_SUBSCRIPTION },
    'operation-ms': { type: 'string', default: '1500' },
    'namespace-prefix': { type: 'string' },
    'backend-name': { type: 'string' },
    'control-stdin': { type: 'boolean', default: false },
    'real-controllers': { type: 'boolean', default: false },
    'auto-upgrade-ms': { type: 'string' },
  },
});
const log = (m: string) => process.stderr.write(`[capz-sim] ${m}\n`);

async function run(): Promise<void> {
  const info = runningCluster(values.cluster!);
  if (!info)
    throw new Error(
      `management cluster "${values.cluster}" is not running: start it with \`yarn mgmt start --name ${values.cluster}\``,
    );
  const stateDir = join(
    process.env.CAPZ_STATE_DIR ?? join(repoRoot, '.local'),
    'capz-sim',
    values.cluster!,
  );
  mkdirSync(stateDir, { recursive: true });
  const stateFile = join(stateDir, 'azure.json');
  const armFile = join(stateDir, 'arm.json');
  const discoveryFile = join(stateDir, 'app-config.azure-discovery.yaml');
  // Stale files name the ports of an earlier run: gone until this run's endpoints serve.
  rmSync(armFile, { force: true });
  rmSync(discoveryFile, { force: true });
  const operationMs = Number(values['operation-ms']);
  const autoUpgradeMs = values['auto-upgrade-ms']
    ? Number(values['auto-upgrade-ms'])
    : undefined;
  const saved = existsSync(stateFile)
    ? (JSON.parse(readFileSync(stateFile, 'utf8')) as AzureSnapshot)
    : undefined;
  const sp = SIM_SERVICE_PRINCIPAL;
  const token = `sim-arm-${values.cluster}`;
  const real = values['real-controllers'];
  let world: AzureWorld;
  let entra: EntraSim;
  let arm: ArmServer;
  let closeAzure: () => Promise<void>;
  if (real && !['none', REAL_DEMO].includes(values.scenarios!))
    throw new Error(
      `--real-controllers runs no simulated controller, which the scenarios need: use --scenarios none or ${REAL_DEMO} (got "${values.scenarios}")`,
    );
  if (real) {
    // Only Azure simulated: the real managers reach it under its real names through the proxy.
    const azure = await startSimulatedAzure({
      stateDir,
      subscriptions: [values.subscription!],
      operationMs,
      autoUpgradeMs,
      restore: saved,
      tokens: { [token]: [values.subscription!] },
      workload: { name: `${values.cluster}-workload` },
      nodeOwner: values.cluster,
      log,
    });
    ({ world, entra, arm } = azure);
    closeAzure = azure.close;
    try {
      await startControllers(info, { env: azure.managerEnv });
    } catch (e) {
      await azure.close();
      throw e;
    }
  } else {
    world = saved
      ? AzureWorld.restore(saved, { operationMs, autoUpgradeMs })
      : new AzureWorld({
          operationMs,
          autoUpgradeMs,
          subscriptions: [values.subscription!],
        });
    world.addSubscription(values.subscription!);
    // The endpoints first: the backend can be configured (and start) while the scenarios are still being seeded.
    const e = await startEntraSim({
      stateDir,
      applications: [AKS_SERVER_APPLICATION_ID, ARM_RESOURCE],
      servicePrincipals: [sp],
    });
    const a = await startArmServer({
      world,
      // A static token for quick manual calls (curl), and the Entra ID's tokens for the SDK and the backend.
      tokens: { [token]: [values.subscription!] },
      authorize: entraAuthorizer(e, {
        [sp.clientId]: [values.subscription!],
      }),
      stateDir,
    });
    entra = e;
    arm = a;
    closeAzure = async () => {
      await a.close();
      await e.close();
    };
  }
  // The demo's Azure persists across restarts: written (debounced) after every change.
  let pending: NodeJS.Timeout | undefined;
  const persist = () => {
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(world.snapshot()));
    renameSync(`${stateFile}.tmp`, stateFile);
  };
  world.on('change', () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      persist();
    }, 200);
  });

  const writeAtomically = (file: string, text: string) => {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };
  writeAtomically(
    armFile,
    JSON.stringify(
      {
        url: arm.url,
        caPem: arm.caPem,
        token,
        subscriptions: [values.subscription],
        authorityHost: entra.url,
        authorityCaPem: entra.caPem,
        tenantId: sp.tenantId,
        clientId: sp.clientId,
      },
      null,
      2,
    ),
  );
  // JSON strings are YAML scalars: the PEM needs no YAML escaping of its own.
  const discovery = [
    `resourceManagerEndpoint: ${JSON.stringify(arm.url)}`,
    `authorityHost: ${JSON.stringify(entra.url)}`,
    'disableInstanceDiscovery: true',
    `caData: ${JSON.stringify(`${arm.caPem.trim()}\n${entra.caPem.trim()}\n`)}`,
  ];
  const backendName = values['backend-name'];
  const indent = (n: number) =>
    discovery.map(l => `${' '.repeat(n)}${l}`).join('\n');
  writeAtomically(
    discoveryFile,
    [
      `# Written by capz-sim run --cluster ${values.cluster}: AKS discovery against this simulator's ARM and Entra ID.`,
      'capz:',
      '  azureDiscovery:',
      backendName
        ? `    managementClusters:\n      ${JSON.stringify(
            backendName,
          )}:\n${indent(8)}`
        : indent(4),
      '',
    ].join('\n'),
  );

  const names = real
    ? [values.scenarios!].filter(n => n !== 'none')
    : values.scenarios === 'all'
    ? DEMO_SCENARIOS
    : values.scenarios === 'none'
    ? []
    : values.scenarios!.split(',');
  let sim: Simulator | undefined;
  if (real && values.scenarios === REAL_DEMO)
    await seedRealDemo(info, world, values.subscription!);
  if (!real) {
    const prefix = values['namespace-prefix'];
    sim = await Simulator.start({
      cluster: info,
      world,
      log,
      ...(prefix ? { namespaces: (ns: string) => ns.startsWith(prefix) } : {}),
    });
    await seedScenarios(names, {
      kube: sim.kube,
      world,
      sim,
      subscription: values.subscription!,
    });
  }
  persist();
  if (values['control-stdin']) controlFromStdin(world, sim);
  log(
    `simulating ${
      real
        ? 'Azure for the real CAPI, CAPZ and ASO managers'
        : 'Azure, ASO, CAPZ and CAPI'
    } on ${info.name} (${info.url}); scenarios: ${
      names.join(', ') || 'none'
    }; ARM endpoint ${arm.url}, Entra ID ${entra.url}`,
  );

  const stop = async () => {
    log('stopping');
    if (pending) clearTimeout(pending);
    persist();
    try {
      await sim?.stop();
      // The management cluster may already be gone (a test stops it right after this process): the managers are
      // stopped by their process groups anyway, and the simulated Azure (with its workload API server) in any case.
      if (real)
        await stopControllers(info).catch(e =>
          log(`stopping the real managers: ${(e as Error).message}`),
        );
    } finally {
      await closeAzure();
    }
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

const REAL_DEMO = 'real-demo';

/**
 * The demo on the real managers (`--scenarios real-demo`), idempotent: namespace `team-real` with an ASO credential
 * Secret for the simulator's service principal, cluster `real-aso` from CAPZ's own aks-aso template (the real CAPZ and
 * ASO create it in the simulated Azure), and an AKS cluster `real-orphan` that exists only in Azure, to adopt.
 */
async function seedRealDemo(
  info: ClusterInfo,
  world: AzureWorld,
  subscription: string,
): Promise<void> {
  const ns = 'team-real';
  const create = async (
    path: string,
    body: { kind: string; metadata: { name: string } },
  ) => {
    const r = await apiRequest(info, 'POST', path, body);
    if (r.status !== 201 && r.status !== 409)
      throw new Error(
        `create ${body.kind} ${body.metadata.name}: ${r.status} ${r.body}`,
      );
  };
  await create('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  } as never);
  await create(`/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential' },
    data: servicePrincipalSecretData(subscription),
  } as never);
  for (const o of capzTemplate('aks-aso', 'real-aso', ns, {
    ASO_CREDENTIAL_SECRET_NAME: 'aso-credential',
    AZURE_LOCATION: 'westeurope',
    KUBERNETES_VERSION: 'v1.33.2',
    AZURE_NODE_MACHINE_TYPE: 'Standard_D2s_v3',
    WORKER_MACHINE_COUNT: '2',
  })) {
    // CAPI's and CAPZ's plurals are the lower-case kind + s.
    await create(
      `/apis/${o.apiVersion}/namespaces/${ns}/${o.kind.toLowerCase()}s`,
      o,
    );
  }
  const rg = 'rg-real-orphan';
  if (!world.getManagedCluster(subscription, rg, 'real-orphan')) {
    world.putResourceGroup(subscription, rg, {
      location: 'westeurope',
      tags: { team: 'real', env: 'demo' },
    });
    world.putManagedCluster(subscription, rg, 'real-orphan', {
      location: 'westeurope',
      dnsPrefix: 'real-orphan',
      kubernetesVersion: '1.33.2',
      identity: { type: 'SystemAssigned' },
      tags: { team: 'real' },
      agentPoolProfiles: [
        { name: 'system', mode: 'System', count: 2, vmSize: 'Standard_D2s_v3' },
        { name: 'apps', mode: 'User', count: 1, vmSize: 'Standard_D4s_v3' },
      ],
    });
  }
}

/**
 * A test's hand on the running simulator, for states a test must hold for as long as it needs rather than race:
 * `{"id": 1, "forceFailure": {"kind": "ManagedCluster", "namespace": "ns", "name": "n", "failure": {"reason",
 * "severity", "message"} | null}}` forces (or clears) a failure on one ASO object, as the scenarios do in-process
 * (simulated controllers only); `{"id": 2, "failUpgrade": {"version": "1.33.2", "cluster"?, "resourceGroup"?,
 * "error"?: {"code", "message"}} | null}` makes AKS fail every upgrade to that version (null lifts every such rule;
 * `AzureWorld.failUpgrade`); `{"id": 3, "autoUpgradeNow": true}` runs AKS's cluster auto-upgrade once
 * (`AzureWorld.autoUpgradeNow`). Each command is answered on stdout once applied, so the test knows it holds before
 * it goes on.
 */
type ForceFailureArgs = Parameters<Simulator['aso']['forceFailure']>;

function controlFromStdin(world: AzureWorld, sim: Simulator | undefined): void {
  const answer = (id: unknown, text: string) =>
    process.stdout.write(`capz-sim control ${String(id)} ${text}\n`);
  createInterface({ input: process.stdin }).on('line', line => {
    let id: unknown = '?';
    try {
      const cmd = JSON.parse(line) as {
        id: unknown;
        forceFailure?: {
          kind: ForceFailureArgs[0];
          namespace: string;
          name: string;
          failure: ForceFailureArgs[3] | null;
        };
        failUpgrade?: UpgradeFailureRule | null;
        autoUpgradeNow?: boolean;
      };
      id = cmd.id;
      if (cmd.forceFailure) {
        if (!sim)
          throw new Error('forceFailure needs the simulated controllers');
        const f = cmd.forceFailure;
        sim.aso.forceFailure(
          f.kind,
          f.namespace,
          f.name,
          f.failure ?? undefined,
        );
      } else if (cmd.failUpgrade !== undefined) {
        if (cmd.failUpgrade === null) world.clearUpgradeFailures();
        else if (typeof cmd.failUpgrade.version !== 'string')
          throw new Error('failUpgrade needs a version');
        else world.failUpgrade(cmd.failUpgrade);
      } else if (cmd.autoUpgradeNow) {
        const started = world.autoUpgradeNow();
        log(
          `auto-upgrade: ${
            started
              .map(u => `${u.resourceGroup}/${u.name} ${u.from} -> ${u.to}`)
              .join(', ') || 'nothing to do'
          }`,
        );
      } else throw new Error('unknown command');
      answer(id, 'ok');
    } catch (e) {
      answer(id, `error ${(e as Error).message}`);
    }
  });
}

if (positionals[0] === 'scenarios') {
  for (const s of scenarios)
    process.stdout.write(`${s.name.padEnd(28)} ${s.description}\n`);
} else if (positionals[0] === 'run' || positionals.length === 0) {
  run().catch((e: Error) => {
    log(e.message);
    process.exit(1);
  });
} else {
  log(`unknown command "${positionals[0]}": use run or scenarios`);
  process.exit(2);
}
