/**
 * The jobs' safety invariants, each on the real API server with the simulator (capz-sim run: Azure, ASO, CAPZ, CAPI) and
 * a real backend process, every fixture this file's own:
 *  - same lifecycle: a migrated cluster deleted as a user deletes it does in Azure what deleting its unmigrated twin
 *    does (a resource group CAPZ never owned, on skip, and one with CAPZ's owned tag, on manage);
 *  - same Azure state: the resource group, the AKS cluster and every pool (tags, labels, taints, autoscaling, count,
 *    OS, mode, size, zones, ...) read from the simulated Azure before and after a migration and an adoption: equal;
 *  - true to ASO: ASO's finalizer comes back on the old ASO objects after the disarm step (they stay on skip), and the
 *    migration still deletes nothing in Azure;
 *  - safe words: what a job cancelled while CAPZ may be adopting says, followed literally, deletes nothing in Azure;
 *  - any AKS name: `myAKSCluster` in `My_Resource_Group` is adopted as object `myakscluster` with spec.azureName;
 *  - resume re-checks: a paused migration whose old Cluster was unpaused by hand refuses to resume and changes nothing.
 * Every wait is on a condition (a job's state, an object, the simulated Azure); timings are printed.
 */
// Test-only: the simulator's view of one resource group and its AKS clusters, every field but provisioning states.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { azureResourceState } from '@internal/capz-sim/azure';
import type { BackendProcess } from '../testing/backendProcess';
import {
  KindName,
  makeAzureOnlyCluster,
  makeAzureResourceGroup,
  normalizeName,
  OWNED_TAG,
  pathOf,
  PoolSeed,
  writeLegacyCluster,
} from '../testing/jobFixtures';
import {
  everyStep,
  JobsWorld,
  logTail,
  system,
  user,
} from '../testing/jobsWorld';
import { until } from '../testing/realCluster';

const w = new JobsWorld('safety');
const { say } = w;
let main: BackendProcess;

const RECONCILE_POLICY = 'serviceoperator.azure.com/reconcile-policy';
const ASO_FINALIZER = 'serviceoperator.azure.com/finalizer';
const ASO_KINDS = [
  'ResourceGroup',
  'ManagedCluster',
  'ManagedClustersAgentPool',
] as const;
/** Every namespaced kind a cluster's objects can be of (what must be gone once a cluster is deleted). */
const CLUSTER_KINDS: KindName[] = [
  'Cluster',
  'MachinePool',
  'AzureManagedCluster',
  'AzureManagedControlPlane',
  'AzureManagedMachinePool',
  'AzureASOManagedCluster',
  'AzureASOManagedControlPlane',
  'AzureASOManagedMachinePool',
  ...ASO_KINDS,
];

/** Pools with every field Azure keeps: labels, taints, tags, autoscaling, zones, max pods, OS disk. */
const POOLS: PoolSeed[] = [
  system(2, {
    nodeLabels: { tier: 'system' },
    tags: { pool: 'system' },
    maxPods: 50,
    osDiskSizeGB: 64,
  }),
  user('batch', 2, {
    enableAutoScaling: true,
    minCount: 1,
    maxCount: 5,
    nodeLabels: { workload: 'batch', team: 'data' },
    nodeTaints: ['workload=batch:NoSchedule'],
    tags: { pool: 'batch', 'cost-center': 'cc-42' },
    availabilityZones: ['1', '2'],
  }),
];
const CLUSTER_TAGS = { env: 'prod', owner: 'team-data' };

/**
 * Twins: identical legacy clusters `twin` in two namespaces, each in its own pre-existing resource group. `skip`: a
 * group CAPZ never owned (extra tags, no owned tag): the legacy controllers leave it on reconcile-policy skip
 * (docs/capz-aso-facts.md#legacy-aso-objects). `owned`: the group carries CAPZ's owned tag (its own tags, as CAPZ wrote
 * them when it made the group), so the legacy controllers set it to manage and deleting the cluster deletes the group.
 */
type Pair = 'skip' | 'owned';
const twin = (pair: Pair, side: 'a' | 'b') => ({
  namespace: `twin-${pair}-${side}`,
  target: `twin-${pair}-${side}-aso`,
  name: 'twin',
  resourceGroup: `rg-twin-${pair}-${side}`,
  groupTags: (pair === 'owned'
    ? {
        ...CLUSTER_TAGS,
        [OWNED_TAG('twin')]: 'owned',
        'sigs.k8s.io_cluster-api-provider-azure_role': 'common',
        Name: `rg-twin-${pair}-${side}`,
      }
    : {
        env: 'prod',
        'cost-center': 'cc-42',
        'created-by': 'platform-team',
      }) as Record<string, string>,
});
const TWINS = (['skip', 'owned'] as const).flatMap(pair => [
  twin(pair, 'a'),
  twin(pair, 'b'),
]);

