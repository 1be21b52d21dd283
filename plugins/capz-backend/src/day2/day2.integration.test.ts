/**
 * The day-2 service against a real kube-apiserver with the real CAPI/CAPZ/ASO CRDs and the simulated Azure, ASO, CAPZ
 * and CAPI (capz-sim, its own management cluster), the backend running as a ServiceAccount bound to nothing but
 * rbac/read.yaml and rbac/day2.yaml (so every call proves that RBAC is enough):
 * - scale moves the Azure agent pool's count; a broken rule writes nothing; autoscale makes CAPZ hand the count to AKS;
 * - the delete preview, computed from the watch cache, equals what the simulated Azure then deletes (its deletion
 *   counters and its resources), for a cluster that manages everything and for one whose resource group is `skip`.
 */
import { auditLogEnd } from '@internal/mgmt-cluster';
import { ConflictError } from '@backstage/errors';
import { mockServices } from '@backstage/backend-test-utils';
import {
  type Day2Action,
  type DeletePreview,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import {
  makeAzureResourceGroup,
  pathOf,
  sum,
  writeLegacyCluster,
} from '../testing/jobFixtures';
import {
  azureDeletedSince,
  clusterObjectsGone,
  auditedWrites,
  createDay2Cluster,
  day2ServiceAccount,
  deletesByType,
} from '../testing/day2Fixtures';
import { JobsWorld, system, user } from '../testing/jobsWorld';
import { loadClientForTests } from '../testing/realCluster';
import { Day2Service } from './Day2Service';
import { FleetPreview } from './fleetPreview';
import { ClusterViews } from '../views/clusterViews';
import { day2Client } from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';

const w = new JobsWorld('day2');
const ns = 'day2';
const SA = 'capz-day2-test';
let cache: WatchCache;
let service: Day2Service;

/** A cluster as a user would have written it (client-side apply), with two pools; `rgPolicy` on its group. */
const createCluster = (
  name: string,
  rgPolicy?: string,
  kubernetesVersion = 'v1.33.2',
) =>
  createDay2Cluster(w, {
    namespace: ns,
    name,
    kubernetesVersion,
    userReplicas: 2,
    rgPolicy,
  });

/**
 * The mutating requests the backend's ServiceAccount sends while `act` runs (server-side dry runs left out), from the API server's audit log (written
 * before each response returns). Exact where comparing generations is not: the simulated controllers may still write
 * the namespace's specs while a test runs, and the backend's own writes are what "nothing written" is about.
 */
async function backendWrites(act: () => Promise<unknown>): Promise<string[]> {
  const from = auditLogEnd(w.info.auditLog);
  await act();
  return auditedWrites(w.info.auditLog, SA, from).map(
    e => `${e.verb} ${e.requestURI}`,
  );
}

/** The simulated AKS cluster as persisted (versions included, which the shared AzureState type leaves out). */
const aks = (name: string): any =>
  w.azure().managedClusters.find(m => m.name === name);

/** Both pools in Azure, and every ASO object of the cluster in the watch cache with its ARM id. */
async function provisioned(name: string) {
  await w.waitFor(
    `cluster ${name} provisioned in Azure and seen by the watch cache`,
    async () => {
      const mc = aks(name);
      const pools = Object.keys(mc?.agentPools ?? {}).sort();
      if (pools.join() !== 'system,user')
        return `Azure pools of ${name}: ${pools.join() || 'none'}`;
      const seen = [
        'ResourceGroup',
        'ManagedCluster',
        'ManagedClustersAgentPool',
      ]
        .flatMap(k => cache.list('local', k, ns))
        .filter(
          o =>
            o.metadata.name === name || o.metadata.name.startsWith(`${name}-`),
        );
      if (seen.length < 4 || seen.some(o => !(o as ObservedObject).status?.id))
        return `cached ASO objects of ${name}: ${seen
          .map(o => `${o.kind}/${o.metadata.name}`)
          .join(', ')}`;
      return true;
    },
    120_000,
  );
}

const place = (name: string) => ({
  managementCluster: 'local',
  namespace: ns,
  name,
});

/** An action as the dialog applies it: previewed, then confirmed with the preview's planDigest. */
async function confirm(p: ReturnType<typeof place>, action: Day2Action) {
  const preview = await service.act(p, action, { apply: false });
  return service.act(
    p,
    { ...action, planDigest: preview.planDigest },
    { apply: true },
  );
}

const byType = deletesByType;

/** Deletes the cluster through the service and waits until CAPI, CAPZ and ASO are done and Azure has settled. */
async function deleteAndCompare(name: string): Promise<{
  preview: DeletePreview;
  deleted: Record<string, number>;
}> {
  const before = w.azure().counters.deleted;
  const preview = service.deletePreview(place(name));
  expect(preview.blockers).toEqual([]);
  const checked = await service.deleteCluster(place(name), name);
  expect(checked).toEqual(preview);
  await w.waitFor(
    `cluster ${name}'s objects gone`,
    () => clusterObjectsGone(w, ns, name),
    120_000,
  );
  const deleted = await azureDeletedSince(w, before, 1500, 30_000);
  return { preview, deleted };
}

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  await w.namespaceWithCredential(ns);
  const token = await day2ServiceAccount(w, SA);
  const mc: ManagementClusterConfig = {
    name: 'local',
    authMethod: 'serviceAccountToken',
    url: w.info.url,
    caData: w.info.caPem,
    serviceAccountToken: token,
  };
  const logger = mockServices.logger.mock();
  cache = new WatchCache([mc], logger, loadClientForTests);
  await cache.start();
  const client = day2Client(
    await ManagementClusterClient.create(mc, undefined, loadClientForTests),
  );
  // AKS's versions through the simulated ARM, with the namespace's ASO credential, as the backend's pickers read them.
  const azure = w.aksDiscovery(logger);
  service = new Day2Service({
    logger,
    managementClusters: ['local'],
    cache,
    client: async () => client,
    azure,
  });
  await makeAzureResourceGroup(w.c, {
    scratchNamespace: ns,
    credentialSecret: 'aso-credential',
    resourceGroup: 'kept',
  });
  // One minor behind what the simulated AKS offers last (1.33.2), so that an upgrade has somewhere to go.
  await createCluster('gone', undefined, 'v1.32.5');
  await createCluster('kept', 'skip');
  await provisioned('gone');
  await provisioned('kept');
  w.markBaseline();
}, 300_000);

