/**
 * Named seed sets for the demo and the tests (issue: "Scenarios"). Each is idempotent: seeding twice changes nothing.
 */
import type { AzureWorld } from '../azure/model.ts';
import type { Kube } from '../runtime/kube.ts';
import type { Simulator } from '../simulator.ts';
import {
  asoManagedCluster,
  azureOnlyCluster,
  credentialSecret,
  ensureNamespace,
  legacyCluster,
  type PoolSeed,
} from './seed.ts';

export const DEMO_SUBSCRIPTION = '5f1c2a9e-7d41-4b1a-9a3e-2c6d8e0f1a2b';

const systemPool = (count = 2, extra: Partial<PoolSeed> = {}): PoolSeed => ({
  name: 'system',
  mode: 'System',
  count,
  vmSize: 'Standard_D2s_v3',
  ...extra,
});
/** AKS's recommended taint for a dedicated system pool. */
const CRITICAL_ADDONS_ONLY = 'CriticalAddonsOnly=true:NoSchedule';
const userPool = (
  name: string,
  count: number,
  extra: Partial<PoolSeed> = {},
): PoolSeed => ({
  name,
  mode: 'User',
  count,
  vmSize: 'Standard_D4s_v3',
  ...extra,
});

export interface Scenario {
  name: string;
  description: string;
  seed(ctx: {
    kube: Kube;
    world: AzureWorld;
    sim: Simulator;
    subscription: string;
  }): Promise<void>;
}

