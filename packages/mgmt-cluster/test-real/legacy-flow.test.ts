/**
 * The legacy flow and the simulation suite's manual procedures against the real CAPI v1.13.3, CAPZ v1.26.0 and
 * ASO v2.18.0 managers, with only Azure simulated (capz-sim's `startSimulatedAzure`), as flows.test.ts does for
 * aks-aso. Part of the real-controllers lane:
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers
 *
 * Legacy clusters (AzureManagedControlPlane / AzureManagedCluster / AzureManagedMachinePool) from CAPZ's own
 * `templates/cluster-template-aks.yaml` of the CAPZ v1.26.0 module, created by CAPZ's legacy controllers (which write
 * ASO objects and read the node resource group's VMSS through ARM themselves). The legacy controllers take ~3 min per
 * cluster (20 s requeues, docs/real-controllers.md finding 15), so `before` applies every cluster the file needs at
 * once on one set of managers and each test waits for its own:
 *
 * - flow-legacy: created, checked, and (last) deleted; what Azure did is counted (docs/real-controllers.md#legacy-path);
 * - proc-migrate: the documented migration to AzureASOManaged* (procedures.ts migrateByProcedure);
 * - proc-safe / proc-danger: deleting an old AzureManagedMachinePool with and without pause + disarm;
 * - an Azure-only AKS cluster adopted by hand (procedures.ts adoptByProcedure).
 *
 * Azure counters are global: the tests that must create and delete nothing in Azure run together once every cluster
 * is ready (no creation left in flight), and the two that delete in Azure run after them, one at a time.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
// capz-sim depends on this package: reached through the workspace's node_modules (see real-controllers.test.ts).
import {
  startSimulatedAzure,
  type SimulatedAzure,
} from '@internal/capz-sim/simulated-azure';
import {
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';
import { startControllers, stopControllers } from '../src/controllers/index.ts';
import { until } from './wait.ts';
import { fileHooks } from './hooks.ts';
import {
  applyLegacyTemplate,
  azureCounts,
  seconds,
  shape,
  SUBSCRIPTION,
  watchLegacyClusters,
  type Lane,
  type LegacyCluster,
  type Readiness,
} from './legacy.ts';
import { collection, objectsIn } from './objects.ts';
import {
  adoptByProcedure,
  deleteOldMachinePool,
  migrateByProcedure,
  putAzureOnlyCluster,
  type AzureOnly,
} from './procedures.ts';

// Hang detectors, at least 3x the longest each took in the lane beside stress-ng on both cores
// (scripts/test-under-load.sh --stages real, 2 cores, load 8-18; three runs).
/** Simulated Azure, the management cluster, the managers and the four applies: 65.8-108.3 s. */
const SETUP_TIMEOUT = 450_000;
/** Stopping them: 21.7-22.1 s. */
const TEARDOWN_TIMEOUT = 120_000;
/**
 * Each test: 2.0-226.5 s (the deletes 2.0-7.1 and 52.4-53.9 s), most of it waiting for the legacy clusters (Available 163-166 s, pools 2/2 194-202 s after
 * the apply, as on an idle machine: the legacy controllers' 20 s requeues set the pace); above the 900 s bound of that
 * wait (legacy.ts watchLegacyClusters), so that the wait fails first, naming the cluster's conditions.
 */
const TEST_TIMEOUT = 1_200_000;

const FLOW: LegacyCluster = { ns: 'legacy', name: 'flow-legacy' };
const MIGRATE: LegacyCluster = { ns: 'proc-migrate', name: 'proc-migrate' };
const SAFE: LegacyCluster = { ns: 'proc-safe', name: 'proc-safe' };
const DANGER: LegacyCluster = { ns: 'proc-danger', name: 'proc-danger' };
const LEGACY = [FLOW, MIGRATE, SAFE, DANGER];
const AZURE_ONLY: AzureOnly = {
  ns: 'proc-adopt',
  resourceGroup: 'rg-proc-adopt',
  name: 'proc-adopt',
};

