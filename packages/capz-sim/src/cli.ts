#!/usr/bin/env node
/**
 * capz-sim: runs the simulated Azure, ASO, CAPZ and CAPI controllers against a running local management cluster.
 *
 *   run [--cluster demo] [--scenarios a,b|all|none] [--subscription <id>] [--operation-ms 1500] [--namespace-prefix team-]
 *       Seeds the scenarios (idempotent), persists the Azure state in .local/capz-sim/<cluster>/azure.json so the
 *       demo survives restarts, serves the ARM endpoint (connection details in arm.json there) and runs until
 *       SIGINT/SIGTERM.
 *   scenarios   lists the named scenarios
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot, runningCluster } from '@internal/mgmt-cluster';
import { startArmServer } from './arm/server.ts';
import { AzureWorld, type AzureSnapshot } from './azure/model.ts';
import { DEMO_SCENARIOS, DEMO_SUBSCRIPTION, scenarios, seedScenarios } from './scenarios/index.ts';
import { Simulator } from './simulator.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    cluster: { type: 'string', default: 'demo' },
    scenarios: { type: 'string', default: 'all' },
    subscription: { type: 'string', default: DEMO_SUBSCRIPTION },
    'operation-ms': { type: 'string', default: '1500' },
    'namespace-prefix': { type: 'string' },
  },
});
const log = (m: string) => process.stderr.write(`[capz-sim] ${m}\n`);

async function run(): Promise<void> {
  const info = runningCluster(values.cluster!);
  if (!info) throw new Error(`management cluster "${values.cluster}" is not running: start it with \`yarn mgmt start --name ${values.cluster}\``);
  const stateDir = join(process.env.CAPZ_STATE_DIR ?? join(repoRoot, '.local'), 'capz-sim', values.cluster!);
  mkdirSync(stateDir, { recursive: true });
  const stateFile = join(stateDir, 'azure.json');
  const operationMs = Number(values['operation-ms']);
  const world = existsSync(stateFile)
    ? AzureWorld.restore(JSON.parse(readFileSync(stateFile, 'utf8')) as AzureSnapshot, { operationMs })
    : new AzureWorld({ operationMs, subscriptions: [values.subscription!] });
  world.addSubscription(values.subscription!);
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

  const prefix = values['namespace-prefix'];
  const sim = await Simulator.start({ cluster: info, world, log, ...(prefix ? { namespaces: (ns: string) => ns.startsWith(prefix) } : {}) });
  const names = values.scenarios === 'all' ? DEMO_SCENARIOS : values.scenarios === 'none' ? [] : values.scenarios!.split(',');
  await seedScenarios(names, { kube: sim.kube, world, sim, subscription: values.subscription! });
  const token = `sim-arm-${values.cluster}`;
  const arm = await startArmServer({ world, tokens: { [token]: [values.subscription!] }, stateDir });
  writeFileSync(join(stateDir, 'arm.json'), JSON.stringify({ url: arm.url, caPem: arm.caPem, token, subscriptions: [values.subscription] }, null, 2));
  persist();
  log(`simulating Azure, ASO, CAPZ and CAPI on ${info.name} (${info.url}); scenarios: ${names.join(', ') || 'none'}; ARM endpoint ${arm.url}`);

  const stop = async () => {
    log('stopping');
    if (pending) clearTimeout(pending);
    persist();
    await sim.stop();
    await arm.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (positionals[0] === 'scenarios') {
  for (const s of scenarios) process.stdout.write(`${s.name.padEnd(28)} ${s.description}\n`);
} else if (positionals[0] === 'run' || positionals.length === 0) {
  run().catch((e: Error) => {
    log(e.message);
    process.exit(1);
  });
} else {
  log(`unknown command "${positionals[0]}": use run or scenarios`);
  process.exit(2);
}