/** Legacy clusters of their own for the cancel and the resume tests. */
const WORDS_LEGACY = {
  namespace: 'words-src',
  name: 'words-lake',
  resourceGroup: 'rg-words-lake',
  pools: [system(1), user('etl', 2)],
};
const MOVED_LEGACY = {
  namespace: 'moved-src',
  name: 'moved-lake',
  resourceGroup: 'rg-moved-lake',
  pools: [system(1), user('etl', 1)],
};

/** Azure-only clusters to adopt. */
const STATE_AKS = {
  resourceGroup: 'rg-state-aks',
  name: 'state-aks',
  pools: POOLS,
  tags: CLUSTER_TAGS,
  resourceGroupTags: { env: 'prod', 'created-by': 'portal' },
};
/** What ARM answers while another operation runs on the cluster: a wait on it stays unmet until the test clears it. */
const AZURE_BUSY = {
  reason: 'OperationNotAllowed',
  severity: 'Warning' as const,
  message:
    "Operation is not allowed because there's an in progress operation on the managed cluster (held by the test until it has cancelled the job)",
};
const WORDS_AKS = {
  resourceGroup: 'rg-words-aks',
  name: 'words-aks',
  pools: [system(1), user('web', 1)],
};
const MY_AKS = {
  resourceGroup: 'My_Resource_Group',
  name: 'myAKSCluster',
  pools: [system(1), user('userpool', 1, { nodeLabels: { app: 'web' } })],
  tags: { env: 'quickstart' },
};

beforeAll(async () => {
  // A slower simulated ARM (300 ms per operation) leaves the cancel test a window while CAPZ adopts.
  await w.start({ scenarios: 'none', operationMs: 300 });
  const { c, arm } = w;
  const backendStarting = w.backend('safety', w.sqlite('safety'));
  backendStarting.catch(() => undefined);
  await w.namespaceWithCredential('fixtures');
  const scratch = {
    scratchNamespace: 'fixtures',
    credentialSecret: 'aso-credential',
  };
  for (const t of TWINS) {
    await makeAzureResourceGroup(c, {
      ...scratch,
      resourceGroup: t.resourceGroup,
      tags: t.groupTags,
    });
    await c.createNamespace(t.namespace);
    await writeLegacyCluster(c, {
      namespace: t.namespace,
      name: t.name,
      resourceGroup: t.resourceGroup,
      pools: POOLS,
      tags: CLUSTER_TAGS,
      subscription: arm.subscription,
    });
  }
  for (const l of [WORDS_LEGACY, MOVED_LEGACY]) {
    await makeAzureResourceGroup(c, {
      ...scratch,
      resourceGroup: l.resourceGroup,
      tags: { env: 'dev' },
    });
    await c.createNamespace(l.namespace);
    await writeLegacyCluster(c, { ...l, subscription: arm.subscription });
  }
  for (const a of [STATE_AKS, WORDS_AKS, MY_AKS])
    await makeAzureOnlyCluster(c, { ...scratch, ...a });
  for (const l of [...TWINS, WORDS_LEGACY, MOVED_LEGACY]) {
    await w.waitFor(
      `legacy cluster ${l.namespace}/${l.name} to be ready to migrate`,
      () => w.legacyReady(l.namespace, l.name),
      180_000,
    );
  }
  // The legacy controllers put the owned group on manage, and leave the other on skip
  // (docs/capz-aso-facts.md#legacy-aso-objects).
  for (const t of TWINS) {
    const policy = (await c.get('ResourceGroup', t.namespace, t.resourceGroup))
      .metadata.annotations?.[RECONCILE_POLICY];
    if (policy !== (t.namespace.includes('owned') ? 'manage' : 'skip'))
      throw new Error(
        `fixture: ResourceGroup ${t.namespace}/${t.resourceGroup} is on ${policy}`,
      );
  }
  main = await backendStarting;
  for (const rg of [
    ...TWINS,
    WORDS_LEGACY,
    MOVED_LEGACY,
    STATE_AKS,
    WORDS_AKS,
    MY_AKS,
  ].map(x => x.resourceGroup))
    await azureSettled(rg);
  w.markBaseline();
}, 900_000);

afterAll(() => w.stop(), 120_000);

// ---- the simulated Azure ----

/** One resource group and its AKS clusters, every field but provisioning states, as the simulator persisted them. */
const azureState = (resourceGroup: string) =>
  azureResourceState(w.azure() as any, { resourceGroup });

/**
 * Waits until nothing in the group is in flight, both as ARM serves it now and in the persisted state (written
 * 200 ms after a change), so that azureState() is what Azure holds.
 */
