/**
 * The cluster page's day-2 actions against the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, with only
 * Azure simulated (`capz-sim run --real-controllers`), through a real backend process's HTTP routes as the guest
 * user. Part of the real-controllers lane (`scripts/test-real-controllers.sh`), not of the default run. Each
 * test asserts on what the real managers and the simulated ARM did, never on the backend's own writes:
 * - scale: MachinePool replicas → CAPZ → the ASO agent pool → ARM's agent pool count → the workload Nodes CAPI counts;
 * - autoscale: CAPZ marks the MachinePool `replicas-managed-by: aks` and keeps its replicas at AKS's count; ARM's pool
 *   has the autoscaler and its bounds;
 * - upgrade: ARM's control-plane version moves, then the one pool's, the other pool stays;
 * - pause: a scale written while paused makes no ARM PUT; the resume brings it to Azure;
 * - delete: the delete preview's Azure deletes and keeps equal the simulated Azure's deletions, for a cluster that
 *   manages its group and for one whose group is `skip`; for the paused and resumed cluster the preview first blocks
 *   on the owner reference the pause lost (C51), and once its patch is applied the delete equals the preview;
 * - a fleet run of two clusters in two stages, on backends of its own: the first is SIGKILLed right after the run's
 *   first write (CAPZ_FLEET_FAULT=written), a second on the same database resumes the run; ARM moves each cluster's
 *   control plane, then its pools, the second cluster only after the first.
 */
import {
  day2Paths,
  kinds,
  type Day2Action,
  type DeletePreview,
} from '@capz-backstage/plugin-capz-common';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import type { FleetRun } from '@capz-backstage/plugin-capz-common';
import type { BackendProcess } from '../testing/backendProcess';
import {
  azureDeletedSince,
  clusterObjectsGone,
  createDay2Cluster,
  deletesByType,
} from '../testing/day2Fixtures';
import { condition, makeAzureResourceGroup } from '../testing/jobFixtures';
import { JobsWorld } from '../testing/jobsWorld';
import { kube } from '../testing/realCluster';

const w = new JobsWorld('real-day2');
const ns = 'day2-real';
/** The real managers reconcile slowly on a busy 2-core machine: hang detectors in minutes. */
const LONG = 300_000;
let main: BackendProcess;

const createCluster = (
  name: string,
  kubernetesVersion: string,
  rgPolicy?: string,
) =>
  createDay2Cluster(w, {
    namespace: ns,
    name,
    kubernetesVersion,
    userReplicas: 1,
    rgPolicy,
  });

/** The simulated AKS cluster as persisted (trails ARM by 200 ms). */
const aks = (name: string): any =>
  w.azure().managedClusters.find(m => m.name === name);

const paths = (name: string) =>
  day2Paths({ managementCluster: w.mcName, namespace: ns, name });

/** A day-2 action through the backend's HTTP routes, as the cluster page sends it: previewed, then confirmed. */
async function act(name: string, action: Day2Action): Promise<any> {
  const preview = await main.request(
    'POST',
    `capz${paths(name).preview}`,
    action,
  );
  if (preview.status !== 200)
    throw new Error(
      `${action.action} on ${name}: preview HTTP ${
        preview.status
      } ${JSON.stringify(preview.body)}`,
    );
  const r = await main.request('POST', `capz${paths(name).actions}`, {
    ...action,
    planDigest: preview.body.planDigest,
  });
  if (r.status !== 200)
    throw new Error(
      `${action.action} on ${name}: HTTP ${r.status} ${JSON.stringify(r.body)}`,
    );
  expect(r.body.applied).toBe(true);
  return r.body;
}

