import type { ObservedObject } from '@capz-backstage/plugin-capz-common';
import {
  asoTargets,
  findManagedBy,
  parseArmId,
  toDiscoveredCluster,
} from './mapping';

const SUB = '5f1c2a9e-7d41-4b1a-9a3e-2c6d8e0f1a2b';
const id = (rg: string, name: string, sub = SUB) =>
  `/subscriptions/${sub}/resourcegroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`;
const cluster = (rg: string, name: string, sub = SUB) =>
  toDiscoveredCluster(
    { id: id(rg, name, sub), name, location: 'westeurope' },
    sub,
  );
const mc = (
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  metadata: ObservedObject['metadata'] = {},
): ObservedObject => ({
  kind: 'ManagedCluster',
  metadata: { namespace, name, ...metadata },
  spec,
});

describe('parseArmId', () => {
  it('reads subscription, group and name whatever the casing of the segment names', () => {
    expect(parseArmId(id('rg-A', 'aks'))).toEqual({
      subscriptionId: SUB,
      resourceGroup: 'rg-A',
      name: 'aks',
    });
    expect(parseArmId(`/SUBSCRIPTIONS/${SUB}/resourceGroups/rg`)).toEqual({
      subscriptionId: SUB,
      resourceGroup: 'rg',
      name: 'rg',
    });
    expect(parseArmId('/providers/Microsoft.ContainerService')).toBeUndefined();
    expect(parseArmId(undefined)).toBeUndefined();
  });
});

describe('toDiscoveredCluster', () => {
  it('maps the flattened SDK model, pools with autoscaling only where ARM has it', () => {
    const d = toDiscoveredCluster(
      {
        id: id('rg-x', 'x'),
        name: 'x',
        location: 'eastus',
        kubernetesVersion: '1.32.5',
        provisioningState: 'Updating',
        disableLocalAccounts: true,
        aadProfile: { managed: true },
        agentPoolProfiles: [
          { name: 'sys', mode: 'System', count: 3, vmSize: 'Standard_D4s_v5' },
          {
            name: 'gw',
            mode: 'Gateway',
            enableAutoScaling: true,
            minCount: 0,
            maxCount: 2,
          },
        ],
      },
      'ignored',
    );
    expect(d).toEqual({
      subscriptionId: SUB,
      resourceGroup: 'rg-x',
      name: 'x',
      location: 'eastus',
      kubernetesVersion: '1.32.5',
      provisioningState: 'Updating',
      entraOnly: true,
      aadProfile: { managed: true },
      agentPools: [
        { name: 'sys', mode: 'System', count: 3, vmSize: 'Standard_D4s_v5' },
        {
          name: 'gw',
          mode: 'User',
          count: 0,
          vmSize: '',
          enableAutoScaling: true,
          minCount: 0,
          maxCount: 2,
        },
      ],
    });
    expect(
      toDiscoveredCluster(
        {
          id: id('rg', 'y'),
          name: 'y',
          location: 'eastus',
          aadProfile: { managed: true },
        },
        SUB,
      ).entraOnly,
    ).toBe(false);
  });

  it('carries what ARM replaces on PUT (tags, labels, taints) and the pool fields it keeps, copied, empty ones left out', () => {
    const labels = { workload: 'etl' };
    const d = toDiscoveredCluster(
      {
        id: id('My_Resource_Group', 'myAKSCluster'),
        name: 'myAKSCluster',
        location: 'eastus',
        tags: { environment: 'dev' },
        identity: { type: 'SystemAssigned' },
        aadProfile: {
          managed: true,
          enableAzureRbac: true,
          adminGroupObjectIDs: ['g1'],
          tenantID: 't1',
        },
        agentPoolProfiles: [
          {
            name: 'etl',
            mode: 'User',
            count: 3,
            vmSize: 'Standard_D4s_v3',
            osType: 'Linux',
            osSKU: 'AzureLinux',
            orchestratorVersion: '1.33.2',
            availabilityZones: ['1', '2'],
            maxPods: 50,
            osDiskSizeGB: 256,
            nodeLabels: labels,
            nodeTaints: ['workload=etl:NoSchedule'],
            tags: { team: 'etl' },
          },
          {
            name: 'nodepool1',
            mode: 'System',
            count: 1,
            vmSize: 'Standard_DS2_v2',
            nodeLabels: {},
            nodeTaints: [],
            tags: {},
            availabilityZones: [],
          },
        ],
      },
      SUB,
    );
    expect(d).toMatchObject({
      resourceGroup: 'My_Resource_Group',
      name: 'myAKSCluster',
      tags: { environment: 'dev' },
      identityType: 'SystemAssigned',
    });
    expect(d.aadProfile).toEqual({
      managed: true,
      enableAzureRBAC: true,
      adminGroupObjectIDs: ['g1'],
      tenantID: 't1',
    });
    expect(d.agentPools[0]).toEqual({
      name: 'etl',
      mode: 'User',
      count: 3,
      vmSize: 'Standard_D4s_v3',
      osType: 'Linux',
      osSKU: 'AzureLinux',
      orchestratorVersion: '1.33.2',
      availabilityZones: ['1', '2'],
      maxPods: 50,
      osDiskSizeGB: 256,
      nodeLabels: { workload: 'etl' },
      nodeTaints: ['workload=etl:NoSchedule'],
      tags: { team: 'etl' },
    });
    expect(d.agentPools[0].nodeLabels).not.toBe(labels);
    expect(d.agentPools[1]).toEqual({
      name: 'nodepool1',
      mode: 'System',
      count: 1,
      vmSize: 'Standard_DS2_v2',
    });
  });
});

