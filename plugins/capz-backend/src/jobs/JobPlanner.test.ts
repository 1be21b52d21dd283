/**
 * The adoption preview asks ARM for the resource group's location once the AKS cluster is found, and writes the
 * ASO ResourceGroup with it; when the location cannot be read, the preview still plans (with the cluster's
 * location) and keeps the planner's warning. Kubernetes and ARM are stand-ins here: AksDiscovery itself is tested
 * against the simulated ARM and Entra ID (src/azure/AksDiscovery.test.ts).
 */
import type {
  DiscoveredAksCluster,
  JobRequest,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { JobClient } from '../cluster/clientViews';
import { JobPlanner, type AksLister } from './JobPlanner';

const SUB = '6f1c2d3e-0000-4000-8000-0000000000a1';
const aksCluster: DiscoveredAksCluster = {
  subscriptionId: SUB,
  resourceGroup: 'rg-payments',
  name: 'payments-prod',
  location: 'westeurope',
  kubernetesVersion: '1.33.2',
  provisioningState: 'Succeeded',
  entraOnly: false,
  agentPools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', count: 1 },
  ],
};

/** A management cluster where the namespace and the Secret exist and every access is allowed. */
const client = {
  get: async (ref: { kind: string }) => ({
    apiVersion: 'v1',
    kind: ref.kind,
    metadata: { name: 'x' },
  }),
  canI: async () => true,
} as unknown as JobClient;

const request: JobRequest = {
  type: 'adopt',
  params: {
    managementCluster: 'local',
    namespace: 'team-pay',
    credentialSecret: 'aso-credential',
    subscriptionId: SUB,
    resourceGroup: 'RG-Payments',
    clusterName: 'payments-prod',
  },
};

function planner(
  resourceGroup: AksLister['resourceGroup'],
  cached: Record<string, ObservedObject[]> = {},
) {
  return new JobPlanner({
    managementClusters: [
      { name: 'local' } as never,
      { name: 'other' } as never,
    ],
    // Each management cluster's ResourceGroup objects (every namespace); nothing else.
    cache: {
      list: ((mc: string, kind: string, namespace?: string) =>
        kind === 'ResourceGroup'
          ? (cached[mc] ?? []).filter(
              o => !namespace || o.metadata?.namespace === namespace,
            )
          : []) as never,
    },
    client: async () => client,
    aks: {
      listClusters: async () => ({ subscriptionId: SUB, items: [aksCluster] }),
      resourceGroup,
    },
  });
}

const plannedGroup = (
  plan: Awaited<ReturnType<JobPlanner['preview']>>['plan'],
) =>
  plan
    .flatMap(s => s.actions)
    .flatMap(a =>
      a.action === 'create' && a.object.kind === 'ResourceGroup'
        ? [(a.object as ObservedObject).spec]
        : [],
    );
const plannedGroupLocation = (
  plan: Awaited<ReturnType<JobPlanner['preview']>>['plan'],
) => plannedGroup(plan).map(spec => spec?.location);

describe('JobPlanner adoption preview', () => {
  it('reads the group location and tags in the cluster subscription and group, and passes every preflight check', async () => {
    const asked: unknown[] = [];
    const preview = await planner(async q => {
      asked.push(q);
      return { location: 'swedencentral', tags: { 'cost-center': 'payments' } };
    }).preview(request);
    expect(asked).toEqual([
      {
        managementCluster: 'local',
        namespace: 'team-pay',
        credentialSecret: 'aso-credential',
        subscriptionId: SUB,
        resourceGroup: 'rg-payments',
      },
    ]);
    expect(preview.preflight.filter(c => c.status !== 'pass')).toEqual([]);
    expect(plannedGroupLocation(preview.plan)).toEqual(['swedencentral']);
    // The ResourceGroup carries ARM's tags, as the planner got them (resourceGroupTags).
    expect(plannedGroup(preview.plan).map(spec => spec?.tags)).toEqual([
      { 'cost-center': 'payments' },
    ]);
  });

  it("shows the refusal of the job's first write when a manage ResourceGroup in another namespace or management cluster points at the group, and reuses the one in its own namespace", async () => {
    const rg = (
      namespace: string,
      name: string,
      annotations: Record<string, string> = {},
    ): ObservedObject => ({
      apiVersion: 'resources.azure.com/v1api20200601',
      kind: 'ResourceGroup',
      metadata: { namespace, name, annotations },
      spec: { azureName: 'rg-payments', location: 'westeurope' },
    });
    const located = async () => ({ location: 'westeurope', tags: {} });
    const check = async (cached: Record<string, ObservedObject[]>) =>
      (await planner(located, cached).preview(request)).preflight.find(
        c => c.id === 'group-not-managed',
      );
    expect(
      await check({
        local: [rg('team-ops', 'payments-rg')],
        other: [
          rg('ops', 'kept', {
            'serviceoperator.azure.com/reconcile-policy': 'skip',
          }),
        ],
      }),
    ).toEqual({
      id: 'group-not-managed',
      title: 'No other ResourceGroup object can delete its resource group',
      status: 'fail',
      message:
        "The job's first write would be refused: ResourceGroup local/team-ops/payments-rg (reconcile-policy manage) would delete its resource group RG-Payments.",
      fix: expect.stringContaining(
        'serviceoperator.azure.com/reconcile-policy: skip',
      ),
    });
    expect(
      (await check({ other: [rg('ops', 'payments-rg')] }))?.message,
    ).toMatch(
      /^The job's first write would be refused: ResourceGroup other\/ops\/payments-rg /,
    );
    // The object in the adoption's own namespace is reused (the plan's exception), as the live check does.
    expect(
      await check({ local: [rg('team-pay', 'payments-rg')] }),
    ).toMatchObject({ status: 'pass' });
  });

  it('keeps the warning and the cluster location when the group location cannot be read', async () => {
    for (const lookup of [
      async () => undefined,
      async () => Promise.reject(new Error('AuthorizationFailed')),
    ]) {
      const preview = await planner(lookup).preview(request);
      expect(
        preview.preflight
          .filter(c => c.status !== 'pass')
          .map(c => `${c.status} ${c.id}`),
      ).toEqual(['warn resource-group-location']);
      expect(plannedGroupLocation(preview.plan)).toEqual(['westeurope']);
    }
  });
});
