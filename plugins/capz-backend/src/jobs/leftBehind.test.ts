import {
  planAdoption,
  planMigration,
  requiredAdoptionAccess,
  requiredMigrationAccess,
  type Job,
  type StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { describeLeftBehind } from './leftBehind';

const SUB = '00000000-0000-0000-0000-000000000001';
const allow = (
  req: Array<{
    verb: string;
    group: string;
    resource: string;
    namespace?: string;
  }>,
) => req.map(r => ({ ...r, allowed: true }));

const adoptParams = {
  managementCluster: 'mgmt',
  namespace: 'adopt',
  credentialSecret: 'aso-credential',
  subscriptionId: SUB,
  resourceGroup: 'My_RG',
  clusterName: 'myAKSCluster',
};
const adoptPlan = planAdoption(adoptParams, {
  aks: {
    subscriptionId: SUB,
    resourceGroup: 'My_RG',
    name: 'myAKSCluster',
    location: 'westeurope',
    provisioningState: 'Succeeded',
    entraOnly: false,
    agentPools: [
      { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', count: 1 },
      { name: 'web', mode: 'User', vmSize: 'Standard_D2s_v3', count: 2 },
    ],
  },
  resourceGroupLocation: 'westeurope',
  namespaceExists: true,
  credentialSecretExists: true,
  objects: [],
  access: allow(requiredAdoptionAccess(adoptParams)),
}).plan;

/** A job of this plan stopped with these step states (the rest pending, never started). */
function stopped(
  type: Job['type'],
  plan: StepPlan[],
  params: Job['params'],
  states: Record<string, [Job['steps'][number]['state'], number]>,
): Job & { plan: StepPlan[] } {
  return {
    id: 'j1',
    type,
    target:
      type === 'adopt'
        ? {
            managementCluster: 'mgmt',
            namespace: 'adopt',
            name: 'myakscluster',
          }
        : {
            managementCluster: 'mgmt',
            namespace: 'team-data',
            name: 'data-lake',
          },
    params,
    createdBy: 'user:default/ada',
    state: 'cancelled',
    steps: plan.map(s => ({
      id: s.id,
      title: s.title,
      state: states[s.id]?.[0] ?? 'pending',
      attempts: states[s.id]?.[1] ?? 0,
    })),
    createdAt: '',
    updatedAt: '',
    plan,
  };
}

const migrateParams = {
  managementCluster: 'mgmt',
  namespace: 'team-data',
  name: 'data-lake',
  targetNamespace: 'data-lake-aso',
};
function migrationPlan(): StepPlan[] {
  const CAPZ = 'infrastructure.cluster.x-k8s.io';
  const owner = (kind: string, name: string) => [
    {
      apiVersion: `${CAPZ}/v1beta1`,
      kind,
      name,
      uid: `${kind}-${name}`,
      controller: true,
    },
  ];
  const ready = { conditions: [{ type: 'Ready', status: 'True' }] };
  const objects = [
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'data-lake', namespace: 'team-data' },
      spec: {
        controlPlaneRef: {
          kind: 'AzureManagedControlPlane',
          name: 'data-lake',
        },
        infrastructureRef: { kind: 'AzureManagedCluster', name: 'data-lake' },
      },
      status: { conditions: [{ type: 'Available', status: 'True' }] },
    },
    {
      apiVersion: `${CAPZ}/v1beta1`,
      kind: 'AzureManagedControlPlane',
      metadata: { name: 'data-lake', namespace: 'team-data' },
      spec: { subscriptionID: SUB, location: 'westeurope' },
      status: { ...ready, ready: true },
    },
    {
      apiVersion: `${CAPZ}/v1beta1`,
      kind: 'AzureManagedCluster',
      metadata: { name: 'data-lake', namespace: 'team-data' },
      spec: {},
    },
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachinePool',
      metadata: { name: 'data-lake-system', namespace: 'team-data' },
      spec: {
        clusterName: 'data-lake',
        template: {
          spec: {
            infrastructureRef: {
              kind: 'AzureManagedMachinePool',
              name: 'data-lake-system',
            },
          },
        },
      },
    },
    {
      apiVersion: `${CAPZ}/v1beta1`,
      kind: 'AzureManagedMachinePool',
      metadata: { name: 'data-lake-system', namespace: 'team-data' },
      spec: {},
      status: ready,
    },
    {
      apiVersion: 'resources.azure.com/v1api20200601',
      kind: 'ResourceGroup',
      metadata: {
        name: 'rg-data-lake',
        namespace: 'team-data',
        ownerReferences: owner('AzureManagedControlPlane', 'data-lake'),
      },
      spec: { azureName: 'rg-data-lake', location: 'westeurope' },
      status: ready,
    },
    {
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedCluster',
      metadata: {
        name: 'data-lake',
        namespace: 'team-data',
        annotations: {
          'serviceoperator.azure.com/credential-from': 'data-lake-aso-secret',
        },
        ownerReferences: owner('AzureManagedControlPlane', 'data-lake'),
      },
      spec: { owner: { name: 'rg-data-lake' } },
      status: {
        ...ready,
        agentPoolProfiles: [
          {
            name: 'system',
            mode: 'System',
            count: 1,
            vmSize: 'Standard_D2s_v3',
          },
        ],
      },
    },
    {
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedClustersAgentPool',
      metadata: {
        name: 'data-lake-system',
        namespace: 'team-data',
        ownerReferences: owner('AzureManagedMachinePool', 'data-lake-system'),
      },
      spec: { azureName: 'system', owner: { name: 'data-lake' } },
      status: ready,
    },
  ];
  const r = planMigration(migrateParams, {
    cluster: objects[0],
    objects,
    targetNamespaceExists: false,
    credentialSecretExists: true,
    access: allow(requiredMigrationAccess(migrateParams)),
  });
  if (!r.plan.length)
    throw new Error(
      `no plan: ${JSON.stringify(
        r.preflight.filter(c => c.status === 'fail'),
      )}`,
    );
  return r.plan;
}

