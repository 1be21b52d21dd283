/**
 * The jobs issue's "Done when", through real backend processes (packages/backend, started as `backstage-cli package
 * start` would) against a real kube-apiserver of the test's own, with `capz-sim run` simulating Azure, ASO, CAPZ and
 * CAPI on it (scenarios legacy-to-migrate and azure-only, plus clusters this file makes for itself):
 *  - migration end to end (capz-ground-truth 4.1) and adoption end to end (capz-ground-truth 2.3), Azure untouched;
 *  - refusals that change nothing;
 *  - a backend SIGKILLed after every step of a migration and in the middle of a wait, restarted until the job is done;
 *  - two replicas on one PostgreSQL database running each job exactly once.
 * Every wait is on a condition (the job's state, an object on the API server); timings are printed.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// Test-only: the simulator's service principal, as its seeded credential Secrets hold it.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { servicePrincipalSecretData } from '@internal/capz-sim/azure';
import { BackendDatabase, BackendProcess, postgresConnection, reportsDir, startBackend } from '../testing/backendProcess';
import { Arm, Cluster, condition, makeAzureOnlyCluster, makeAzureResourceGroup, PoolSeed, readAzure, writeLegacyCluster } from '../testing/jobFixtures';
import { ClusterInfo, until } from '../testing/realCluster';

const repo = join(__dirname, '..', '..', '..', '..');
const cli = (pkg: string) => join(repo, 'packages', pkg, 'src', 'cli.ts');
const mcName = `jobs-${process.pid}`;
const simState = join(process.env.CAPZ_STATE_DIR ?? join(repo, '.local'), 'capz-sim', mcName);
const tmp = mkdtempSync(join(tmpdir(), 'capz-jobs-'));
const t0 = Date.now();
const say = (m: string) => process.stdout.write(`[jobs +${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`);

let info: ClusterInfo;
let c: Cluster;
let arm: Arm;
let sim: ChildProcess | undefined;
let main: BackendProcess;
const running = new Set<BackendProcess>();
/** What the simulated Azure had created/updated/deleted once every fixture was in place. */
let baseline: ReturnType<typeof readAzure>;

const system = (count = 2): PoolSeed => ({ name: 'system', mode: 'System', count });
const user = (name: string, count: number, extra: Partial<PoolSeed> = {}): PoolSeed => ({ name, mode: 'User', count, vmSize: 'Standard_D4s_v3', ...extra });

/** Extra clusters beyond the seeded scenarios, one per test that needs a cluster of its own. */
const LEGACY = {
  crash: { namespace: 'crash-src', name: 'crash-lake', resourceGroup: 'rg-crash-lake', pools: [system(2), user('ingest', 2, { enableAutoScaling: true, minCount: 2, maxCount: 6 })] },
  replica: { namespace: 'replica-src', name: 'replica-lake', resourceGroup: 'rg-replica-lake', pools: [system(1), user('batch', 2)] },
};
const AZURE_ONLY = {
  crash: { resourceGroup: 'rg-crash-aks', name: 'crash-aks', pools: [system(1), user('web', 2)] },
  replica1: { resourceGroup: 'rg-replica-aks-1', name: 'replica-aks-1', pools: [system(1)] },
  replica2: { resourceGroup: 'rg-replica-aks-2', name: 'replica-aks-2', pools: [system(1), user('api', 1)], entraOnly: true },
};

/**
 * A backend process. The crash tests use a 2 s lease (a killed replica's job is resumed quickly); the replica test a
 * longer one, so that a heartbeat delayed on a busy machine cannot hand a running job to the other replica.
 */