async function azureSettled(resourceGroup: string): Promise<void> {
  await w.waitFor(
    `Azure resource group ${resourceGroup} to be settled`,
    async () => {
      const s = w.azure();
      const busy = [
        ...s.resourceGroups
          .filter(
            g =>
              g.name.toLowerCase() === resourceGroup.toLowerCase() &&
              g.provisioningState !== 'Succeeded',
          )
          .map(g => `group ${g.name}`),
        ...s.managedClusters
          .filter(
            m => m.resourceGroup.toLowerCase() === resourceGroup.toLowerCase(),
          )
          .flatMap(m => [
            ...(m.provisioningState !== 'Succeeded'
              ? [`cluster ${m.name} ${m.provisioningState}`]
              : []),
            ...Object.entries(m.agentPools)
              .filter(([, p]) => p.provisioningState !== 'Succeeded')
              .map(([n, p]) => `pool ${m.name}/${n} ${p.provisioningState}`),
          ]),
      ];
      if (busy.length) return `persisted: ${busy.join(', ')}`;
      for (const m of s.managedClusters.filter(
        x => x.resourceGroup.toLowerCase() === resourceGroup.toLowerCase(),
      )) {
        const live = await w.arm.cluster(resourceGroup, m.name);
        if (!live) return `ARM: cluster ${m.name} gone but still persisted`;
        const states = [live.state, ...Object.values(live.pools)];
        if (
          states.some(x => x !== 'Succeeded') ||
          Object.keys(live.pools).length !== Object.keys(m.agentPools).length
        )
          return `ARM: ${m.name} ${JSON.stringify(live)}`;
      }
      return true;
    },
    60_000,
  );
}

/** The paths where two JSON values differ, `path: before -> after`. */
function diff(a: unknown, b: unknown, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (
    a &&
    b &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    Array.isArray(a) === Array.isArray(b)
  ) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap(k =>
      diff((a as any)[k], (b as any)[k], `${path}.${k}`),
    );
  }
  return [`${path || '.'}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`];
}

const deletedSince = (before: {
  counters: { deleted: Record<string, number> };
}) => {
  const now = w.azure().counters.deleted;
  return Object.fromEntries(
    Object.entries(now).map(([k, v]) => [
      k,
      v - (before.counters.deleted as any)[k],
    ]),
  );
};

// ---- the API server ----

async function mergePatch(
  kind: KindName,
  ns: string,
  name: string,
  patch: unknown,
): Promise<number> {
  const r = await w.c.req(
    'PATCH',
    pathOf(kind, ns, name),
    patch,
    'application/merge-patch+json',
  );
  if (r.status !== 200 && r.status !== 404)
    throw new Error(
      `PATCH ${kind} ${ns}/${name}: ${r.status} ${JSON.stringify(r.body)}`,
    );
  return r.status;
}

/** `kubectl delete <kind> <name>` with the default (background) propagation, as a user deletes. */
async function userDelete(
  kind: KindName,
  ns: string,
  name: string,
): Promise<void> {
  const r = await w.c.req('DELETE', pathOf(kind, ns, name));
  if (r.status !== 200 && r.status !== 202)
    throw new Error(
      `DELETE ${kind} ${ns}/${name}: ${r.status} ${JSON.stringify(r.body)}`,
    );
}

/** What is left of any cluster's objects in a namespace, by kind. */
async function leftIn(ns: string): Promise<string[]> {
  const left: string[] = [];
  for (const kind of CLUSTER_KINDS)
    for (const o of await w.c.list(kind, ns))
      left.push(
        `${kind} ${o.metadata.name}${
          o.metadata.deletionTimestamp
            ? ` (deleting, finalizers ${JSON.stringify(o.metadata.finalizers)})`
            : ''
        }`,
      );
  return left;
}

