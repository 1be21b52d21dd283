import { buildClusterTree } from '../tree/buildTree';
import { summarizeCluster } from '../tree/summary';
import { asoManagedCluster, find, NOW } from '../tree/__fixtures__/clusters';
import { clusterAttention, clusterLifecycleFacts } from './attention';

/** An ASO-managed cluster at `version` whose objects `edit` changes, summarized. */
function summary(
  version: string,
  edit: (
    objects: ReturnType<typeof asoManagedCluster>['objects'],
  ) => void = () => {},
) {
  const { cluster, objects } = asoManagedCluster({
    namespace: 'team-pay',
    name: 'pay',
    version,
    pools: [
      { name: 'system', mode: 'System', count: 3 },
      { name: 'user', count: 2 },
    ],
  });
  edit(objects);
  const tree = buildClusterTree(cluster, objects, { now: NOW });
  return summarizeCluster('m', tree, cluster, objects);
}

describe('clusterLifecycleFacts in the summary', () => {
  it('has nothing to say of a cluster with one owner of its version and pools in step', () => {
    expect(summary('1.33.2').lifecycle).toBeUndefined();
  });

  it('notes long-term support, an auto-upgrade channel beside spec.version, and a pool AKS refuses', () => {
    const s = summary('1.33.2', objects => {
      const mc = find(objects, 'ManagedCluster', 'pay');
      mc.spec = {
        ...mc.spec,
        sku: { tier: 'Premium' },
        supportPlan: 'AKSLongTermSupport',
      };
      const cp = find(objects, 'AzureASOManagedControlPlane', 'pay');
      (cp.spec!.resources as any[])[0].spec.autoUpgradeProfile = {
        upgradeChannel: 'stable',
      };
      const pool = objects.find(
        o => o.kind === 'MachinePool' && o.metadata?.name?.endsWith('user'),
      )!;
      (pool.spec as any).template.spec.version = 'v1.29.4';
    });
    expect(s.lifecycle).toEqual({
      lts: true,
      conflicts: [expect.objectContaining({ id: 'auto-upgrade-with-version' })],
      poolSkews: [expect.objectContaining({ pool: 'pay-user', behind: 4 })],
    });
  });

  it('takes long-term support from the control plane when the cache has no ManagedCluster yet', () => {
    expect(
      clusterLifecycleFacts({
        controlPlane: {
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          kind: 'AzureASOManagedControlPlane',
          metadata: { name: 'pay' },
          spec: {
            resources: [
              {
                apiVersion: 'containerservice.azure.com/v1api20240901',
                kind: 'ManagedCluster',
                spec: {
                  sku: { tier: 'Premium' },
                  supportPlan: 'AKSLongTermSupport',
                },
              },
            ],
          },
        },
        pools: [],
      }),
    ).toEqual({ lts: true });
  });
});

describe('clusterAttention: what needs attention on a day', () => {
  it('nothing for a supported version far from its end; its support either way', () => {
    expect(
      clusterAttention(
        { api: 'aso-v1beta1', kubernetesVersion: 'v1.35.1' },
        { today: '2026-12-03' },
      ),
    ).toEqual({
      items: [],
      support: expect.objectContaining({ status: 'community', daysLeft: 118 }),
    });
  });

  it('support ending within soonDays is soon; platform support is now', () => {
    const soon = clusterAttention(
      { api: 'aso-v1beta1', kubernetesVersion: 'v1.34.2' },
      { today: '2026-11-01', soonDays: 30 },
    );
    expect(soon.items).toEqual([
      expect.objectContaining({ id: 'version-support', severity: 'soon' }),
    ]);
    expect(
      clusterAttention(
        { api: 'aso-v1beta1', kubernetesVersion: 'v1.34.2' },
        { today: '2026-11-01', soonDays: 28 },
      ).items,
    ).toEqual([]);
    expect(
      clusterAttention(
        { api: 'aso-v1beta1', kubernetesVersion: 'v1.34.2' },
        { today: '2026-12-03' },
      ).items,
    ).toEqual([
      expect.objectContaining({
        id: 'version-support',
        severity: 'now',
        message: expect.stringContaining('platform support only'),
      }),
    ]);
    expect(
      clusterAttention(
        { api: 'aso-v1beta1', kubernetesVersion: 'v1.33.2' },
        { today: '2026-12-03' },
      ).items,
    ).toEqual([
      expect.objectContaining({
        id: 'version-support',
        severity: 'now',
        message: expect.stringContaining('it is out of support'),
      }),
    ]);
  });

  it('long-term support keeps a version past its community end out of the way until the LTS end nears', () => {
    const input = {
      api: 'aso-v1beta1',
      kubernetesVersion: 'v1.33.2',
      lifecycle: { lts: true },
    };
    expect(clusterAttention(input, { today: '2026-12-03' })).toMatchObject({
      items: [],
      support: { status: 'lts' },
    });
  });

  it('the conflicts, skews and the legacy or v1alpha1 API, now before soon', () => {
    const { items } = clusterAttention(
      {
        api: 'aso-v1alpha1',
        kubernetesVersion: 'v1.35.1',
        lifecycle: {
          conflicts: [
            { id: 'upgraded-outside-capz', message: 'm1', fix: 'f1' },
          ],
          poolSkews: [
            {
              pool: 'p',
              poolVersion: 'v1.31.0',
              controlPlaneVersion: 'v1.35.1',
              behind: 4,
              message: 'm2',
              fix: 'f2',
            },
          ],
        },
      },
      { today: '2026-12-03' },
    );
    expect(items.map(i => [i.id, i.severity])).toEqual([
      ['upgraded-outside-capz', 'now'],
      ['pool-skew', 'now'],
      ['v1alpha1', 'soon'],
    ]);
    expect(items[1].pool).toBe('p');
    expect(
      clusterAttention(
        { api: 'azure-managed', kubernetesVersion: 'v1.35.1' },
        { today: '2026-12-03' },
      ).items,
    ).toEqual([
      expect.objectContaining({
        id: 'legacy-api',
        severity: 'now',
        fix: expect.stringContaining('Migrate to ASO API'),
      }),
    ]);
  });
});
