/**
 * ARM throttling as the user meets it, through the backend's real routes composed as plugin.ts composes them (the main
 * router with the jobs routes and the pickers, then the day-2 router, then Backstage's error handler): AKS discovery
 * for adoption, the region and Kubernetes version pickers, a cluster's upgrade options and the kubeconfig download.
 * ARM is a real local HTTPS server in front of the simulated ARM (the simulated Entra ID issues the tokens, the real
 * @azure/arm-containerservice client and pipeline make the calls): it answers 429 or 503 with or without Retry-After
 * to the next requests, then passes them on. Each route must wait a short Retry-After once and answer with what the
 * retry read; a long wait (or none) must be a prompt 503 with `Retry-After` and a message saying when to try again;
 * never a second retry, a 500/502, or a wait as long as ARM asks (docs/azure-facts.md#arm-throttling).
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  generateAksAsoClusterManifests,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { AzureWorld } from '@internal/capz-sim/azure';
import express from 'express';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AksDiscovery } from '../azure/AksDiscovery';
import { MAX_RETRY_WAIT_SECONDS } from '../azure/errors';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { ClusterConnect } from '../connect/ClusterConnect';
import { createDay2Router } from './day2Router';
import { Day2Service } from '../day2/Day2Service';
import * as azureEndpoints from '../testing/azureEndpoints';
import { createRouter } from './router';

const auth = { Authorization: mockCredentials.user.header() };
const SUB = randomUUID();
const TENANT = randomUUID();
const SP = azureEndpoints.newServicePrincipal(TENANT);
const managementClusters: ManagementClusterConfig[] = [
  {
    name: 'east',
    authMethod: 'serviceAccountToken',
    url: 'https://east.example',
    serviceAccountToken: 't',
  },
];
const CREDENTIAL = `credential Secret team-a/aso-credential (client secret, tenant ${TENANT})`;

/**
 * A longer wait than anyone waits for in a request: answered at once, never slept. "At once" is proven without a clock
 * (a bound on wall time would fail on a busy machine): ARM is asked once (the SDK sleeps only before a retry), and a
 * sleep of this length would outlast the test's timeout, the hang detector.
 */
const LONG_WAIT_SECONDS = 3600;

let endpoints: azureEndpoints.AzureEndpoints;
/** ARM with the faults queued for the next requests (then the simulated ARM answers); every request seen. */
let front: azureEndpoints.FaultFront;

/** The aks-aso objects of cluster alpha (AKS cluster alpha in group alpha, westeurope), as the watch cache holds them. */
const objects: ObservedObject[] = generateAksAsoClusterManifests({
  name: 'alpha',
  namespace: 'team-a',
  location: 'westeurope',
  kubernetesVersion: 'v1.32.5',
  credentialSecretName: 'aso-credential',
  pools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
  ],
}).map((o, i) => ({
  ...(o as ObservedObject),
  metadata: { ...o.metadata, uid: `u${i}`, resourceVersion: `${i + 1}` },
}));

beforeAll(async () => {
  const world = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  world.putResourceGroup(SUB, 'alpha', { location: 'westeurope' });
  world.putManagedCluster(SUB, 'alpha', 'alpha', {
    location: 'westeurope',
    kubernetesVersion: '1.32.5',
    disableLocalAccounts: true,
    aadProfile: { managed: true, enableAzureRBAC: true },
    agentPoolProfiles: [{ name: 'system', mode: 'System', count: 1 }],
  });
  endpoints = await azureEndpoints.start({
    name: 'arm-throttling',
    world,
    servicePrincipals: [SP],
    grants: { [SP.clientId]: [SUB] },
  });
  front = await endpoints.startFront('arm');
});

afterAll(async () => {
  await endpoints?.stop();
});

beforeEach(() => front.reset());

/**
 * The backend's routes as plugin.ts composes them, with a new AksDiscovery (no cached regions or tokens from another
 * test) pointed at the ARM stand-in.
 */
