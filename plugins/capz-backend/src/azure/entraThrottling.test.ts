/**
 * Entra ID throttling, outages and silence as the user meets them: the real @azure/identity ClientSecretCredential
 * (through MSAL and identity's own pipeline) asks a real local HTTPS server standing in for Entra ID, which answers
 * the queued faults to the next token requests and passes everything else on to the simulated Entra ID; the real
 * @azure/arm-containerservice pipeline then reads the simulated ARM. A token request must be bounded as an ARM request
 * is (docs/azure-facts.md#entra-throttling): a short Retry-After waited once, a long one (or a second refusal) answered
 * at once as a 503 naming Entra ID with when to try again, a token endpoint that never answers given up at the
 * request bound; never a 500/502 or a wait as long as Entra asks. The management clusters' Entra tokens
 * (cluster/azureToken.ts) get the same bounds.
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  AKS_SERVER_APPLICATION_ID,
  ARM_RESOURCE,
  AzureWorld,
} from '@internal/capz-sim/azure';
import { randomUUID } from 'node:crypto';
import {
  AzureTokenProvider,
  createAzureCredential,
} from '../cluster/azureToken';
import * as azureEndpoints from '../testing/azureEndpoints';
import { AksDiscovery } from './AksDiscovery';
import { AzureServiceError } from './errors';

const SUB = randomUUID();
const TENANT = randomUUID();
const SP = azureEndpoints.newServicePrincipal(TENANT);
const MC = 'local';
const q = {
  managementCluster: MC,
  namespace: 'team-a',
  credentialSecret: 'aso-credential',
};

/**
 * A longer wait than anyone waits for in a request: answered at once, never slept. "At once" and "within the request
 * bound" are proven without an upper bound on wall time (which would fail on a busy machine): by how many token
 * requests were made (the SDK sleeps only before a retry), and by the test's timeout, the hang detector, which a sleep
 * of this length or the default 30 s request bound would outlast.
 */
const LONG_WAIT_SECONDS = 3600;
/** Hang detector per test: ≥3x the slowest test measured (3.0 s: two 1 s waits and a back-off). */
const TEST_TIMEOUT_MS = 20_000;
jest.setTimeout(TEST_TIMEOUT_MS);

let endpoints: azureEndpoints.AzureEndpoints;
/** Entra ID with the faults queued for the next token requests (then the simulated Entra ID answers). */
let front: azureEndpoints.FaultFront;

function discovery(extra: Record<string, unknown> = {}): AksDiscovery {
  return new AksDiscovery({
    config: azureEndpoints.discoveryConfig(endpoints, {
      authorityHost: front.url,
      ...extra,
    }),
    logger: mockServices.logger.mock(),
    readSecret: async (mc, ns, name) =>
      mc === MC && ns === 'team-a' && name === 'aso-credential'
        ? azureEndpoints.credentialSecretData(SP, SUB)
        : undefined,
    managedClusters: () => [],
  });
}

/** The regions of the Secret's subscription: one token for ARM, one ARM read. Rejections are returned. */
async function listRegions(d: AksDiscovery) {
  const started = Date.now();
  const result = await d.listLocations(q).catch((e: unknown) => e);
  return { result, ms: Date.now() - started };
}

beforeAll(async () => {
  endpoints = await azureEndpoints.start({
    name: 'entra-throttling',
    world: new AzureWorld({ operationMs: 1, subscriptions: [SUB] }),
    servicePrincipals: [SP],
    grants: { [SP.clientId]: [SUB] },
    applications: [ARM_RESOURCE, AKS_SERVER_APPLICATION_ID],
  });
  front = await endpoints.startFront('entra');
});

afterAll(async () => {
  await endpoints?.stop();
});

beforeEach(() => front.reset());
afterEach(() => front.reset());

