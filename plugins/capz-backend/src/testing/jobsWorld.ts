/**
 * The world the job integration tests run in, shared by jobs.integration.test.ts and safety.integration.test.ts: an
 * ephemeral management cluster of the test's own, `capz-sim run` on it (simulated Azure, ASO, CAPZ, CAPI), real
 * backend processes (packages/backend) pointed at it, and the jobs API and end-state checks over them. Every wait is
 * on a condition (a job's state, an object on the API server, the simulated Azure); timings are printed.
 */
/* eslint-disable jest/no-standalone-expect -- the end-state checks are the tests' own assertions, called from their it() blocks */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// Test-only: the simulator's service principal, as its seeded credential Secrets hold it.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { servicePrincipalSecretData } from '@internal/capz-sim/azure';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { repoRoot as repo } from '@internal/mgmt-cluster';
import type { LoggerService } from '@backstage/backend-plugin-api';
import { ConfigReader } from '@backstage/config';
import {
  CLUSTER_NAME_LABEL,
  REPLICAS_MANAGED_BY_ANNOTATION,
} from '@capz-backstage/plugin-capz-common';
import YAML from 'yaml';
import { AksDiscovery } from '../azure/AksDiscovery';
import {
  BackendDatabase,
  BackendProcess,
  BackendProcessOptions,
  PreparedBackend,
  prepareBackend,
  reportsDir,
  startBackend,
} from './backendProcess';
import {
  Arm,
  AzureState,
  Cluster,
  condition,
  KindName,
  pathOf,
  PoolSeed,
  readAzure,
} from './jobFixtures';
import { ClusterInfo, until } from './realCluster';

const cli = (pkg: string) => join(repo, 'packages', pkg, 'src', 'cli.ts');

export const system = (count = 2, extra: Partial<PoolSeed> = {}): PoolSeed => ({
  name: 'system',
  mode: 'System',
  count,
  ...extra,
});
export const user = (
  name: string,
  count: number,
  extra: Partial<PoolSeed> = {},
): PoolSeed => ({
  name,
  mode: 'User',
  count,
  vmSize: 'Standard_D4s_v3',
  ...extra,
});

export const logTail = (job: any, n = 15) =>
  (job.log ?? [])
    .slice(-n)
    .map((l: any) => `  ${l.at} ${l.level} ${l.step ?? '-'}: ${l.message}`)
    .join('\n');
export const messages = (job: any, re: RegExp) =>
  job.log.filter((l: any) => re.test(l.message));
const FINAL = ['succeeded', 'failed', 'cancelled'];

/** Every planned step succeeded, each with this many attempts (default 1). */
export function everyStep(
  job: any,
  attempts: (id: string) => number = () => 1,
): void {
  expect(job.steps.map((s: any) => `${s.id} ${s.state} ${s.attempts}`)).toEqual(
    job.plan.map((p: any) => `${p.id} succeeded ${attempts(p.id)}`),
  );
}

export interface WatchEvent {
  at: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR' | 'BOOKMARK';
  object: any;
}

/** A raw watch request (`?watch=1`) as the cluster's admin; events in `events` as they come. */
export class Watch {
  readonly events: WatchEvent[] = [];
  readonly ready: Promise<void>;
  private req?: ReturnType<typeof https.request>;

  constructor(
    info: Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>,
    path: string,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.req = https.request(
        `${info.url}${path}?watch=1&allowWatchBookmarks=false`,
        {
          ca: info.caPem,
          agent: false,
          headers: {
            Authorization: `Bearer ${info.adminToken}`,
            Accept: 'application/json',
          },
        },
        res => {
          if (res.statusCode !== 200) {
            reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
            return;
          }
          resolve();
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            buf += d;
            const lines = buf.split('\n');
            buf = lines.pop()!;
            for (const line of lines)
              if (line.trim())
                this.events.push({ at: Date.now(), ...JSON.parse(line) });
          });
        },
      );
      this.req.on('error', e => (this.req?.destroyed ? undefined : reject(e)));
      this.req.end();
    });
  }

  stop(): void {
    this.req?.destroy();
  }
}

