/**
 * The condition history against the real API server, with the simulated controllers running on it (the README's
 * test command runs `capz-sim run --namespace-prefix team-` beside this stage). The test creates an ASO-managed
 * cluster whose credential Secret is missing (a failure ASO reports as reason Failed, docs/real-controllers.md#findings,
 * finding 6), then the
 * Secret, and watches the objects itself: the timeline must list exactly the condition states it saw, per object
 * and condition in the order they happened, and the causal chain in order across objects.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { kinds } from '@capz-backstage/plugin-capz-common';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { WatchCache } from '../cluster/WatchCache';
import { adminKubeConfig } from '../testing/realCluster';
import { ConditionRecorder, HistoryFlush } from './ConditionRecorder';
import { DatabaseHistoryStore } from './DatabaseHistoryStore';

const clusterFile = process.env.CAPZ_TEST_CLUSTER;
if (!clusterFile)
  throw new Error(
    'CAPZ_TEST_CLUSTER is not set: run through ./scripts/test.sh (it also starts the simulator)',
  );
const info = JSON.parse(readFileSync(clusterFile, 'utf8')) as {
  url: string;
  caPem: string;
  adminToken: string;
  backendToken: string;
};
const loadClient = async () => require('@kubernetes/client-node');

const suffix = randomBytes(3).toString('hex');
const ns = `team-hist-${suffix}`;
// Azure names come from the object names, and the simulated Azure is shared by every namespace: a name of its own
// keeps this run clear of a previous run's Azure resources still being deleted.
const name = `hist-${suffix}`;
const subscription = '5f1c2a9e-7d41-4b1a-9a3e-2c6d8e0f1a2b'; // the simulator's default subscription
const CAPZ = 'infrastructure.cluster.x-k8s.io';
const credential = {
  'serviceoperator.azure.com/credential-from': 'hist-credentials',
};
const WATCHED = [
  'Cluster',
  'MachinePool',
  'AzureASOManagedCluster',
  'AzureASOManagedControlPlane',
  'AzureASOManagedMachinePool',
  'ResourceGroup',
  'ManagedCluster',
  'ManagedClustersAgentPool',
] as const;

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
let k8s: any;
let kc: any;
let cache: WatchCache;
let store: DatabaseHistoryStore;
let recorder: ConditionRecorder;
const watches: AbortController[] = [];
const flushes: HistoryFlush[] = [];

/**
 * What the test itself sees, restated from the raw objects (independent of the code under test): per object and
 * condition, each state in order. AzureASOManaged* have no conditions: their status.ready is the synthetic Ready.
 */
const seen = new Map<string, string[]>();
const last = new Map<
  string,
  { state: string; time?: string; synthetic: boolean }
>();
const latest = new Map<string, any>();

const line = (
  kind: string,
  objName: string,
  type: string,
  c: { status: string; reason?: string; severity?: string; message?: string },
) =>
  `${kind}/${objName} ${type}=${c.status} ${c.reason || '-'} ${
    c.severity || '-'
  } ${c.message || ''}`.trim();

function observe(kind: string, o: any): void {
  latest.set(`${kind}/${o.metadata.name}`, o);
  const conditions: Array<{
    type: string;
    status: string;
    reason?: string;
    severity?: string;
    message?: string;
    lastTransitionTime?: string;
    synthetic: boolean;
  }> = [];
  if (kind.startsWith('AzureASOManaged')) {
    if (typeof o.status?.ready === 'boolean') {
      const waiting = (o.status.resources ?? [])
        .filter((r: any) => r.ready !== true)
        .map((r: any) => `${r.resource.kind}/${r.resource.name}`);
      conditions.push(
        o.status.ready
          ? { type: 'Ready', status: 'True', reason: 'Ready', synthetic: true }
          : {
              type: 'Ready',
              status: 'False',
              reason: 'NotReady',
              message: waiting.length
                ? `Waiting for ${waiting.join(', ')} to be ready`
                : undefined,
              synthetic: true,
            },
      );
    }
  } else {
    for (const c of o.status?.conditions ?? [])
      conditions.push({ ...c, synthetic: false });
  }
  for (const c of conditions) {
    const key = `${o.metadata.uid}/${c.type}`;
    const state = line(kind, o.metadata.name, c.type, c);
    const before = last.get(key);
    if (
      before &&
      before.state === state &&
      (c.synthetic || before.time === c.lastTransitionTime)
    )
      continue;
    last.set(key, {
      state,
      time: c.lastTransitionTime,
      synthetic: c.synthetic,
    });
    seen.set(key, [...(seen.get(key) ?? []), state]);
  }
}