async function backend(): Promise<express.Express> {
  const logger = mockServices.logger.mock();
  const azure = new AksDiscovery({
    config: azureEndpoints.discoveryConfig(endpoints, {
      resourceManagerEndpoint: front.url,
    }),
    logger,
    readSecret: async (mc, ns, name) =>
      mc === 'east' && ns === 'team-a' && name === 'aso-credential'
        ? azureEndpoints.credentialSecretData(SP, SUB)
        : undefined,
    managedClusters: () => [],
  });
  const httpAuth = mockServices.httpAuth();
  const permissions = mockServices.permissions.mock({
    authorize: async reqs =>
      reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
    authorizeConditional: async reqs =>
      reqs.map(() => ({ result: AuthorizeResult.ALLOW })),
  });
  const auditor = mockServices.auditor.mock({
    createEvent: async () => ({
      success: async () => undefined,
      fail: async () => undefined,
    }),
  });
  const cache = {
    list: (mc: string, kind: string, ns?: string) =>
      (mc === 'east'
        ? objects.filter(
            o => o.kind === kind && (!ns || o.metadata?.namespace === ns),
          )
        : []) as never,
  };
  /** A dependency these routes never touch: any use fails the test. */
  const notUsed = (what: string): never =>
    new Proxy(
      {},
      {
        get: () => {
          throw new Error(`${what} is not used by these routes`);
        },
      },
    ) as never;
  const main = await createRouter({
    logger,
    httpAuth,
    permissions,
    managementClusters,
    connections: notUsed('the connection monitor'),
    pickers: { azure },
    validateResponses: true,
    jobs: {
      logger,
      httpAuth,
      permissions,
      auditor,
      managementClusters,
      cache,
      store: notUsed('the job store'),
      engine: notUsed('the job engine'),
      planner: notUsed('the job planner'),
      client: async () => {
        throw new Error('no management cluster API server in this test');
      },
      aks: azure,
    },
  });
  const service = new Day2Service({
    logger,
    managementClusters: ['east'],
    cache,
    client: async () => {
      throw new Error('no management cluster API server in this test');
    },
    azure,
  });
  const day2 = await createDay2Router({
    httpAuth,
    permissions,
    auditor,
    service,
    connect: new ClusterConnect({
      logger,
      cluster: p => service.cluster(p),
      azure,
      allowLocalAccountKubeconfig: false,
    }),
    validateResponses: true,
  });
  return express()
    .use(main)
    .use(day2)
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
}

interface Surface {
  name: string;
  route: string;
  /** The ARM request behind it. */
  arm: string;
  /** What the message says was being done. */
  doing: string;
  /** The answer once ARM answers. */
  answered: (body: any) => void;
}

const versionsPath = `/subscriptions/${SUB}/providers/Microsoft.ContainerService/locations/westeurope/kubernetesVersions`;
const picker =
  'managementCluster=east&namespace=team-a&credentialSecret=aso-credential';