describe('AKS discovery when Entra ID throttles or does not answer', () => {
  it('answers a 429 with a long Retry-After at once: a 503 naming Entra ID with its wait', async () => {
    front.faults = [
      { status: 429, headers: { 'retry-after': `${LONG_WAIT_SECONDS}` } },
    ];
    const { result: err } = await listRegions(discovery());
    // Not retried: the one token request, refused.
    expect(front.requests).toBe(1);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      service: 'Entra ID',
      statusCode: 503,
      retryAfterSeconds: LONG_WAIT_SECONDS,
      code: 'HTTP 429',
    });
    expect((err as Error).message).toMatch(
      new RegExp(
        `^Entra ID is throttling token requests; try again in ${LONG_WAIT_SECONDS} s \\(Entra ID answered 429 while listing the regions of subscription ${SUB} `,
      ),
    );
    // The same credential asks again once the user does: nothing of the refusal is kept as a wait.
    const d = discovery();
    front.faults = [{ status: 503, headers: { 'retry-after': '120' } }];
    const unavailable = await listRegions(d);
    expect(unavailable.result).toMatchObject({
      service: 'Entra ID',
      statusCode: 503,
      retryAfterSeconds: 120,
    });
    expect((unavailable.result as Error).message).toMatch(
      /^Entra ID is unavailable; try again in 120 s \(Entra ID answered 503 while /,
    );
    const again = await listRegions(d);
    expect(again.result).toMatchObject({ subscriptionId: SUB });
  });

  it('waits a short Retry-After once; a second refusal is a 503, not a third try', async () => {
    front.faults = [{ status: 429, headers: { 'retry-after': '1' } }];
    const ok = await listRegions(discovery());
    expect(ok.result).toMatchObject({ subscriptionId: SUB });
    expect(front.requests).toBe(2);
    expect(ok.ms).toBeGreaterThanOrEqual(900);

    front.seen = [];
    front.faults = [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '1' } },
    ];
    const { result: err } = await listRegions(discovery());
    expect(front.requests).toBe(2);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      service: 'Entra ID',
      statusCode: 503,
      retryAfterSeconds: 1,
    });
    expect((err as Error).message).toMatch(
      /^Entra ID is throttling token requests; try again in 1 s \(Entra ID answered 429 while listing the regions/,
    );

    // An outage without Retry-After: one retry after the SDK's back-off, then 503 with the default wait.
    front.seen = [];
    front.faults = [
      { status: 503, headers: {} },
      { status: 503, headers: {} },
    ];
    const down = await listRegions(discovery());
    expect(front.requests).toBe(2);
    expect(down.result).toMatchObject({
      service: 'Entra ID',
      statusCode: 503,
      retryAfterSeconds: 10,
      code: 'HTTP 503',
    });
  });

  it('gives up a token request Entra ID never answers at the request bound: a 503 that says so', async () => {
    front.faults = [{ status: 0 }];
    const { result: err, ms } = await listRegions(
      discovery({ requestTimeoutSeconds: 1 }),
    );
    // Held until the bound, not retried, then the answer.
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(front.requests).toBe(1);
    expect(err).toBeInstanceOf(AzureServiceError);
    expect(err).toMatchObject({
      service: 'Entra ID',
      statusCode: 503,
      retryAfterSeconds: 10,
      code: 'Timeout',
    });
    expect((err as Error).message).toMatch(
      /^Entra ID did not answer in time; try again in 10 s \(Entra ID gave no answer while listing the regions/,
    );
  });
});

describe("a management cluster's Entra ID token when Entra ID throttles or does not answer", () => {
  const provider = (requestTimeoutMs?: number) =>
    new AzureTokenProvider({
      credential: createAzureCredential(
        {
          credential: 'clientSecret',
          tenantId: TENANT,
          clientId: SP.clientId,
          clientSecret: SP.clientSecret,
          authorityHost: front.url,
          disableInstanceDiscovery: true,
          authorityCaData: endpoints.entra.caPem,
        },
        requestTimeoutMs,
      ),
      scope: `${AKS_SERVER_APPLICATION_ID}/.default`,
      clusterName: 'east',
    });

  it('fails at once on a long Retry-After and within the request bound on no answer, naming Entra ID', async () => {
    front.faults = [
      { status: 429, headers: { 'retry-after': `${LONG_WAIT_SECONDS}` } },
    ];
    let started = Date.now();
    const throttled = await provider()
      .getToken()
      .catch((e: Error) => e);
    expect(front.requests).toBe(1);
    expect((throttled as Error).message).toBe(
      `Entra ID token for management cluster east: Entra ID is throttling token requests (429); try again in ${LONG_WAIT_SECONDS} s`,
    );

    front.seen = [];
    front.faults = [{ status: 0 }];
    const p = provider(1_000);
    started = Date.now();
    const silent = await p.getToken().catch((e: Error) => e);
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(front.requests).toBe(1);
    expect((silent as Error).message).toBe(
      'Entra ID token for management cluster east: Entra ID did not answer a token request within 1 s; try again in 10 s',
    );
    expect(p.status()).toMatchObject({ failures: 1 });
  });
});
