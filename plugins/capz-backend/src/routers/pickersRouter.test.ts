/**
 * The scaffolder form's pickers. Namespaces with a faked live list and watch cache; regions and Kubernetes versions
 * through the real AksDiscovery, the real @azure/arm-containerservice client and @azure/identity against the simulated
 * ARM and Entra ID (HTTPS, their own CAs), so the routes answer with what the SDK makes of ARM's wire shape: the
 * user's mistakes (a region or subscription ARM does not offer, a Secret that is no ASO credential) are 400/404 in
 * the user's words, ARM throttling a 503 with Retry-After.
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type { PermissionsService } from '@backstage/backend-plugin-api';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { AzureWorld } from '@internal/capz-sim/azure';
import express from 'express';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import {
  createHttpHeaders,
  createPipelineRequest,
  RestError,
} from '@azure/core-rest-pipeline';
import { AksDiscovery } from '../azure/AksDiscovery';
import { toAzureServiceError } from '../azure/errors';
import type { ManagementClusterConfig } from '../config/managementClusters';
import * as azureEndpoints from '../testing/azureEndpoints';
import { createPickersRouter, PickerSources, VM_SIZES } from './pickersRouter';

const auth = { Authorization: mockCredentials.user.header() };
const SUB = randomUUID();
const TENANT = randomUUID();
const SP = azureEndpoints.newServicePrincipal(TENANT);
const clusters: ManagementClusterConfig[] = [
  {
    name: 'east',
    authMethod: 'serviceAccountToken',
    url: 'https://east.example',
    serviceAccountToken: 't',
  },
  {
    name: 'west',
    authMethod: 'serviceAccountToken',
    url: 'https://west.example',
    serviceAccountToken: 't',
    namespaces: ['team-b', 'team-a'],
  },
];

let endpoints: azureEndpoints.AzureEndpoints;
let azure: AksDiscovery;

beforeAll(async () => {
  endpoints = await azureEndpoints.start({
    name: 'pickers',
    world: new AzureWorld({ operationMs: 1, subscriptions: [SUB] }),
    servicePrincipals: [SP],
    grants: { [SP.clientId]: [SUB] },
  });
  azure = new AksDiscovery({
    config: azureEndpoints.discoveryConfig(endpoints),
    logger: mockServices.logger.mock(),
    readSecret: async (
      mc,
      ns,
      name,
    ): Promise<Record<string, string> | undefined> => {
      if (mc !== 'east' || ns !== 'team-a') return undefined;
      if (name === 'aso-credential')
        return azureEndpoints.credentialSecretData(SP, SUB);
      // Cluster API's kubeconfig Secret of cluster alpha, decoded.
      if (name === 'alpha-kubeconfig')
        return { value: 'apiVersion: v1\nusers: [{user: {token: sekret}}]' };
      return undefined;
    },
    managedClusters: () => [],
  });
});

afterAll(async () => {
  await endpoints?.stop();
});

async function app(
  sources: PickerSources = {},
  o: {
    permissions?: PermissionsService;
    cached?: Record<string, Array<{ metadata: { namespace: string } }>>;
  } = {},
) {
  const logger = mockServices.logger.mock();
  return express()
    .use(
      await createPickersRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: o.permissions ?? mockServices.permissions(),
        managementClusters: clusters,
        cache: {
          list: (mc: string, kind: string) =>
            (o.cached?.[`${mc}/${kind}`] ?? []) as never,
        },
        validateResponses: true,
        azure,
        ...sources,
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
}

describe('GET /pickers/namespaces', () => {
  it('lists the namespaces live, sorted', async () => {
    const res = await request(
      await app({
        listNamespaces: async () => ['team-b', 'default', 'team-a'],
      }),
    )
      .get('/pickers/namespaces?managementCluster=east')
      .set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      managementCluster: 'east',
      source: 'live',
      items: [{ name: 'default' }, { name: 'team-a' }, { name: 'team-b' }],
    });
  });

  it('answers with the configured namespaces of a limited management cluster', async () => {
    const listNamespaces = jest.fn();
    const res = await request(await app({ listNamespaces }))
      .get('/pickers/namespaces?managementCluster=west')
      .set(auth);
    expect(res.body).toEqual({
      managementCluster: 'west',
      source: 'config',
      items: [{ name: 'team-a' }, { name: 'team-b' }],
    });
    expect(listNamespaces).not.toHaveBeenCalled();
  });

  it("falls back to the watch cache's namespaces when the backend may not list namespaces", async () => {
    const res = await request(
      await app(
        {
          listNamespaces: async () => {
            throw Object.assign(new Error('forbidden'), { code: 403 });
          },
        },
        {
          cached: {
            'east/Cluster': [{ metadata: { namespace: 'team-c' } }],
            'east/ManagedCluster': [
              { metadata: { namespace: 'team-a' } },
              { metadata: { namespace: 'team-c' } },
            ],
            // Flux's objects are watched too, but flux-system holds no cluster: it is not offered.
            'east/Kustomization': [{ metadata: { namespace: 'flux-system' } }],
            'east/GitRepository': [{ metadata: { namespace: 'flux-system' } }],
          },
        },
      ),
    )
      .get('/pickers/namespaces?managementCluster=east')
      .set(auth);
    expect(res.body).toEqual({
      managementCluster: 'east',
      source: 'watch-cache',
      items: [{ name: 'team-a' }, { name: 'team-c' }],
    });
  });

  it('keeps to the namespaces a conditional read decision allows', async () => {
    const permissions = {
      authorize: jest.fn(),
      authorizeConditional: async () => [
        {
          result: AuthorizeResult.CONDITIONAL,
          pluginId: 'capz',
          resourceType: 'capz-cluster',
          conditions: {
            rule: 'IS_IN_NAMESPACE',
            resourceType: 'capz-cluster',
            params: { namespaces: ['team-a'] },
          },
        },
      ],
    } as unknown as PermissionsService;
    const res = await request(
      await app(
        { listNamespaces: async () => ['team-a', 'team-b'] },
        { permissions },
      ),
    )
      .get('/pickers/namespaces?managementCluster=east')
      .set(auth);
    expect(res.body.items).toEqual([{ name: 'team-a' }]);
    // And the Azure pickers refuse another namespace.
    const denied = await request(await app({}, { permissions }))
      .get(
        '/pickers/regions?managementCluster=east&namespace=team-b&credentialSecret=aso-credential',
      )
      .set(auth);
    expect(denied.status).toBe(403);
  });

  it('answers 404 for an unknown management cluster and 403 when reading is denied', async () => {
    const served = await app({ listNamespaces: async () => [] });
    expect(
      (
        await request(served)
          .get('/pickers/namespaces?managementCluster=north')
          .set(auth)
      ).status,
    ).toBe(404);
    const denied = await app(
      {},
      {
        permissions: mockServices.permissions({
          result: AuthorizeResult.DENY,
        }),
      },
    );
    expect(
      (
        await request(denied)
          .get('/pickers/namespaces?managementCluster=east')
          .set(auth)
      ).status,
    ).toBe(403);
  });
});

describe('GET /pickers/kubernetes-versions (simulated ARM)', () => {
  it('answers the GA versions of the region newest first with the default marked and previews hidden', async () => {
    const res = await request(await app())
      .get(
        '/pickers/kubernetes-versions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential&location=westeurope',
      )
      .set(auth);
    expect(res.status).toBe(200);
    expect(res.body.subscriptionId).toBe(SUB);
    expect(res.body.previewsHidden).toBe(1);
    expect(res.body.items[0]).toEqual({
      version: 'v1.33.2',
      minor: '1.33',
      isDefault: true,
      supportPlans: ['KubernetesOfficial'],
    });
    expect(
      res.body.items.some((v: { version: string }) =>
        v.version.startsWith('v1.34'),
      ),
    ).toBe(false);
  });

  it('answers 400 for a region that does not exist, listing the regions ARM offers, and checks its input (400)', async () => {
    const served = await app();
    const nowhere = await request(served)
      .get(
        '/pickers/kubernetes-versions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential&location=nowhere',
      )
      .set(auth);
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.error).toMatchObject({
      name: 'AzureRequestError',
      message: `"nowhere" is not a region of subscription ${SUB} (ARM: NoRegisteredProviderFound); its regions are australiasoutheast, eastus, northeurope, swedencentral, uksouth, westeurope, westus2`,
    });
    const bad = await request(served)
      .get(
        '/pickers/kubernetes-versions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential&location=West%20Europe',
      )
      .set(auth);
    expect(bad.status).toBe(400);
  });

  it('answers 404 for a credential Secret that does not exist, and 400 without Azure discovery', async () => {
    const missing = await request(await app())
      .get(
        '/pickers/kubernetes-versions?managementCluster=east&namespace=team-a&credentialSecret=nope&location=westeurope',
      )
      .set(auth);
    expect(missing.status).toBe(404);
    const off = await request(await app({ azure: undefined }))
      .get(
        '/pickers/kubernetes-versions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential&location=westeurope',
      )
      .set(auth);
    expect(off.status).toBe(400);
    expect(off.body.error.message).toMatch(/capz.azureDiscovery/);
  });
});

describe('GET /pickers/regions and /pickers/vm-sizes', () => {
  it("lists the credential's subscription regions", async () => {
    const res = await request(await app())
      .get(
        '/pickers/regions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential',
      )
      .set(auth);
    expect(res.status).toBe(200);
    expect(res.body.subscriptionId).toBe(SUB);
    expect(res.body.items).toContainEqual({
      name: 'westeurope',
      displayName: 'West Europe',
    });
  });

  it('answers 404 for a subscription the credential cannot see, in those words', async () => {
    const gone = randomUUID();
    const res = await request(await app())
      .get(
        `/pickers/regions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential&subscriptionId=${gone}`,
      )
      .set(auth);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(
      /^The subscription is not one the credential can see \(ARM answered SubscriptionNotFound while listing the regions of subscription /,
    );
  });

  it('answers 400 for the CAPI kubeconfig Secret as the credential, saying what an ASO credential holds', async () => {
    const res = await request(await app())
      .get(
        '/pickers/regions?managementCluster=east&namespace=team-a&credentialSecret=alpha-kubeconfig',
      )
      .set(auth);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Secret team-a/alpha-kubeconfig is the Cluster API kubeconfig Secret of cluster alpha (type cluster.x-k8s.io/secret, key value), not an ASO credential: an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID, and AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE (with neither, ASO uses workload identity)',
    );
    expect(JSON.stringify(res.body)).not.toContain('sekret');
  });

  it('answers 503 with Retry-After while ARM is throttling, telling the user when to try again', async () => {
    const throttled = toAzureServiceError(
      new RestError('throttled', {
        code: 'TooManyRequests',
        statusCode: 429,
        response: {
          status: 429,
          headers: createHttpHeaders({ 'retry-after': '42' }),
          request: createPipelineRequest({ url: 'https://arm.example' }),
          bodyAsText: null,
        },
      }),
      'listing the regions of subscription s',
    );
    const res = await request(
      await app({
        azure: {
          listLocations: async () => {
            throw throttled;
          },
          listKubernetesVersions: async () => {
            throw throttled;
          },
        },
      }),
    )
      .get(
        '/pickers/regions?managementCluster=east&namespace=team-a&credentialSecret=aso-credential',
      )
      .set(auth);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('42');
    expect(res.body.error.message).toMatch(
      /^Azure is throttling requests; try again in 42 s \(ARM answered 429 TooManyRequests while listing the regions of subscription s\)$/,
    );
  });

  it('lists the curated VM sizes', async () => {
    const res = await request(await app())
      .get('/pickers/vm-sizes')
      .set(auth);
    expect(res.body.items).toEqual(VM_SIZES);
  });
});