/** Polls the job (every 25 ms: the windows are short) until `pred` holds; returns the job then. */
async function jobWhen(
  id: string,
  what: string,
  pred: (job: any) => boolean,
  timeoutMs = 120_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await w.job(main, id);
    if (pred(job)) return job;
    if (['succeeded', 'failed', 'cancelled'].includes(job.state))
      throw new Error(
        `job ${id} is ${job.state} before ${what}: ${
          job.error ?? ''
        }\n${logTail(job)}`,
      );
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}: job ${job.state} at ${
          job.currentStep
        }\n${logTail(job)}`,
      );
    await new Promise(r => setTimeout(r, 25));
  }
}

const step = (job: any, id: string) => job.steps.find((s: any) => s.id === id);

/**
 * Snapshots every job kind in these namespaces (names and resourceVersions) until nothing changed for 2 s: the
 * controllers are done with them (a user reads a job's words later than that).
 */
async function quiet(namespaces: string[]): Promise<Record<string, string>> {
  let last = '';
  let since = Date.now();
  return until(
    `namespaces ${namespaces.join(', ')} to be quiet`,
    async () => {
      const now = await w.c.snapshot(namespaces);
      const text = JSON.stringify(now);
      if (text !== last) {
        last = text;
        since = Date.now();
      }
      return Date.now() - since >= 2000 ? now : undefined;
    },
    120_000,
  );
}

// ---- the tests ----

describe('same lifecycle, same Azure state, true to ASO: a migrated twin and its unmigrated twin', () => {
  it.each(['skip', 'owned'] as const)(
    'migrating twin A (%s group) changes nothing in Azure; ASO re-adds its finalizer to the disarmed objects, which stay on skip',
    async pair => {
      const a = twin(pair, 'a');
      const before = azureState(a.resourceGroup);
      const counters = w.azure();
      const watches = ASO_KINDS.map(k => w.watch(k, a.namespace));
      await Promise.all(watches.map(x => x.ready));
      const started = Date.now();
      const job = await w.finished(
        main,
        (
          await w.submit(main, w.migrate(a.namespace, a.name, a.target))
        ).id,
      );
      watches.forEach(x => x.stop());
      say(
        `twin ${a.namespace} migrated in ${(
          (Date.now() - started) /
          1000
        ).toFixed(1)} s`,
      );
      everyStep(job);
      await w.migrated(a.namespace, a.target, a.name, a.resourceGroup, POOLS);

      // The lifecycle the new objects keep: the policy each old object had before the job.
      const newRg = await w.c.get('ResourceGroup', a.target, a.resourceGroup);
      expect(newRg.metadata.annotations?.[RECONCILE_POLICY] ?? 'manage').toBe(
        pair === 'owned' ? 'manage' : 'skip',
      );
      expect(
        (await w.c.get('ManagedCluster', a.target, a.name)).metadata
          .annotations?.[RECONCILE_POLICY] ?? 'manage',
      ).toBe('manage');

      // True to ASO: each old ASO object, disarmed (skip, finalizers null), gets ASO's finalizer back while on skip.
      const disarmedAt = Date.parse(step(job, 'disarm').startedAt);
      const timeline: string[] = [];
      for (const events of watches.map(x => x.events)) {
        const names = [...new Set(events.map(e => e.object.metadata.name))];
        for (const name of names) {
          const mine = events.filter(e => e.object.metadata.name === name);
          const kind = mine[0].object.kind;
          const at = (pred: (e: (typeof mine)[number]) => boolean, from = 0) =>
            mine.findIndex((e, i) => i >= from && pred(e));
          const skip = (e: (typeof mine)[number]) =>
            e.object.metadata.annotations?.[RECONCILE_POLICY] === 'skip';
          const fin = (e: (typeof mine)[number]) =>
            (e.object.metadata.finalizers ?? []).includes(ASO_FINALIZER);
          const disarmed = at(
            e =>
              e.type === 'MODIFIED' &&
              e.at >= disarmedAt - 1000 &&
              skip(e) &&
              !fin(e),
          );
          const back =
            disarmed < 0
              ? -1
              : at(
                  e => e.type === 'MODIFIED' && skip(e) && fin(e),
                  disarmed + 1,
                );
          const deleted = at(e => e.type === 'DELETED');
          timeline.push(
            `${kind} ${name}: disarmed ${
              disarmed >= 0 ? `+${mine[disarmed].at - started} ms` : 'never'
            }, finalizer back under skip ${
              back >= 0
                ? `+${mine[back].at - mine[disarmed].at} ms after`
                : 'never'
            }, deleted ${
              deleted >= 0 ? `+${mine[deleted].at - started} ms` : 'never'
            }`,
          );
          expect({
            object: `${kind} ${name}`,
            disarmed: disarmed >= 0,
            finalizerBackUnderSkip: back >= 0,
            deletedAfter: deleted > back,
          }).toEqual({
            object: `${kind} ${name}`,
            disarmed: true,
            finalizerBackUnderSkip: true,
            deletedAfter: true,
          });
        }
      }
      say(
        `twin ${
          a.namespace
        }, old ASO objects seen by the watch:\n  ${timeline.join('\n  ')}`,
      );
      expect(timeline.length).toBe(2 + POOLS.length);

      // Same Azure state: group, cluster and pools as they were, field by field; nothing deleted.
      await azureSettled(a.resourceGroup);
      const changed = diff(before, azureState(a.resourceGroup));
      say(
        `twin ${a.namespace}: Azure diff before/after the migration: ${
          changed.length ? changed.join('; ') : 'none'
        }; updated ${JSON.stringify(w.azure().counters.updated)}`,
      );
      expect(changed).toEqual([]);
      expect(deletedSince(counters)).toEqual({
        resourceGroups: 0,
        managedClusters: 0,
        agentPools: 0,
      });
    },
    300_000,
  );

  const groupFate = (before: unknown, after: unknown) => {
    if (!after) return 'deleted';
    return diff(before, after).length ? 'changed' : 'kept as it was';
  };

  /**
   * Deletes a cluster as a user does (DELETE the Cluster, normal propagation), waits until nothing of it is left in
   * Kubernetes and Azure is settled, and returns what Azure deleted: the counters' deltas and what is gone.
   */
  async function deleteAsAUser(
    ns: string,
    name: string,
    resourceGroup: string,
  ) {
    const before = w.azure();
    const stateBefore = azureState(resourceGroup);
    const started = Date.now();
    await userDelete('Cluster', ns, name);
    await w.waitFor(
      `every object of Cluster ${ns}/${name} to be gone`,
      async () => {
        const left = await leftIn(ns);
        return left.length ? left.join(', ') : true;
      },
      180_000,
    );
    await azureSettled(resourceGroup);
    const after = azureState(resourceGroup);
    const deleted = deletedSince(before);
    const result = {
      // The simulator's agent-pool counter can count a pool twice when a pool's own delete and its cluster's delete
      // overlap (AzureWorld.removeCluster counts the pools still in the map; the pool's timer counts it again), so
      // the pools are compared by what is gone, the groups and clusters by the counters too.
      deleted: {
        resourceGroups: deleted.resourceGroups,
        managedClusters: deleted.managedClusters,
      },
      poolsGone: Object.keys(stateBefore.managedClusters[0]?.agentPools ?? {})
        .filter(p => !after.managedClusters.some(m => p in m.agentPools))
        .sort(),
      resourceGroup: groupFate(stateBefore.resourceGroup, after.resourceGroup),
      managedClusters: after.managedClusters.map(m => m.name),
      pools: after.managedClusters.flatMap(m => Object.keys(m.agentPools)),
    };
    say(
      `deleted Cluster ${ns}/${name} in ${(
        (Date.now() - started) /
        1000
      ).toFixed(1)} s: Azure ${JSON.stringify(
        result,
      )}; counters ${JSON.stringify(deleted)}`,
    );
    return result;
  }

  it.each(['skip', 'owned'] as const)(
    'deleting migrated twin A deletes in Azure what deleting unmigrated twin B deletes (%s group)',
    async pair => {
      const a = twin(pair, 'a');
      const b = twin(pair, 'b');
      const migratedA = await deleteAsAUser(a.target, a.name, a.resourceGroup);
      const legacyB = await deleteAsAUser(b.namespace, b.name, b.resourceGroup);
      // Deleting a cluster deletes its AKS cluster; its group only when CAPZ owned it
      // (docs/capz-aso-facts.md#legacy-aso-objects).
      expect(legacyB).toMatchObject({
        managedClusters: [],
        poolsGone: POOLS.map(p => p.name).sort(),
        resourceGroup: pair === 'owned' ? 'deleted' : 'kept as it was',
      });
      expect(migratedA).toEqual(legacyB);
      // Those were deletions on purpose: from here on, none.
      w.markBaseline();
    },
    600_000,
  );
});

describe('same Azure state: adoption', () => {
  it('adopting an AKS cluster with tags, labels, taints, zones and autoscaling changes nothing in Azure', async () => {
    const ns = 'adopt-state';
    await w.namespaceWithCredential(ns);
    const before = azureState(STATE_AKS.resourceGroup);
    const counters = w.azure();
    const job = await w.finished(
      main,
      (
        await w.submit(main, w.adopt(ns, STATE_AKS))
      ).id,
    );
    everyStep(job);
    await w.adoptedCluster(ns, STATE_AKS.name, POOLS);
    // A group CAPZ never owned stays unmanaged: skip, so ASO never PUTs or deletes it.
    expect(
      (await w.c.list('ResourceGroup', ns))[0].metadata.annotations?.[
        RECONCILE_POLICY
      ],
    ).toBe('skip');
    await azureSettled(STATE_AKS.resourceGroup);
    const changed = diff(before, azureState(STATE_AKS.resourceGroup));
    say(
      `adoption of ${STATE_AKS.name}: Azure diff before/after: ${
        changed.length ? changed.join('; ') : 'none'
      }`,
    );
    expect(changed).toEqual([]);
    expect(deletedSince(counters)).toEqual({
      resourceGroups: 0,
      managedClusters: 0,
      agentPools: 0,
    });
    await w.azureUntouched(
      STATE_AKS.resourceGroup,
      STATE_AKS.name,
      POOLS.map(p => p.name),
    );
  }, 300_000);
});

/**
 * The commands a job's left-behind text gives, run literally through the API server: `kubectl annotate --overwrite -n
 * NS <kind>.<group>/<name>... KEY=VALUE` as a merge patch of that annotation on each object (a missing object is what
 * kubectl reports as NotFound: counted), and the `kubectl get ... -o custom-columns=...POLICY...` check as a GET of
 * each, which must show the policy the annotate set.
 */
async function followCommands(words: string): Promise<{
  annotated: Array<{ kind: KindName; name: string; namespace: string }>;
  notFound: string[];
}> {
  const commands = [...words.matchAll(/`(kubectl [^`]+)`/g)].map(m => m[1]);
  say(
    `the words give ${commands.length} commands:\n  ${commands.join('\n  ')}`,
  );
  const annotate = commands.find(x => x.startsWith('kubectl annotate'));
  expect(annotate).toBeDefined();
  const args = annotate!.split(/\s+/).slice(2);
  const ns = args[args.indexOf('-n') + 1];
  const [key, value] = args[args.length - 1].split('=');
  expect(key).toBe(RECONCILE_POLICY);
  const kindOf = (resource: string): KindName => {
    const kind = resource.split('.')[0];
    const found = ASO_KINDS.find(k => k.toLowerCase() === kind);
    if (!found)
      throw new Error(
        `the words name a resource this test cannot map: ${resource}`,
      );
    return found;
  };
  const objects = args
    .slice(0, -1)
    .filter(a => a.includes('/'))
    .map(r => ({ kind: kindOf(r), name: r.split('/')[1], namespace: ns }));
  const notFound: string[] = [];
  for (const o of objects)
    if (
      (await mergePatch(o.kind, ns, o.name, {
        metadata: { annotations: { [key]: value } },
      })) === 404
    )
      notFound.push(`${o.kind} ${o.name}`);
  const check = commands.find(x => x.startsWith('kubectl get'));
  expect(check).toContain('reconcile-policy');
  for (const o of objects) {
    const live = await w.c.get(o.kind, ns, o.name);
    if (live)
      expect({
        object: `${o.kind} ${o.name}`,
        policy: live.metadata.annotations?.[RECONCILE_POLICY],
      }).toEqual({ object: `${o.kind} ${o.name}`, policy: 'skip' });
  }
  return { annotated: objects, notFound };
}