export class JobsWorld {
  readonly mcName: string;
  readonly simState: string;
  readonly tmp: string;
  info!: ClusterInfo;
  c!: Cluster;
  arm!: Arm;
  /** What the simulated Azure had created/updated/deleted once every fixture was in place (see markBaseline). */
  baseline!: AzureState;
  private sim?: ChildProcess;
  private simOut = '';
  private controlId = 0;
  private readonly running = new Set<BackendProcess>();
  private readonly prepared = new Set<PreparedBackend>();
  private readonly t0 = Date.now();
  /** More app-config files for every backend this world starts (e.g. a Git forge's `integrations`). */
  readonly extraConfigFiles: string[] = [];

  constructor(readonly label: string) {
    this.mcName = `${label}-${process.pid}`;
    this.simState = join(
      process.env.CAPZ_STATE_DIR ?? join(repo, '.local'),
      'capz-sim',
      this.mcName,
    );
    this.tmp = mkdtempSync(join(tmpdir(), `capz-${label}-`));
  }

  say = (m: string) =>
    process.stdout.write(
      `[${this.label} +${((Date.now() - this.t0) / 1000).toFixed(1)}s] ${m}\n`,
    );

  /** The management cluster and the simulator with these scenarios; resolves once the simulator's endpoints serve. */
  async start(o: {
    scenarios: string;
    operationMs?: number;
    /** The real CAPI, CAPZ and ASO managers instead of the simulated ones (only Azure simulated; scenarios `none`). */
    realControllers?: boolean;
  }): Promise<void> {
    const kubeconfig = execFileSync(
      'node',
      [cli('mgmt-cluster'), 'start', '--name', this.mcName, '--ephemeral'],
      { encoding: 'utf8' },
    ).trim();
    this.info = JSON.parse(
      readFileSync(join(dirname(kubeconfig), 'cluster.json'), 'utf8'),
    );
    this.c = new Cluster(this.info);
    this.say(`management cluster ${this.mcName} at ${this.info.url}`);
    mkdirSync(join(reportsDir, 'backends'), { recursive: true });
    const simLog = createWriteStream(
      join(reportsDir, 'backends', `capz-sim-${this.mcName}.log`),
    );
    const simStart = Date.now();
    this.sim = spawn(
      'node',
      [
        cli('capz-sim'),
        'run',
        '--cluster',
        this.mcName,
        '--scenarios',
        o.scenarios,
        '--operation-ms',
        String(o.operationMs ?? 100),
        o.realControllers ? '--real-controllers' : '--control-stdin',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    // Control answers (stdout) and the log (stderr): the tail names the cause if the simulator stops.
    for (const stream of [this.sim.stdout!, this.sim.stderr!])
      stream.on('data', (d: Buffer) => {
        this.simOut += d.toString();
      });
    this.sim.stdout!.pipe(simLog);
    this.sim.stderr!.pipe(simLog);
    // The simulator bounds each of its own steps (a manager's readiness: 420 s); this wait only detects a hang of
    // the whole start, and ends at once when the simulator exits. Either way the log's tail names the step.
    const exited = () =>
      this.sim!.exitCode !== null || this.sim!.signalCode !== null;
    const discoveryFile = join(
      this.simState,
      'app-config.azure-discovery.yaml',
    );
    await until(
      'the simulator to write its discovery config',
      () => exited() || existsSync(discoveryFile),
      o.realControllers ? 600_000 : 120_000,
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; the simulator's log ends: ${this.simOut.slice(-2000)}`,
      );
    });
    if (exited())
      throw new Error(
        `capz-sim exited (${
          this.sim.exitCode ?? this.sim.signalCode
        }) before writing its discovery config: ${this.simOut.slice(-2000)}`,
      );
    this.say(
      `simulator serving ${((Date.now() - simStart) / 1000).toFixed(
        1,
      )} s after its start`,
    );
    this.arm = new Arm(this.simState);
  }

  /**
   * Forces (failure) or clears (null) a failure on one simulated ASO object, held until cleared: e.g. Azure still busy
   * with another operation on the cluster, so a step's wait is certainly unmet while a test needs it to be. Resolves
   * once the simulator says the command holds.
   */
  async forceAsoFailure(
    kind: 'ResourceGroup' | 'ManagedCluster' | 'ManagedClustersAgentPool',
    namespace: string,
    name: string,
    failure: {
      reason: string;
      severity: 'Warning' | 'Error';
      message: string;
    } | null,
  ): Promise<void> {
    const id = ++this.controlId;
    this.sim!.stdin!.write(
      `${JSON.stringify({
        id,
        forceFailure: { kind, namespace, name, failure },
      })}\n`,
    );
    let answer = '';
    await until(
      `the simulator to apply control command ${id}`,
      () => {
        answer =
          new RegExp(`^capz-sim control ${id} (.*)$`, 'm').exec(
            this.simOut,
          )?.[1] ?? '';
        return answer !== '';
      },
      10_000,
    );
    if (answer !== 'ok')
      throw new Error(`simulator control command ${id}: ${answer}`);
  }

