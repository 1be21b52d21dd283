/**
 * The legacy AzureManagedControlPlane / AzureManagedMachinePool path against what the real CAPZ v1.26.0, CAPI v1.13.3
 * and ASO v2.18.0 wrote for CAPZ's own `aks` template (docs/real-controllers.md#findings, findings 10–14;
 * .local/reports/real-controllers.log, `[legacy …]` lines): the VNet and subnet, the eight control plane conditions,
 * providerIDs and the agentpoolmode label, the Secrets, the last-applied-tags annotation and the spec fields.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LAST_APPLIED_TAGS } from '../src/capz/legacy/index.ts';
import { K, type KindName } from '../src/runtime/kinds.ts';
import type { Obj } from '../src/runtime/types.ts';
import {
  condition,
  credentialSecret,
  namespaceFor,
  obj,
  ready,
  simulatorForFile,
  SUB,
  until,
} from './helpers.ts';

const CA_PEM =
  '-----BEGIN CERTIFICATE-----\nsimulated\n-----END CERTIFICATE-----\n';
const env = simulatorForFile(30, {
  kubeconfigFor: () => ({
    server: 'https://127.0.0.1:6443',
    caPem: CA_PEM,
    token: 't',
  }),
});
const CAPZ = 'infrastructure.cluster.x-k8s.io';
const POLICY = 'serviceoperator.azure.com/reconcile-policy';
const CREDENTIAL_FROM = 'serviceoperator.azure.com/credential-from';
const CLUSTER_NAME = 'cluster.x-k8s.io/cluster-name';

/** CAPZ's templates/cluster-template-aks.yaml, written as clusterctl would (no webhook defaults: the simulation's). */
async function aksTemplate(ns: string, name: string): Promise<void> {
  await env.kube.create(
    K.Cluster,
    obj('Cluster', ns, name, {
      clusterNetwork: { services: { cidrBlocks: ['192.168.0.0/16'] } },
      controlPlaneRef: {
        apiGroup: CAPZ,
        kind: 'AzureManagedControlPlane',
        name,
      },
      infrastructureRef: { apiGroup: CAPZ, kind: 'AzureManagedCluster', name },
    }),
  );
  await env.kube.create(
    K.AzureManagedCluster,
    obj('AzureManagedCluster', ns, name, {}),
  );
  await env.kube.create(
    K.AzureManagedControlPlane,
    obj('AzureManagedControlPlane', ns, name, {
      identityRef: {
        apiVersion: `${CAPZ}/v1beta1`,
        kind: 'AzureClusterIdentity',
        name: 'cluster-identity',
      },
      location: 'westeurope',
      oidcIssuerProfile: { enabled: true },
      resourceGroupName: name,
      subscriptionID: SUB,
      version: 'v1.33.2',
    }),
  );
  for (const [pool, mode] of [
    ['pool0', 'System'],
    ['pool1', 'User'],
  ] as const) {
    await env.kube.create(
      K.MachinePool,
      obj('MachinePool', ns, `${name}-${pool}`, {
        clusterName: name,
        replicas: 2,
        template: {
          spec: {
            clusterName: name,
            bootstrap: { dataSecretName: '' },
            infrastructureRef: {
              apiGroup: CAPZ,
              kind: 'AzureManagedMachinePool',
              name: `${name}-${pool}`,
            },
            version: 'v1.33.2',
          },
        },
      }),
    );
    await env.kube.create(
      K.AzureManagedMachinePool,
      obj('AzureManagedMachinePool', ns, `${name}-${pool}`, {
        mode,
        name: pool,
        sku: 'Standard_D2s_v3',
      }),
    );
  }
}

const ownersOf = (o: Obj) =>
  (o.metadata.ownerReferences ?? []).map(
    r =>
      `${r.kind}/${r.name}${r.controller ? ' controller' : ''}${
        r.blockOwnerDeletion ? ' block' : ''
      }`,
  );

