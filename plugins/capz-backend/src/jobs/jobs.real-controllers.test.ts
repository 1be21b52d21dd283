/**
 * The jobs against the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, with only Azure simulated
 * (`capz-sim run --real-controllers`: Entra ID and ARM under their real names behind an HTTPS proxy, a workload API
 * server with the clusters' Nodes). Part of the real-controllers lane, not of the default integration run:
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers
 *
 * - Adoption: an AKS cluster that exists only in Azure (made through real ASO with detach-on-delete, then detached) is
 *   adopted by the job engine of a real backend process: the real CAPZ adoption controllers build the Cluster from the
 *   ASO objects the job writes, real ASO adopts the Azure resources, and Azure creates and deletes nothing.
 * - Migration: a legacy cluster made from CAPZ's own `aks` template by the real legacy controllers
 *   (AzureManagedControlPlane, AzureManagedCluster, AzureManagedMachinePool) is migrated by the job to
 *   AzureASOManaged* in a new namespace: every Azure field as before, nothing created or deleted.
 * - Upgrade: a cluster applied by "kubectl" with every CAPZ object at v1alpha1 (served by CAPZ v1.26.0's CRDs, stored
 *   at v1beta1 through CAPZ's conversion webhook), created in Azure by the real managers, is upgraded by the job: no
 *   writer is left at v1alpha1, the cluster stays Available, and Azure creates and deletes nothing.
 */
// Test-only: the simulator's per-field view of one resource group (as safety.integration.test.ts uses it).
// eslint-disable-next-line @backstage/no-undeclared-imports
import { azureResourceState } from '@internal/capz-sim/azure';
import {
  day2Paths,
  generateAksAsoClusterManifests,
  kinds,
  type DeletePreview,
} from '@capz-backstage/plugin-capz-common';
import {
  azureDeletedSince,
  clusterObjectsGone,
  deletesByType,
} from '../testing/day2Fixtures';
import { condition, makeAzureOnlyCluster } from '../testing/jobFixtures';
import { everyStep, JobsWorld, system, user } from '../testing/jobsWorld';
import { applyLegacyTemplate } from '../testing/legacyTemplate';
import type { BackendProcess } from '../testing/backendProcess';
import { createObjects, kube, until } from '../testing/realCluster';

const w = new JobsWorld('real-jobs');
const UPGRADE_NS = 'team-upgrade';
/** A legacy cluster from CAPZ's `aks` template: resource group named after the cluster, pools pool0 and pool1. */
const LEGACY = {
  namespace: 'legacy-src',
  name: 'real-legacy',
  target: 'legacy-aso',
  pools: [
    {
      name: 'pool0',
      mode: 'System' as const,
      count: 2,
      vmSize: 'Standard_D2s_v3',
    },
    {
      name: 'pool1',
      mode: 'User' as const,
      count: 2,
      vmSize: 'Standard_D2s_v3',
    },
  ],
};

/** The same legacy cluster again, never migrated. */
const TWIN = { namespace: 'legacy-twin', name: 'real-legacy-twin' };

/** The ASO network objects of a namespace, as `Kind name` (docs/real-controllers.md finding 10). */
async function networkObjects(ns: string): Promise<string[]> {
  const out: string[] = [];
  for (const kind of ['VirtualNetwork', 'VirtualNetworksSubnet'] as const) {
    const r = await kube(
      w.info,
      'GET',
      `/apis/network.azure.com/${kinds[kind].version}/namespaces/${ns}/${kinds[kind].plural}`,
    );
    if (r.status !== 200) throw new Error(`list ${kind} in ${ns}: ${r.status}`);
    out.push(...r.body.items.map((o: any) => `${kind} ${o.metadata.name}`));
  }
  return out.sort();
}

/** The group's VNets and subnets in the persisted Azure state (which has no networkCounters: counted from it). */
function azureNetworkCount(group: string) {
  const vnets = ((w.azure() as any).virtualNetworks ?? []).filter(
    (v: any) => v.resourceGroup.toLowerCase() === group.toLowerCase(),
  );
  return {
    virtualNetworks: vnets.length,
    subnets: vnets.reduce(
      (n: number, v: any) => n + Object.keys(v.subnets ?? {}).length,
      0,
    ),
  };
}