async function backend(name: string, database: BackendDatabase, env: Record<string, string> = {}, mayExitDuringStart = false, leaseSeconds = 2): Promise<BackendProcess> {
  const b = await startBackend({
    mayExitDuringStart,
    name,
    managementCluster: { name: mcName, url: info.url, caPem: info.caPem, token: info.backendToken },
    database,
    configFiles: [join(simState, 'app-config.azure-discovery.yaml')],
    capz: { jobs: { leaseSeconds } },
    env,
  });
  running.add(b);
  void b.exited.then(() => running.delete(b));
  say(`backend ${b.name} (pid ${b.pid}${env.CAPZ_JOBS_FAULT ? `, fault ${env.CAPZ_JOBS_FAULT}` : ''}) ready in ${b.startMs} ms; log ${b.logFile}`);
  return b;
}

const sqlite = (name: string): BackendDatabase => ({ client: 'better-sqlite3', directory: join(tmp, name) });

async function createCredentialSecret(namespace: string, name = 'aso-credential'): Promise<void> {
  await c.create('Secret', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'Opaque',
    data: servicePrincipalSecretData(arm.subscription),
  });
}

/** The legacy cluster and everything it must be for a migration's preflight: Available, every object Ready. */
async function legacyReady(namespace: string, name: string): Promise<true | string> {
  const cluster = await c.get('Cluster', namespace, name);
  if (condition(cluster, 'Available')?.status !== 'True') {
    return `Cluster ${namespace}/${name} not Available: ${JSON.stringify((cluster?.status?.conditions ?? []).filter((x: any) => x.status !== 'True' && x.type !== 'Paused'))}`;
  }
  for (const kind of ['AzureManagedControlPlane', 'AzureManagedMachinePool', 'ResourceGroup', 'ManagedCluster', 'ManagedClustersAgentPool'] as const) {
    for (const o of await c.list(kind, namespace)) {
      if (o.metadata.labels?.['cluster.x-k8s.io/cluster-name'] !== name) continue;
      if (condition(o, 'Ready')?.status !== 'True') return `${kind} ${o.metadata.name} not Ready`;
    }
  }
  const mc = (await c.list('ManagedCluster', namespace)).find(o => o.metadata.labels?.['cluster.x-k8s.io/cluster-name'] === name);
  if (!mc?.status?.agentPoolProfiles?.length) return `ManagedCluster of ${name} has no status.agentPoolProfiles yet`;
  return true;
}

async function waitFor(what: string, check: () => Promise<true | string>, timeoutMs = 120_000): Promise<void> {
  let last = '';
  await until(what, async () => {
    const r = await check();
    if (r !== true) last = r;
    return r === true;
  }, timeoutMs).catch(e => {
    throw new Error(`${e.message} (last: ${last})`);
  });
}