test('a legacy cluster from CAPZ aks template is written as the real managers write it, network included, and deleted in reverse service order', async t => {
  const ns = await namespaceFor(t, 'legacy-real');
  const name = 'flow-legacy';
  // The order in which the ASO objects of this namespace first appear and finally go (the simulator's cache sees
  // every event in order per kind; each service waits for the one before, so the order across kinds is CAPZ's).
  const firstSeen: string[] = [];
  const gone: string[] = [];
  const asoKinds: KindName[] = [
    'ResourceGroup',
    'VirtualNetwork',
    'VirtualNetworksSubnet',
    'ManagedCluster',
  ];
  for (const kind of asoKinds)
    env.sim.cache.on(kind, (type, o) => {
      if (o.metadata.namespace !== ns) return;
      if (type === 'add' && !firstSeen.includes(kind)) firstSeen.push(kind);
      if (type === 'delete') gone.push(kind);
    });
  await aksTemplate(ns, name);

  await until(
    'the legacy Cluster to be Available',
    async () =>
      condition(await env.kube.get(K.Cluster, ns, name), 'Available')
        ?.status === 'True',
    180_000,
  );
  const pools = await until('both pools with 2 replicas', async () => {
    const list = await Promise.all(
      ['pool0', 'pool1'].map(p =>
        env.kube.get(K.AzureManagedMachinePool, ns, `${name}-${p}`),
      ),
    );
    return list.every(p => p?.status?.replicas === 2 && p.status.ready)
      ? (list as Obj[])
      : undefined;
  });
  assert.deepEqual(firstSeen, asoKinds, 'created in CAPZ service order');

  // 10: the VNet and the subnet, controller-owned by the control plane like the other ASO objects.
  const cp = (await env.kube.get(K.AzureManagedControlPlane, ns, name))!;
  const vnet = ready(await env.kube.get(K.VirtualNetwork, ns, name))!;
  const subnet = ready(
    await env.kube.get(K.VirtualNetworksSubnet, ns, `${name}-${name}`),
  )!;
  assert.ok(vnet && subnet, 'VNet and subnet Ready');
  for (const o of [vnet, subnet]) {
    assert.equal(o.metadata.labels?.[CLUSTER_NAME], name);
    assert.equal(
      o.metadata.annotations?.[CREDENTIAL_FROM],
      `${name}-aso-secret`,
    );
    assert.equal(o.metadata.annotations?.[POLICY], 'manage');
  }
  assert.deepEqual(ownersOf(vnet), [
    `AzureManagedControlPlane/${name} controller block`,
    `ResourceGroup/${name}`,
  ]);
  assert.deepEqual(ownersOf(subnet), [
    `AzureManagedControlPlane/${name} controller block`,
    `VirtualNetwork/${name}`,
  ]);
  assert.deepEqual(vnet.spec, {
    addressSpace: { addressPrefixes: ['10.0.0.0/8'] },
    azureName: name,
    location: 'westeurope',
    owner: { name },
    tags: {
      Name: name,
      [`sigs.k8s.io_cluster-api-provider-azure_cluster_${name}`]: 'owned',
      'sigs.k8s.io_cluster-api-provider-azure_role': 'common',
    },
  });
  assert.deepEqual(subnet.spec, {
    addressPrefix: '10.240.0.0/16',
    addressPrefixes: ['10.240.0.0/16'],
    azureName: name,
    owner: { name },
  });
  const subnetId = `/subscriptions/${SUB}/resourceGroups/${name}/providers/Microsoft.Network/virtualNetworks/${name}/subnets/${name}`;
  assert.equal(subnet.status.id, subnetId);
  assert.deepEqual(
    Object.keys(env.world.getVirtualNetwork(SUB, name, name)?.subnets ?? {}),
    [name],
    'the VNet and its subnet exist in Azure',
  );

  // 11: the eight conditions.
  assert.deepEqual(
    (cp.status.conditions as Array<{ type: string; status: string }>)
      .map(c => `${c.type}=${c.status}`)
      .sort(),
    [
      'AKSExtensionsReady=True',
      'FleetReady=True',
      'ManagedClusterRunning=True',
      'PrivateEndpointsReady=True',
      'Ready=True',
      'ResourceGroupReady=True',
      'SubnetsReady=True',
      'VNetReady=True',
    ],
  );

  // 12: providerIDs from the VMSS VMs, replicas their number, the agentpoolmode label.
  const nodeRg = `mc_${name}_${name}_westeurope`;
  for (const [i, p] of pools.entries()) {
    const pool = `pool${i}`;
    assert.equal(
      p.metadata.labels?.[
        'azuremanagedmachinepool.infrastructure.cluster.x-k8s.io/agentpoolmode'
      ],
      i === 0 ? 'System' : 'User',
    );
    assert.equal(p.spec.providerIDList.length, 2);
    for (const [n, id] of (p.spec.providerIDList as string[]).entries())
      assert.match(
        id,
        new RegExp(
          `^azure:///subscriptions/${SUB}/resourceGroups/${nodeRg}/providers/Microsoft\\.Compute/virtualMachineScaleSets/aks-${pool}-\\d{8}-vmss/virtualMachines/${n}$`,
        ),
      );
    const agentPool = (await env.kube.get(
      K.ManagedClustersAgentPool,
      ns,
      `${name}-${pool}`,
    ))!;
    // 14 (agent pools) and 10 (vnetSubnetReference).
    assert.deepEqual(
      {
        orchestratorVersion: agentPool.spec.orchestratorVersion,
        osDiskSizeGB: agentPool.spec.osDiskSizeGB,
        osDiskType: agentPool.spec.osDiskType,
        osType: agentPool.spec.osType,
        scaleDownMode: agentPool.spec.scaleDownMode,
        vnetSubnetReference: agentPool.spec.vnetSubnetReference,
      },
      {
        orchestratorVersion: '1.33.2',
        osDiskSizeGB: 0,
        osDiskType: 'Managed',
        osType: 'Linux',
        scaleDownMode: 'Delete',
        vnetSubnetReference: { armId: subnetId },
      },
    );
  }

  // 13: the Secrets.
  const asoSecret = (await env.kube.get(K.Secret, ns, `${name}-aso-secret`))!;
  assert.deepEqual(ownersOf(asoSecret), [
    `AzureManagedControlPlane/${name} controller`,
  ]);
  const kubeconfig = (await env.kube.get(K.Secret, ns, `${name}-kubeconfig`))!;
  assert.equal(kubeconfig.type, 'Opaque');
  const ca = (await env.kube.get(K.Secret, ns, `${name}-ca`))!;
  assert.ok(ca, `${name}-ca exists`);
  assert.deepEqual(ownersOf(ca), [
    `AzureManagedControlPlane/${name} controller block`,
  ]);
  assert.equal(ca.type, 'Opaque');
  assert.equal(
    Buffer.from(ca.data!['tls.crt'], 'base64').toString('utf8'),
    CA_PEM,
  );
  assert.equal(
    Buffer.from(ca.data!['tls.key'], 'base64').toString('utf8'),
    'foo',
  );

  // 14: the last-applied-tags annotation and the ManagedCluster's spec fields.
  const rg = (await env.kube.get(K.ResourceGroup, ns, name))!;
  const mc = (await env.kube.get(K.ManagedCluster, ns, name))!;
  assert.equal(rg.metadata.annotations?.[LAST_APPLIED_TAGS], '{}');
  assert.equal(mc.metadata.annotations?.[LAST_APPLIED_TAGS], '{}');
  assert.equal(vnet.metadata.annotations?.[LAST_APPLIED_TAGS], undefined);
  assert.deepEqual(
    {
      networkProfile: mc.spec.networkProfile,
      nodeResourceGroup: mc.spec.nodeResourceGroup,
      oidcIssuerProfile: mc.spec.oidcIssuerProfile,
      servicePrincipalProfile: mc.spec.servicePrincipalProfile,
      sku: mc.spec.sku,
      configMaps: mc.spec.operatorSpec.configMaps,
    },
    {
      networkProfile: {
        dnsServiceIP: '192.168.0.10',
        loadBalancerSku: 'standard',
        networkPlugin: 'azure',
        serviceCidr: '192.168.0.0/16',
      },
      nodeResourceGroup: `MC_${name}_${name}_westeurope`,
      oidcIssuerProfile: { enabled: true },
      servicePrincipalProfile: { clientId: 'msi' },
      sku: { name: 'Base', tier: 'Free' },
      configMaps: {
        oidcIssuerProfile: {
          key: 'oidc-issuer-profile-url',
          name: `${name}-aso-oidc-issuer-profile`,
        },
      },
    },
  );

  // Deletion: the ManagedCluster, then the subnet, the VNet and the group (CAPZ's reverse service order).
  await env.kube.delete(K.Cluster, ns, name);
  await until(
    'the control plane to be gone',
    async () =>
      !(await env.kube.get(K.AzureManagedControlPlane, ns, name)) || undefined,
    180_000,
  );
  assert.deepEqual(gone, [
    'ManagedCluster',
    'VirtualNetworksSubnet',
    'VirtualNetwork',
    'ResourceGroup',
  ]);
  assert.equal(env.world.getVirtualNetwork(SUB, name, name), undefined);
});

