/**
 * Issue 12's legacy flow against the real CAPI v1.13.3, CAPZ v1.26.0 and ASO v2.18.0 managers, with only Azure
 * simulated (capz-sim's `startSimulatedAzure`), as flows.test.ts does for aks-aso. Part of the real-controllers lane:
 *
 *   yarn workspace @internal/mgmt-cluster test:real-controllers
 *
 * Flow here: a cluster of the legacy flavor (AzureManagedControlPlane / AzureManagedCluster / AzureManagedMachinePool)
 * from CAPZ's own `templates/cluster-template-aks.yaml` of the CAPZ v1.26.0 module, with a ServicePrincipal
 * AzureClusterIdentity for the simulator's service principal, created by CAPZ's legacy controllers (which write ASO
 * objects and read the node resource group's VMSS through ARM themselves) and deleted; what Azure did is counted
 * (docs/real-controllers.md#legacy-path).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
// capz-sim depends on this package: reached through the workspace's node_modules (see real-controllers.test.ts).
import { SIM_SERVICE_PRINCIPAL } from '@internal/capz-sim/azure';
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
import { startControllers, stopControllers } from '../src/controllers.ts';
import { until } from '../src/testing.ts';
import {
  collection,
  condition,
  conditionText,
  objectsIn,
  type Obj,
} from './objects.ts';

const SUBSCRIPTION = '00000000-0000-4000-8000-0000000000f2';
const LOCATION = 'westeurope';
const ns = 'legacy';
let info: ClusterInfo | undefined;
let azure: SimulatedAzure | undefined;
let simDir: string | undefined;
const t0 = Date.now();
const say = (m: string) =>
  process.stdout.write(
    `[legacy +${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`,
  );

const { create, get, list } = objectsIn(() => info!, ns);

/** What the legacy controllers wrote, for comparison with the simulated ones (docs/real-controllers.md#legacy-path). */
const shape = (o: Obj) => ({
  kind: o.kind,
  name: o.metadata.name,
  annotations: o.metadata.annotations,
  labels: o.metadata.labels,
  ownerReferences: (o.metadata.ownerReferences as any[] | undefined)?.map(
    r =>
      `${r.kind}/${r.name}${r.controller ? ' controller' : ''}${
        r.blockOwnerDeletion ? ' block' : ''
      }`,
  ),
  finalizers: o.metadata.finalizers,
  conditions: conditionText(o),
});

before(async () => {
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
  await apiRequest(info, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  // The AzureClusterIdentity's client secret, under the key CAPZ reads (azure/scope/identity.go AzureSecretKey).
  await apiRequest(info, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cluster-identity-secret' },
    stringData: { clientSecret: SIM_SERVICE_PRINCIPAL.clientSecret },
  });
});

after(async () => {
  try {
    if (info) {
      await stopControllers(info);
      await stopManagementCluster(info);
    }
  } finally {
    await azure?.close();
    if (simDir) rmSync(simDir, { recursive: true, force: true });
  }
});

test("a legacy aks cluster from CAPZ's template is created in the simulated Azure by the real managers, and deleted", async () => {
  const name = 'flow-legacy';
  const objects: Obj[] = capzTemplate('aks', name, ns, {
    CLUSTER_IDENTITY_NAME: 'cluster-identity',
    CLUSTER_IDENTITY_TYPE: 'ServicePrincipal',
    AZURE_CLIENT_ID_USER_ASSIGNED_IDENTITY: SIM_SERVICE_PRINCIPAL.clientId,
    AZURE_TENANT_ID: SIM_SERVICE_PRINCIPAL.tenantId,
    AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
    AZURE_LOCATION: LOCATION,
    KUBERNETES_VERSION: 'v1.33.2',
    AZURE_NODE_MACHINE_TYPE: 'Standard_D2s_v3',
    WORKER_MACHINE_COUNT: '2',
  });
  // The template's identity is workload identity with `allowedNamespaces: {}`: here a service principal with a client
  // secret (CAPZ v1.26.0 api/v1beta1/azureclusteridentity_types.go: clientSecret is a SecretReference), allowed in
  // this namespace only.
  const identity = objects.find(o => o.kind === 'AzureClusterIdentity')!;
  identity.spec.clientSecret = {
    name: 'cluster-identity-secret',
    namespace: ns,
  };
  identity.spec.allowedNamespaces = { list: [ns] };
  const started = Date.now();
  for (const o of objects) await create(o);
  say(`applied ${objects.length} objects of CAPZ's aks template`);

  let last = '';
  await until(
    `Cluster ${name} Available`,
    async () => {
      const c = await get('cluster.x-k8s.io/v1beta2', 'Cluster', name);
      const now = conditionText(c);
      if (now !== last) say(`Cluster: ${(last = now)}`);
      return condition(c, 'Available')?.status === 'True';
    },
    600_000,
  );
  say(
    `Cluster Available after ${((Date.now() - started) / 1000).toFixed(1)} s`,
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
      300_000,
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
    assert.equal(mp.status.nodeRefs?.length, 2, JSON.stringify(mp.status));
  }
  say(
    `both MachinePools have 2 ready replicas after ${(
      (Date.now() - started) /
      1000
    ).toFixed(1)} s`,
  );

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
    `Azure created: ${JSON.stringify(
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
    ['containerservice.azure.com/v1api20250801', 'ManagedClustersAgentPool'],
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
  say(
    `deleted in ${((Date.now() - deleting) / 1000).toFixed(
      1,
    )} s; Azure deleted: ${JSON.stringify(
      w.counters.deleted,
    )}, networks ${JSON.stringify(w.networkCounters.deleted)}`,
  );
  assert.equal(w.getManagedCluster(SUBSCRIPTION, name, name), undefined);
  assert.deepEqual(w.listVirtualNetworks(SUBSCRIPTION, name), []);
  say(`ARM requests: ${JSON.stringify(azure!.arm.apiVersionsSeen())}`);
  assert.deepEqual(azure!.proxy.refused, []);
});