describe('describeLeftBehind', () => {
  it('an adoption cancelled while adopt-managed-cluster waits: DANGER first, with the exact commands that make its objects safe', () => {
    const words = describeLeftBehind(
      stopped('adopt', adoptPlan, adoptParams, {
        'adopt-resource-group': ['succeeded', 1],
        'adopt-managed-cluster': ['pending', 1],
      }),
    );
    expect(words.startsWith('DANGER')).toBe(true);
    expect(words).toContain(
      '`kubectl annotate --overwrite -n adopt resourcegroup.resources.azure.com/my-rg managedcluster.containerservice.azure.com/myakscluster ' +
        'managedclustersagentpool.containerservice.azure.com/myakscluster-system managedclustersagentpool.containerservice.azure.com/myakscluster-web ' +
        'serviceoperator.azure.com/reconcile-policy=skip`',
    );
    // Annotate, check, delete the Cluster CAPZ made and wait until it is gone (CAPZ recreates deleted ASO objects
    // from spec.resources without the annotation), only then what is left.
    const order = [
      'check that every row says skip',
      'delete the Cluster CAPZ made',
      'kubectl delete cluster -n adopt myakscluster --ignore-not-found --wait=true',
      'delete what is left',
    ];
    expect(order.map(x => words.indexOf(x))).toEqual(
      [...order.map(x => words.indexOf(x))].sort((a, b) => a - b),
    );
    expect(order.every(x => words.includes(x))).toBe(true);
    expect(words).toMatch(/resume this job/);
  });

  it('an adoption stopped before the ManagedCluster: no danger (its ResourceGroup is on skip)', () => {
    const words = describeLeftBehind(
      stopped('adopt', adoptPlan, adoptParams, {
        'adopt-resource-group': ['succeeded', 1],
      }),
    );
    expect(words).not.toMatch(/DANGER/);
    expect(words).toMatch(/No Azure resource was deleted/);
  });

  it('a migration stopped after the pause: how to go back (unpause), no danger', () => {
    const plan = migrationPlan();
    const words = describeLeftBehind(
      stopped('migrate', plan, migrateParams, {
        pause: ['succeeded', 1],
        'wait-block-move': ['succeeded', 1],
        disarm: ['failed', 1],
      }),
    );
    expect(words).not.toMatch(/DANGER/);
    expect(words).toContain(
      `kubectl patch cluster data-lake -n team-data --type merge -p '{"spec":{"paused":false}}'`,
    );
  });

  it('a migration failed once its new ResourceGroup (which keeps the old policy, possibly manage) was being created: DANGER, never "remove the new objects" alone', () => {
    const plan = migrationPlan();
    const words = describeLeftBehind(
      stopped(
        'migrate',
        plan,
        migrateParams,
        Object.fromEntries(
          [
            'pause',
            'wait-block-move',
            'disarm',
            'create-namespace',
            'copy-credential-secret',
          ]
            .map(id => [id, ['succeeded', 1]])
            .concat([['adopt-resource-group', ['failed', 1]]]),
        ) as never,
      ),
    );
    expect(words.startsWith('DANGER')).toBe(true);
    expect(words).toContain(
      'kubectl annotate --overwrite -n data-lake-aso resourcegroup.resources.azure.com/rg-data-lake',
    );
    expect(words.indexOf('make the new objects safe')).toBeLessThan(
      words.indexOf('then delete namespace data-lake-aso'),
    );
    expect(words).toMatch(
      /Do NOT unpause the old Cluster while the new objects exist/,
    );
  });
});
