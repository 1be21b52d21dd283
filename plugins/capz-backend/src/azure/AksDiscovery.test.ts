/**
 * AKS discovery end to end against the simulated Azure, in process: the real @azure/identity ClientSecretCredential
 * gets tokens from the simulated Entra ID, and the real @azure/arm-containerservice client reads the simulated ARM
 * endpoint with them (both HTTPS with their own CAs, trusted through `caData` only). No Kubernetes: the Secrets and
 * the watch cache's ASO objects are handed in directly.
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  ARM_RESOURCE,
  AzureWorld,
  type ArmServer,
  type EntraSim,
} from '@internal/capz-sim/azure';
import type { ObservedObject } from '@capz-backstage/plugin-capz-common';
import { randomUUID } from 'node:crypto';
import * as azureEndpoints from '../testing/azureEndpoints';
import { AksDiscovery } from './AksDiscovery';
import {
  AzureCredentialError,
  AzureRequestError,
  AzureServiceError,
} from './errors';

const SUB = randomUUID();
const OTHER_SUB = randomUUID();
const TENANT = randomUUID();
const READER = azureEndpoints.newServicePrincipal(TENANT, 'reader');
const OUTSIDER = azureEndpoints.newServicePrincipal(TENANT, 'outsider');
const MC = 'local';

let endpoints: azureEndpoints.AzureEndpoints;
let world: AzureWorld;
let entra: EntraSim;
let arm: ArmServer;
let secrets: Record<string, Record<string, string>>;
let managedClusters: ObservedObject[];
let resourceGroups: ObservedObject[];
const logger = mockServices.logger.mock();

function discovery(
  extra: Record<string, unknown> = {},
  onRead: (ref: string) => void = () => undefined,
): AksDiscovery {
  return new AksDiscovery({
    config: azureEndpoints.discoveryConfig(endpoints, extra),
    logger,
    readSecret: async (mc, ns, name) => {
      onRead(`${mc}/${ns}/${name}`);
      return mc === MC ? secrets[`${ns}/${name}`] : undefined;
    },
    managedClusters: mc => (mc === MC ? managedClusters : []),
    resourceGroups: mc => (mc === MC ? resourceGroups : []),
  });
}

const aso = (
  kind: string,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  metadata: ObservedObject['metadata'] = {},
): ObservedObject => ({
  apiVersion:
    kind === 'ResourceGroup'
      ? 'resources.azure.com/v1api20200601'
      : 'containerservice.azure.com/v1api20240901',
  kind,
  metadata: { namespace, name, ...metadata },
  spec,
});

beforeAll(async () => {
  world = new AzureWorld({ operationMs: 1, subscriptions: [SUB, OTHER_SUB] });
  for (const rg of ['rg-identity', 'rg-payments', 'rg-byid'])
    world.putResourceGroup(SUB, rg, { location: 'westeurope' });
  world.putResourceGroup(SUB, 'rg-analytics', {
    location: 'westeurope',
    tags: { 'cost-center': 'analytics', owner: 'team-analytics' },
  });
  world.putManagedCluster(SUB, 'rg-analytics', 'analytics-aks', {
    location: 'westeurope',
    kubernetesVersion: '1.33.2',
    dnsPrefix: 'analytics',
    tags: { environment: 'production' },
    agentPoolProfiles: [
      {
        name: 'system',
        mode: 'System',
        count: 2,
        vmSize: 'Standard_D2s_v3',
        nodeTaints: ['CriticalAddonsOnly=true:NoSchedule'],
      },
      {
        name: 'etl',
        mode: 'User',
        count: 3,
        vmSize: 'Standard_D4s_v3',
        enableAutoScaling: true,
        minCount: 1,
        maxCount: 6,
        osSKU: 'AzureLinux',
        availabilityZones: ['1', '2', '3'],
        maxPods: 50,
        osDiskSizeGB: 256,
        nodeLabels: { workload: 'etl' },
        nodeTaints: ['workload=etl:NoSchedule'],
        tags: { 'cost-center': 'analytics-etl' },
      },
    ],
  });
  world.putManagedCluster(SUB, 'rg-identity', 'identity-aks', {
    location: 'northeurope',
    disableLocalAccounts: true,
    aadProfile: { managed: true, enableAzureRBAC: true },
    agentPoolProfiles: [
      { name: 'system', mode: 'System', count: 3, vmSize: 'Standard_D2s_v3' },
    ],
  });
  world.putManagedCluster(SUB, 'rg-payments', 'Payments-Prod', {
    location: 'westeurope',
    agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
  });
  world.putManagedCluster(SUB, 'rg-byid', 'by-id', {
    location: 'westeurope',
    agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
  });
  // Same name as the ASO-managed one, but in another group: not managed.
  world.putManagedCluster(SUB, 'rg-analytics', 'payments-prod', {
    location: 'westeurope',
    agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
  });
  world.putResourceGroup(OTHER_SUB, 'rg-other', { location: 'eastus' });
  world.putManagedCluster(OTHER_SUB, 'rg-other', 'other-aks', {
    location: 'eastus',
    agentPoolProfiles: [{ name: 'np', mode: 'System', count: 1 }],
  });

  endpoints = await azureEndpoints.start({
    name: 'aks-discovery',
    world,
    servicePrincipals: [READER, OUTSIDER],
    grants: { [READER.clientId]: [SUB] },
  });
  ({ entra, arm } = endpoints);

  secrets = {
    'team-a/aso-credential': azureEndpoints.credentialSecretData(READER, SUB),
    'team-a/wrong-secret': azureEndpoints.credentialSecretData(
      READER,
      SUB,
      'not-the-secret',
    ),
    'team-a/outsider': azureEndpoints.credentialSecretData(OUTSIDER, SUB),
    'team-a/workload': {
      AZURE_SUBSCRIPTION_ID: SUB,
      AZURE_TENANT_ID: TENANT,
      AZURE_CLIENT_ID: READER.clientId,
      AUTH_MODE: 'workloadidentity',
    },
  };
  resourceGroups = [
    aso('ResourceGroup', 'team-pay', 'payments', {
      azureName: 'rg-payments',
      location: 'westeurope',
    }),
  ];
  managedClusters = [
    // By azureName and its owner group's azureName (ASO has not recorded an id yet).
    aso(
      'ManagedCluster',
      'team-pay',
      'payments-prod',
      { azureName: 'payments-prod', owner: { name: 'payments' } },
      {
        labels: { 'cluster.x-k8s.io/cluster-name': 'payments' },
      },
    ),
    // By the resource id ASO recorded.
    aso(
      'ManagedCluster',
      'team-b',
      'renamed',
      { owner: { name: 'missing-group' } },
      {
        annotations: {
          'serviceoperator.azure.com/resource-id': `/subscriptions/${SUB}/resourceGroups/rg-byid/providers/Microsoft.ContainerService/managedClusters/by-id`,
        },
        ownerReferences: [
          {
            kind: 'AzureASOManagedControlPlane',
            name: 'byid-cluster',
            controller: true,
          },
        ],
      },
    ),
  ];
});

afterAll(async () => {
  await endpoints?.stop();
});

describe('AksDiscovery.listClusters', () => {
  it('lists the clusters of the Secret subscription with pools and every field adoption writes back, and Entra-only', async () => {
    const issuedBefore = entra.tokensIssued;
    const res = await discovery().listClusters({
      managementCluster: MC,
      namespace: 'team-a',
      credentialSecret: 'aso-credential',
    });
    expect(res.subscriptionId).toBe(SUB);
    expect(res.items.map(c => `${c.resourceGroup}/${c.name}`)).toEqual([
      'rg-analytics/analytics-aks',
      'rg-analytics/payments-prod',
      'rg-byid/by-id',
      'rg-identity/identity-aks',
      'rg-payments/Payments-Prod',
    ]);
    const analytics = res.items.find(c => c.name === 'analytics-aks')!;
    expect(analytics).toEqual({
      subscriptionId: SUB,
      resourceGroup: 'rg-analytics',
      name: 'analytics-aks',
      location: 'westeurope',
      kubernetesVersion: '1.33.2',
      dnsPrefix: 'analytics',
      provisioningState: 'Succeeded',
      entraOnly: false,
      tags: { environment: 'production' },
      identityType: 'SystemAssigned',
      agentPools: [
        {
          name: 'system',
          mode: 'System',
          vmSize: 'Standard_D2s_v3',
          count: 2,
          enableAutoScaling: false,
          osType: 'Linux',
          osSKU: 'Ubuntu',
          orchestratorVersion: '1.33.2',
          maxPods: 30,
          osDiskSizeGB: 128,
          nodeTaints: ['CriticalAddonsOnly=true:NoSchedule'],
        },
        {
          name: 'etl',
          mode: 'User',
          vmSize: 'Standard_D4s_v3',
          count: 3,
          enableAutoScaling: true,
          minCount: 1,
          maxCount: 6,
          osType: 'Linux',
          osSKU: 'AzureLinux',
          orchestratorVersion: '1.33.2',
          availabilityZones: ['1', '2', '3'],
          maxPods: 50,
          osDiskSizeGB: 256,
          nodeLabels: { workload: 'etl' },
          nodeTaints: ['workload=etl:NoSchedule'],
          tags: { 'cost-center': 'analytics-etl' },
        },
      ],
    });
    expect(res.items.find(c => c.name === 'identity-aks')).toMatchObject({
      entraOnly: true,
      location: 'northeurope',
      aadProfile: { managed: true, enableAzureRBAC: true },
    });
    // The token came from the simulated Entra ID, for ARM.
    expect(entra.tokensIssued).toBeGreaterThan(issuedBefore);
    expect(entra.issued.at(-1)).toMatchObject({
      clientId: READER.clientId,
      audience: ARM_RESOURCE,
    });
  });

  it('marks the clusters an ASO ManagedCluster already points at, by owner group or by resource id', async () => {
    const res = await discovery().listClusters({
      managementCluster: MC,
      namespace: 'team-a',
      credentialSecret: 'aso-credential',
    });
    const managedBy = Object.fromEntries(
      res.items.map(c => [`${c.resourceGroup}/${c.name}`, c.managedBy]),
    );
    expect(managedBy).toEqual({
      'rg-analytics/analytics-aks': undefined,
      'rg-analytics/payments-prod': undefined,
      'rg-byid/by-id': {
        namespace: 'team-b',
        name: 'renamed',
        cluster: 'byid-cluster',
      },
      'rg-identity/identity-aks': undefined,
      'rg-payments/Payments-Prod': {
        namespace: 'team-pay',
        name: 'payments-prod',
        cluster: 'payments',
      },
    });
  });

  it('reports a wrong client secret with Entra ID code AADSTS7000215', async () => {
    const err = await discovery()
      .listClusters({
        managementCluster: MC,
        namespace: 'team-a',
        credentialSecret: 'wrong-secret',
      })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      service: 'Entra ID',
      code: 'AADSTS7000215',
      statusCode: 502,
    });
    expect(err.message).toMatch(
      /^Entra ID refused the credential while listing AKS clusters in subscription .* credential Secret team-a\/wrong-secret \(client secret, tenant .*\): AADSTS7000215: Invalid client secret provided/,
    );
    expect(err.message).not.toContain('not-the-secret');
    expect(JSON.stringify(logger.warn.mock.calls)).not.toContain(
      'not-the-secret',
    );
  });

  it('reports a credential without access to the subscription as AuthorizationFailed', async () => {
    const err = await discovery()
      .listClusters({
        managementCluster: MC,
        namespace: 'team-a',
        credentialSecret: 'outsider',
      })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      service: 'ARM',
      code: 'AuthorizationFailed',
      statusCode: 502,
    });
    // ARM's own words, not the pager's "Pagination failed with unexpected statusCode 403".
    expect(err.message).toMatch(
      new RegExp(
        `^ARM answered AuthorizationFailed while listing AKS clusters in subscription ${SUB} .*: The client '[0-9a-f-]+' with object id '[0-9a-f-]+' does not have authorization to perform action 'Microsoft.ContainerService/managedClusters/read'`,
      ),
    );
  });

  it('explains why a workload-identity Secret cannot be used, and a missing Secret', async () => {
    const d = discovery();
    const wi = await d
      .listClusters({
        managementCluster: MC,
        namespace: 'team-a',
        credentialSecret: 'workload',
      })
      .catch(e => e);
    expect(wi).toBeInstanceOf(AzureCredentialError);
    expect(wi.statusCode).toBe(400);
    expect(wi.message).toMatch(
      /team-a\/workload uses workload identity .* set capz.azureDiscovery.credential to "default"/,
    );
    const missing = await d
      .listClusters({
        managementCluster: MC,
        namespace: 'team-a',
        credentialSecret: 'nope',
      })
      .catch(e => e);
    expect(missing).toBeInstanceOf(AzureCredentialError);
    expect(missing.statusCode).toBe(404);
    expect(missing.message).toBe(
      'ASO credential Secret team-a/nope was not found on management cluster local',
    );
  });

  it('refuses an ARM endpoint whose certificate is not trusted', async () => {
    const err = await discovery({ caData: entra.caPem })
      .listClusters({
        managementCluster: MC,
        namespace: 'team-a',
        credentialSecret: 'aso-credential',
      })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(err.message).toMatch(
      /^Could not reach ARM while listing AKS clusters .*: unable to verify the first certificate.* trust its CA with capz.azureDiscovery.caData$/,
    );
  });
});

describe('AksDiscovery.clusterExists', () => {
  const q = {
    managementCluster: MC,
    credential: { namespace: 'team-a', name: 'aso-credential' },
    subscriptionId: SUB,
  };

  it('finds a cluster with all its pools', async () => {
    const r = await discovery().clusterExists({
      ...q,
      resourceGroup: 'rg-analytics',
      name: 'analytics-aks',
      agentPools: ['system', 'ETL'],
    });
    expect(r).toEqual({
      exists: true,
      missingPools: [],
      observed: `AKS cluster rg-analytics/analytics-aks in subscription ${SUB} exists (Succeeded) with pools system, etl`,
    });
  });

  it('names the pools a cluster lacks', async () => {
    const r = await discovery().clusterExists({
      ...q,
      resourceGroup: 'rg-analytics',
      name: 'analytics-aks',
      agentPools: ['system', 'gpu'],
    });
    expect(r.exists).toBe(true);
    expect(r.missingPools).toEqual(['gpu']);
    expect(r.observed).toMatch(/missing pools: gpu$/);
  });

  it('answers exists: false for a missing cluster or group', async () => {
    const d = discovery();
    const cluster = await d.clusterExists({
      ...q,
      resourceGroup: 'rg-analytics',
      name: 'gone',
      agentPools: ['system'],
    });
    expect(cluster).toEqual({
      exists: false,
      missingPools: ['system'],
      observed: `AKS cluster rg-analytics/gone in subscription ${SUB} does not exist (ARM: ResourceNotFound)`,
    });
    const group = await d.clusterExists({
      ...q,
      resourceGroup: 'rg-gone',
      name: 'analytics-aks',
    });
    expect(group).toMatchObject({
      exists: false,
      missingPools: [],
      observed: expect.stringContaining('ResourceGroupNotFound'),
    });
  });

  it('throws for a subscription the credential may not read', async () => {
    await expect(
      discovery().clusterExists({
        ...q,
        subscriptionId: OTHER_SUB,
        resourceGroup: 'rg-other',
        name: 'other-aks',
      }),
    ).rejects.toMatchObject({
      name: 'AzureServiceError',
      code: 'AuthorizationFailed',
      message: expect.stringContaining(
        `does not have authorization to perform action 'Microsoft.ContainerService/managedClusters/read' over scope '/subscriptions/${OTHER_SUB}/`,
      ),
    });
  });
});

describe('AksDiscovery.resourceGroup', () => {
  const q = {
    managementCluster: MC,
    namespace: 'team-a',
    credentialSecret: 'aso-credential',
    subscriptionId: SUB,
  };

  it('reads the location and tags of a resource group, with a token for ARM from the simulated Entra ID', async () => {
    world.putResourceGroup(SUB, 'rg-elsewhere', { location: 'swedencentral' });
    const issuedBefore = entra.tokensIssued;
    const d = discovery();
    await expect(
      d.resourceGroup({ ...q, resourceGroup: 'rg-elsewhere' }),
    ).resolves.toEqual({ location: 'swedencentral', tags: {} });
    // ARM matches group names case-insensitively.
    await expect(
      d.resourceGroup({ ...q, resourceGroup: 'RG-Analytics' }),
    ).resolves.toEqual({
      location: 'westeurope',
      tags: { 'cost-center': 'analytics', owner: 'team-analytics' },
    });
    expect(entra.tokensIssued).toBeGreaterThan(issuedBefore);
    expect(entra.issued.at(-1)).toMatchObject({
      clientId: READER.clientId,
      audience: ARM_RESOURCE,
    });
  });

  it('answers undefined for a group that does not exist', async () => {
    await expect(
      discovery().resourceGroup({ ...q, resourceGroup: 'rg-gone' }),
    ).resolves.toBeUndefined();
  });

  it("throws AzureServiceError with ARM's words for a subscription the credential may not read", async () => {
    const err = await discovery()
      .resourceGroup({
        ...q,
        subscriptionId: OTHER_SUB,
        resourceGroup: 'rg-other',
      })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      service: 'ARM',
      code: 'AuthorizationFailed',
      statusCode: 502,
    });
    expect(err.message).toMatch(
      new RegExp(
        `^ARM answered AuthorizationFailed while reading resource group rg-other in subscription ${OTHER_SUB} with credential Secret team-a/aso-credential .*'Microsoft.Resources/subscriptions/resourceGroups/read'`,
      ),
    );
  });

  it('throws for a wrong client secret (Entra ID) and for an untrusted ARM certificate', async () => {
    await expect(
      discovery().resourceGroup({
        ...q,
        credentialSecret: 'wrong-secret',
        resourceGroup: 'rg-analytics',
      }),
    ).rejects.toMatchObject({
      name: 'AzureServiceError',
      service: 'Entra ID',
      code: 'AADSTS7000215',
    });
    await expect(
      discovery({ caData: entra.caPem }).resourceGroup({
        ...q,
        resourceGroup: 'rg-analytics',
      }),
    ).rejects.toMatchObject({
      name: 'AzureServiceError',
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });
});

describe('AksDiscovery.listKubernetesVersions (the real SDK against the simulated ARM)', () => {
  const q = {
    managementCluster: MC,
    namespace: 'team-a',
    credentialSecret: 'aso-credential',
  };

  it('lists every GA patch newest first, marks the default minor’s newest patch, hides previews', async () => {
    const res = await discovery().listKubernetesVersions({
      ...q,
      location: 'westeurope',
    });
    expect(res.subscriptionId).toBe(SUB);
    expect(res.location).toBe('westeurope');
    expect(res.items.map(v => v.version)).toEqual([
      'v1.33.2',
      'v1.33.1',
      'v1.32.6',
      'v1.32.5',
      'v1.31.10',
      'v1.31.9',
    ]);
    expect(res.items.filter(v => v.isDefault).map(v => v.version)).toEqual([
      'v1.33.2',
    ]);
    expect(res.items.find(v => v.version === 'v1.31.9')).toMatchObject({
      minor: '1.31',
      supportPlans: ['KubernetesOfficial', 'AKSLongTermSupport'],
    });
    expect(res.previewsHidden).toBe(1);
  });

  it("reports a region that is not the subscription's as the user's mistake (400) listing its regions, and a subscription the credential may not read", async () => {
    const moon = await discovery()
      .listKubernetesVersions({ ...q, location: 'moon' })
      .catch(e => e);
    expect(moon).toBeInstanceOf(AzureRequestError);
    expect(moon).toMatchObject({
      statusCode: 400,
      code: 'NoRegisteredProviderFound',
      field: 'location',
      offered: [
        'australiasoutheast',
        'eastus',
        'northeurope',
        'swedencentral',
        'uksouth',
        'westeurope',
        'westus2',
      ],
    });
    expect(moon.message).toBe(
      `"moon" is not a region of subscription ${SUB} (ARM: NoRegisteredProviderFound); its regions are australiasoutheast, eastus, northeurope, swedencentral, uksouth, westeurope, westus2`,
    );
    await expect(
      discovery().listKubernetesVersions({
        ...q,
        location: 'westeurope',
        subscriptionId: OTHER_SUB,
      }),
    ).rejects.toMatchObject({ code: 'AuthorizationFailed' });
  });
});

describe('AksDiscovery.listLocations', () => {
  it("lists the subscription's physical regions by display name", async () => {
    const res = await discovery().listLocations({
      managementCluster: MC,
      namespace: 'team-a',
      credentialSecret: 'aso-credential',
    });
    expect(res.subscriptionId).toBe(SUB);
    expect(res.items).toContainEqual({
      name: 'westeurope',
      displayName: 'West Europe',
    });
    expect(res.items.map(r => r.displayName)).toEqual(
      [...res.items.map(r => r.displayName)].sort((a, b) => a.localeCompare(b)),
    );
  });
});

describe('AksDiscovery: what the request names that ARM does not offer', () => {
  const q = {
    managementCluster: MC,
    namespace: 'team-a',
    credentialSecret: 'aso-credential',
  };

  it('answers 404 for a subscription ARM does not know, and 400 for one that is not an id', async () => {
    const gone = randomUUID();
    const err = await discovery()
      .listLocations({ ...q, subscriptionId: gone })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureRequestError);
    expect(err).toMatchObject({
      statusCode: 404,
      code: 'SubscriptionNotFound',
      field: 'subscriptionId',
    });
    expect(err.message).toMatch(
      new RegExp(
        `^The subscription is not one the credential can see \\(ARM answered SubscriptionNotFound while listing the regions of subscription ${gone} with credential Secret team-a/aso-credential .*\\): The subscription '${gone}' could not be found\\.$`,
      ),
    );
    const versions = await discovery()
      .listKubernetesVersions({
        ...q,
        subscriptionId: gone,
        location: 'westeurope',
      })
      .catch(e => e);
    expect(versions).toMatchObject({
      name: 'AzureRequestError',
      statusCode: 404,
    });
  });

  it("reads a credential's regions once, not once a request", async () => {
    const d = discovery();
    const seen = () =>
      Object.entries(arm.apiVersionsSeen())
        .filter(([k]) =>
          k.startsWith('GET Microsoft.Resources/subscriptions/locations '),
        )
        .reduce((n, [, v]) => n + v, 0);
    const before = seen();
    for (let i = 0; i < 3; i++) await d.listLocations(q);
    await d.listKubernetesVersions({ ...q, location: 'nowhere' }).catch(e => e);
    expect(seen() - before).toBe(1);
  });

  it('refuses the CAPI kubeconfig Secret as a credential (400), naming it, never its value', async () => {
    secrets['team-a/alpha-kubeconfig'] = {
      value: 'apiVersion: v1\nusers: [{user: {token: sekret}}]',
    };
    const err = await discovery()
      .listClusters({ ...q, credentialSecret: 'alpha-kubeconfig' })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureCredentialError);
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(
      /^Secret team-a\/alpha-kubeconfig is the Cluster API kubeconfig Secret of cluster alpha \(type cluster.x-k8s.io\/secret, key value\), not an ASO credential: an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, /,
    );
    expect(err.message).not.toContain('sekret');
  });
});

describe('AksDiscovery: a fake ARM in front of the simulated one (throttling, the subscriptions list)', () => {
  /** ARM with queued throttling answers (then the simulated ARM's own); every request is counted. */
  let front: azureEndpoints.FaultFront;
  let frontUrl: string;
  const q = {
    managementCluster: MC,
    namespace: 'team-a',
    credentialSecret: 'aso-credential',
  };

  beforeAll(async () => {
    front = await endpoints.startFront('arm', {
      // ARM's Subscriptions - List, which the simulated ARM does not serve: what READER can see.
      serve: (req, res) => {
        if (!req.url?.startsWith('/subscriptions?')) return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            value: [
              {
                id: `/subscriptions/${SUB}`,
                subscriptionId: SUB,
                displayName: 'Platform',
                state: 'Enabled',
              },
            ],
          }),
        );
        return true;
      },
    });
    frontUrl = front.url;
  });

  beforeEach(() => front.reset());
  afterEach(() => front.reset());

  it('gives up a request ARM never answers at its bound: a 503 that says so, not a route held open', async () => {
    front.faults = [{ status: 0 }];
    const err = await discovery({
      resourceManagerEndpoint: frontUrl,
      requestTimeoutSeconds: 1,
    })
      .listKubernetesVersions({ ...q, location: 'westeurope' })
      .catch(e => e);
    // Not retried: one request, held open until the bound, then the answer.
    expect(front.requests).toBe(1);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({ statusCode: 503, retryAfterSeconds: 10 });
    expect(err.message).toMatch(
      /^Azure did not answer in time; try again in 10 s \(ARM gave no answer while listing the Kubernetes versions of westeurope/,
    );
  });

  it('waits a short Retry-After and tries once more', async () => {
    front.faults = [{ status: 429, headers: { 'retry-after': '1' } }];
    const started = Date.now();
    const res = await discovery({
      resourceManagerEndpoint: frontUrl,
    }).listKubernetesVersions({ ...q, location: 'westeurope' });
    expect(res.items.length).toBeGreaterThan(0);
    expect(front.requests).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('answers 503 with the wait ARM asks for when it is longer than a few seconds, without waiting', async () => {
    front.faults = [{ status: 429, headers: { 'retry-after': '30' } }];
    const err = await discovery({ resourceManagerEndpoint: frontUrl })
      .listKubernetesVersions({ ...q, location: 'westeurope' })
      .catch(e => e);
    // Not the 30 s ARM asked for: asked once (the SDK sleeps only before a retry), without a bound on wall time.
    expect(front.requests).toBe(1);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      statusCode: 503,
      retryAfterSeconds: 30,
      code: 'TooManyRequests',
    });
    expect(err.message).toMatch(
      /^Azure is throttling requests; try again in 30 s \(ARM answered 429 TooManyRequests while listing the Kubernetes versions of westeurope /,
    );
  });

  it('names the subscriptions the credential can see when the one asked for is not among them (404)', async () => {
    const gone = randomUUID();
    const d = discovery({ resourceManagerEndpoint: frontUrl });
    const err = await d
      .listLocations({ ...q, subscriptionId: gone })
      .catch(e => e);
    expect(err).toBeInstanceOf(AzureRequestError);
    expect(err).toMatchObject({
      statusCode: 404,
      code: 'SubscriptionNotFound',
      offered: [SUB],
    });
    expect(err.message).toMatch(
      new RegExp(
        `could not be found\\. The subscriptions it can see: ${SUB} \\(Platform\\)$`,
      ),
    );
    // The Secret's own subscription, listing its clusters: the same.
    secrets['team-a/gone-sub'] = azureEndpoints.credentialSecretData(
      READER,
      gone,
    );
    const listed = await d
      .listClusters({ ...q, credentialSecret: 'gone-sub' })
      .catch(e => e);
    expect(listed).toMatchObject({
      name: 'AzureRequestError',
      statusCode: 404,
      offered: [SUB],
    });
  });

  it('after one retry, answers 503 (not 502) for a throttled list of clusters and regions', async () => {
    front.faults = [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '1' } },
    ];
    const err = await discovery({ resourceManagerEndpoint: frontUrl })
      .listClusters(q)
      .catch(e => e);
    expect(front.requests).toBe(2);
    expect(err).toMatchObject({
      name: 'AzureServiceError',
      statusCode: 503,
      retryAfterSeconds: 1,
    });
    expect(err.message).toMatch(
      /^Azure is throttling requests; try again in 1 s/,
    );
    front.faults = [{ status: 503, headers: { 'retry-after': '20' } }];
    const regions = await discovery({ resourceManagerEndpoint: frontUrl })
      .listLocations(q)
      .catch(e => e);
    expect(regions).toMatchObject({
      name: 'AzureServiceError',
      statusCode: 503,
      retryAfterSeconds: 20,
    });
    expect(regions.message).toMatch(/^Azure is unavailable; try again in 20 s/);
  });
});

