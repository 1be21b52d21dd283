/**
 * The flows against the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, with only Azure simulated
 * (capz-sim's `startSimulatedAzure`: Entra ID and ARM under their real names behind the HTTPS proxy, one workload
 * kube-apiserver with a Node per VMSS instance). Part of the real-controllers lane:
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers
 *
 * Flow here: an aks-aso flavor cluster created from CAPZ's own template (`templates/cluster-template-aks-aso.yaml` of
 * the CAPZ v1.26.0 module, read from the module cache as the CRDs are), then deleted: what Azure did is counted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
// capz-sim depends on this package: reached through the workspace's node_modules (see real-controllers.test.ts).
import { servicePrincipalSecretData } from '@internal/capz-sim/azure';
import { capzTemplate } from '@internal/capz-sim/capz-templates';
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
  collection,
  condition,
  conditionText,
  objectsIn,
  type Obj,
} from './objects.ts';

// Hang detectors, at least 3x the longest each took in the lane beside stress-ng on both cores
// (scripts/test-under-load.sh --stages real, 2 cores, load 8-18; three runs).
/**
 * Simulated Azure, the management cluster and the three managers: 62.3-111.0 s, up to 66 s of it installing CRDs (the
 * cluster's 19 in 26.5 s, the managers' 45 in 39.5 s).
 */
const SETUP_TIMEOUT = 480_000;
/** Stopping them: 13.1-21.6 s. */
const TEARDOWN_TIMEOUT = 120_000;
/**
 * The flow: 20.3-24.8 s (Available 8.3-11.8 s, both pools 2/2 16.5 s after the apply, deleted in 6.3-8.3 s); the
 * bounds of its waits add up to it, so a wait that hangs fails first, naming what it waited for.
 */
const FLOW_TIMEOUT = 600_000;

const SUBSCRIPTION = '00000000-0000-4000-8000-0000000000f1';
const LOCATION = 'westeurope';
const ns = 'flows';
let info: ClusterInfo | undefined;
let azure: SimulatedAzure | undefined;
let simDir: string | undefined;
const t0 = Date.now();
const say = (m: string) =>
  process.stdout.write(
    `[flows +${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`,
  );

const { create, get } = objectsIn(() => info!, ns);

fileHooks({
  setup: async () => {
    simDir = mkdtempSync(join(tmpdir(), 'capz-flows-'));
    azure = await startSimulatedAzure({
      stateDir: simDir,
      subscriptions: [SUBSCRIPTION],
      workload: { name: `flows-workload-${process.pid}`, ephemeral: true },
      log: line => process.stderr.write(`[capz-sim] ${line}\n`),
    });
    say(`simulated Azure up; workload API server ${azure.workload.info.url}`);
    info = await startManagementCluster({
      name: `flows-${process.pid}`,
      ephemeral: true,
    });
    await startControllers(info, { env: azure.managerEnv });
    say('management cluster and the three managers up');
    await apiRequest(info, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
    await apiRequest(info, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'aso-credential' },
      data: servicePrincipalSecretData(SUBSCRIPTION),
    });
  },
  setupTimeoutMs: SETUP_TIMEOUT,
  teardown: async () => {
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

test(
  "an aks-aso cluster from CAPZ's template is created in the simulated Azure by the real managers, and deleted",
  { timeout: FLOW_TIMEOUT },
  async () => {
    const name = 'flow-aso';
    const objects: Obj[] = capzTemplate('aks-aso', name, ns, {
      ASO_CREDENTIAL_SECRET_NAME: 'aso-credential',
      AZURE_LOCATION: LOCATION,
      KUBERNETES_VERSION: 'v1.33.2',
      AZURE_NODE_MACHINE_TYPE: 'Standard_D2s_v3',
      WORKER_MACHINE_COUNT: '2',
    });
    const started = Date.now();
    for (const o of objects) await create(o);
    say(`applied ${objects.length} objects of CAPZ's aks-aso template`);

    let last = '';
    await until(
      `Cluster ${name} Available (last: ${last})`,
      async () => {
        const c = await get('cluster.x-k8s.io/v1beta2', 'Cluster', name);
        const now = conditionText(c);
        if (now !== last) say(`Cluster: ${(last = now)}`);
        return condition(c, 'Available')?.status === 'True';
      },
      180_000,
    );
    say(
      `Cluster Available after ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    const w = azure!.world;
    const rg = w.getResourceGroup(SUBSCRIPTION, name);
    assert.ok(rg, 'the resource group exists in Azure');
    const mc = w.getManagedCluster(SUBSCRIPTION, name, name);
    assert.ok(mc, 'the managed cluster exists in Azure');
    assert.deepEqual(
      w
        .listAgentPools(SUBSCRIPTION, name, name)
        .map(p => [p.name, p.count])
        .sort(),
      [
        ['pool0', 2],
        ['pool1', 2],
      ],
    );
    for (const pool of ['pool0', 'pool1']) {
      const mp = await until(
        `MachinePool ${name}-${pool} with 2 ready replicas`,
        async () => {
          const o = await get(
            'cluster.x-k8s.io/v1beta2',
            'MachinePool',
            `${name}-${pool}`,
          );
          return o?.status?.readyReplicas === 2 ? o : undefined;
        },
        120_000,
      );
      // CAPZ copied the providerIDs of the pool's Nodes on the workload API server (one per VMSS instance).
      const amp = await get(
        'infrastructure.cluster.x-k8s.io/v1beta1',
        'AzureASOManagedMachinePool',
        `${name}-${pool}`,
      );
      assert.equal(
        amp?.spec?.providerIDList?.length,
        2,
        JSON.stringify(amp?.spec),
      );
      // CAPI matched them to the Nodes by providerID.
      assert.equal(mp.status.nodeRefs?.length, 2, JSON.stringify(mp.status));
    }
    say(
      `both MachinePools have 2 ready replicas after ${(
        (Date.now() - started) /
        1000
      ).toFixed(1)} s`,
    );
    const created = structuredClone(w.counters.created);
    say(`Azure created: ${JSON.stringify(created)}`);

    // Deleting the Cluster deletes what CAPZ created in Azure (ASO objects on the default policy, manage).
    const del = await apiRequest(
      info!,
      'DELETE',
      `${collection('cluster.x-k8s.io/v1beta2', 'Cluster', ns)}/${name}`,
    );
    assert.equal(del.status, 200, del.body);
    const deleting = Date.now();
    await until(
      `Cluster ${name} and its resource group gone`,
      async () =>
        !(await get('cluster.x-k8s.io/v1beta2', 'Cluster', name)) &&
        !w.getResourceGroup(SUBSCRIPTION, name),
      180_000,
    );
    say(
      `deleted in ${((Date.now() - deleting) / 1000).toFixed(
        1,
      )} s; Azure deleted: ${JSON.stringify(w.counters.deleted)}`,
    );
    assert.deepEqual(azure!.proxy.refused, []);
  },
);