const seconds = (since: number) =>
  `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Available with both pools ready in CAPI and Succeeded in Azure, and seen so by the backend's delete preview. */
async function ready(name: string) {
  await w.waitFor(
    `cluster ${name} Available, both pools in Azure with a ready Node each, the backend's cache holding its ASO objects with ARM ids`,
    async () => {
      const cl = await w.c.get('Cluster', ns, name);
      if (condition(cl, 'Available')?.status !== 'True')
        return `Available: ${JSON.stringify(condition(cl, 'Available'))}`;
      const pools = aks(name)?.agentPools ?? {};
      const states = Object.entries(pools).map(
        ([k, p]: [string, any]) => `${k}:${p.provisioningState}`,
      );
      if (states.sort().join() !== 'system:Succeeded,user:Succeeded')
        return `Azure pools ${states.join()}`;
      // CAPI has counted each pool's Node (the scale test starts from 1 ready Node; seen 0 when not waited for).
      for (const pool of ['system', 'user']) {
        const n = await nodesOf(name, pool);
        if (n.ready !== 1 || n.nodeRefs !== 1)
          return `MachinePool ${name}-${pool} ${JSON.stringify(n)}`;
      }
      const preview = await main.request(
        'GET',
        `capz${paths(name).deletePreview}`,
      );
      const all = [
        ...(preview.body.deletes ?? []),
        ...(preview.body.keeps ?? []),
      ];
      return (
        (all.length === 4 && all.every((x: any) => x.armId)) ||
        `delete preview ${preview.status}: ${JSON.stringify(
          all.map((x: any) => `${x.azureType} ${x.azureName} ${x.armId ?? ''}`),
        )}`
      );
    },
    LONG,
  );
}

/**
 * What AKS's cluster autoscaler does to an autoscaled pool, done through the simulated ARM (which has no autoscaler):
 * the pool as ARM serves it, PUT back with another count.
 */