  async stop(): Promise<void> {
    await Promise.all([
      ...[...this.running].map(b => b.kill()),
      ...[...this.prepared].map(p => p.discard()),
    ]);
    if (process.env.CAPZ_JOBS_KEEP) return; // debugging: leave the cluster and the simulator running
    // The simulator stops what it started (with --real-controllers: the managers and the workload API server) before
    // the management cluster goes.
    const sim = this.sim;
    if (sim && sim.exitCode === null && sim.signalCode === null) {
      let exited = false;
      sim.once('exit', () => (exited = true));
      sim.kill();
      await until('the simulator to exit', () => exited, 60_000).catch(() =>
        sim.kill('SIGKILL'),
      );
    }
    if (this.info)
      execFileSync('node', [
        cli('mgmt-cluster'),
        'stop',
        '--name',
        this.mcName,
      ]);
    rmSync(this.simState, { recursive: true, force: true });
    rmSync(this.tmp, { recursive: true, force: true });
    this.say('done');
  }

  /**
   * A backend process. The crash tests use a 2 s lease (a killed replica's job is resumed quickly); the replica test a
   * longer one, so that a heartbeat delayed on a busy machine cannot hand a running job to the other replica.
   * `entry: 'capz'` is the lighter backend (backendProcess.ts).
   */
  async backend(
    name: string,
    database: BackendDatabase,
    env: Record<string, string> = {},
    mayExitDuringStart = false,
    leaseSeconds = 2,
    entry: BackendProcessOptions['entry'] = 'backend',
  ): Promise<BackendProcess> {
    const b = await startBackend({
      ...this.backendOptions(name, database, leaseSeconds, entry),
      mayExitDuringStart,
      env,
    });
    return this.started(b, env);
  }

  /**
   * A lighter backend (entry `capz`) that loads its modules now and starts when told (startPrepared): the crash tests
   * load the next backend while the current one runs to its fault.
   */
  async prepareBackend(
    name: string,
    database: BackendDatabase,
    leaseSeconds = 2,
  ): Promise<PreparedBackend> {
    const p = await prepareBackend(
      this.backendOptions(name, database, leaseSeconds, 'capz'),
    );
    this.prepared.add(p);
    return p;
  }

  /** Starts a prepared backend with this environment (see prepareBackend). */
  async startPrepared(
    p: PreparedBackend,
    env: Record<string, string> = {},
    mayExitDuringStart = false,
  ): Promise<BackendProcess> {
    this.prepared.delete(p);
    return this.started(await p.start(env, { mayExitDuringStart }), env);
  }

  private backendOptions(
    name: string,
    database: BackendDatabase,
    leaseSeconds: number,
    entry: BackendProcessOptions['entry'],
  ): BackendProcessOptions {
    return {
      name,
      entry,
      managementCluster: {
        name: this.mcName,
        url: this.info.url,
        caPem: this.info.caPem,
        token: this.info.backendToken,
      },
      database,
      configFiles: [
        join(this.simState, 'app-config.azure-discovery.yaml'),
        ...this.extraConfigFiles,
      ],
      capz: { jobs: { leaseSeconds } },
    };
  }

  private started(
    b: BackendProcess,
    env: Record<string, string>,
  ): BackendProcess {
    this.running.add(b);
    void b.exited.then(() => this.running.delete(b));
    this.say(
      `backend ${b.name} (pid ${b.pid}${
        env.CAPZ_JOBS_FAULT ? `, fault ${env.CAPZ_JOBS_FAULT}` : ''
      }) ready in ${b.startMs} ms; log ${b.logFile}`,
    );
    return b;
  }

  sqlite = (name: string): BackendDatabase => ({
    client: 'better-sqlite3',
    directory: join(this.tmp, name),
  });