const surfaces: Surface[] = [
  {
    name: 'AKS discovery for adoption (GET /azure/clusters)',
    route: `/azure/clusters?${picker}`,
    arm: `GET /subscriptions/${SUB}/providers/Microsoft.ContainerService/managedClusters`,
    doing: `listing AKS clusters in subscription ${SUB} with ${CREDENTIAL}`,
    answered: body =>
      expect(body.items.map((c: { name: string }) => c.name)).toEqual([
        'alpha',
      ]),
  },
  {
    name: 'the region picker (GET /pickers/regions)',
    route: `/pickers/regions?${picker}`,
    arm: `GET /subscriptions/${SUB}/locations`,
    doing: `listing the regions of subscription ${SUB} with ${CREDENTIAL}`,
    answered: body =>
      expect(body.items.map((r: { name: string }) => r.name)).toContain(
        'westeurope',
      ),
  },
  {
    name: 'the Kubernetes version picker (GET /pickers/kubernetes-versions)',
    route: `/pickers/kubernetes-versions?${picker}&location=westeurope`,
    arm: `GET ${versionsPath}`,
    doing: `listing the Kubernetes versions of westeurope in subscription ${SUB} with ${CREDENTIAL}`,
    answered: body =>
      expect(body.items.map((v: { version: string }) => v.version)).toContain(
        'v1.33.2',
      ),
  },
  {
    name: "a cluster's upgrade options (GET /clusters/…/upgrades)",
    route: '/clusters/east/team-a/alpha/upgrades',
    arm: `GET ${versionsPath}`,
    doing: `listing the Kubernetes versions of westeurope in subscription ${SUB} with ${CREDENTIAL}`,
    answered: body => {
      expect(body.available).toContain('v1.33.2');
      expect(body.problems).toEqual([]);
    },
  },
  {
    name: 'the kubeconfig download (GET /clusters/…/kubeconfig)',
    route: '/clusters/east/team-a/alpha/kubeconfig',
    arm: `POST /subscriptions/${SUB}/resourceGroups/alpha/providers/Microsoft.ContainerService/managedClusters/alpha/listClusterUserCredential`,
    doing: `reading the user kubeconfig of AKS cluster alpha/alpha in subscription ${SUB} with ${CREDENTIAL}`,
    answered: body => {
      expect(body.auth).toBe('exec');
      expect(body.server).toMatch(/^https:\/\//);
    },
  },
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The request, timed. */
async function get(route: string) {
  const app = await backend();
  const started = Date.now();
  const res = await request(app).get(route).set(auth);
  return { res, ms: Date.now() - started };
}

/** A 503 saying, in the header and in words, when to try again. */
function expectTryAgain(
  res: request.Response,
  s: Surface,
  o: { seconds: number; status: 429 | 503; code: string },
) {
  expect({
    status: res.status,
    retryAfter: res.headers['retry-after'],
  }).toEqual({ status: 503, retryAfter: String(o.seconds) });
  const what =
    o.status === 429 ? 'Azure is throttling requests' : 'Azure is unavailable';
  expect(res.body.error.message).toMatch(
    new RegExp(
      `^${what}; try again in ${o.seconds} s \\(ARM answered ${o.status} ${
        o.code
      } while ${escape(s.doing)}\\)$`,
    ),
  );
}

describe.each(surfaces)('ARM throttling: $name', s => {
  it('waits a short Retry-After once and answers with what the retry read', async () => {
    front.faults = [{ status: 429, headers: { 'retry-after': '1' } }];
    const { res, ms } = await get(s.route);
    expect(res.status).toBe(200);
    s.answered(res.body);
    expect(front.seen).toEqual([s.arm, s.arm]);
    // The SDK slept ARM's second before the retry.
    expect(ms).toBeGreaterThanOrEqual(950);
  }, 30_000);

  it('answers a long Retry-After at once with 503, Retry-After and when to try again, asking ARM once', async () => {
    expect(LONG_WAIT_SECONDS).toBeGreaterThan(MAX_RETRY_WAIT_SECONDS);
    front.faults = [
      {
        status: 429,
        headers: { 'retry-after': String(LONG_WAIT_SECONDS) },
      },
    ];
    const { res } = await get(s.route);
    expectTryAgain(res, s, {
      seconds: LONG_WAIT_SECONDS,
      status: 429,
      code: 'TooManyRequests',
    });
    expect(front.seen).toEqual([s.arm]);
  }, 30_000);

  it('retries once only: a second short 429 is a 503 with the wait ARM named', async () => {
    front.faults = [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '2' } },
    ];
    const { res } = await get(s.route);
    expectTryAgain(res, s, {
      seconds: 2,
      status: 429,
      code: 'TooManyRequests',
    });
    expect(front.seen).toEqual([s.arm, s.arm]);
  }, 30_000);

  it('answers a 429 without Retry-After at once with 503 and Retry-After: 10', async () => {
    front.faults = [{ status: 429, headers: {} }];
    const { res } = await get(s.route);
    expectTryAgain(res, s, {
      seconds: 10,
      status: 429,
      code: 'TooManyRequests',
    });
    expect(front.seen).toEqual([s.arm]);
  }, 30_000);

  it('answers ARM unavailable (503 twice, no Retry-After) with 503 and Retry-After: 10 after one retry', async () => {
    front.faults = [
      { status: 503, headers: {} },
      { status: 503, headers: {} },
    ];
    const { res } = await get(s.route);
    expectTryAgain(res, s, {
      seconds: 10,
      status: 503,
      code: 'ServiceUnavailable',
    });
    // One retry, after the SDK's exponential back-off (not timed here: see LONG_WAIT_SECONDS).
    expect(front.seen).toEqual([s.arm, s.arm]);
  }, 30_000);
});