test('the simulated ASO reconciles VirtualNetwork and VirtualNetworksSubnet by their policy, and AzureASOManaged objects accept them', async t => {
  const ns = await namespaceFor(t, 'aso-network');
  await env.kube.create(K.Secret, credentialSecret(ns, 'aso-credential'));
  const rg = 'rg-net';
  env.world.putResourceGroup(SUB, rg, { location: 'westeurope' });
  env.world.putVirtualNetwork(SUB, rg, 'kept', {
    location: 'westeurope',
    properties: { addressSpace: { addressPrefixes: ['10.1.0.0/16'] } },
  });
  await env.kube.create(
    K.ResourceGroup,
    obj(
      'ResourceGroup',
      ns,
      rg,
      { location: 'westeurope' },
      {
        annotations: { [POLICY]: 'skip' },
      },
    ),
  );
  // skip: read only (an existing VNet is Ready, a missing one AzureResourceNotFound), and a delete only drops the
  // finalizer.
  await env.kube.create(
    K.VirtualNetwork,
    obj(
      'VirtualNetwork',
      ns,
      'kept',
      { location: 'westeurope', owner: { name: rg } },
      {
        annotations: { [POLICY]: 'skip' },
      },
    ),
  );
  await env.kube.create(
    K.VirtualNetwork,
    obj(
      'VirtualNetwork',
      ns,
      'missing',
      { location: 'westeurope', owner: { name: rg } },
      {
        annotations: { [POLICY]: 'skip' },
      },
    ),
  );
  const kept = await until('the skipped existing VNet Ready', async () =>
    ready(await env.kube.get(K.VirtualNetwork, ns, 'kept')),
  );
  assert.deepEqual(kept.status.addressSpace, {
    addressPrefixes: ['10.1.0.0/16'],
  });
  await until(
    'the skipped missing VNet to report AzureResourceNotFound',
    async () =>
      condition(await env.kube.get(K.VirtualNetwork, ns, 'missing'), 'Ready')
        ?.reason === 'AzureResourceNotFound',
  );
  assert.equal(env.world.getVirtualNetwork(SUB, rg, 'missing'), undefined);
  await env.kube.delete(K.VirtualNetwork, ns, 'kept');
  await until(
    'the skipped VNet object gone',
    async () =>
      !(await env.kube.get(K.VirtualNetwork, ns, 'kept')) || undefined,
  );
  assert.ok(env.world.getVirtualNetwork(SUB, rg, 'kept'), 'left in Azure');

  // manage: an AzureASOManagedCluster listing a VNet and a subnet creates them in Azure, waiting for each owner.
  const name = 'net-aso';
  await env.kube.create(
    K.Cluster,
    obj('Cluster', ns, name, {
      infrastructureRef: {
        apiGroup: CAPZ,
        kind: 'AzureASOManagedCluster',
        name,
      },
    }),
  );
  await env.kube.create(
    K.AzureASOManagedCluster,
    obj(
      'AzureASOManagedCluster',
      ns,
      name,
      {
        resources: [
          {
            apiVersion: 'network.azure.com/v1api20201101',
            kind: 'VirtualNetwork',
            metadata: { name: 'made' },
            spec: {
              location: 'westeurope',
              owner: { name: rg },
              addressSpace: { addressPrefixes: ['10.2.0.0/16'] },
            },
          },
          {
            apiVersion: 'network.azure.com/v1api20201101',
            kind: 'VirtualNetworksSubnet',
            metadata: { name: 'made-nodes' },
            spec: {
              azureName: 'nodes',
              owner: { name: 'made' },
              addressPrefix: '10.2.0.0/24',
            },
          },
        ],
      },
      { labels: { [CLUSTER_NAME]: name } },
    ),
  );
  await until('the subnet created in Azure', async () =>
    ready(await env.kube.get(K.VirtualNetworksSubnet, ns, 'made-nodes')),
  );
  assert.deepEqual(
    env.world.getVirtualNetwork(SUB, rg, 'made')?.subnets.nodes?.properties,
    { addressPrefix: '10.2.0.0/24' },
  );
  const made = (await env.kube.get(K.VirtualNetworksSubnet, ns, 'made-nodes'))!;
  assert.deepEqual(ownersOf(made), [
    `AzureASOManagedCluster/${name} controller block`,
    'VirtualNetwork/made',
  ]);
  // manage: deleting the object deletes the VNet in Azure, then the finalizer goes.
  await env.kube.create(
    K.VirtualNetwork,
    obj('VirtualNetwork', ns, 'direct', {
      location: 'westeurope',
      owner: { name: rg },
    }),
  );
  await until('the managed VNet Ready', async () =>
    ready(await env.kube.get(K.VirtualNetwork, ns, 'direct')),
  );
  assert.ok(env.world.getVirtualNetwork(SUB, rg, 'direct'));
  await env.kube.delete(K.VirtualNetwork, ns, 'direct');
  await until(
    'the managed VNet object gone',
    async () =>
      !(await env.kube.get(K.VirtualNetwork, ns, 'direct')) || undefined,
  );
  assert.equal(env.world.getVirtualNetwork(SUB, rg, 'direct'), undefined);
});
