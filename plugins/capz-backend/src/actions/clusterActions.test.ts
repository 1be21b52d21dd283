import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { NotFoundError } from '@backstage/errors';
import {
  AuthorizeResult,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  AKS_RELEASE_CALENDAR,
  capzClusterReadPermission,
  type ClusterSummary,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import {
  capzClusterConditions,
  createCapzClusterConditionalDecision,
} from '../permissions/rules';
import { registerClusterActions } from './clusterActions';

const summary = (over: Partial<ClusterSummary>): ClusterSummary => ({
  managementCluster: 'local',
  namespace: 'team-payments',
  name: 'payments-prod',
  uid: 'u1',
  api: 'aso-v1beta1',
  health: 'healthy',
  // In AKS support on the test's day (capz-common's release calendar).
  kubernetesVersion: 'v1.35.1',
  ...over,
});

const node = (over: Partial<TreeNode>): TreeNode => ({
  id: over.name ?? 'n',
  kind: 'Cluster',
  name: 'n',
  health: 'healthy',
  conditions: [],
  facts: {},
  children: [],
  ...over,
});

const CLUSTERS = [
  summary({}),
  summary({
    name: 'search-prod',
    uid: 'u2',
    health: 'degraded',
    reason: 'ManagedCluster search-prod: ReconciliationBlocked',
    message: 'the resource group is missing',
  }),
  summary({
    namespace: 'team-data',
    name: 'data-lake',
    uid: 'u3',
    api: 'azure-managed',
    migrationCandidate: true,
  }),
];

const TREE = node({
  name: 'search-prod',
  health: 'degraded',
  reason: 'ReconciliationBlocked',
  source: { id: 'mc', kind: 'ManagedCluster', name: 'search-prod' },
  children: [
    node({
      kind: 'ManagedCluster',
      name: 'search-prod',
      health: 'degraded',
      reason: 'ReconciliationBlocked',
      message: 'the resource group is missing',
      since: '2026-12-04T06:00:00Z',
    }),
    node({ kind: 'ResourceGroup', name: 'search-prod' }),
  ],
});

function setUp(
  decision: PolicyDecision = { result: AuthorizeResult.ALLOW },
  lifecycle?: Parameters<typeof registerClusterActions>[0]['lifecycle'],
) {
  const registry = actionsRegistryServiceMock();
  const asked: string[] = [];
  registerClusterActions({
    actionsRegistry: registry,
    permissions: mockServices.permissions.mock({
      authorizeConditional: async reqs => {
        asked.push(...reqs.map(r => r.permission.name));
        return reqs.map(() => decision);
      },
    }),
    views: {
      list: () => CLUSTERS,
      tree: (mc, ns, name) => {
        const s = CLUSTERS.find(
          c =>
            c.managementCluster === mc && c.namespace === ns && c.name === name,
        );
        if (!s) throw new NotFoundError(`no cluster ${mc}/${ns}/${name}`);
        return { summary: s, tree: TREE };
      },
    },
    ownerOf: c =>
      c.namespace === 'team-payments'
        ? 'group:default/team-payments'
        : 'group:default/platform',
    today: () => new Date('2026-12-04T00:00:00Z'),
    ...(lifecycle ? { lifecycle } : {}),
  });
  return { registry, asked };
}

describe('the cluster actions', () => {
  it('are listed read-only, for MCP clients to call without asking for a confirmation', async () => {
    const { registry } = setUp();
    const { actions } = await registry.list();
    expect(actions.map(a => [a.id, a.attributes])).toEqual([
      [
        'test:list-clusters-needing-attention',
        { readOnly: true, destructive: false, idempotent: true },
      ],
      [
        'test:get-cluster',
        { readOnly: true, destructive: false, idempotent: true },
      ],
    ]);
  });

  it('list the clusters that need someone, with why, and leave out the healthy ones', async () => {
    const { registry, asked } = setUp();
    const { output } = await registry.invoke({
      id: 'test:list-clusters-needing-attention',
      input: {},
      credentials: mockCredentials.user('user:default/ada'),
    });
    expect(asked).toEqual([capzClusterReadPermission.name]);
    const clusters = (output as { clusters: any[] }).clusters;
    expect(clusters.map(c => c.name)).toEqual(['search-prod', 'data-lake']);
    expect(clusters[0].reasons).toEqual([
      {
        severity: 'now',
        message:
          'degraded: ManagedCluster search-prod: ReconciliationBlocked (the resource group is missing)',
      },
    ]);
    expect(clusters[1].reasons).toEqual([
      expect.objectContaining({ severity: 'now' }),
    ]);
  });

  it("judge a version's support with the operator's calendar and soonDays (capz.lifecycle), as the pages do", async () => {
    // AKS shortened 1.35 (shipped: Mar 31, 2027); 60 days ahead is the default, 200 the operator's.
    const { registry } = setUp(undefined, {
      soonDays: 200,
      calendar: [
        ...AKS_RELEASE_CALENDAR.filter(c => c.minor !== '1.35'),
        { minor: '1.35', ga: '2026-03', endOfLife: '2027-05-31' },
      ],
    });
    const { output } = await registry.invoke({
      id: 'test:list-clusters-needing-attention',
      input: {},
      credentials: mockCredentials.user('user:default/ada'),
    });
    const clusters = (output as { clusters: any[] }).clusters;
    expect(clusters.map(c => c.name)).toEqual([
      'payments-prod',
      'search-prod',
      'data-lake',
    ]);
    expect(clusters[0].reasons).toEqual([
      {
        severity: 'soon',
        message:
          'Kubernetes 1.35 is supported until May 31, 2027 (in 178 days).',
        fix: 'Upgrade the control plane to 1.36, then its node pools: AKS moves a supported cluster one minor version at a time.',
      },
    ]);
  });

  it("show an owner only the clusters the policy lets them read (IS_CLUSTER_OWNER with the cluster's catalog owner)", async () => {
    const { registry } = setUp(
      createCapzClusterConditionalDecision(
        capzClusterReadPermission,
        capzClusterConditions.isClusterOwner({
          claims: ['group:default/team-payments'],
        }),
      ),
    );
    const { output } = await registry.invoke({
      id: 'test:list-clusters-needing-attention',
      input: {},
      credentials: mockCredentials.user('user:default/ada'),
    });
    expect(
      (output as { clusters: { name: string }[] }).clusters.map(c => c.name),
    ).toEqual(['search-prod']);
    await expect(
      registry.invoke({
        id: 'test:get-cluster',
        input: {
          managementCluster: 'local',
          namespace: 'team-data',
          name: 'data-lake',
        },
        credentials: mockCredentials.user('user:default/ada'),
      }),
    ).rejects.toThrow('No cluster local/team-data/data-lake that you may read');
  });

  it("give one cluster's health and the objects that are not ready, the deciding object and not its rollup", async () => {
    const { registry } = setUp();
    const { output } = await registry.invoke({
      id: 'test:get-cluster',
      input: {
        managementCluster: 'local',
        namespace: 'team-payments',
        name: 'search-prod',
      },
      credentials: mockCredentials.user('user:default/ada'),
    });
    expect(output).toEqual({
      cluster: {
        managementCluster: 'local',
        namespace: 'team-payments',
        name: 'search-prod',
        api: 'aso-v1beta1',
        health: 'degraded',
        reason: 'ManagedCluster search-prod: ReconciliationBlocked',
        message: 'the resource group is missing',
        kubernetesVersion: 'v1.35.1',
      },
      notReady: [
        {
          kind: 'ManagedCluster',
          name: 'search-prod',
          health: 'degraded',
          reason: 'ReconciliationBlocked',
          message: 'the resource group is missing',
          since: '2026-12-04T06:00:00Z',
        },
      ],
      page: '/capz/clusters/local/team-payments/search-prod',
    });
    await expect(
      registry.invoke({
        id: 'test:get-cluster',
        input: { managementCluster: 'local', namespace: 'x', name: 'y' },
        credentials: mockCredentials.user('user:default/ada'),
      }),
    ).rejects.toThrow('No cluster local/x/y that you may read');
  });

  it('refuse a caller the policy denies every read', async () => {
    const { registry } = setUp({ result: AuthorizeResult.DENY });
    await expect(
      registry.invoke({
        id: 'test:list-clusters-needing-attention',
        input: {},
        credentials: mockCredentials.user('user:default/eve'),
      }),
    ).rejects.toThrow('Not allowed to read CAPZ clusters (capz.cluster.read)');
  });
});