const CAPZ_ALPHA = 'infrastructure.cluster.x-k8s.io/v1alpha1';
let main: BackendProcess;
/** The JSON patch of the migration preflight's not-adopted fix, as the shell would pass it. */
let carryOver: string | undefined;

const AZURE_ONLY = {
  resourceGroup: 'rg-real-adopt',
  name: 'real-adopt',
  pools: [system(1), user('web', 2)],
};

beforeAll(async () => {
  await w.start({ scenarios: 'none', realControllers: true, operationMs: 300 });
  const backendStarting = w.backend('main', w.sqlite('main'));
  backendStarting.catch(() => undefined);
  await w.namespaceWithCredential('fixtures');
  await makeAzureOnlyCluster(w.c, {
    scratchNamespace: 'fixtures',
    credentialSecret: 'aso-credential',
    ...AZURE_ONLY,
  });
  // The upgrade's cluster: every CAPZ object written at v1alpha1 by "kubectl", as a user applied it before v1beta1.
  await w.namespaceWithCredential(UPGRADE_NS);
  await createObjects(
    w.info,
    UPGRADE_NS,
    generateAksAsoClusterManifests({
      name: 'alpha',
      namespace: UPGRADE_NS,
      location: 'westeurope',
      kubernetesVersion: 'v1.33.2',
      credentialSecretName: 'aso-credential',
      pools: [
        {
          name: 'pool0',
          mode: 'System',
          vmSize: 'Standard_D2s_v3',
          replicas: 1,
        },
      ],
    }).map(m =>
      m.apiVersion.startsWith('infrastructure.cluster.x-k8s.io/')
        ? { ...m, apiVersion: CAPZ_ALPHA }
        : m,
    ),
    'kubectl-client-side-apply',
  );
  await w.waitFor(
    `Cluster ${UPGRADE_NS}/alpha to be Available`,
    async () => {
      const cl = await w.c.get('Cluster', UPGRADE_NS, 'alpha');
      return (
        condition(cl, 'Available')?.status === 'True' ||
        `Available: ${JSON.stringify(condition(cl, 'Available'))}`
      );
    },
    300_000,
  );
  // The migrated cluster and its twin, left as it is: deleting each later must do the same in Azure.
  await applyLegacyTemplate(w, LEGACY.namespace, LEGACY.name);
  await applyLegacyTemplate(w, TWIN.namespace, TWIN.name);
  for (const l of [LEGACY, TWIN])
    await w.waitFor(
      `legacy cluster ${l.namespace}/${l.name} to be ready to migrate`,
      () => w.legacyReady(l.namespace, l.name),
      400_000,
    );
  main = await backendStarting;
  w.markBaseline();
}, 900_000);

afterAll(() => w.stop(), 120_000);