let info: ClusterInfo | undefined;
let azure: SimulatedAzure | undefined;
let simDir: string | undefined;
let stopWatching = () => {};
const readiness = new Map<string, Readiness>();
const t0 = Date.now();
const say = (m: string) =>
  process.stdout.write(`[legacy +${seconds(t0)}s] ${m}\n`);
const lane = (): Lane => ({ info: info!, azure: azure!, say });
const ready = (c: LegacyCluster) => readiness.get(`${c.ns}/${c.name}`)!.ready;
/**
 * Every legacy cluster Available: everything CAPZ creates in Azure for them exists by then (group, VNet, subnet, and
 * the cluster with its pools in its first PUT); later PUTs are updates, so the counters' created/deleted stay still.
 */
const allAvailable = () =>
  Promise.all(LEGACY.map(c => readiness.get(`${c.ns}/${c.name}`)!.available));

const ns = FLOW.ns;
const { get, list } = objectsIn(() => info!, ns);

fileHooks({
  setup: async () => {
    simDir = mkdtempSync(join(tmpdir(), 'capz-legacy-'));
    azure = await startSimulatedAzure({
      stateDir: simDir,
      subscriptions: [SUBSCRIPTION],
      workload: { name: `legacy-workload-${process.pid}`, ephemeral: true },
      log: line => process.stderr.write(`[capz-sim] ${line}\n`),
    });
    say(`simulated Azure up; workload API server ${azure.workload.info.url}`);
    info = await startManagementCluster({
      name: `legacy-${process.pid}`,
      ephemeral: true,
    });
    await startControllers(info, { env: azure.managerEnv });
    say('management cluster and the three managers up');
    // Every legacy cluster at once: the real legacy controllers' 20 s steps then overlap instead of adding up.
    const applied = Date.now();
    const counts = await Promise.all(
      LEGACY.map(c => applyLegacyTemplate(info!, c)),
    );
    say(
      `applied CAPZ's aks template for ${LEGACY.map(
        (c, i) => `${c.ns}/${c.name} (${counts[i]} objects)`,
      ).join(', ')}`,
    );
    const watch = watchLegacyClusters(lane(), LEGACY, applied);
    stopWatching = watch.stop;
    for (const [k, r] of watch.clusters) readiness.set(k, r);
    await putAzureOnlyCluster(azure, AZURE_ONLY);
    say(
      `Azure-only AKS cluster ${AZURE_ONLY.resourceGroup}/${AZURE_ONLY.name} in the simulated Azure`,
    );
  },
  setupTimeoutMs: SETUP_TIMEOUT,
  teardown: async () => {
    stopWatching();
    try {
      if (info) {
        await stopControllers(info);
        await stopManagementCluster(info);
      }
    } finally {
      await azure?.close();
      if (simDir) rmSync(simDir, { recursive: true, force: true });
    }
  },
  teardownTimeoutMs: TEARDOWN_TIMEOUT,
});