describe('managed-by marking', () => {
  const groups: ObservedObject[] = [
    {
      kind: 'ResourceGroup',
      metadata: { namespace: 'a', name: 'grp' },
      spec: { azureName: 'RG-Real' },
    },
    {
      kind: 'ResourceGroup',
      metadata: {
        namespace: 'c',
        name: 'grp',
        annotations: {
          'serviceoperator.azure.com/resource-id': `/subscriptions/${SUB}/resourceGroups/rg-c`,
        },
      },
      spec: {},
    },
  ];
  const targets = asoTargets(
    [
      mc(
        'a',
        'one',
        { azureName: 'aks-one', owner: { name: 'grp' } },
        { labels: { 'cluster.x-k8s.io/cluster-name': 'capi-one' } },
      ),
      mc('b', 'aks-two', {
        owner: { armId: `/subscriptions/${SUB}/resourceGroups/rg-two` },
      }),
      mc('c', 'three', { owner: { name: 'grp' } }),
      mc(
        'd',
        'four',
        {},
        {
          annotations: {},
          ownerReferences: [
            {
              kind: 'AzureManagedControlPlane',
              name: 'legacy',
              controller: true,
            },
          ],
        },
      ),
      { kind: 'ManagedCluster', metadata: { namespace: 'e' }, spec: {} },
    ],
    groups,
  );

  it('resolves the owner group by name, by ARM id, and the subscription ASO recorded for the group', () => {
    expect(targets).toEqual([
      {
        namespace: 'a',
        name: 'one',
        cluster: 'capi-one',
        azureName: 'aks-one',
        resourceGroup: 'RG-Real',
      },
      {
        namespace: 'b',
        name: 'aks-two',
        azureName: 'aks-two',
        resourceGroup: 'rg-two',
        subscriptionId: SUB,
      },
      {
        namespace: 'c',
        name: 'three',
        azureName: 'three',
        resourceGroup: 'rg-c',
        subscriptionId: SUB,
      },
      { namespace: 'd', name: 'four', cluster: 'legacy', azureName: 'four' },
    ]);
  });

  it('matches name and group case-insensitively, and only in the right group and subscription', () => {
    expect(findManagedBy(cluster('rg-real', 'AKS-ONE'), targets)).toEqual({
      namespace: 'a',
      name: 'one',
      cluster: 'capi-one',
    });
    expect(
      findManagedBy(cluster('rg-other', 'aks-one'), targets),
    ).toBeUndefined();
    expect(findManagedBy(cluster('rg-two', 'aks-two'), targets)).toEqual({
      namespace: 'b',
      name: 'aks-two',
    });
    expect(
      findManagedBy(cluster('rg-two', 'aks-two', 'another-sub'), targets),
    ).toBeUndefined();
    expect(findManagedBy(cluster('rg-c', 'three'), targets)).toEqual({
      namespace: 'c',
      name: 'three',
    });
    // Group unknown (no ResourceGroup object, no id): the name alone marks it, erring on the side of caution.
    expect(findManagedBy(cluster('anywhere', 'four'), targets)).toEqual({
      namespace: 'd',
      name: 'four',
      cluster: 'legacy',
    });
  });
});