describe('safe words: a job cancelled while CAPZ may be adopting', () => {
  // Each test checks its own Azure deletions; whatever they were, the tests after them start from here.
  afterEach(() => w.markBaseline());

  it('an adoption cancelled while adopt-managed-cluster waits: DANGER first; its commands, then the deletes it names, delete nothing in Azure', async () => {
    const ns = 'adopt-words';
    await w.namespaceWithCredential(ns);
    const counters = w.azure();
    const stateBefore = azureState(WORDS_AKS.resourceGroup);
    // Azure held busy on the ManagedCluster the job creates, so its wait is certainly unmet when the cancel comes
    // (on a loaded machine the 25 ms polls once missed a wait met in under 3 s, and the job ran to its end).
    const held = ['ManagedCluster', ns, WORDS_AKS.name] as const;
    await w.forceAsoFailure(...held, AZURE_BUSY);
    const { id } = await w.submit(main, w.adopt(ns, WORDS_AKS));
    const waiting = await jobWhen(
      id,
      'adopt-managed-cluster to wait',
      j =>
        j.currentStep === 'adopt-managed-cluster' &&
        /^waiting for/.test(step(j, 'adopt-managed-cluster')?.message ?? ''),
    );
    const cancel = await main.request('POST', `capz/jobs/${id}/cancel`);
    expect(cancel.status).toBeLessThan(300);
    const job = await w.settled(main, id);
    await w.forceAsoFailure(...held, null);
    say(
      `adoption cancelled while "${
        step(waiting, 'adopt-managed-cluster').message
      }"; left behind: ${job.leftBehind}`,
    );
    expect(job.state).toBe('cancelled');
    // The cancel reaches the wait, or (on a busy machine) the wait is met first and the job stops at the next step
    // boundary: either way CAPZ may be adopting, which is what the words must say.
    const amc = step(job, 'adopt-managed-cluster');
    expect(
      amc.state === 'succeeded'
        ? amc.state
        : { state: amc.state, message: amc.message },
    ).toEqual(
      amc.state === 'succeeded'
        ? 'succeeded'
        : { state: 'pending', message: 'interrupted by cancel' },
    );
    expect(
      job.steps
        .filter(
          (s: any) =>
            s.id !== 'adopt-resource-group' && s.id !== 'adopt-managed-cluster',
        )
        .every((s: any) => s.state === 'pending'),
    ).toBe(true);
    expect(job.leftBehind).toMatch(/^DANGER/);
    // Read when the controllers are done (CAPZ goes on adopting what the job created), then followed literally and
    // in order: make the objects safe, check, "then delete them (and the Cluster CAPZ made, if any)".
    await quiet([ns]);
    const { annotated, notFound } = await followCommands(job.leftBehind);
    expect(annotated.map(o => o.kind).sort()).toEqual([
      'ManagedCluster',
      'ManagedClustersAgentPool',
      'ManagedClustersAgentPool',
      'ResourceGroup',
    ]);
    say(
      `annotated ${annotated.length} objects; not found (not created yet): ${
        notFound.join(', ') || 'none'
      }`,
    );
    // The deletes, in the order the words give them after the check: the objects ("delete them", "what is left of
    // them") and the Cluster CAPZ made for them. Deleting a Cluster waits until it is gone only if the words say so.
    const rest = job.leftBehind.slice(job.leftBehind.indexOf('kubectl get'));
    const objectsAt = rest.search(/delete (them|what is left)/);
    const clusterAt = rest.search(/the Cluster CAPZ made/);
    expect({ objectsAt: objectsAt >= 0, clusterAt: clusterAt >= 0 }).toEqual({
      objectsAt: true,
      clusterAt: true,
    });
    const waitForCluster = /until it is gone/.test(
      rest.slice(clusterAt, clusterAt + 200),
    );
    say(
      `the words delete ${
        objectsAt < clusterAt
          ? 'the objects, then the Cluster'
          : `the Cluster${
              waitForCluster ? ' (until it is gone)' : ''
            }, then the objects`
      }`,
    );
    // What happens to the ASO objects from here on, to say why if Azure loses anything.
    const watches = (['ResourceGroup', 'ManagedCluster'] as const).map(k =>
      w.watch(k, ns),
    );
    await Promise.all(watches.map(x => x.ready));
    const deleting = Date.now();
    const deleteObjects = async () => {
      for (const o of annotated)
        if (await w.c.get(o.kind, ns, o.name))
          await userDelete(o.kind, ns, o.name);
    };
    const cluster = await w.c.get('Cluster', ns, WORDS_AKS.name);
    const deleteCluster = async () => {
      if (!cluster) return;
      await userDelete('Cluster', ns, WORDS_AKS.name);
      if (waitForCluster)
        await w.waitFor(
          `Cluster ${ns}/${WORDS_AKS.name} to be gone`,
          async () =>
            !(await w.c.get('Cluster', ns, WORDS_AKS.name)) || 'still there',
        );
    };
    if (objectsAt < clusterAt) {
      await deleteObjects();
      await deleteCluster();
    } else {
      await deleteCluster();
      await deleteObjects();
    }
    await w.waitFor(
      `everything the adoption made in ${ns} to be gone`,
      async () => {
        const left = await leftIn(ns);
        return left.length ? left.join(', ') : true;
      },
      120_000,
    );
    await azureSettled(WORDS_AKS.resourceGroup);
    watches.forEach(x => x.stop());
    const seen = watches
      .flatMap(x => x.events)
      .sort((x, y) => x.at - y.at)
      .filter(e => e.type !== 'MODIFIED' || e.object.metadata.deletionTimestamp)
      .map(
        e =>
          `+${e.at - deleting} ms ${e.type} ${e.object.kind} ${
            e.object.metadata.name
          } uid ${e.object.metadata.uid.slice(0, 8)} policy ${
            e.object.metadata.annotations?.[RECONCILE_POLICY] ?? 'manage'
          }${e.object.metadata.deletionTimestamp ? ' (deleting)' : ''}`,
      );
    say(
      `following the deletes in ${ns}, the ASO objects:\n  ${[
        ...new Set(seen),
      ].join('\n  ')}`,
    );
    expect(deletedSince(counters)).toEqual({
      resourceGroups: 0,
      managedClusters: 0,
      agentPools: 0,
    });
    expect(diff(stateBefore, azureState(WORDS_AKS.resourceGroup))).toEqual([]);
    say(
      `adoption undone by the words (Cluster CAPZ made: ${
        cluster ? 'yes, deleted' : 'none yet'
      }); Azure deleted nothing`,
    );
  }, 300_000);

  it('a migration cancelled after adopt-managed-cluster started: DANGER first; its commands, then deleting the namespace and unpausing, delete nothing in Azure', async () => {
    const l = WORDS_LEGACY;
    const target = 'words-lake-aso';
    const counters = w.azure();
    const stateBefore = azureState(l.resourceGroup);
    const { id } = await w.submit(main, w.migrate(l.namespace, l.name, target));
    const started = await jobWhen(
      id,
      'adopt-managed-cluster to start',
      j => j.currentStep === 'adopt-managed-cluster',
    );
    const cancel = await main.request('POST', `capz/jobs/${id}/cancel`);
    expect(cancel.status).toBeLessThan(300);
    const job = await w.settled(main, id);
    say(
      `migration cancelled at ${started.currentStep} (${
        step(started, 'adopt-managed-cluster').message ?? 'no message yet'
      }); left behind: ${job.leftBehind}`,
    );
    expect(job.state).toBe('cancelled');
    expect(job.leftBehind).toMatch(/^DANGER/);
    await quiet([l.namespace, target]);
    const { annotated, notFound } = await followCommands(job.leftBehind);
    say(
      `annotated ${annotated.length} objects; not found (not created yet): ${
        notFound.join(', ') || 'none'
      }`,
    );
    // "then delete namespace <target>, and only once it is gone unpause the old Cluster <ns>/<name>"
    expect(job.leftBehind).toContain(`then delete namespace ${target}`);
    expect(job.leftBehind).toContain(
      `unpause the old Cluster ${l.namespace}/${l.name}`,
    );
    const r = await w.c.req('DELETE', `/api/v1/namespaces/${target}`);
    expect(r.status).toBeLessThan(300);
    await w.waitFor(
      `namespace ${target} to be gone`,
      async () =>
        (await w.c.namespaceExists(target))
          ? `left: ${(await leftIn(target)).join(', ')}`
          : true,
      180_000,
    );
    await mergePatch('Cluster', l.namespace, l.name, {
      spec: { paused: false },
    });
    await w.waitFor(
      `the old cluster ${l.namespace}/${l.name} to be back to normal`,
      async () => {
        const cp = await w.c.get(
          'AzureManagedControlPlane',
          l.namespace,
          l.name,
        );
        if (
          cp.metadata.annotations?.[
            'clusterctl.cluster.x-k8s.io/block-move'
          ] === undefined
        )
          return 'no block-move yet';
        const mc = await w.c.get(
          'ManagedCluster',
          l.namespace,
          normalizeName(l.name),
        );
        if (
          mc.metadata.annotations?.[
            'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy'
          ] !== undefined
        )
          return 'pre-pause policy not restored yet';
        return w.legacyReady(l.namespace, l.name);
      },
      120_000,
    );
    await azureSettled(l.resourceGroup);
    expect(deletedSince(counters)).toEqual({
      resourceGroups: 0,
      managedClusters: 0,
      agentPools: 0,
    });
    expect(diff(stateBefore, azureState(l.resourceGroup))).toEqual([]);
    say(
      'migration undone by the words: namespace deleted, old Cluster unpaused and Available; Azure deleted nothing',
    );
  }, 300_000);
});