// Creating and deleting nothing in Azure: run together.
describe('with every legacy cluster created', { concurrency: true }, () => {
  test(
    "a legacy aks cluster from CAPZ's template is created in the simulated Azure by the real managers",
    { timeout: TEST_TIMEOUT },
    async () => {
      const name = FLOW.name;
      const { available, ready: poolsReady } = readiness.get(
        `${FLOW.ns}/${FLOW.name}`,
      )!;
      say(`${name}: Cluster Available ${await available} s after the apply`);
      say(
        `${name}: both MachinePools 2/2 ${await poolsReady} s after the apply`,
      );
      for (const pool of ['pool0', 'pool1']) {
        const mp = await get(
          'cluster.x-k8s.io/v1beta2',
          'MachinePool',
          `${name}-${pool}`,
        );
        // CAPZ's legacy pool took its providerIDs from ARM's VMSS VMs; CAPI matched them with the Nodes by providerID.
        const amp = await get(
          'infrastructure.cluster.x-k8s.io/v1beta1',
          'AzureManagedMachinePool',
          `${name}-${pool}`,
        );
        assert.equal(
          amp?.spec?.providerIDList?.length,
          2,
          JSON.stringify(amp?.spec),
        );
        assert.equal(
          mp?.status.nodeRefs?.length,
          2,
          JSON.stringify(mp?.status),
        );
      }

      const w = azure!.world;
      assert.ok(w.getResourceGroup(SUBSCRIPTION, name), 'the resource group');
      const mc = w.getManagedCluster(SUBSCRIPTION, name, name);
      assert.ok(mc, 'the managed cluster');
      assert.deepEqual(
        w
          .listAgentPools(SUBSCRIPTION, name, name)
          .map(p => [p.name, p.mode, p.count])
          .sort(),
        [
          ['pool0', 'System', 2],
          ['pool1', 'User', 2],
        ],
      );
      say(
        `Azure created (every cluster of the file): ${JSON.stringify(
          w.counters.created,
        )}, networks ${JSON.stringify(
          w.networkCounters.created,
        )}; vnets ${JSON.stringify(
          w
            .listVirtualNetworks(SUBSCRIPTION, name)
            .map(v => [v.name, Object.keys(v.subnets)]),
        )}`,
      );
      // The VNet and subnet CAPZ's webhook defaults (named after the cluster), written by ASO.
      assert.deepEqual(
        w
          .listVirtualNetworks(SUBSCRIPTION, name)
          .map(v => [v.name, Object.keys(v.subnets)]),
        [[name, [name]]],
      );
      say(`ARM requests: ${JSON.stringify(azure!.arm.apiVersionsSeen())}`);

      // What the legacy controllers wrote: ASO objects, their owners and annotations, the secrets.
      for (const [apiVersion, kind] of [
        ['resources.azure.com/v1api20200601', 'ResourceGroup'],
        ['containerservice.azure.com/v1api20250801', 'ManagedCluster'],
        [
          'containerservice.azure.com/v1api20250801',
          'ManagedClustersAgentPool',
        ],
        ['network.azure.com/v1api20201101', 'VirtualNetwork'],
        ['network.azure.com/v1api20201101', 'VirtualNetworksSubnet'],
      ] as const)
        for (const o of await list(apiVersion, kind))
          say(`ASO ${JSON.stringify({ ...shape(o), spec: o.spec })}`);
      for (const s of await list('v1', 'Secret'))
        say(
          `Secret ${JSON.stringify({
            ...shape(s),
            type: (s as any).type,
            keys: Object.keys((s as any).data ?? {}),
          })}`,
        );
      for (const [apiVersion, kind] of [
        ['infrastructure.cluster.x-k8s.io/v1beta1', 'AzureManagedControlPlane'],
        ['infrastructure.cluster.x-k8s.io/v1beta1', 'AzureManagedCluster'],
        ['infrastructure.cluster.x-k8s.io/v1beta1', 'AzureManagedMachinePool'],
      ] as const)
        for (const o of await list(apiVersion, kind))
          say(
            `CAPZ ${JSON.stringify({
              ...shape(o),
              status: o.status,
              spec: o.spec,
            })}`,
          );

      // The template enables the OIDC issuer: AKS's issuerURL reaches the control plane's status through ASO and CAPZ.
      const amcp = await get(
        'infrastructure.cluster.x-k8s.io/v1beta1',
        'AzureManagedControlPlane',
        name,
      );
      assert.match(
        amcp?.status?.oidcIssuerProfile?.issuerURL ?? '',
        /^https:\/\/westeurope\.oic\.prod-aks\.azure\.com\//,
        JSON.stringify(amcp?.status),
      );
    },
  );

  test(
    'migrating a legacy cluster by the documented procedure keeps every Azure resource (real managers)',
    { timeout: TEST_TIMEOUT },
    async () => {
      await allAvailable();
      await migrateByProcedure(lane(), MIGRATE, 'proc-migrate-new');
    },
  );

  test(
    'deleting an old AzureManagedMachinePool after pausing and disarming keeps the Azure agent pool (real managers)',
    { timeout: TEST_TIMEOUT },
    async () => {
      await allAvailable();
      await deleteOldMachinePool(lane(), SAFE, true);
    },
  );

  test(
    'adopting an Azure-only AKS cluster by hand yields an Available Cluster and changes nothing in Azure (real managers)',
    { timeout: TEST_TIMEOUT },
    async () => {
      await allAvailable();
      await adoptByProcedure(lane(), AZURE_ONLY);
    },
  );
});