it('adopts an Azure-only AKS cluster through the real CAPZ and ASO, creating and deleting nothing in Azure', async () => {
  const ns = 'adopt-real';
  await w.namespaceWithCredential(ns);
  const azureState = () =>
    azureResourceState(w.azure() as any, {
      resourceGroup: AZURE_ONLY.resourceGroup,
    });
  const before = azureState();
  const started = Date.now();
  const job = await w.finished(
    main,
    (
      await w.submit(
        main,
        w.adopt(ns, {
          resourceGroup: AZURE_ONLY.resourceGroup,
          name: AZURE_ONLY.name,
        }),
      )
    ).id,
  );
  w.say(
    `adoption job finished in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  everyStep(job);
  await w.adoptedCluster(ns, AZURE_ONLY.name, AZURE_ONLY.pools);
  await w.azureUntouched(
    AZURE_ONLY.resourceGroup,
    AZURE_ONLY.name,
    AZURE_ONLY.pools.map(p => p.name),
  );
  // Every field of the group, the cluster and its pools as they were, once the persisted state (which trails ARM by
  // 200 ms) shows nothing in flight.
  await w.azureSettled(AZURE_ONLY.resourceGroup);
  expect(azureState()).toEqual(before);
  w.say(
    `Azure after the adoption: updated ${JSON.stringify(
      w.azure().counters.updated,
    )} (PUTs of real ASO onto the existing resources), created/deleted as before`,
  );
}, 600_000);

it('upgrades a cluster applied at v1alpha1: no writer left at v1alpha1, still Available, nothing created or deleted in Azure', async () => {
  const capzObjects = async () => {
    const out: any[] = [];
    for (const kind of [
      'AzureASOManagedCluster',
      'AzureASOManagedControlPlane',
      'AzureASOManagedMachinePool',
    ] as const) {
      const res = await kube(
        w.info,
        'GET',
        `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${UPGRADE_NS}/${kinds[kind].plural}`,
      );
      out.push(...res.body.items.map((o: any) => ({ ...o, kind })));
    }
    return out;
  };
  const alphaWriters = (objs: any[]) =>
    objs.flatMap(o =>
      (o.metadata?.managedFields ?? [])
        .filter(
          (m: any) => m.apiVersion === CAPZ_ALPHA && m.subresource !== 'status',
        )
        .map((m: any) => `${o.kind}/${o.metadata.name}:${m.manager}`),
    );
  const before = await capzObjects();
  expect(alphaWriters(before).length).toBeGreaterThan(0);
  const started = Date.now();
  const job = await w.finished(
    main,
    (
      await w.submit(main, {
        type: 'upgrade-api-version',
        params: {
          managementCluster: w.mcName,
          namespace: UPGRADE_NS,
          name: 'alpha',
        },
      })
    ).id,
  );
  w.say(
    `upgrade job finished in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  everyStep(job);
  expect(alphaWriters(await capzObjects())).toEqual([]);
  expect(
    job.result?.manifestsToChange
      ?.map((m: any) => `${m.kind}/${m.name}:${m.manager}`)
      .sort(),
  ).toEqual(alphaWriters(before).sort());
  const cl = await w.c.get('Cluster', UPGRADE_NS, 'alpha');
  expect(condition(cl, 'Available')?.status).toBe('True');
  const now = w.azure().counters;
  expect(now.created).toEqual(w.baseline.counters.created);
  expect(now.deleted).toEqual(w.baseline.counters.deleted);
}, 600_000);

it('migrates a legacy cluster made by the real CAPZ legacy controllers: every Azure field as before, nothing created or deleted', async () => {
  const { namespace: from, name, target, pools } = LEGACY;
  const azureState = () =>
    azureResourceState(w.azure() as any, { resourceGroup: name });
  const before = azureState();
  // The legacy control plane also had ASO create a VNet and subnet (CAPZ v1.26.0 azure/services/virtualnetworks,
  // subnets); the job does not move those objects, and Azure must keep them as they were (the pools use the subnet).
  const network = () =>
    ((w.azure() as any).virtualNetworks ?? []).filter(
      (v: any) => v.resourceGroup === name,
    );
  const networkBefore = network();
  expect(networkBefore).toHaveLength(1);
  const oldNetwork = [
    `VirtualNetwork ${name}`,
    `VirtualNetworksSubnet ${name}-${name}`,
  ];
  expect(await networkObjects(from)).toEqual(oldNetwork);
  // The preflight names them, with the command that keeps them managed afterwards.
  const preview = await main.request(
    'POST',
    'capz/jobs/preview',
    w.migrate(from, name, target),
  );
  expect(preview.status).toBe(200);
  const notAdopted = preview.body.preflight.find(
    (c: any) => c.id === 'not-adopted',
  );
  expect(notAdopted?.message).toContain(oldNetwork[0]);
  expect(notAdopted?.message).toContain(oldNetwork[1]);
  carryOver = /--type json -p '(\[.*\])'/.exec(notAdopted?.fix ?? '')?.[1];
  expect(carryOver).toBeDefined();
  const started = Date.now();
  const job = await w.finished(
    main,
    (
      await w.submit(main, w.migrate(from, name, target))
    ).id,
  );
  w.say(
    `migration job finished in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  everyStep(job);
  // Disarmed like the other old ASO objects, not left to CAPZ's pause alone.
  expect(
    job.plan
      .find((p: any) => p.id === 'disarm')
      .actions.map((a: any) => `${a.ref.kind} ${a.ref.name}`),
  ).toEqual(expect.arrayContaining(oldNetwork.slice().reverse()));
  await w.migrated(from, target, name, name, pools);
  // The old network objects went with the old control plane (garbage-collected under skip: Azure untouched).
  await until(
    `the old VirtualNetwork and subnet in ${from} to be gone`,
    async () => (await networkObjects(from)).length === 0,
    120_000,
  );
  await w.azureSettled(name);
  expect(azureState()).toEqual(before);
  expect(network()).toEqual(networkBefore);
}, 900_000);

it("following the preflight's advice literally brings the VNet and subnet back under the new cluster, Azure unchanged", async () => {
  const { target, name } = LEGACY;
  const network = () =>
    ((w.azure() as any).virtualNetworks ?? []).filter(
      (v: any) => v.resourceGroup === name,
    );
  const networkBefore = network();
  expect(carryOver).toBeDefined();
  // The fix is a `kubectl patch --type json` command: the same JSON patch, sent as kubectl would.
  const r = await kube(
    w.info,
    'PATCH',
    `/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/${target}/azureasomanagedclusters/${name}`,
    JSON.parse(carryOver!.replace(/'\\''/g, "'")),
    'application/json-patch+json',
  );
  expect(r.status).toBe(200);
  await until(
    `the VirtualNetwork and subnet in ${target} to be Ready under the new AzureASOManagedCluster`,
    async () => {
      for (const kind of ['VirtualNetwork', 'VirtualNetworksSubnet'] as const) {
        const list = await kube(
          w.info,
          'GET',
          `/apis/network.azure.com/${kinds[kind].version}/namespaces/${target}/${kinds[kind].plural}`,
        );
        const o = list.body.items?.[0];
        if (
          list.body.items?.length !== 1 ||
          condition(o, 'Ready')?.status !== 'True' ||
          !(o.metadata.ownerReferences ?? []).some(
            (x: any) => x.controller && x.kind === 'AzureASOManagedCluster',
          )
        )
          return false;
      }
      return true;
    },
    300_000,
  );
  expect(await networkObjects(target)).toEqual([
    `VirtualNetwork ${name}`,
    `VirtualNetworksSubnet ${name}-${name}`,
  ]);
  const cl = await w.c.get('Cluster', target, name);
  expect(condition(cl, 'Available')?.status).toBe('True');
  expect(network()).toEqual(networkBefore);
  w.say(
    `network carried over: Azure network writes so far ${JSON.stringify(
      (w.azure() as any).networkCounters ?? 'not persisted',
    )}`,
  );
}, 600_000);

it('deleting the migrated cluster does in Azure what deleting its unmigrated twin does', async () => {
  /** Deletes a Cluster and returns what Azure deleted until its resource group was gone. */
  const deleting = async (ns: string, name: string) => {
    // What the cluster page's delete dialog shows first: it must equal what Azure then deletes.
    const preview = await main.request(
      'GET',
      `capz${
        day2Paths({ managementCluster: w.mcName, namespace: ns, name })
          .deletePreview
      }`,
    );
    expect(preview.status).toBe(200);
    expect(preview.body.blockers).toEqual([]);
    const before = structuredClone(w.azure().counters.deleted);
    const networkBefore = azureNetworkCount(name);
    // Whether the VNet left Azure while its group was still there: deleted on its own, not with the group.
    let vnetGoneFirst = false;
    const started = Date.now();
    const r = await kube(
      w.info,
      'DELETE',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${name}`,
    );
    expect(r.status).toBe(200);
    let left = '';
    await until(
      `Cluster ${ns}/${name} and its resource group to be gone`,
      async () => {
        const cluster = (
          await kube(
            w.info,
            'GET',
            `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${name}`,
          )
        ).status;
        const azure = w.azure();
        const groups = azure.resourceGroups.map((g: any) => g.name);
        if (
          groups.includes(name) &&
          azureNetworkCount(name).virtualNetworks <
            networkBefore.virtualNetworks
        )
          vnetGoneFirst = true;
        left = `Cluster ${cluster}, groups ${groups.join(',')}`;
        return cluster === 404 && !groups.includes(name);
      },
      400_000,
    ).catch(e => {
      throw new Error(`${(e as Error).message}; still there: ${left}`);
    });
    const after = w.azure().counters.deleted;
    const deleted = Object.fromEntries(
      Object.entries(after).map(([k, v]) => [
        k,
        (v as number) - (before as any)[k],
      ]),
    );
    const networkAfter = azureNetworkCount(name);
    const networks = {
      virtualNetworks:
        networkBefore.virtualNetworks - networkAfter.virtualNetworks,
      subnets: networkBefore.subnets - networkAfter.subnets,
    };
    w.say(
      `deleted ${ns}/${name} in ${((Date.now() - started) / 1000).toFixed(
        1,
      )} s; Azure deleted ${JSON.stringify(deleted)}, networks ${JSON.stringify(
        networks,
      )}; VNet seen gone before its group: ${vnetGoneFirst}`,
    );
    return {
      deleted: { ...deleted, networks },
      preview: preview.body as DeletePreview,
    };
  };
  /** The preview's deletions, counted as the simulated Azure counts them. */
  const previewed = (p: DeletePreview) => ({
    ...deletesByType(p.deletes),
    networks: {
      virtualNetworks: p.deletes.filter(
        x => x.azureType === 'Microsoft.Network/virtualNetworks',
      ).length,
      subnets: p.deletes.filter(
        x => x.azureType === 'Microsoft.Network/virtualNetworks/subnets',
      ).length,
    },
  });
  const migratedRun = await deleting(LEGACY.target, LEGACY.name);
  const twinRun = await deleting(TWIN.namespace, TWIN.name);
  const migrated = migratedRun.deleted;
  w.say(
    `delete preview of the migrated cluster: deletes ${JSON.stringify(
      previewed(migratedRun.preview),
    )}, keeps ${JSON.stringify(
      migratedRun.preview.keeps.map(k => `${k.azureType} ${k.azureName}`),
    )}`,
  );
  expect(migrated).toEqual(previewed(migratedRun.preview));
  expect(twinRun.deleted).toEqual(previewed(twinRun.preview));
  expect(migrated).toEqual(twinRun.deleted);
  expect(migrated).toEqual({
    resourceGroups: 1,
    managedClusters: 1,
    agentPools: 2,
    networks: { virtualNetworks: 1, subnets: 1 },
  });
}, 900_000);