  async createCredentialSecret(
    namespace: string,
    name = 'aso-credential',
  ): Promise<void> {
    await this.c.create('Secret', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      type: 'Opaque',
      data: servicePrincipalSecretData(this.arm.subscription),
    });
  }

  /** A namespace with the ASO credential Secret in it. */
  async namespaceWithCredential(ns: string): Promise<void> {
    await this.c.createNamespace(ns);
    await this.createCredentialSecret(ns);
  }

  /** The legacy cluster and everything it must be for a migration's preflight: Available, every object Ready. */
  async legacyReady(namespace: string, name: string): Promise<true | string> {
    const cluster = await this.c.get('Cluster', namespace, name);
    if (condition(cluster, 'Available')?.status !== 'True') {
      return `Cluster ${namespace}/${name} not Available: ${JSON.stringify(
        (cluster?.status?.conditions ?? []).filter(
          (x: any) => x.status !== 'True' && x.type !== 'Paused',
        ),
      )}`;
    }
    for (const kind of [
      'AzureManagedControlPlane',
      'AzureManagedMachinePool',
      'ResourceGroup',
      'ManagedCluster',
      'ManagedClustersAgentPool',
    ] as const) {
      for (const o of await this.c.list(kind, namespace)) {
        if (o.metadata.labels?.[CLUSTER_NAME_LABEL] !== name) continue;
        if (condition(o, 'Ready')?.status !== 'True')
          return `${kind} ${o.metadata.name} not Ready`;
      }
    }
    const mc = (await this.c.list('ManagedCluster', namespace)).find(
      o => o.metadata.labels?.[CLUSTER_NAME_LABEL] === name,
    );
    if (!mc?.status?.agentPoolProfiles?.length)
      return `ManagedCluster of ${name} has no status.agentPoolProfiles yet`;
    return true;
  }

  /** Waits until `check` returns true; on timeout the error names the last thing it said. */
  async waitFor(
    what: string,
    check: () => Promise<true | string>,
    timeoutMs = 120_000,
  ): Promise<void> {
    let last = '';
    await until(
      what,
      async () => {
        const r = await check();
        if (r !== true) last = r;
        return r === true;
      },
      timeoutMs,
    ).catch(e => {
      throw new Error(`${e.message} (last: ${last})`);
    });
  }

  azure = () => readAzure(this.simState);

  /**
   * AKS discovery as the backend builds it against this world's simulated ARM and Entra ID (`capz-sim run`'s
   * app-config.azure-discovery.yaml), reading the ASO credential Secrets from the management cluster.
   */
  aksDiscovery(logger: LoggerService): AksDiscovery {
    return new AksDiscovery({
      config: new ConfigReader(
        YAML.parse(
          readFileSync(
            join(this.simState, 'app-config.azure-discovery.yaml'),
            'utf8',
          ),
        ),
      ),
      logger,
      readSecret: async (_mc, namespace, name) => {
        const secret = await this.c.get('Secret', namespace, name);
        return secret
          ? Object.fromEntries(
              Object.entries(secret.data as Record<string, string>).map(
                ([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')],
              ),
            )
          : undefined;
      },
      managedClusters: () => [],
    });
  }

  /** Waits until the persisted Azure state shows nothing in flight in the group (it trails ARM by 200 ms). */
  async azureSettled(resourceGroup: string): Promise<void> {
    await until('the persisted Azure state to show nothing in flight', () =>
      this.azure()
        .managedClusters.filter((m: any) => m.resourceGroup === resourceGroup)
        .every(
          (m: any) =>
            m.provisioningState === 'Succeeded' &&
            Object.values(m.agentPools).every(
              (p: any) => p.provisioningState === 'Succeeded',
            ),
        ),
    );
  }

  /**
   * Waits until the persisted Azure state holds each named AKS cluster with nothing in flight. The simulator serves
   * (and the world's start returns) before it first persists, so a fixture reads Azure only after this.
   */
  async azureHolds(names: string[], timeoutMs = 180_000): Promise<void> {
    const file = join(this.simState, 'azure.json');
    await this.waitFor(
      `the simulated Azure to hold ${names.join(', ')} with nothing in flight`,
      async () => {
        if (!existsSync(file)) return 'nothing persisted yet';
        const held = this.azure().managedClusters;
        const busy = names.filter(n => {
          const m = held.find(x => x.name === n);
          return (
            !m ||
            m.provisioningState !== 'Succeeded' ||
            Object.values(m.agentPools).some(
              p => p.provisioningState !== 'Succeeded',
            )
          );
        });
        return busy.length === 0 || `not yet: ${busy.join(', ')}`;
      },
      timeoutMs,
    );
  }

  /** From here on no job may create or delete anything in Azure: azureUntouched compares with this. */
  markBaseline(): void {
    this.baseline = this.azure();
    this.say(
      `fixtures ready; Azure counters ${JSON.stringify(
        this.baseline.counters,
      )}`,
    );
  }

  // ---- the jobs API ----

  migrate = (namespace: string, name: string, targetNamespace: string) => ({
    type: 'migrate',
    params: {
      managementCluster: this.mcName,
      namespace,
      name,
      targetNamespace,
    },
  });

  adopt = (
    namespace: string,
    a: { resourceGroup: string; name: string },
    credentialSecret = 'aso-credential',
  ) => ({
    type: 'adopt',
    params: {
      managementCluster: this.mcName,
      namespace,
      credentialSecret,
      subscriptionId: this.arm.subscription,
      resourceGroup: a.resourceGroup,
      clusterName: a.name,
    },
  });

  async submit(b: BackendProcess, body: unknown): Promise<any> {
    const r = await b.request('POST', 'capz/jobs', body);
    if (r.status !== 201)
      throw new Error(`POST /jobs: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    this.say(
      `job ${r.body.id} (${r.body.type} ${r.body.target.namespace}/${r.body.target.name}) created on ${b.name}`,
    );
    return r.body;
  }

  async job(b: BackendProcess, id: string): Promise<any> {
    const r = await b.request('GET', `capz/jobs/${id}`);
    if (r.status !== 200)
      throw new Error(
        `GET /jobs/${id}: HTTP ${r.status} ${JSON.stringify(r.body)}`,
      );
    return r.body;
  }

  /** Polls the job until it is in one of `states` (default: any final one); returns it in whichever state it is. */
  async settled(
    b: BackendProcess,
    id: string,
    timeoutMs = 240_000,
    states = FINAL,
  ): Promise<any> {
    let job: any;
    await until(
      `job ${id} to be ${states.join(' or ')}`,
      async () => {
        job = await this.job(b, id);
        return states.includes(job.state);
      },
      timeoutMs,
    ).catch(e => {
      throw new Error(
        `${e.message}; now ${job?.state} at ${
          job?.currentStep
        }: ${JSON.stringify(
          job?.steps?.find((s: any) => s.state === 'running'),
        )}\n${job ? logTail(job) : ''}`,
      );
    });
    return job;
  }

  /** Polls the job until it is final; fails with the job's error and log when it is not `succeeded`. */
  async finished(
    b: BackendProcess,
    id: string,
    timeoutMs = 240_000,
  ): Promise<any> {
    const started = Date.now();
    let job = await this.settled(b, id, timeoutMs);
    if (job.state !== 'succeeded')
      throw new Error(`job ${id} ${job.state}: ${job.error}\n${logTail(job)}`);
    // JobRun saves the state, then logs "job succeeded" (src/jobs/JobRun.ts): a read between the two has the state
    // only. The finished job is the one whose log says so too (a hang detector bounds the wait).
    if (!messages(job, /^job succeeded/).length)
      job = await until(
        `job ${id}'s log to say it succeeded`,
        async () => {
          const j = await this.job(b, id);
          return messages(j, /^job succeeded/).length ? j : undefined;
        },
        30_000,
      );
    this.say(
      `job ${id} succeeded (${((Date.now() - started) / 1000).toFixed(
        1,
      )}s of polling): ${job.steps
        .map((s: any) => `${s.id}×${s.attempts}`)
        .join(' ')}`,
    );
    return job;
  }

  // ---- end states ----

  /** Azure holds the cluster and these pools, none being deleted; nothing was created or deleted since the fixtures. */
  async azureUntouched(
    resourceGroup: string,
    name: string,
    pools: string[],
  ): Promise<void> {
    const live = await this.arm.cluster(resourceGroup, name);
    expect(live?.state).toBe('Succeeded');
    expect(Object.keys(live!.pools).sort()).toEqual([...pools].sort());
    expect(Object.values(live!.pools).every(s => s === 'Succeeded')).toBe(true);
    // ARM shows nothing Deleting now, so any deletion would be long persisted (debounced 200 ms) by now.
    const now = this.azure();
    expect(now.counters.deleted).toEqual(this.baseline.counters.deleted);
    expect(now.counters.created).toEqual(this.baseline.counters.created);
  }

  /** The new cluster is Available with one MachinePool per Azure pool (autoscaling ones managed by AKS). */
  async adoptedCluster(
    ns: string,
    name: string,
    pools: PoolSeed[],
    o: { entraOnly?: boolean } = {},
  ): Promise<void> {
    const c = this.c;
    await this.waitFor(
      `Cluster ${ns}/${name} to be Available`,
      async () => {
        const cl = await c.get('Cluster', ns, name);
        return (
          condition(cl, 'Available')?.status === 'True' ||
          `Available: ${JSON.stringify(condition(cl, 'Available'))}`
        );
      },
      30_000,
    );
    const agentPools = await c.list('ManagedClustersAgentPool', ns);
    const machinePools = await c.list('MachinePool', ns);
    expect(
      agentPools.map(p => p.spec.azureName ?? p.metadata.name).sort(),
    ).toEqual(pools.map(p => p.name).sort());
    for (const p of pools) {
      const ap = agentPools.find(
        x => (x.spec.azureName ?? x.metadata.name) === p.name,
      )!;
      // Adoption names the MachinePool after the agent pool (docs/capz-aso-facts.md#adopt-agent-pool).
      const mp = machinePools.find(m => m.metadata.name === ap.metadata.name);
      expect(mp).toBeDefined();
      expect(mp.spec.clusterName).toBe(name);
      if (p.enableAutoScaling)
        expect(mp.metadata.annotations?.[REPLICAS_MANAGED_BY_ANNOTATION]).toBe(
          'aks',
        );
      expect(
        await c.get('AzureASOManagedMachinePool', ns, ap.metadata.name),
      ).toBeDefined();
    }
    const mc = await c.get('ManagedCluster', ns, name);
    if (o.entraOnly) {
      // Local accounts disabled: user credentials under <name>-user-kubeconfig (docs/capz-aso-facts.md#adoption-entra).
      expect(mc.spec.operatorSpec?.secrets?.userCredentials?.name).toBe(
        `${name}-user-kubeconfig`,
      );
      expect(mc.spec.operatorSpec?.secrets?.adminCredentials).toBeUndefined();
    }
    expect(condition(mc, 'Ready')?.status).toBe('True');
  }

  /** The old objects of a migrated cluster are gone from Kubernetes, the credential copied without owners. */
  async migrated(
    from: string,
    to: string,
    name: string,
    resourceGroup: string,
    pools: PoolSeed[],
    o: { entraOnly?: boolean } = {},
  ): Promise<void> {
    const c = this.c;
    await this.adoptedCluster(to, name, pools, o);
    for (const kind of [
      'Cluster',
      'AzureManagedCluster',
      'AzureManagedControlPlane',
    ] as const) {
      expect(await c.get(kind, from, name)).toBeUndefined();
    }
    const belongs = (x: any) =>
      x.metadata.labels?.[CLUSTER_NAME_LABEL] === name ||
      x.metadata.name.startsWith(`${name}-`) ||
      x.metadata.name === name;
    for (const kind of [
      'MachinePool',
      'AzureManagedMachinePool',
      'ManagedCluster',
      'ManagedClustersAgentPool',
      'ResourceGroup',
    ] as const) {
      expect({
        kind,
        left: (await c.list(kind, from))
          .filter(belongs)
          .map(x => x.metadata.name),
      }).toEqual({ kind, left: [] });
    }
    const secret = await c.get('Secret', to, `${name}-aso-secret`);
    expect(secret).toBeDefined();
    expect(secret.metadata.ownerReferences).toBeUndefined();
    await this.azureUntouched(
      resourceGroup,
      name,
      pools.map(p => p.name),
    );
  }

  /**
   * A watch (the API server's watch protocol, not polling) on one kind in one namespace: every event is kept with
   * the time it arrived, until stop().
   */
  watch(kind: KindName, namespace: string): Watch {
    return new Watch(this.info, pathOf(kind, namespace));
  }
}