describe('any AKS name', () => {
  it('adopts myAKSCluster in My_Resource_Group as object myakscluster with spec.azureName', async () => {
    const ns = 'adopt-myaks';
    await w.namespaceWithCredential(ns);
    const preview = await main.request(
      'POST',
      'capz/jobs/preview',
      w.adopt(ns, MY_AKS),
    );
    expect(preview.status).toBe(200);
    expect(
      preview.body.preflight.filter((p: any) => p.status === 'fail'),
    ).toEqual([]);
    const creates = preview.body.plan.flatMap((s: any) =>
      s.actions
        .filter((a: any) => a.action === 'create')
        .map((a: any) => a.object),
    );
    const mc = creates.find((o: any) => o.kind === 'ManagedCluster');
    const rg = creates.find((o: any) => o.kind === 'ResourceGroup');
    expect({ name: mc.metadata.name, azureName: mc.spec.azureName }).toEqual({
      name: 'myakscluster',
      azureName: 'myAKSCluster',
    });
    expect({ name: rg.metadata.name, azureName: rg.spec.azureName }).toEqual({
      name: 'my-resource-group',
      azureName: 'My_Resource_Group',
    });
    say(
      `preview: ${
        preview.body.preflight.find((p: any) => p.id === 'names')?.message
      }`,
    );
    const job = await w.finished(
      main,
      (
        await w.submit(main, w.adopt(ns, MY_AKS))
      ).id,
    );
    everyStep(job);
    expect(job.target.name).toBe('myakscluster');
    await w.adoptedCluster(ns, 'myakscluster', MY_AKS.pools);
    expect(
      (await w.c.get('ManagedCluster', ns, 'myakscluster')).spec.azureName,
    ).toBe('myAKSCluster');
    await azureSettled(MY_AKS.resourceGroup);
    await w.azureUntouched(
      MY_AKS.resourceGroup,
      MY_AKS.name,
      MY_AKS.pools.map(p => p.name),
    );
  }, 300_000);
});