// Last: the other tests hold Azure to the run's baseline (nothing deleted), which a delete moves.
it("deletes the adopted cluster through the backend: the preview keeps its group (the adoption's skip), and Azure deletes exactly what it lists", async () => {
  const ns = 'adopt-real';
  const { name, resourceGroup } = AZURE_ONLY;
  const p = day2Paths({ managementCluster: w.mcName, namespace: ns, name });
  const preview = await main.request('GET', `capz${p.deletePreview}`);
  expect(preview.status).toBe(200);
  const shown = preview.body as DeletePreview;
  expect(shown.blockers).toEqual([]);
  expect(shown.keeps.map(k => `${k.azureType} ${k.azureName}`)).toEqual([
    `Microsoft.Resources/resourceGroups ${resourceGroup}`,
  ]);
  const before = structuredClone(w.azure().counters.deleted);
  const started = Date.now();
  const r = await main.request('DELETE', `capz${p.cluster}`, {
    confirmName: name,
  });
  expect(r.status).toBe(202);
  await w.waitFor(
    `adopted cluster ${name} gone from the management cluster and from ARM`,
    async () => {
      const left = await clusterObjectsGone(w, ns, name);
      if (left !== true) return left;
      return w
        .azure()
        .managedClusters.some(
          (m: any) => m.name === name && m.resourceGroup === resourceGroup,
        )
        ? 'AKS cluster still in Azure'
        : true;
    },
    600_000,
  );
  const deleted = await azureDeletedSince(w, before, 3000, 60_000);
  w.say(
    `deleted the adopted ${name} in ${((Date.now() - started) / 1000).toFixed(
      1,
    )} s: Azure deleted ${JSON.stringify(deleted)}; the preview listed ${
      shown.deletes.length
    } deletions and kept ${shown.keeps.length}`,
  );
  expect(deleted).toEqual(deletesByType(shown.deletes));
  expect(deleted).toEqual({
    resourceGroups: 0,
    managedClusters: 1,
    agentPools: 2,
  });
  expect(w.azure().resourceGroups.map((g: any) => g.name)).toContain(
    resourceGroup,
  );
}, 900_000);