afterAll(async () => {
  await cache?.stop();
  await w.stop();
}, 120_000);

describe('day-2 actions on a real management cluster', () => {
  it("previews a fleet upgrade from the watch cache and the simulated ARM: each cluster's plan or why not, nothing written", async () => {
    const views = new ClusterViews(cache, ['local']);
    const fleet = new FleetPreview({
      day2: service,
      factsOf: p => {
        const c = views.summary(p.managementCluster, p.namespace, p.name);
        return {
          ...(c.health ? { health: c.health } : {}),
          ...(c.lifecycle?.conflicts
            ? { conflicts: c.lifecycle.conflicts }
            : {}),
        };
      },
    });
    // The simulated controllers may still be writing the new clusters: a run plans healthy clusters only.
    await w.waitFor('gone and kept healthy in the watch cache', async () => {
      const states = ['gone', 'kept'].map(
        n => views.summary('local', ns, n).health,
      );
      return states.every(h => h === 'healthy') || states.join(', ');
    });
    let preview!: Awaited<ReturnType<FleetPreview['preview']>>;
    const writes = await backendWrites(async () => {
      preview = await fleet.preview(
        {
          target: { kind: 'next-minor' },
          stages: [
            { name: 'dev', clusters: [place('gone')] },
            { name: 'prod', clusters: [place('kept'), place('nope')] },
          ],
        },
        () => true,
      );
    });
    const [gone, kept, nope] = preview.stages.flatMap(st => st.clusters);
    // gone runs 1.32.5: the simulated AKS offers 1.33.2 as 1.33's newest patch; control plane, then both pools.
    expect(gone).toMatchObject({
      outcome: 'upgrade',
      from: 'v1.32.5',
      to: 'v1.33.2',
      problems: [],
    });
    expect(gone.steps.map(x => ('target' in x ? x.target : x.kind))).toEqual([
      'controlPlane',
      { pools: ['system', 'user'] },
    ]);
    // kept runs 1.33.2, the newest the region offers: no 1.34 to go to.
    expect(kept.outcome).toBe('refused');
    expect(kept.problems).toEqual([
      expect.stringMatching(
        /^AKS offers no 1\.34 version in westeurope \(it offers .*v1\.33\.2\)$/,
      ),
    ]);
    expect(nope.problems).toEqual([
      `No cluster ${ns}/nope on management cluster local`,
    ]);
    expect(preview.counts).toEqual({ upgrade: 1, current: 0, refused: 2 });
    expect(writes).toEqual([]);
  });

  it('scales a pool: the Azure agent pool follows, under the field manager capz-backstage', async () => {
    let plan!: Awaited<ReturnType<typeof confirm>>;
    // The audit reader sees the backend's writes (so its empty answers elsewhere mean something): one, the pool's.
    const writes = await backendWrites(async () => {
      plan = await confirm(place('gone'), {
        action: 'scale',
        pool: 'user',
        replicas: 3,
      });
    });
    expect(writes).toEqual([
      expect.stringMatching(
        new RegExp(
          `^patch /apis/cluster\\.x-k8s\\.io/v1beta\\d/namespaces/${ns}/machinepools/gone-user\\?fieldManager=capz-backstage\\b`,
        ),
      ),
    ]);
    expect(plan.changes[0].fields).toEqual([
      { path: 'spec.replicas', before: 2, after: 3 },
    ]);
    await w.waitFor('the Azure agent pool to have 3 nodes', async () => {
      const count = aks('gone')?.agentPools.user?.count;
      return count === 3 || `count ${count}`;
    });
    const mp = await w.c.get('MachinePool', ns, 'gone-user');
    expect(
      mp.metadata.managedFields
        .filter((f: any) => f.manager === 'capz-backstage')
        .map((f: any) => f.operation),
    ).toEqual(['Apply']);
    // Again: nothing to change, nothing written (the spec's generation stays; status writes move resourceVersion).
    const again = await confirm(place('gone'), {
      action: 'scale',
      pool: 'user',
      replicas: 3,
    });
    expect(again.changes).toEqual([]);
    expect(
      (await w.c.get('MachinePool', ns, 'gone-user')).metadata.generation,
    ).toBe(mp.metadata.generation);
  });

  it("two tabs: a confirm after someone else scaled the pool is a 409 naming the change, and the pool keeps the other writer's count", async () => {
    const n = (await w.c.get('MachinePool', ns, 'gone-user')).spec.replicas;
    const other = n === 2 ? 1 : 2;
    // Tab A previews n → n + 1.
    const action: Day2Action = {
      action: 'scale',
      pool: 'user',
      replicas: n + 1,
    };
    const tabA = await service.act(place('gone'), action, { apply: false });
    expect(tabA.changes[0].fields).toEqual([
      { path: 'spec.replicas', before: n, after: n + 1 },
    ]);
    // Tab B (or kubectl) scales the same pool to another count.
    const patched = await w.c.req(
      'PATCH',
      pathOf('MachinePool', ns, 'gone-user'),
      { spec: { replicas: other } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    const generation = patched.body.metadata.generation;
    // Tab A's Confirm: nothing written, in words.
    await expect(
      service.act(
        place('gone'),
        { ...action, planDigest: tabA.planDigest },
        { apply: true },
      ),
    ).rejects.toThrow(
      new RegExp(
        `^The cluster changed since the preview \\(pool user: ${n} → ${other} replicas[;)].*nothing was written\\. Preview again\\.$`,
      ),
    );
    const mp = await w.c.get('MachinePool', ns, 'gone-user');
    expect(mp.spec.replicas).toBe(other);
    expect(mp.metadata.generation).toBe(generation);
    // Back to 3 for the tests below, as a user would: preview again, confirm.
    await confirm(place('gone'), {
      action: 'scale',
      pool: 'user',
      replicas: 3,
    });
    // Settled (AKS at 3 nodes, CAPZ's providerIDList too) before the next test compares generations.
    await w.waitFor('the user pool back at 3 nodes, settled', async () => {
      const count = aks('gone')?.agentPools.user?.count;
      const ammp = await w.c.get('AzureASOManagedMachinePool', ns, 'gone-user');
      const ids = ammp?.spec?.providerIDList?.length;
      return (
        (count === 3 && ids === 3) || `AKS ${count}, providerIDList ${ids}`
      );
    });
  });

  it('refuses a broken rule before writing anything', async () => {
    const writes = await backendWrites(async () => {
      await expect(
        confirm(place('gone'), { action: 'removePool', pool: 'system' }),
      ).rejects.toThrow(/^last-system-pool: /);
      await expect(
        confirm(place('gone'), {
          action: 'autoscale',
          pool: 'user',
          enabled: true,
          minCount: 4,
          maxCount: 6,
        }),
      ).rejects.toThrow(/^count-within-bounds: pool "user" has 3 nodes/);
    });
    expect(writes).toEqual([]);
  });

  it('a pool Flux applies: the preview names the Kustomization and the blocker, the confirm is a 409 and the MachinePool is unchanged', async () => {
    // The labels kustomize-controller puts on what it applies (docs/flux-facts.md#flux-labels), under its field manager.
    const label = (value: string | null) =>
      w.c.req(
        'PATCH',
        `${pathOf(
          'MachinePool',
          ns,
          'gone-user',
        )}?fieldManager=kustomize-controller`,
        {
          metadata: {
            labels: {
              'kustomize.toolkit.fluxcd.io/name': value && 'clusters',
              'kustomize.toolkit.fluxcd.io/namespace': value,
            },
          },
        },
        'application/merge-patch+json',
      );
    expect((await label('flux-system')).status).toBe(200);
    try {
      const before = await w.c.get('MachinePool', ns, 'gone-user');
      const n = before.spec.replicas;
      const action: Day2Action = {
        action: 'scale',
        pool: 'user',
        replicas: n + 1,
      };
      const preview = await service.act(place('gone'), action, {
        apply: false,
      });
      const refusal = `Flux's Kustomization flux-system/clusters applies MachinePool ${ns}/gone-user: it would put spec.replicas back at its next reconcile; change it in Git.`;
      expect(preview.blockers).toEqual([refusal]);
      expect(preview.appliedBy).toEqual([
        {
          kind: 'MachinePool',
          namespace: ns,
          name: 'gone-user',
          appliedBy: "Flux's Kustomization flux-system/clusters",
          blocks: true,
        },
      ]);
      const confirmed = service.act(
        place('gone'),
        { ...action, planDigest: preview.planDigest },
        { apply: true },
      );
      await expect(confirmed).rejects.toThrow(ConflictError);
      await expect(confirmed).rejects.toThrow(
        `Nothing was written: ${refusal}`,
      );
      const after = await w.c.get('MachinePool', ns, 'gone-user');
      expect(after.spec.replicas).toBe(n);
      expect(after.metadata.generation).toBe(before.metadata.generation);
      expect(after.metadata.managedFields.map((f: any) => f.manager)).toContain(
        'kustomize-controller',
      );
    } finally {
      // Flux's labels gone, and with them its field manager's entry (its field set is empty): the pool is the
      // product's again for the tests below.
      const cleared = await label(null);
      expect(cleared.status).toBe(200);
      expect(
        cleared.body.metadata.managedFields.map((f: any) => f.manager),
      ).not.toContain('kustomize-controller');
    }
  });

  it("turns the autoscaler on: CAPZ hands the count to AKS, and a scale is then refused naming it; off: the count is the MachinePool's again", async () => {
    await confirm(place('gone'), {
      action: 'autoscale',
      pool: 'user',
      enabled: true,
      minCount: 1,
      maxCount: 4,
    });
    await w.waitFor('replicas-managed-by on the MachinePool', async () => {
      const mp = await w.c.get('MachinePool', ns, 'gone-user');
      return (
        mp.metadata.annotations?.['cluster.x-k8s.io/replicas-managed-by'] ===
          'aks' || JSON.stringify(mp.metadata.annotations)
      );
    });
    await expect(
      service.act(
        place('gone'),
        { action: 'scale', pool: 'user', replicas: 2 },
        { apply: false },
      ),
    ).rejects.toThrow(
      /^replicas-managed-by: pool "user": its node count is managed by "aks"/,
    );

    // Off again: CAPZ removes its annotation (mutators reconcileAutoscaling), so the count is the MachinePool's.
    await confirm(place('gone'), {
      action: 'autoscale',
      pool: 'user',
      enabled: false,
    });
    await w.waitFor('no replicas-managed-by on the MachinePool', async () => {
      const mp = await w.c.get('MachinePool', ns, 'gone-user');
      return (
        mp.metadata.annotations?.['cluster.x-k8s.io/replicas-managed-by'] ===
          undefined || JSON.stringify(mp.metadata.annotations)
      );
    });
    const plan = await service.act(
      place('gone'),
      { action: 'scale', pool: 'user', replicas: 2 },
      { apply: false },
    );
    expect(plan.applied).toBe(false);
  });

  it('upgrades the control plane to a version ARM offers in the region, then a pool, refusing what AKS would', async () => {
    const options = await service.upgrades(place('gone'));
    expect(options).toMatchObject({
      controlPlane: 'v1.32.5',
      available: ['v1.33.2', 'v1.33.1', 'v1.32.6'],
      problems: [],
    });
    const up = (
      version: string,
      target: 'controlPlane' | { pools: string[] },
    ) => confirm(place('gone'), { action: 'upgrade', version, target });
    const writes = await backendWrites(async () => {
      await expect(up('v1.33.0', 'controlPlane')).rejects.toThrow(
        /^offered-in-region: AKS does not offer v1\.33\.0 in westeurope/,
      );
      await expect(up('v1.31.10', 'controlPlane')).rejects.toThrow(
        /^no-downgrade: /,
      );
      await expect(up('v1.33.2', { pools: ['user'] })).rejects.toThrow(
        /^pool-not-newer-than-control-plane: /,
      );
    });
    expect(writes).toEqual([]);
    await up('v1.33.2', 'controlPlane');
    await w.waitFor('AKS to run 1.33.2 and CAPZ to report it', async () => {
      const cp = await w.c.get('AzureASOManagedControlPlane', ns, 'gone');
      return (
        (aks('gone')?.currentKubernetesVersion === '1.33.2' &&
          cp.status?.version === 'v1.33.2') ||
        `AKS ${aks('gone')?.currentKubernetesVersion}, status.version ${
          cp.status?.version
        }`
      );
    });
    // The pools stayed where they were: only the control plane moved.
    expect(aks('gone')?.agentPools.user.orchestratorVersion).toBe('1.32.5');
    await up('v1.33.2', { pools: ['user'] });
    await w.waitFor('the user pool to run 1.33.2 in AKS', async () => {
      const v = aks('gone')?.agentPools.user.currentOrchestratorVersion;
      return v === '1.33.2' || `user pool ${v}`;
    });
    expect(aks('gone')?.agentPools.system.orchestratorVersion).toBe('1.32.5');
  });

  it('adds a pool and removes it: AKS gets the agent pool, then deletes it', async () => {
    const added = await confirm(place('gone'), {
      action: 'addPool',
      pool: {
        name: 'batch',
        mode: 'User',
        osType: 'Linux',
        vmSize: 'Standard_D4s_v5',
        replicas: 1,
      },
    });
    expect(
      added.changes.map(c => `${c.operation} ${c.kind} ${c.name}`),
    ).toEqual([
      'create MachinePool gone-batch',
      'create AzureASOManagedMachinePool gone-batch',
    ]);
    await w.waitFor('agent pool batch in AKS', async () => {
      const p = aks('gone')?.agentPools.batch;
      return p?.provisioningState === 'Succeeded' || JSON.stringify(p);
    });
    await expect(
      confirm(place('gone'), {
        action: 'addPool',
        pool: {
          name: 'batch',
          mode: 'User',
          osType: 'Linux',
          vmSize: 'Standard_D4s_v5',
          replicas: 1,
        },
      }),
    ).rejects.toThrow(/^name-taken: /);
    const deletedBefore = w.azure().counters.deleted.agentPools;
    const removed = await confirm(place('gone'), {
      action: 'removePool',
      pool: 'batch',
    });
    expect(removed.warnings.join(' ')).toMatch(
      /agent pool batch of AKS cluster gone is deleted/,
    );
    await w.waitFor('agent pool batch deleted in AKS', async () =>
      aks('gone')?.agentPools.batch
        ? 'still there'
        : w.azure().counters.deleted.agentPools === deletedBefore + 1 ||
          'not counted yet',
    );
    // Wait for the watch cache to drop it, so that the delete preview below sees the cluster as it is.
    await w.waitFor('the watch cache to drop the batch pool', async () =>
      cache
        .list('local', 'MachinePool', ns)
        .some(o => o.metadata.name === 'gone-batch')
        ? 'still cached'
        : true,
    );
  });

  it('pauses (CAPZ sets skip on the ASO objects) and resumes', async () => {
    await confirm(place('gone'), { action: 'pause' });
    await w.waitFor('skip on the ManagedCluster', async () => {
      const mc = await w.c.get('ManagedCluster', ns, 'gone');
      const policy =
        mc.metadata.annotations?.['serviceoperator.azure.com/reconcile-policy'];
      return policy === 'skip' || `policy ${policy}`;
    });
    await w.waitFor(
      'the cache to see the pause',
      async () =>
        service.deletePreview(place('gone')).cluster.paused || 'not yet',
    );
    await expect(service.deleteCluster(place('gone'), 'gone')).rejects.toThrow(
      /is paused/,
    );
    await confirm(place('gone'), { action: 'resume' });
    expect((await w.c.get('Cluster', ns, 'gone')).spec.paused).toBe(false);
    await w.waitFor('manage again on the ManagedCluster', async () => {
      const mc = await w.c.get('ManagedCluster', ns, 'gone');
      const policy =
        mc.metadata.annotations?.['serviceoperator.azure.com/reconcile-policy'];
      return policy !== 'skip' || `policy ${policy}`;
    });
    // CAPZ puts each ASO object back to manage one by one (the ResourceGroup can follow the ManagedCluster): the
    // resume is over, for the delete below, once no object of the cluster is left on skip as the cache sees it.
    await w.waitFor('the cache to see the resume on every object', async () => {
      const p = service.deletePreview(place('gone'));
      if (p.cluster.paused) return 'still paused';
      return (
        p.keeps.length === 0 ||
        `still skip: ${p.keeps.map(k => `${k.object.kind}/${k.object.name}`)}`
      );
    });
  });

  it('deletes a manage cluster: the preview equals what Azure deletes', async () => {
    const { preview, deleted } = await deleteAndCompare('gone');
    expect(preview.keeps).toEqual([]);
    expect(byType(preview.deletes)).toEqual({
      resourceGroups: 1,
      managedClusters: 1,
      agentPools: 2,
    });
    expect(deleted).toEqual(byType(preview.deletes));
    expect(w.azure().resourceGroups.map(g => g.name)).not.toContain('gone');
  });

  it('deletes a cluster whose group is skip: the preview keeps the group, and Azure keeps exactly it', async () => {
    const { preview, deleted } = await deleteAndCompare('kept');
    expect(preview.keeps.map(k => `${k.azureType} ${k.azureName}`)).toEqual([
      'Microsoft.Resources/resourceGroups kept',
    ]);
    expect(preview.keeps[0].reason).toMatch(/reconcile-policy is skip/);
    expect(deleted).toEqual(byType(preview.deletes));
    expect(sum(deleted)).toBe(3);
    expect(w.azure().resourceGroups.map(g => g.name)).toContain('kept');
    expect(aks('kept')).toBeUndefined();
  });

  it('adds a pool to a legacy AzureManagedControlPlane cluster: the preview (dryRun=All) then the MachinePool and AzureManagedMachinePool, and the legacy controllers make the agent pool in AKS', async () => {
    await makeAzureResourceGroup(w.c, {
      scratchNamespace: ns,
      credentialSecret: 'aso-credential',
      resourceGroup: 'Legacy_RG',
    });
    await writeLegacyCluster(w.c, {
      namespace: ns,
      name: 'old',
      subscription: w.arm.subscription,
      resourceGroup: 'Legacy_RG',
      pools: [system(1), user('work', 1)],
    });
    await w.waitFor(
      'legacy cluster old ready',
      () => w.legacyReady(ns, 'old'),
      180_000,
    );
    const batch = {
      action: 'addPool' as const,
      pool: {
        name: 'batch',
        mode: 'User' as const,
        osType: 'Linux' as const,
        vmSize: 'Standard_D4s_v5',
        replicas: 2,
      },
    };
    // The preview is the API server's dry run of both objects: nothing is written.
    const preview = await service.act(place('old'), batch, { apply: false });
    expect(
      preview.changes.map(c => `${c.operation} ${c.kind} ${c.name}`),
    ).toEqual([
      'create MachinePool old-batch',
      'create AzureManagedMachinePool old-batch',
    ]);
    expect(await w.c.get('AzureManagedMachinePool', ns, 'old-batch')).toBe(
      undefined,
    );
    await confirm(place('old'), batch);
    const ammp = await w.c.get('AzureManagedMachinePool', ns, 'old-batch');
    expect(ammp.spec).toMatchObject({
      name: 'batch',
      mode: 'User',
      sku: 'Standard_D4s_v5',
    });
    await w.waitFor('agent pool batch in AKS', async () => {
      const p = aks('old')?.agentPools.batch;
      return (
        (p?.provisioningState === 'Succeeded' &&
          p.count === 2 &&
          p.vmSize === 'Standard_D4s_v5') ||
        JSON.stringify(p)
      );
    });
    await expect(confirm(place('old'), batch)).rejects.toThrow(/^name-taken: /);
  });

  it('deletes a legacy AzureManagedControlPlane cluster in a group it does not own: the preview equals what Azure deletes', async () => {
    await w.waitFor(
      'the watch cache to hold its ASO objects with their ARM ids',
      async () => {
        const p = service.deletePreview(place('old'));
        const all = [...p.deletes, ...p.keeps];
        return (
          (all.filter(x => x.armId).length >= 5 &&
            ['work', 'batch'].every(pool =>
              all.some(
                x =>
                  x.azureType.endsWith('/agentPools') && x.azureName === pool,
              ),
            )) ||
          JSON.stringify(
            all.map(x => `${x.azureType} ${x.azureName} ${x.armId ?? ''}`),
          )
        );
      },
    );
    const { preview, deleted } = await deleteAndCompare('old');
    // The legacy controllers' ResourceGroup object for a group without CAPZ's owned tag does not delete it.
    expect(
      preview.keeps
        .filter(k => k.azureType.endsWith('/resourceGroups'))
        .map(k => k.azureName),
    ).toEqual(['Legacy_RG']);
    expect(byType(preview.deletes)).toEqual({
      resourceGroups: 0,
      managedClusters: 1,
      agentPools: 3,
    });
    expect(deleted).toEqual(byType(preview.deletes));
    expect(w.azure().resourceGroups.map(g => g.name)).toContain('Legacy_RG');
  }, 180_000); // 18 s of the default 60 s under stress-ng: its own, sized x10
});