async function armScalePool(cluster: string, pool: string, count: number) {
  const arm = JSON.parse(readFileSync(join(w.simState, 'arm.json'), 'utf8'));
  const path = `${arm.url}/subscriptions/${w.arm.subscription}/resourceGroups/${cluster}/providers/Microsoft.ContainerService/managedClusters/${cluster}/agentPools/${pool}?api-version=2025-08-01`;
  const call = (method: string, body?: unknown) =>
    new Promise<{ status: number; body: any }>((res, rej) => {
      const req = https.request(
        path,
        {
          method,
          ca: arm.caPem,
          agent: false,
          headers: {
            Authorization: `Bearer ${arm.token}`,
            'Content-Type': 'application/json',
          },
        },
        r => {
          let text = '';
          r.on('data', d => (text += d));
          r.on('end', () =>
            res({ status: r.statusCode ?? 0, body: text && JSON.parse(text) }),
          );
        },
      );
      req.on('error', rej);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const got = await call('GET');
  expect(got.status).toBe(200);
  expect(got.body.properties.enableAutoScaling).toBe(true);
  const put = await call('PUT', {
    properties: { ...got.body.properties, count },
  });
  expect([200, 201]).toContain(put.status);
  await w.waitFor(
    `ARM pool ${pool} at ${count}`,
    async () => {
      const p = aks(cluster)?.agentPools[pool];
      return (
        (p?.count === count && p.provisioningState === 'Succeeded') ||
        `count ${p?.count} ${p?.provisioningState}`
      );
    },
    LONG,
  );
}

/** The MachinePool's status as CAPI keeps it from the workload cluster's Nodes. */
async function nodesOf(name: string, pool: string) {
  const mp = await w.c.get('MachinePool', ns, `${name}-${pool}`);
  return {
    replicas: mp.spec.replicas,
    ready: mp.status?.readyReplicas ?? 0,
    nodeRefs: (mp.status?.nodeRefs ?? []).length,
  };
}

beforeAll(async () => {
  await w.start({ scenarios: 'none', realControllers: true, operationMs: 300 });
  const backendStarting = w.backend('main', w.sqlite('main'));
  backendStarting.catch(() => undefined);
  await w.namespaceWithCredential(ns);
  // The group of the `skip` cluster exists before it, as an adopted cluster's does.
  await makeAzureResourceGroup(w.c, {
    scratchNamespace: ns,
    credentialSecret: 'aso-credential',
    resourceGroup: 'kept',
  });
  // One minor behind what the simulated AKS offers last (1.33.2), so that an upgrade has somewhere to go.
  await createCluster('d2', 'v1.32.5');
  await createCluster('kept', 'v1.33.2', 'skip');
  // The pause's own cluster: a pause/resume leaves its agent pools without their ManagedCluster owner reference
  // (docs/capz-aso-facts.md C51), which changes how a later delete goes (the last test).
  await createCluster('p2', 'v1.33.2');
  // The fleet run's two clusters, one per stage.
  await createCluster('f1', 'v1.32.5');
  await createCluster('f2', 'v1.32.5');
  main = await backendStarting;
  const started = Date.now();
  for (const name of ['d2', 'kept', 'p2', 'f1', 'f2']) await ready(name);
  w.say(`the five clusters ready ${seconds(started)} after the backend`);
}, 900_000);

afterAll(() => w.stop(), 180_000);

it("scales a pool 1→2: CAPZ sets the agent pool count, ARM's pool has 2 instances, CAPI sees 2 ready Nodes", async () => {
  expect(aks('d2').agentPools.user.count).toBe(1);
  expect(await nodesOf('d2', 'user')).toEqual({
    replicas: 1,
    ready: 1,
    nodeRefs: 1,
  });
  const started = Date.now();
  await act('d2', { action: 'scale', pool: 'user', replicas: 2 });
  await w.waitFor(
    'ARM agent pool user at count 2 with 2 VMSS instances',
    async () => {
      const p = aks('d2')?.agentPools.user;
      return (
        (p?.count === 2 &&
          p.instanceIds.length === 2 &&
          p.provisioningState === 'Succeeded') ||
        `count ${p?.count}, instances ${JSON.stringify(p?.instanceIds)}, ${
          p?.provisioningState
        }`
      );
    },
    LONG,
  );
  const arm = seconds(started);
  // The ASO object carries CAPZ's copy of the count (C38 setAgentPoolCount), not a write of ours.
  const ap = await w.c.get('ManagedClustersAgentPool', ns, 'd2-user');
  expect(ap.spec.count).toBe(2);
  await w.waitFor(
    'CAPI to count 2 ready Nodes of the pool in the workload cluster',
    async () => {
      const n = await nodesOf('d2', 'user');
      return (n.ready === 2 && n.nodeRefs === 2) || JSON.stringify(n);
    },
    LONG,
  );
  w.say(
    `scale: ARM count 2 after ${arm}, 2 Nodes ready after ${seconds(started)}`,
  );
  // The other pool untouched.
  expect(aks('d2').agentPools.system.count).toBe(1);
}, 600_000);

it("turns the autoscaler on: CAPZ marks the MachinePool replicas-managed-by aks and keeps it at AKS's count; ARM has the bounds", async () => {
  const started = Date.now();
  await act('d2', {
    action: 'autoscale',
    pool: 'user',
    enabled: true,
    minCount: 1,
    maxCount: 4,
  });
  await w.waitFor(
    'ARM agent pool user autoscaled 1..4',
    async () => {
      const p = aks('d2')?.agentPools.user;
      return (
        (p?.enableAutoScaling === true &&
          p.minCount === 1 &&
          p.maxCount === 4 &&
          p.provisioningState === 'Succeeded') ||
        JSON.stringify({
          enableAutoScaling: p?.enableAutoScaling,
          minCount: p?.minCount,
          maxCount: p?.maxCount,
          state: p?.provisioningState,
        })
      );
    },
    LONG,
  );
  await w.waitFor(
    'CAPZ to mark the MachinePool replicas-managed-by: aks',
    async () => {
      const mp = await w.c.get('MachinePool', ns, 'd2-user');
      return (
        mp.metadata.annotations?.['cluster.x-k8s.io/replicas-managed-by'] ===
          'aks' || JSON.stringify(mp.metadata.annotations)
      );
    },
    LONG,
  );
  w.say(`autoscale: ARM and the annotation after ${seconds(started)}`);
  // CAPZ sends no count for an autoscaled existing pool (C39): the count is AKS's, and the MachinePool follows it.
  await w.waitFor(
    "CAPZ's count gone from the ASO agent pool",
    async () => {
      const ap = await w.c.get('ManagedClustersAgentPool', ns, 'd2-user');
      return ap.spec.count === undefined || `spec.count ${ap.spec.count}`;
    },
    LONG,
  );
  const mp = await w.c.get('MachinePool', ns, 'd2-user');
  expect(mp.spec.replicas).toBe(aks('d2').agentPools.user.count);
  // AKS's autoscaler scales the pool out (the simulator has none: the test does it through ARM, as the autoscaler
  // would); the page then widens the bounds, so that ASO PUTs the pool (without a count, C39) and reads AKS's count
  // back, and CAPZ copies it into the MachinePool, whose Nodes CAPI then counts.
  await armScalePool('d2', 'user', 3);
  const follow = Date.now();
  await act('d2', {
    action: 'autoscale',
    pool: 'user',
    enabled: true,
    minCount: 1,
    maxCount: 5,
  });
  await w.waitFor(
    "the MachinePool to follow AKS's count 3, with 3 ready Nodes",
    async () => {
      const p = aks('d2')?.agentPools.user;
      const n = await nodesOf('d2', 'user');
      return (
        (p?.maxCount === 5 &&
          p.count === 3 &&
          n.replicas === 3 &&
          n.ready === 3 &&
          n.nodeRefs === 3) ||
        `ARM count ${p?.count} max ${p?.maxCount}; MachinePool ${JSON.stringify(
          n,
        )}`
      );
    },
    LONG,
  );
  w.say(
    `autoscale: the MachinePool followed AKS's count in ${seconds(follow)}`,
  );
  // The page then refuses a scale of this pool, naming the manager, once its cache has CAPZ's annotation.
  await w.waitFor(
    'the backend to refuse a scale of the autoscaled pool',
    async () => {
      const r = await main.request('POST', `capz${paths('d2').preview}`, {
        action: 'scale',
        pool: 'user',
        replicas: 3,
      });
      return (
        (r.status === 400 &&
          /^replicas-managed-by: .*managed by "aks" \(annotation cluster\.x-k8s\.io\/replicas-managed-by/.test(
            r.body?.error?.message ?? '',
          )) ||
        `HTTP ${r.status} ${JSON.stringify(r.body)}`
      );
    },
    LONG,
  );
}, 600_000);

it('upgrades the control plane to a version the region offers, then one pool: ARM moves each in turn', async () => {
  const options = await main.request('GET', `capz${paths('d2').upgrades}`);
  expect(options.status).toBe(200);
  expect(options.body.controlPlane).toBe('v1.32.5');
  expect(options.body.available).toContain('v1.33.2');
  const started = Date.now();
  await act('d2', {
    action: 'upgrade',
    version: 'v1.33.2',
    target: 'controlPlane',
  });
  await w.waitFor(
    'ARM control plane at 1.33.2',
    async () => {
      const mc = aks('d2');
      return (
        (mc?.kubernetesVersion === '1.33.2' &&
          mc.currentKubernetesVersion === '1.33.2' &&
          mc.provisioningState === 'Succeeded') ||
        `${mc?.kubernetesVersion}/${mc?.currentKubernetesVersion} ${mc?.provisioningState}`
      );
    },
    LONG,
  );
  const cp = seconds(started);
  // Only the control plane moved.
  expect(aks('d2').agentPools.system.orchestratorVersion).toBe('1.32.5');
  expect(aks('d2').agentPools.user.orchestratorVersion).toBe('1.32.5');
  // CAPZ reports the version AKS runs (status.version); only then does the page let a pool follow (no pool newer
  // than what the control plane runs), once its cache has that status.
  await w.waitFor(
    "CAPZ's status.version v1.33.2 on the control plane",
    async () => {
      const v = (await w.c.get('AzureASOManagedControlPlane', ns, 'd2')).status
        ?.version;
      return v === 'v1.33.2' || `status.version ${v}`;
    },
    LONG,
  );
  await w.waitFor(
    'the backend to accept the pool upgrade',
    async () => {
      const r = await main.request('POST', `capz${paths('d2').preview}`, {
        action: 'upgrade',
        version: 'v1.33.2',
        target: { pools: ['system'] },
      });
      return r.status === 200 || `HTTP ${r.status} ${JSON.stringify(r.body)}`;
    },
    LONG,
  );
  const poolStarted = Date.now();
  await act('d2', {
    action: 'upgrade',
    version: 'v1.33.2',
    target: { pools: ['system'] },
  });
  await w.waitFor(
    'ARM pool system at 1.33.2',
    async () => {
      const p = aks('d2')?.agentPools.system;
      return (
        (p?.orchestratorVersion === '1.33.2' &&
          p.currentOrchestratorVersion === '1.33.2' &&
          p.provisioningState === 'Succeeded') ||
        `${p?.orchestratorVersion}/${p?.currentOrchestratorVersion} ${p?.provisioningState}`
      );
    },
    LONG,
  );
  w.say(
    `upgrade: control plane in ARM after ${cp}, pool after ${seconds(
      poolStarted,
    )}`,
  );
  expect(aks('d2').agentPools.user.orchestratorVersion).toBe('1.32.5');
}, 600_000);

it('pauses: a scale written while paused makes no ARM PUT; the resume brings it to Azure', async () => {
  const ownerKinds = async () =>
    (
      await w.c.get('ManagedClustersAgentPool', ns, 'p2-system')
    ).metadata.ownerReferences
      .map((o: any) => o.kind)
      .sort();
  expect(await ownerKinds()).toEqual([
    'AzureASOManagedMachinePool',
    'ManagedCluster',
  ]);
  await act('p2', { action: 'pause' });
  await w.waitFor(
    "CAPZ's skip on the ASO agent pool",
    async () => {
      const ap = await w.c.get('ManagedClustersAgentPool', ns, 'p2-system');
      const policy =
        ap.metadata.annotations?.['serviceoperator.azure.com/reconcile-policy'];
      return policy === 'skip' || `policy ${policy}`;
    },
    LONG,
  );
  await w.waitFor(
    "the backend's cache to see the pause",
    async () =>
      (
        await main.request('GET', `capz${paths('p2').deletePreview}`)
      ).body?.cluster?.paused === true || 'not yet',
    LONG,
  );
  const before = w.azure().counters.updated;
  const plan = await act('p2', {
    action: 'scale',
    pool: 'system',
    replicas: 2,
  });
  expect(plan.warnings.join(' ')).toMatch(/is paused/);
  const mp = await w.c.get('MachinePool', ns, 'p2-system');
  // CAPI saw the new spec while paused: its Paused condition carries the new generation.
  await w.waitFor(
    "CAPI's Paused condition at the MachinePool's new generation",
    async () => {
      const now = await w.c.get('MachinePool', ns, 'p2-system');
      const c = condition(now, 'Paused');
      return (
        (c?.status === 'True' &&
          c.observedGeneration === mp.metadata.generation) ||
        `Paused ${JSON.stringify(c)}, generation ${mp.metadata.generation}`
      );
    },
    LONG,
  );
  // CAPZ, paused, applies spec.resources as written plus skip, without its mutators (docs/capz-aso-facts.md C50): the
  // ASO object has no count at all while paused, and ASO, under skip, sends Azure nothing.
  const apPaused = await w.c.get('ManagedClustersAgentPool', ns, 'p2-system');
  expect(apPaused.spec.count).toBeUndefined();
  expect(
    apPaused.metadata.annotations?.[
      'serviceoperator.azure.com/reconcile-policy'
    ],
  ).toBe('skip');
  expect(w.azure().counters.updated).toEqual(before);
  expect(aks('p2').agentPools.system.count).toBe(1);
  const started = Date.now();
  await act('p2', { action: 'resume' });
  await w.waitFor(
    'ARM agent pool system at count 2 after the resume',
    async () => {
      const p = aks('p2')?.agentPools.system;
      return (
        (p?.count === 2 && p.provisioningState === 'Succeeded') ||
        `count ${p?.count} ${p?.provisioningState}`
      );
    },
    LONG,
  );
  w.say(`resume: the paused scale reached ARM ${seconds(started)} after it`);
  expect(w.azure().counters.updated.agentPools).toBeGreaterThan(
    before.agentPools,
  );
  // What the pause left behind (C51): CAPZ's paused apply dropped every owner reference of the ASO agent pool, the
  // resume put back only CAPZ's own, and ASO sets its ManagedCluster reference only when it first claims the object.
  // Deleting this cluster would let the garbage collector delete its agent pools before the ManagedCluster (AKS
  // refuses to delete the last System pool and ASO retries that after about an hour). When this fails, upstream has
  // changed: revisit C51 and the delete preview.
  expect(await ownerKinds()).toEqual(['AzureASOManagedMachinePool']);
}, 600_000);

const byType = deletesByType;

/** Deletes the cluster through the backend and waits until CAPI, CAPZ and ASO are done and Azure has settled. */
async function deleteAndCompare(name: string) {
  const before = w.azure().counters.deleted;
  const preview = await main.request('GET', `capz${paths(name).deletePreview}`);
  expect(preview.status).toBe(200);
  expect(preview.body.blockers).toEqual([]);
  const started = Date.now();
  const r = await main.request('DELETE', `capz${paths(name).cluster}`, {
    confirmName: name,
  });
  expect(r.status).toBe(202);
  expect(r.body.preview).toEqual(preview.body);
  await w.waitFor(
    `cluster ${name} gone from the management cluster and from ARM`,
    async () => {
      const left = await clusterObjectsGone(w, ns, name);
      if (left !== true) return left;
      return aks(name) ? 'AKS cluster still in Azure' : true;
    },
    LONG,
  );
  const deleted = await azureDeletedSince(w, before, 3000, 60_000);
  w.say(
    `deleted ${name} in ${seconds(started)}: Azure deleted ${JSON.stringify(
      deleted,
    )}`,
  );
  return { preview: preview.body as DeletePreview, deleted };
}

it('deletes a manage cluster: the delete preview equals what Azure deletes', async () => {
  const { preview, deleted } = await deleteAndCompare('d2');
  expect(preview.keeps).toEqual([]);
  expect(byType(preview.deletes)).toEqual({
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
  });
  expect(deleted).toEqual(byType(preview.deletes));
  expect(w.azure().resourceGroups.map(g => g.name)).not.toContain('d2');
}, 600_000);

it('deletes a cluster whose group is skip: the preview keeps the group, and Azure keeps exactly it', async () => {
  const { preview, deleted } = await deleteAndCompare('kept');
  expect(preview.keeps.map(k => `${k.azureType} ${k.azureName}`)).toEqual([
    'Microsoft.Resources/resourceGroups kept',
  ]);
  expect(deleted).toEqual(byType(preview.deletes));
  expect(deleted).toEqual({
    resourceGroups: 0,
    managedClusters: 1,
    agentPools: 2,
  });
  expect(w.azure().resourceGroups.map(g => g.name)).toContain('kept');
}, 600_000);

it('a paused and resumed cluster: the delete preview blocks on the lost owner reference (C51); its patch applied, the delete equals the preview', async () => {
  let blocker = '';
  await w.waitFor(
    'the delete preview to block on the lost owner reference',
    async () => {
      const r = await main.request('GET', `capz${paths('p2').deletePreview}`);
      blocker =
        (r.body.blockers ?? []).find((b: string) =>
          /has lost its owner reference/.test(b),
        ) ?? '';
      return blocker !== '' || `blockers ${JSON.stringify(r.body.blockers)}`;
    },
    LONG,
  );
  expect(blocker).toMatch(
    /^ManagedClustersAgentPool day2-real\/p2-system has lost its owner reference to ManagedCluster p2 /,
  );
  const refused = await main.request('DELETE', `capz${paths('p2').cluster}`, {
    confirmName: 'p2',
  });
  expect(refused.status).toBe(409);
  expect(
    (await w.c.get('Cluster', ns, 'p2')).metadata.deletionTimestamp,
  ).toBeUndefined();
  // The blocker's fix is a `kubectl patch --type json` command: the same JSON patch, sent as kubectl would.
  const patch = JSON.parse(/--type json -p '(.*)'$/.exec(blocker)![1]);
  const r = await kube(
    w.info,
    'PATCH',
    `/apis/containerservice.azure.com/${kinds.ManagedClustersAgentPool.version}/namespaces/${ns}/managedclustersagentpools/p2-system`,
    patch,
    'application/json-patch+json',
  );
  expect(r.status).toBe(200);
  await w.waitFor(
    'the delete preview to have no blocker',
    async () => {
      const p = await main.request('GET', `capz${paths('p2').deletePreview}`);
      return (
        p.body.blockers?.length === 0 ||
        `blockers ${JSON.stringify(p.body.blockers)}`
      );
    },
    LONG,
  );
  // Without the reference back the System pool's object stays about an hour and this wait times out (seen).
  const { preview, deleted } = await deleteAndCompare('p2');
  expect(byType(preview.deletes)).toEqual({
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
  });
  expect(deleted).toEqual(byType(preview.deletes));
}, 600_000);

describe('a fleet run on the real managers', () => {
  const place = (name: string) => ({
    managementCluster: w.mcName,
    namespace: ns,
    name,
  });
  const SPEC = {
    target: { kind: 'version', version: 'v1.33.2' },
    stages: [
      { name: 'first', clusters: [place('f1')] },
      { name: 'second', clusters: [place('f2')] },
    ],
  };
  /** What ARM runs and asks for, control plane and pools, with their provisioning states. */
  const arm = (name: string) => {
    const mc = aks(name);
    const pool = (p: string) => mc?.agentPools?.[p];
    return {
      controlPlane: `${mc?.kubernetesVersion}/${mc?.currentKubernetesVersion} ${mc?.provisioningState}`,
      system: `${pool('system')?.orchestratorVersion}/${
        pool('system')?.currentOrchestratorVersion
      } ${pool('system')?.provisioningState}`,
      user: `${pool('user')?.orchestratorVersion}/${
        pool('user')?.currentOrchestratorVersion
      } ${pool('user')?.provisioningState}`,
    };
  };

  it('upgrades both in ARM, control plane then pools, the second stage after the first; a backend killed mid-run is replaced by another that finishes it', async () => {
    const db = w.sqlite('fleet');
    const first = await w.backend(
      'fleet-1',
      db,
      { CAPZ_FLEET_FAULT: 'written' },
      false,
      2,
      'capz',
    );
    await w.waitFor(
      'both clusters planned for the upgrade',
      async () => {
        const r = await first.request('POST', 'capz/fleet-runs/preview', SPEC);
        return (
          (r.status === 200 && r.body.counts?.upgrade === 2) ||
          `${r.status} ${JSON.stringify(r.body.stages ?? r.body)}`
        );
      },
      LONG,
    );
    const created = await first.request('POST', 'capz/fleet-runs', {
      spec: SPEC,
      options: {},
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const started = Date.now();
    // The first advance writes f1's control plane; the fault ends the process before the run records it.
    const exit = await Promise.race([
      first.exited,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error('the first backend did not reach its fault')),
          LONG,
        ),
      ),
    ]);
    expect(exit.signal).toBe('SIGKILL');
    // The write reached the real managers: CAPZ asks ARM for the version while nobody records it.
    await w.waitFor(
      "ARM asked for f1's control plane at 1.33.2",
      async () =>
        aks('f1')?.kubernetesVersion === '1.33.2' || JSON.stringify(arm('f1')),
      LONG,
    );
    expect(aks('f2').kubernetesVersion).toBe('1.32.5');

    const second = await w.backend('fleet-2', db, {}, false, 2, 'capz');
    const secondAt = Date.now();
    // Stage by stage in ARM: f2 is asked for nothing before f1's pools run the target.
    let f1DoneBeforeF2 = true;
    let last: FleetRun | undefined;
    await w.waitFor(
      'the run to end on the second backend',
      async () => {
        if (
          aks('f2')?.kubernetesVersion === '1.33.2' &&
          !['system', 'user'].every(
            p =>
              aks('f1')?.agentPools?.[p]?.currentOrchestratorVersion ===
              '1.33.2',
          )
        )
          f1DoneBeforeF2 = false;
        const r = await second.request('GET', `capz/fleet-runs/${id}`);
        last = r.body.run as FleetRun;
        return (
          ['succeeded', 'failed', 'cancelled'].includes(last?.state ?? '') ||
          `${r.status} run ${last?.state}: ${last?.stages
            .flatMap(st => st.clusters)
            .map(
              c => `${c.name} ${c.state} step ${c.step} (${c.message ?? ''})`,
            )
            .join(', ')}; f1 ${JSON.stringify(arm('f1'))}; f2 ${JSON.stringify(
            arm('f2'),
          )}`
        );
      },
      2 * LONG,
    );
    w.say(
      `fleet run: ended ${seconds(started)} after its start, ${seconds(
        secondAt,
      )} after the second backend's`,
    );
    expect(
      last!.stages.flatMap(st =>
        st.clusters.map(c => [st.name, c.name, c.state, c.message]),
      ),
    ).toEqual([
      ['first', 'f1', 'succeeded', 'upgraded to v1.33.2'],
      ['second', 'f2', 'succeeded', 'upgraded to v1.33.2'],
    ]);
    expect(last!.state).toBe('succeeded');
    expect(f1DoneBeforeF2).toBe(true);
    for (const name of ['f1', 'f2'])
      expect(arm(name)).toEqual({
        controlPlane: '1.33.2/1.33.2 Succeeded',
        system: '1.33.2/1.33.2 Succeeded',
        user: '1.33.2/1.33.2 Succeeded',
      });
  }, 1_200_000);
});