describe('resume re-checks', () => {
  it('a migration paused after disarm, its old Cluster unpaused by hand, refuses to resume and changes nothing', async () => {
    const l = MOVED_LEGACY;
    const target = 'moved-lake-aso';
    const { id } = await w.submit(main, w.migrate(l.namespace, l.name, target));
    await jobWhen(
      id,
      'disarm to succeed',
      j => step(j, 'disarm')?.state === 'succeeded',
    );
    expect(
      (await main.request('POST', `capz/jobs/${id}/pause`)).status,
    ).toBeLessThan(300);
    const paused = await w.settled(main, id, 60_000, ['paused']);
    say(
      `paused after ${paused.steps
        .filter((s: any) => s.state === 'succeeded')
        .map((s: any) => s.id)
        .join(', ')}`,
    );
    expect(step(paused, 'disarm').state).toBe('succeeded');

    // By hand: the old Cluster unpaused. The legacy controllers take it back (block-move, their policies).
    await mergePatch('Cluster', l.namespace, l.name, {
      spec: { paused: false },
    });
    await w.waitFor(
      'the legacy controllers to take the old cluster back',
      async () => {
        const cp = await w.c.get(
          'AzureManagedControlPlane',
          l.namespace,
          l.name,
        );
        return (
          cp.metadata.annotations?.[
            'clusterctl.cluster.x-k8s.io/block-move'
          ] !== undefined || 'no block-move yet'
        );
      },
    );
    const namespaces = [
      l.namespace,
      ...((await w.c.namespaceExists(target)) ? [target] : []),
    ];
    const before = await quiet(namespaces);
    const counters = w.azure();

    const resumedAt = Date.now();
    expect(
      (await main.request('POST', `capz/jobs/${id}/resume`)).status,
    ).toBeLessThan(300);
    const failed = await w.settled(main, id, 60_000, [
      'failed',
      'succeeded',
      'cancelled',
    ]);
    say(
      `resume answered in ${Date.now() - resumedAt} ms: ${failed.state}: ${
        failed.error
      }`,
    );
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(
      new RegExp(
        `Cluster ${l.namespace}/${l.name} is still paused.*no longer holds`,
      ),
    );
    expect(failed.error).toMatch(/Nothing was changed by this resume/);
    expect(await quiet(namespaces)).toEqual(before);
    expect(w.azure().counters).toEqual(counters.counters);
  }, 300_000);
});