// The two that delete in Azure, one after the other.
test(
  'deleting an old AzureManagedMachinePool without the disarm step deletes the Azure agent pool (real managers)',
  { timeout: TEST_TIMEOUT },
  async () => {
    await ready(DANGER);
    await deleteOldMachinePool(lane(), DANGER, false);
  },
);

test(
  "the legacy aks cluster from CAPZ's template is deleted by the real managers",
  { timeout: TEST_TIMEOUT },
  async () => {
    const name = FLOW.name;
    await ready(FLOW);
    const w = azure!.world;
    const start = azureCounts(azure!);
    // Deleting the Cluster deletes what CAPZ created in Azure.
    const del = await apiRequest(
      info!,
      'DELETE',
      `${collection('cluster.x-k8s.io/v1beta2', 'Cluster', ns)}/${name}`,
    );
    assert.equal(del.status, 200, del.body);
    const deleting = Date.now();
    // The order in which the objects go (finding 9 asks how the legacy path deletes).
    const watched = [
      ['cluster.x-k8s.io/v1beta2', 'MachinePool'],
      ['infrastructure.cluster.x-k8s.io/v1beta1', 'AzureManagedMachinePool'],
      ['infrastructure.cluster.x-k8s.io/v1beta1', 'AzureManagedControlPlane'],
      ['infrastructure.cluster.x-k8s.io/v1beta1', 'AzureManagedCluster'],
      ['containerservice.azure.com/v1api20250801', 'ManagedClustersAgentPool'],
      ['containerservice.azure.com/v1api20250801', 'ManagedCluster'],
      ['network.azure.com/v1api20201101', 'VirtualNetworksSubnet'],
      ['network.azure.com/v1api20201101', 'VirtualNetwork'],
      ['resources.azure.com/v1api20200601', 'ResourceGroup'],
      ['v1', 'Secret'],
    ] as const;
    const seen = new Map<string, string>();
    await until(
      `Cluster ${name} and its resource group gone`,
      async () => {
        const now = new Set<string>();
        for (const [apiVersion, kind] of watched)
          for (const o of await list(apiVersion, kind)) {
            const k = `${kind}/${o.metadata.name}`;
            now.add(k);
            const state = o.metadata.deletionTimestamp ? 'deleting' : 'present';
            if (seen.get(k) !== state) {
              if (state === 'deleting') say(`deleting ${k}`);
              seen.set(k, state);
            }
          }
        for (const [k, state] of seen)
          if (state !== 'gone' && !now.has(k)) {
            say(`gone ${k}`);
            seen.set(k, 'gone');
          }
        return (
          !(await get('cluster.x-k8s.io/v1beta2', 'Cluster', name)) &&
          !w.getResourceGroup(SUBSCRIPTION, name)
        );
      },
      600_000,
    );
    const end = azureCounts(azure!);
    const delta = (a: Record<string, number>, b: Record<string, number>) =>
      Object.fromEntries(Object.keys(b).map(k => [k, b[k]! - a[k]!]));
    say(
      `deleted in ${seconds(deleting)} s; Azure deleted: ${JSON.stringify(
        delta(start.deleted, end.deleted),
      )}, networks ${JSON.stringify(
        delta(start.networkDeleted, end.networkDeleted),
      )}`,
    );
    // What CAPZ created for this cluster, deleted once each (docs/real-controllers.md#legacy-path).
    assert.deepEqual(delta(start.deleted, end.deleted), {
      resourceGroups: 1,
      managedClusters: 1,
      agentPools: 2,
    });
    assert.deepEqual(delta(start.networkDeleted, end.networkDeleted), {
      virtualNetworks: 1,
      subnets: 1,
    });
    assert.deepEqual(end.created, start.created);
    assert.equal(w.getManagedCluster(SUBSCRIPTION, name, name), undefined);
    assert.deepEqual(w.listVirtualNetworks(SUBSCRIPTION, name), []);
    say(`ARM requests: ${JSON.stringify(azure!.arm.apiVersionsSeen())}`);
    assert.deepEqual(azure!.proxy.refused, []);
  },
);