beforeAll(async () => {
  const kubeconfig = execFileSync('node', [cli('mgmt-cluster'), 'start', '--name', mcName, '--ephemeral'], { encoding: 'utf8' }).trim();
  info = JSON.parse(readFileSync(join(dirname(kubeconfig), 'cluster.json'), 'utf8'));
  c = new Cluster(info);
  say(`management cluster ${mcName} at ${info.url}`);
  mkdirSync(join(reportsDir, 'backends'), { recursive: true });
  const simLog = createWriteStream(join(reportsDir, 'backends', `capz-sim-${mcName}.log`));
  sim = spawn('node', [cli('capz-sim'), 'run', '--cluster', mcName, '--scenarios', 'legacy-to-migrate,azure-only', '--operation-ms', '100'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  sim.stdout!.pipe(simLog);
  sim.stderr!.pipe(simLog);
  await until('the simulator to write its discovery config', () => existsSync(join(simState, 'app-config.azure-discovery.yaml')), 60_000);
  arm = new Arm(simState);

  // The clusters of this file's own, made while the main backend starts.
  const backendStarting = backend('main', sqlite('main'));
  backendStarting.catch(() => undefined);
  await c.createNamespace('fixtures');
  await createCredentialSecret('fixtures');
  for (const l of Object.values(LEGACY)) {
    await makeAzureResourceGroup(c, { scratchNamespace: 'fixtures', credentialSecret: 'aso-credential', resourceGroup: l.resourceGroup });
    await c.createNamespace(l.namespace);
    await writeLegacyCluster(c, { ...l, subscription: arm.subscription });
  }
  // A legacy cluster whose resource group does not exist in Azure: its ResourceGroup (reconcile-policy skip, as the
  // legacy controllers create it) is never Ready, so the cluster is not healthy.
  await c.createNamespace('broken-src');
  await writeLegacyCluster(c, { namespace: 'broken-src', name: 'broken', subscription: arm.subscription, resourceGroup: 'rg-does-not-exist', pools: [system(1)] });
  for (const a of Object.values(AZURE_ONLY)) {
    await makeAzureOnlyCluster(c, { scratchNamespace: 'fixtures', credentialSecret: 'aso-credential', ...a });
  }
  for (const [ns, name] of [['team-data', 'data-lake'], ['team-data', 'data-secure'], ...Object.values(LEGACY).map(l => [l.namespace, l.name])]) {
    await waitFor(`legacy cluster ${ns}/${name} to be ready to migrate`, () => legacyReady(ns, name), 120_000);
  }
  await waitFor('the broken cluster to report its missing resource group', async () => {
    const rg = (await c.list('ResourceGroup', 'broken-src'))[0];
    return condition(rg, 'Ready')?.status === 'False' ? true : `ResourceGroup: ${JSON.stringify(condition(rg, 'Ready'))}`;
  });
  main = await backendStarting;
  // Every fixture is settled: from here on no job may create or delete anything in Azure.
  await until('the simulated Azure to hold every fixture', () => {
    const s = readAzure(simState);
    const names = s.managedClusters.map(m => m.name);
    return [...Object.values(LEGACY), ...Object.values(AZURE_ONLY)].every(x => names.includes(x.name)) && s;
  });
  baseline = readAzure(simState);
  say(`fixtures ready; Azure counters ${JSON.stringify(baseline.counters)}`);
}, 600_000);

afterAll(async () => {
  await Promise.all([...running].map(b => b.kill()));
  if (process.env.CAPZ_JOBS_KEEP) return; // debugging: leave the cluster and the simulator running
  sim?.kill();
  if (info) execFileSync('node', [cli('mgmt-cluster'), 'stop', '--name', mcName]);
  rmSync(simState, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
  say('done');
}, 120_000);

// ---- helpers over the jobs API ----

const migrate = (namespace: string, name: string, targetNamespace: string) => ({
  type: 'migrate',
  params: { managementCluster: mcName, namespace, name, targetNamespace },
});
const adopt = (namespace: string, a: { resourceGroup: string; name: string }, credentialSecret = 'aso-credential') => ({
  type: 'adopt',
  params: { managementCluster: mcName, namespace, credentialSecret, subscriptionId: arm.subscription, resourceGroup: a.resourceGroup, clusterName: a.name },
});

async function submit(b: BackendProcess, body: unknown): Promise<any> {
  const r = await b.request('POST', 'capz/jobs', body);
  if (r.status !== 201) throw new Error(`POST /jobs: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  say(`job ${r.body.id} (${r.body.type} ${r.body.target.namespace}/${r.body.target.name}) created on ${b.name}`);
  return r.body;
}

const logTail = (job: any) => (job.log ?? []).slice(-15).map((l: any) => `  ${l.at} ${l.level} ${l.step ?? '-'}: ${l.message}`).join('\n');

/** Polls the job until it is final; fails with the job's error and log when it is not `succeeded`. */
async function finished(b: BackendProcess, id: string, timeoutMs = 240_000): Promise<any> {
  const started = Date.now();
  let job: any;
  await until(`job ${id} to finish`, async () => {
    const r = await b.request('GET', `capz/jobs/${id}`);
    if (r.status !== 200) throw new Error(`GET /jobs/${id}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    job = r.body;
    return ['succeeded', 'failed', 'cancelled'].includes(job.state);
  }, timeoutMs).catch(e => {
    throw new Error(`${e.message}; now ${job?.state} at ${job?.currentStep}: ${JSON.stringify(job?.steps?.find((s: any) => s.state === 'running'))}\n${job ? logTail(job) : ''}`);
  });
  if (job.state !== 'succeeded') throw new Error(`job ${id} ${job.state}: ${job.error}\n${logTail(job)}`);
  say(`job ${id} succeeded (${((Date.now() - started) / 1000).toFixed(1)}s of polling): ${job.steps.map((s: any) => `${s.id}×${s.attempts}`).join(' ')}`);
  return job;
}

const messages = (job: any, re: RegExp) => job.log.filter((l: any) => re.test(l.message));

// ---- end states ----

/** Azure holds the cluster and these pools, none being deleted; nothing was created or deleted since the fixtures. */
async function azureUntouched(resourceGroup: string, name: string, pools: string[]): Promise<void> {
  const live = await arm.cluster(resourceGroup, name);
  expect(live?.state).toBe('Succeeded');
  expect(Object.keys(live!.pools).sort()).toEqual([...pools].sort());
  expect(Object.values(live!.pools).every(s => s === 'Succeeded')).toBe(true);
  // ARM shows nothing Deleting now, so any deletion would be long persisted (debounced 200 ms) by now.
  const now = readAzure(simState);
  expect(now.counters.deleted).toEqual({ resourceGroups: 0, managedClusters: 0, agentPools: 0 });
  expect(now.counters.created).toEqual(baseline.counters.created);
}

/** The new cluster is Available with one MachinePool per Azure pool (autoscaling ones managed by AKS). */
async function adoptedCluster(ns: string, name: string, pools: PoolSeed[], o: { entraOnly?: boolean } = {}): Promise<void> {
  await waitFor(`Cluster ${ns}/${name} to be Available`, async () => {
    const cl = await c.get('Cluster', ns, name);
    return condition(cl, 'Available')?.status === 'True' || `Available: ${JSON.stringify(condition(cl, 'Available'))}`;
  }, 30_000);
  const agentPools = await c.list('ManagedClustersAgentPool', ns);
  const machinePools = await c.list('MachinePool', ns);
  expect(agentPools.map(p => p.spec.azureName ?? p.metadata.name).sort()).toEqual(pools.map(p => p.name).sort());
  for (const p of pools) {
    const ap = agentPools.find(x => (x.spec.azureName ?? x.metadata.name) === p.name)!;
    // Adoption names the MachinePool after the agent pool (capz-ground-truth 2.2 step 6).
    const mp = machinePools.find(m => m.metadata.name === ap.metadata.name);
    expect(mp).toBeDefined();
    expect(mp.spec.clusterName).toBe(name);
    if (p.enableAutoScaling) expect(mp.metadata.annotations?.['cluster.x-k8s.io/replicas-managed-by']).toBe('aks');
    expect(await c.get('AzureASOManagedMachinePool', ns, ap.metadata.name)).toBeDefined();
  }
  const mc = await c.get('ManagedCluster', ns, name);
  if (o.entraOnly) {
    // Local accounts disabled: user credentials under <name>-user-kubeconfig (capz-ground-truth 2.4).
    expect(mc.spec.operatorSpec?.secrets?.userCredentials?.name).toBe(`${name}-user-kubeconfig`);
    expect(mc.spec.operatorSpec?.secrets?.adminCredentials).toBeUndefined();
  }
  expect(condition(mc, 'Ready')?.status).toBe('True');
}

/** The old objects of a migrated cluster are gone from Kubernetes, the credential copied without owners. */
async function migrated(from: string, to: string, name: string, resourceGroup: string, pools: PoolSeed[], o: { entraOnly?: boolean } = {}): Promise<void> {
  await adoptedCluster(to, name, pools, o);
  for (const kind of ['Cluster', 'AzureManagedCluster', 'AzureManagedControlPlane'] as const) {
    expect(await c.get(kind, from, name)).toBeUndefined();
  }
  const belongs = (x: any) => x.metadata.labels?.['cluster.x-k8s.io/cluster-name'] === name || x.metadata.name.startsWith(`${name}-`) || x.metadata.name === name;
  for (const kind of ['MachinePool', 'AzureManagedMachinePool', 'ManagedCluster', 'ManagedClustersAgentPool', 'ResourceGroup'] as const) {
    expect({ kind, left: (await c.list(kind, from)).filter(belongs).map(x => x.metadata.name) }).toEqual({ kind, left: [] });
  }
  const secret = await c.get('Secret', to, `${name}-aso-secret`);
  expect(secret).toBeDefined();
  expect(secret.metadata.ownerReferences).toBeUndefined();
  await azureUntouched(resourceGroup, name, pools.map(p => p.name));
}

const everyStep = (job: any, attempts: (id: string) => number = () => 1) => {
  expect(job.steps.map((s: any) => `${s.id} ${s.state} ${s.attempts}`)).toEqual(job.plan.map((p: any) => `${p.id} succeeded ${attempts(p.id)}`));
};

// ---- the tests ----
// The assertions of the end states live in the helpers above (azureUntouched, adoptedCluster, migrated, everyStep).
/* eslint-disable jest/expect-expect */

const DATA_LAKE = [system(3), user('spark', 5), user('ingest', 2, { enableAutoScaling: true, minCount: 2, maxCount: 8 })];
const DATA_SECURE = [system(2), user('jobs', 2)];

describe('refusals change nothing', () => {
  /** POST /jobs is refused with this status and message; the cluster and the job list are as before. */
  async function refused(body: any, status: number, message: RegExp, namespaces: string[]): Promise<any> {
    const before = await c.snapshot(namespaces);
    const jobsBefore = (await main.request('GET', 'capz/jobs')).body.items.length;
    const r = await main.request('POST', 'capz/jobs', body);
    expect({ status: r.status, message: r.body?.error?.message }).toEqual({ status, message: expect.stringMatching(message) });
    expect(await c.snapshot(namespaces)).toEqual(before);
    expect((await main.request('GET', 'capz/jobs')).body.items.length).toBe(jobsBefore);
    return r.body;
  }

  it('an unhealthy cluster is not migrated', async () => {
    const body = await refused(migrate('broken-src', 'broken', 'broken-new'), 422, /healthy/i, ['broken-src']);
    expect(body.preflight.find((p: any) => p.id === 'healthy')).toMatchObject({ status: 'fail', message: expect.stringMatching(/ResourceGroup|not Available/) });
    expect(await c.namespaceExists('broken-new')).toBe(false);
  }, 60_000);

  it('a migration into a namespace that exists is refused', async () => {
    await refused(migrate('team-data', 'data-lake', 'fixtures'), 422, /Namespace fixtures already exists/, ['team-data', 'fixtures']);
  }, 60_000);

  it('an adoption without the credential Secret is refused', async () => {
    await c.createNamespace('adopt-nosecret');
    await refused(adopt('adopt-nosecret', { resourceGroup: 'rg-analytics', name: 'analytics-aks' }), 422, /Secret adopt-nosecret\/aso-credential does not exist/, ['adopt-nosecret']);
  }, 60_000);
});

describe('migration end to end', () => {
  it('migrates data-lake (three pools, one autoscaling) and refuses a second job on it', async () => {
    const first = await submit(main, migrate('team-data', 'data-lake', 'data-lake-aso'));
    // A second job on the same cluster while the first is active: 409 naming the first, and nothing stored or created.
    const second = await main.request('POST', 'capz/jobs', migrate('team-data', 'data-lake', 'data-lake-other'));
    expect({ status: second.status, message: second.body?.error?.message }).toEqual({ status: 409, message: expect.stringContaining(first.id) });
    const job = await finished(main, first.id);
    const listed = (await main.request('GET', `capz/jobs?managementCluster=${mcName}&namespace=team-data&name=data-lake`)).body.items;
    expect(listed.map((j: any) => j.id)).toEqual([first.id]);
    expect(await c.namespaceExists('data-lake-other')).toBe(false);
    everyStep(job);
    await migrated('team-data', 'data-lake-aso', 'data-lake', 'rg-data-lake', DATA_LAKE);
  }, 300_000);

  it('migrates data-secure (Entra-only)', async () => {
    const job = await finished(main, (await submit(main, migrate('team-data', 'data-secure', 'data-secure-aso'))).id);
    everyStep(job);
    await migrated('team-data', 'data-secure-aso', 'data-secure', 'rg-data-secure', DATA_SECURE, { entraOnly: true });
  }, 300_000);
});

describe('adoption end to end', () => {
  it.each([
    ['analytics-aks', 'rg-analytics', [system(2), user('etl', 3)], false],
    ['identity-aks', 'rg-identity', [system(3)], true],
  ] as const)('adopts %s', async (name, resourceGroup, pools, entraOnly) => {
    const ns = `adopt-${name}`;
    await c.createNamespace(ns);
    await createCredentialSecret(ns);
    const job = await finished(main, (await submit(main, adopt(ns, { resourceGroup, name }))).id);
    everyStep(job);
    await adoptedCluster(ns, name, [...pools], { entraOnly });
    await azureUntouched(resourceGroup, name, pools.map(p => p.name));
    const updated = readAzure(simState).counters.updated;
    say(`after adopting ${name}: Azure updated ${JSON.stringify(updated)} (PUTs onto existing resources, counted, never creations)`);
  }, 300_000);
});

describe('a backend killed at every step boundary', () => {
  /** Waits until this backend killed itself at its fault; fails if the job fails instead. */
  async function killedByFault(b: BackendProcess, id: string): Promise<void> {
    let dead = false;
    void b.exited.then(() => (dead = true));
    await until(`${b.name} to kill itself at its fault`, async () => {
      if (dead) return true;
      const r = await b.request('GET', `capz/jobs/${id}`).catch(() => undefined);
      if (r?.status === 200 && ['failed', 'cancelled', 'succeeded'].includes(r.body.state)) {
        throw new Error(`job ${id} is ${r.body.state} before the fault fired: ${r.body.error}\n${logTail(r.body)}`);
      }
      return false;
    }, 120_000);
    const exit = await b.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(b.log()).toContain('CAPZ_JOBS_FAULT: killing the process');
  }

  /** Runs a job through backends that each die at the next fault, then one without a fault; returns the job. */
  async function throughCrashes(db: BackendDatabase, label: string, body: any, faults: string[]): Promise<{ job: any; starts: number[] }> {
    const starts: number[] = [];
    let id = '';
    for (const [i, fault] of faults.entries()) {
      // From the second start on, the resumed job may reach the fault before the backend is even ready.
      const b = await backend(label, db, { CAPZ_JOBS_FAULT: fault }, i > 0);
      starts.push(b.startMs);
      if (i === 0) id = (await submit(b, body)).id;
      await killedByFault(b, id);
      say(`${b.name} died at ${fault}`);
    }
    const last = await backend(label, db);
    starts.push(last.startMs);
    const job = await finished(last, id);
    await last.kill();
    return { job, starts };
  }

  it('a migration resumes after a crash at every step boundary and in the middle of a wait', async () => {
    const l = LEGACY.crash;
    const preview = await main.request('POST', 'capz/jobs/preview', migrate(l.namespace, l.name, 'crash-lake-aso'));
    expect(preview.status).toBe(200);
    const steps: string[] = preview.body.plan.map((s: any) => s.id);
    expect(steps).toContain('adopt-managed-cluster');
    // After every step; and once at the first unmet wait of adopt-managed-cluster, which then starts over.
    const faults = steps.flatMap(s => (s === 'adopt-managed-cluster' ? [`${s}:wait`, `${s}:after`] : [`${s}:after`]));
    const started = Date.now();
    const { job, starts } = await throughCrashes(sqlite('crash-migrate'), 'crash-migrate', migrate(l.namespace, l.name, 'crash-lake-aso'), faults);
    say(`crash migration: ${faults.length} kills, ${starts.length} starts (${starts.map(s => (s / 1000).toFixed(1)).join(', ')} s), ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
    everyStep(job, id => (id === 'adopt-managed-cluster' ? 2 : 1));
    expect(messages(job, /^started on replica/)).toHaveLength(1);
    expect(messages(job, /^resumed on replica/)).toHaveLength(faults.length);
    expect(messages(job, /^job succeeded/)).toHaveLength(1);
    await migrated(l.namespace, 'crash-lake-aso', l.name, l.resourceGroup, l.pools);
  }, 900_000);

  it('an adoption resumes after a crash in the middle of a wait', async () => {
    const a = AZURE_ONLY.crash;
    await c.createNamespace('adopt-crash');
    await createCredentialSecret('adopt-crash');
    const { job } = await throughCrashes(sqlite('crash-adopt'), 'crash-adopt', adopt('adopt-crash', a), ['adopt-managed-cluster:wait']);
    everyStep(job, id => (id === 'adopt-managed-cluster' ? 2 : 1));
    expect(messages(job, /^resumed on replica .* at step adopt-managed-cluster/)).toHaveLength(1);
    await adoptedCluster('adopt-crash', a.name, a.pools);
    await azureUntouched(a.resourceGroup, a.name, a.pools.map(p => p.name));
  }, 300_000);
});

describe('two replicas on one PostgreSQL database', () => {
  it('run every job exactly once', async () => {
    const connection = postgresConnection();
    if (!connection) {
      throw new Error('no PostgreSQL: set BACKSTAGE_TEST_DATABASE_POSTGRES<major>_CONNECTION_STRING (scripts/test.sh ensure_postgres does)');
    }
    const db: BackendDatabase = { client: 'pg', connection, prefix: `capz_jobs_${process.pid}_` };
    // One after the other: the first creates the databases and runs the migrations.
    const r1 = await backend('replica-1', db, {}, false, 15);
    const r2 = await backend('replica-2', db, {}, false, 15);
    for (const ns of ['adopt-replica-1', 'adopt-replica-2']) {
      await c.createNamespace(ns);
      await createCredentialSecret(ns);
    }
    const l = LEGACY.replica;
    // Submitted alternately: each replica kicks what it created, and both look for jobs nobody runs.
    const jobs = [
      await submit(r1, adopt('adopt-replica-1', AZURE_ONLY.replica1)),
      await submit(r2, adopt('adopt-replica-2', AZURE_ONLY.replica2)),
      await submit(r1, migrate(l.namespace, l.name, 'replica-lake-aso')),
    ];
    const done = [];
    for (const [i, j] of jobs.entries()) done.push(await finished(i % 2 ? r1 : r2, j.id));
    for (const job of done) {
      everyStep(job);
      expect(messages(job, /^started on replica/)).toHaveLength(1);
      expect(messages(job, /^resumed on replica/)).toHaveLength(0);
      say(`job ${job.id}: ${messages(job, /^started on replica/)[0].message}`);
    }
    await adoptedCluster('adopt-replica-1', AZURE_ONLY.replica1.name, AZURE_ONLY.replica1.pools);
    await adoptedCluster('adopt-replica-2', AZURE_ONLY.replica2.name, AZURE_ONLY.replica2.pools, { entraOnly: true });
    await migrated(l.namespace, 'replica-lake-aso', l.name, l.resourceGroup, l.pools);
    await Promise.all([r1.kill(), r2.kill()]);
  }, 600_000);
});