describe('AksDiscovery: reading the credential Secret', () => {
  const q = {
    managementCluster: MC,
    namespace: 'team-a',
    credentialSecret: 'aso-credential',
    resourceGroup: 'rg-analytics',
    name: 'analytics-aks',
  };
  /** A discovery whose Secret reads are counted. */
  const counted = () => {
    const reads: string[] = [];
    return { d: discovery({}, ref => reads.push(ref)), reads };
  };

  it('reads it afresh for every request, so a Secret just fixed is used at once', async () => {
    const { d, reads } = counted();
    await d.listClusterUserCredential(q);
    await d.listClusterUserCredential(q);
    expect(reads).toEqual([
      `${MC}/team-a/aso-credential`,
      `${MC}/team-a/aso-credential`,
    ]);
  });

  it('reads it once for background work over many clusters that accepts an older read, and again when that is too old', async () => {
    const { d, reads } = counted();
    const texts = await Promise.all(
      [1, 2, 3].map(() =>
        d.listClusterUserCredential(q, { secretMaxAgeMs: 60_000 }),
      ),
    );
    expect(texts.every(t => t.includes('analytics'))).toBe(true);
    expect(reads).toEqual([`${MC}/team-a/aso-credential`]);
    await d.listClusterUserCredential(q, { secretMaxAgeMs: 60_000 });
    expect(reads).toHaveLength(1);
    // A read older than the caller accepts is done again.
    const now = Date.now();
    const later = jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    try {
      await d.listClusterUserCredential(q, { secretMaxAgeMs: 60_000 });
    } finally {
      later.mockRestore();
    }
    expect(reads).toHaveLength(2);
  });
});