export const scenarios: Scenario[] = [
  {
    name: 'healthy-aso',
    description:
      'ASO-managed clusters (v1beta1): several pools, an autoscaling pool',
    async seed({ kube, subscription }) {
      await ensureNamespace(kube, 'team-payments');
      await credentialSecret(
        kube,
        'team-payments',
        'aso-credential',
        subscription,
      );
      await asoManagedCluster(kube, {
        namespace: 'team-payments',
        name: 'payments-prod',
        // The payments team owns its clusters: its members act on them (the app's policy), the platform on all.
        owner: 'group:default/payments',
        credentialSecret: 'aso-credential',
        pools: [
          systemPool(3),
          userPool('api', 4),
          userPool('batch', 2, {
            enableAutoScaling: true,
            minCount: 1,
            maxCount: 10,
          }),
        ],
      });
      await asoManagedCluster(kube, {
        namespace: 'team-payments',
        name: 'payments-dev',
        owner: 'group:default/payments',
        credentialSecret: 'aso-credential',
        pools: [systemPool(1)],
      });
    },
  },
  {
    name: 'failing-aso',
    description:
      'an ASO-managed cluster whose ManagedCluster is blocked, with a clear reason',
    async seed({ kube, subscription, sim }) {
      await ensureNamespace(kube, 'team-search');
      await credentialSecret(
        kube,
        'team-search',
        'aso-credential',
        subscription,
      );
      await asoManagedCluster(kube, {
        namespace: 'team-search',
        name: 'search-prod',
        credentialSecret: 'aso-credential',
        pools: [systemPool(2), userPool('index', 3)],
      });
      sim.aso.forceFailure('ManagedCluster', 'team-search', 'search-prod', {
        reason: 'ReconciliationBlocked',
        severity: 'Warning',
        message:
          "Managed cluster 'search-prod' is in provisioning state 'Upgrading'; ASO will not PUT while AKS is busy.",
      });
    },
  },
  {
    name: 'alpha-referenced',
    description:
      'an ASO-managed cluster whose objects are still written as v1alpha1',
    async seed({ kube, subscription }) {
      await ensureNamespace(kube, 'team-legacy-apps');
      await credentialSecret(
        kube,
        'team-legacy-apps',
        'aso-credential',
        subscription,
      );
      await asoManagedCluster(kube, {
        namespace: 'team-legacy-apps',
        name: 'apps-alpha',
        credentialSecret: 'aso-credential',
        apiVersion: 'v1alpha1',
        pools: [systemPool(2)],
      });
    },
  },
  {
    name: 'legacy-to-migrate',
    description:
      'AzureManagedControlPlane clusters ready to migrate: several pools with labels, taints and tags; Entra-only',
    async seed({ kube, world, subscription }) {
      await ensureNamespace(kube, 'team-data');
      // rg-data-lake was made outside CAPZ (tags of its own, none of CAPZ's): the legacy controllers keep its
      // ResourceGroup on reconcile-policy skip. The cluster carries CAPZ's tags plus the control plane's additionalTags.
      await legacyCluster(kube, world, {
        namespace: 'team-data',
        name: 'data-lake',
        subscription,
        resourceGroup: 'rg-data-lake',
        resourceGroupTags: {
          'cost-center': 'data',
          owner: 'team-data@example.com',
        },
        additionalTags: { environment: 'production', team: 'data' },
        pools: [
          systemPool(3, { nodeTaints: [CRITICAL_ADDONS_ONLY] }),
          userPool('spark', 5, {
            nodeLabels: { workload: 'spark' },
            nodeTaints: ['workload=spark:NoSchedule'],
            tags: { 'cost-center': 'data-spark' },
            maxPods: 50,
            osDiskSizeGB: 256,
          }),
          userPool('ingest', 2, {
            enableAutoScaling: true,
            minCount: 2,
            maxCount: 8,
            nodeLabels: { workload: 'ingest' },
            availabilityZones: ['1', '2', '3'],
          }),
        ],
      });
      await legacyCluster(kube, world, {
        namespace: 'team-data',
        name: 'data-secure',
        subscription,
        resourceGroup: 'rg-data-secure',
        entraOnly: true,
        pools: [systemPool(2), userPool('jobs', 2)],
      });
    },
  },
  {
    name: 'azure-only',
    description:
      "AKS clusters that exist only in Azure (to adopt), with tags, labels and taints; one Entra-only; one named as Microsoft's quickstart does (myAKSCluster in My_Resource_Group)",
    async seed({ world, subscription }) {
      azureOnlyCluster(world, subscription, 'rg-analytics', 'analytics-aks', {
        resourceGroupTags: {
          'cost-center': 'analytics',
          owner: 'team-analytics@example.com',
        },
        tags: { environment: 'production', team: 'analytics' },
        pools: [
          systemPool(2, { nodeTaints: [CRITICAL_ADDONS_ONLY] }),
          userPool('etl', 3, {
            osSKU: 'AzureLinux',
            availabilityZones: ['1', '2', '3'],
            nodeLabels: { workload: 'etl', 'example.com/tier': 'batch' },
            nodeTaints: ['workload=etl:NoSchedule'],
            tags: { 'cost-center': 'analytics-etl' },
          }),
        ],
      });
      azureOnlyCluster(world, subscription, 'rg-identity', 'identity-aks', {
        entraOnly: true,
        resourceGroupTags: { 'cost-center': 'identity' },
        tags: {
          environment: 'production',
          'data-classification': 'confidential',
        },
        pools: [systemPool(3, { nodeLabels: { tier: 'system' }, maxPods: 50 })],
      });
      // An Azure name that is not a Kubernetes name (upper case, `_`), as in Microsoft's AKS quickstart.
      azureOnlyCluster(
        world,
        subscription,
        'My_Resource_Group',
        'myAKSCluster',
        {
          location: 'eastus',
          tags: { environment: 'dev' },
          pools: [
            {
              name: 'nodepool1',
              mode: 'System',
              count: 1,
              vmSize: 'Standard_DS2_v2',
            },
          ],
        },
      );
    },
  },
  {
    name: 'day2',
    description:
      'ASO-managed clusters for the day-2 actions: one a minor behind (v1.32.6, AKS offers 1.33), one in a resource group made outside CAPZ (reconcile-policy skip: a delete keeps it)',
    async seed({ kube, world, subscription }) {
      await ensureNamespace(kube, 'team-platform');
      await credentialSecret(
        kube,
        'team-platform',
        'aso-credential',
        subscription,
      );
      await asoManagedCluster(kube, {
        namespace: 'team-platform',
        name: 'platform-staging',
        version: '1.32.6',
        credentialSecret: 'aso-credential',
        pools: [systemPool(1), userPool('web', 2), userPool('jobs', 1)],
      });
      await asoManagedCluster(kube, {
        namespace: 'team-platform',
        name: 'platform-sandbox',
        credentialSecret: 'aso-credential',
        existingResourceGroup: {
          world,
          subscription,
          name: 'rg-platform-sandbox',
          tags: { 'cost-center': 'platform' },
        },
        pools: [systemPool(1)],
      });
    },
  },
  {
    name: 'fleet',
    description:
      'Six ASO-managed clusters a minor behind (v1.32.6, AKS offers 1.33), three per namespace, for a fleet upgrade in two stages (dev, then prod)',
    async seed({ kube, subscription }) {
      for (const env of ['dev', 'prod']) {
        const namespace = `team-fleet-${env}`;
        await ensureNamespace(kube, namespace);
        await credentialSecret(kube, namespace, 'aso-credential', subscription);
        for (const suffix of ['', '-2', '-3'])
          await asoManagedCluster(kube, {
            namespace,
            name: `fleet-${env}${suffix}`,
            version: '1.32.6',
            credentialSecret: 'aso-credential',
            pools: [systemPool(1), userPool('apps', 1)],
          });
      }
    },
  },
  {
    name: 'lifecycle',
    description:
      "Two clusters whose lifecycle needs attention: lifecycle-eol on v1.32.6 (its AKS community support ends 2026-03-31) and lifecycle-auto on v1.33.2 with AKS's auto-upgrade channel stable beside CAPZ's spec.version",
    async seed({ kube, subscription }) {
      // Sorted after the other demo namespaces on the clusters page (health, then namespace): the e2e specs that open
      // a cluster from the unfiltered list find it among the rows the virtualized table renders first.
      const namespace = 'team-upgrades';
      await ensureNamespace(kube, namespace);
      await credentialSecret(kube, namespace, 'aso-credential', subscription);
      await asoManagedCluster(kube, {
        namespace,
        name: 'lifecycle-eol',
        version: '1.32.6',
        credentialSecret: 'aso-credential',
        pools: [systemPool(1)],
      });
      await asoManagedCluster(kube, {
        namespace,
        name: 'lifecycle-auto',
        version: '1.33.2',
        autoUpgradeChannel: 'stable',
        credentialSecret: 'aso-credential',
        pools: [systemPool(1)],
      });
    },
  },
  {
    name: 'second-management-cluster',
    description: 'the cluster the second management cluster runs',
    async seed({ kube, subscription }) {
      await ensureNamespace(kube, 'team-edge');
      await credentialSecret(kube, 'team-edge', 'aso-credential', subscription);
      await asoManagedCluster(kube, {
        namespace: 'team-edge',
        name: 'edge-weu',
        location: 'westeurope',
        credentialSecret: 'aso-credential',
        pools: [systemPool(2), userPool('gateways', 2)],
      });
    },
  },
];

/** What the demo's first management cluster runs; the second runs `second-management-cluster`. */
export const DEMO_SCENARIOS = [
  'healthy-aso',
  'failing-aso',
  'alpha-referenced',
  'legacy-to-migrate',
  'azure-only',
  'day2',
  'fleet',
  'lifecycle',
];

export async function seedScenarios(
  names: string[],
  ctx: Parameters<Scenario['seed']>[0],
): Promise<void> {
  for (const name of names) {
    const s = scenarios.find(x => x.name === name);
    if (!s)
      throw new Error(
        `unknown scenario "${name}": choose from ${scenarios
          .map(x => x.name)
          .join(', ')}`,
      );
    await s.seed(ctx);
  }
}