const ready = (kind: string, objName: string, type = 'Ready') =>
  (latest.get(`${kind}/${objName}`)?.status?.conditions ?? []).find(
    (c: any) => c.type === type,
  );

/** Polls until `check` holds; fails naming what it waited for. A wait on a condition, never a fixed sleep. */
async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 25; !(await check()); delay = Math.min(delay * 2, 250)) {
    if (Date.now() > deadline) {
      const states = [...last.values()].map(v => `  ${v.state}`).join('\n');
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; the last states seen:\n${states}`,
      );
    }
    await new Promise(r => setTimeout(r, delay));
  }
}

const create = (
  kind: keyof typeof kinds,
  body: Record<string, unknown>,
  version?: string,
) => {
  const k = kinds[kind];
  return kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
    group: k.group,
    version: version ?? k.version,
    namespace: ns,
    plural: k.plural,
    body: { apiVersion: `${k.group}/${version ?? k.version}`, kind, ...body },
  });
};

beforeAll(async () => {
  k8s = await loadClient();
  kc = adminKubeConfig(k8s, info);
  await kc
    .makeApiClient(k8s.CoreV1Api)
    .createNamespace({ body: { metadata: { name: ns } } });

  const logger = mockServices.logger.mock();
  const knex = await databases.init('SQLITE_3');
  store = await DatabaseHistoryStore.create({
    database: mockServices.database({ knex, migrations: { skip: false } }),
  });
  cache = new WatchCache(
    [
      {
        name: 'local',
        authMethod: 'serviceAccountToken',
        url: info.url,
        caData: info.caPem,
        serviceAccountToken: info.backendToken,
      },
    ],
    logger,
    loadClient,
  );
  recorder = new ConditionRecorder({
    cache,
    store,
    logger,
    flushIntervalMs: 100,
  });
  recorder.on(
    'flush',
    (f: HistoryFlush) => f.namespace === ns && flushes.push(f),
  );
  recorder.start();
  await cache.start();

  // The test's own watches, established before anything is created so that they see every state.
  for (const kind of WATCHED) {
    const k = kinds[kind];
    const path = `/apis/${k.group}/${k.version}/namespaces/${ns}/${k.plural}`;
    watches.push(
      await new k8s.Watch(kc).watch(
        path,
        {},
        (phase: string, o: any) =>
          phase !== 'DELETED' && phase !== 'BOOKMARK' && observe(kind, o),
        () => undefined,
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  watches.forEach(w => w.abort());
  await recorder?.stop();
  await cache?.stop();
  await kc
    ?.makeApiClient(k8s.CoreV1Api)
    .deleteNamespace({ name: ns })
    .catch(() => undefined);
});

describe('the condition history of a cluster the simulator reconciles', () => {
  it('lists exactly the transitions the simulator produced, in order, and the Events about its objects', async () => {
    const from = new Date(Date.now() - 60_000);
    // An ASO-managed cluster as CAPZ's aks-aso flavor writes it (capz-sim seed.ts), one pool, credentials missing.
    await create('Cluster', {
      metadata: { name },
      spec: {
        controlPlaneRef: {
          apiGroup: CAPZ,
          kind: 'AzureASOManagedControlPlane',
          name,
        },
        infrastructureRef: {
          apiGroup: CAPZ,
          kind: 'AzureASOManagedCluster',
          name,
        },
      },
    });
    await create('AzureASOManagedControlPlane', {
      metadata: { name },
      spec: {
        version: 'v1.33.2',
        resources: [
          {
            apiVersion: `${kinds.ManagedCluster.group}/${kinds.ManagedCluster.version}`,
            kind: 'ManagedCluster',
            metadata: { name, annotations: credential },
            spec: {
              dnsPrefix: name,
              identity: { type: 'SystemAssigned' },
              location: 'westeurope',
              networkProfile: { networkPlugin: 'azure' },
              owner: { name },
              servicePrincipalProfile: { clientId: 'msi' },
            },
          },
        ],
      },
    });
    await create('AzureASOManagedCluster', {
      metadata: { name },
      spec: {
        resources: [
          {
            apiVersion: `${kinds.ResourceGroup.group}/${kinds.ResourceGroup.version}`,
            kind: 'ResourceGroup',
            metadata: { name, annotations: credential },
            spec: { location: 'westeurope' },
          },
        ],
      },
    });
    await create('MachinePool', {
      metadata: { name: `${name}-system` },
      spec: {
        clusterName: name,
        replicas: 1,
        template: {
          spec: {
            clusterName: name,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ,
              kind: 'AzureASOManagedMachinePool',
              name: `${name}-system`,
            },
            version: 'v1.33.2',
          },
        },
      },
    });
    await create('AzureASOManagedMachinePool', {
      metadata: { name: `${name}-system` },
      spec: {
        resources: [
          {
            apiVersion: `${kinds.ManagedClustersAgentPool.group}/${kinds.ManagedClustersAgentPool.version}`,
            kind: 'ManagedClustersAgentPool',
            metadata: { name: `${name}-system`, annotations: credential },
            spec: {
              azureName: 'system',
              mode: 'System',
              owner: { name },
              type: 'VirtualMachineScaleSets',
              vmSize: 'Standard_D2s_v3',
            },
          },
        ],
      },
    });

    await until(
      'ResourceGroup Ready=False Failed (credential Secret missing)',
      () => ready('ResourceGroup', name)?.reason === 'Failed',
    );
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    await kc.makeApiClient(k8s.CoreV1Api).createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 'hist-credentials' },
        data: {
          AZURE_SUBSCRIPTION_ID: b64(subscription),
          AZURE_TENANT_ID: b64('00000000-0000-0000-0000-0000000000aa'),
          AZURE_CLIENT_ID: b64('00000000-0000-0000-0000-0000000000bb'),
          AUTH_MODE: b64('workloadidentity'),
        },
      },
    });
    await until(
      'the cluster to be Available with its pool ready',
      () =>
        ready('Cluster', name, 'Available')?.status === 'True' &&
        ready('ManagedClustersAgentPool', `${name}-system`)?.status ===
          'True' &&
        latest.get(`AzureASOManagedMachinePool/${name}-system`)?.status
          ?.ready === true &&
        latest.get(`AzureASOManagedControlPlane/${name}`)?.status?.ready ===
          true,
      90_000,
    );

    // An Event about the ResourceGroup, as a controller would write it, then repeated.
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const rg = latest.get(`ResourceGroup/${name}`);
    const t0 = new Date();
    await core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: `${name}.history-test` },
        involvedObject: {
          apiVersion: rg.apiVersion,
          kind: 'ResourceGroup',
          name,
          namespace: ns,
          uid: rg.metadata.uid,
        },
        type: 'Warning',
        reason: 'CredentialsMissing',
        message: 'credential secret was missing',
        count: 1,
        firstTimestamp: t0,
        lastTimestamp: t0,
        source: { component: 'history-test' },
      },
    });
    const event = await core.readNamespacedEvent({
      namespace: ns,
      name: `${name}.history-test`,
    });
    const t1 = new Date(t0.getTime() + 1000);
    await core.replaceNamespacedEvent({
      namespace: ns,
      name: `${name}.history-test`,
      body: { ...event, count: 2, lastTimestamp: t1 },
    });

    // The timeline, grouped per object and condition, must equal what the test saw; the backend's watch and the
    // recorder's batching lag behind the test's own watches, so wait until they agree (or fail with the diff).
    const query = () =>
      store.timeline({
        managementCluster: 'local',
        namespace: ns,
        cluster: name,
        from,
        to: new Date(Date.now() + 60_000),
        limit: 5000,
      });
    const grouped = (
      transitions: Awaited<ReturnType<typeof query>>['transitions'],
    ) => {
      const out: Record<string, string[]> = {};
      for (const t of transitions)
        (out[`${t.objectUid}/${t.conditionType}`] ??= []).push(
          line(t.kind, t.name, t.conditionType, t),
        );
      return out;
    };
    const expected = () => Object.fromEntries(seen);
    const canonical = (m: Record<string, string[]>) =>
      JSON.stringify(
        Object.keys(m)
          .sort()
          .map(k => [k, m[k]]),
      );
    const agrees = async () => {
      const timeline = await query();
      return (
        canonical(grouped(timeline.transitions)) === canonical(expected()) &&
        timeline.events[0]?.count === 2
      );
    };
    // On a timeout the assertions below show the difference.
    await until('the timeline to list what the test saw', agrees, 30_000).catch(
      () => undefined,
    );
    const timeline = await query();
    expect(grouped(timeline.transitions)).toEqual(expected());
    expect(timeline.truncated).toBe(false);

    // Every kind of the tree has a history, the ASO-managed ones through the synthetic Ready.
    expect(new Set(timeline.transitions.map(t => t.kind))).toEqual(
      new Set(WATCHED),
    );
    // The forced failure and its recovery, as the simulated ASO reported them.
    const rgReady = seen.get(`${rg.metadata.uid}/Ready`)!;
    expect(rgReady[0]).toMatch(
      new RegExp(
        `^ResourceGroup/${name} Ready=False Failed Warning .*/hist-credentials does not exist \\(credential secret not found: Secret "hist-credentials" not found\\)`,
      ),
    );
    expect(rgReady[rgReady.length - 1]).toBe(
      `ResourceGroup/${name} Ready=True Succeeded -`,
    );

    // In order across objects: each step of the chain happened after the one it waited for.
    const at = (prefix: string) => {
      const i = timeline.transitions.findIndex(t =>
        line(t.kind, t.name, t.conditionType, t).startsWith(prefix),
      );
      expect({ prefix, found: i >= 0 }).toEqual({ prefix, found: true });
      return i;
    };
    const chain = [
      `ResourceGroup/${name} Ready=False Failed`,
      `ResourceGroup/${name} Ready=True`,
      `ManagedCluster/${name} Ready=True`,
      `AzureASOManagedControlPlane/${name} Ready=True`,
      `Cluster/${name} Available=True`,
    ].map(at);
    expect(chain).toEqual([...chain].sort((a, b) => a - b));

    expect(timeline.events).toEqual([
      {
        objectUid: rg.metadata.uid,
        kind: 'ResourceGroup',
        name,
        type: 'Warning',
        reason: 'CredentialsMissing',
        message: 'credential secret was missing',
        count: 2,
        firstTimestamp: new Date(
          Math.floor(t0.getTime() / 1000) * 1000,
        ).toISOString(),
        lastTimestamp: new Date(
          Math.floor(t1.getTime() / 1000) * 1000,
        ).toISOString(),
        source: 'history-test',
      },
    ]);
    // Browsers were told, by the Cluster's uid.
    const clusterUid = latest.get(`Cluster/${name}`).metadata.uid;
    expect(
      flushes.some(
        f =>
          f.clusterNames.includes(name) && f.clusterUids.includes(clusterUid),
      ),
    ).toBe(true);
  }, 180_000);
});
