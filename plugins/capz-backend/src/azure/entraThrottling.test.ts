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
import { ConfigReader } from '@backstage/config';
import {
  AKS_SERVER_APPLICATION_ID,
  ARM_RESOURCE,
  AzureWorld,
  entraAuthorizer,
  startArmServer,
  startEntraSim,
  type ArmServer,
  type EntraSim,
} from '@internal/capz-sim/azure';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpsServer,
  request as httpsRequest,
  type Server,
} from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AzureTokenProvider,
  createAzureCredential,
} from '../cluster/azureToken';
import { AksDiscovery } from './AksDiscovery';
import { AzureServiceError } from './errors';

const SUB = randomUUID();
const TENANT = randomUUID();
const SP = {
  tenantId: TENANT,
  clientId: randomUUID(),
  clientSecret: `sp-${randomBytes(8).toString('hex')}`,
};
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

type Fault =
  | { status: 429 | 503; headers: Record<string, string> }
  /** A token endpoint that accepts the request and never answers. */
  | { status: 0 };

let stateDir: string;
let world: AzureWorld;
let entra: EntraSim;
let arm: ArmServer;
let front: Server;
let frontUrl: string;
/** Answered to the next token requests, in order (then the simulated Entra ID answers). */
let faults: Fault[] = [];
/** Token requests the front saw. */
let tokenRequests = 0;
/** Answers held open: ended after each test so the server can close. */
let hung: Array<{ destroy(): void }> = [];

function discovery(extra: Record<string, unknown> = {}): AksDiscovery {
  return new AksDiscovery({
    config: new ConfigReader({
      capz: {
        azureDiscovery: {
          resourceManagerEndpoint: arm.url,
          authorityHost: frontUrl,
          disableInstanceDiscovery: true,
          caData: `${arm.caPem}\n${entra.caPem}`,
          ...extra,
        },
      },
    }),
    logger: mockServices.logger.mock(),
    readSecret: async (mc, ns, name) =>
      mc === MC && ns === 'team-a' && name === 'aso-credential'
        ? {
            AZURE_SUBSCRIPTION_ID: SUB,
            AZURE_TENANT_ID: TENANT,
            AZURE_CLIENT_ID: SP.clientId,
            AZURE_CLIENT_SECRET: SP.clientSecret,
          }
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
  stateDir = mkdtempSync(join(tmpdir(), 'capz-entra-throttling-'));
  world = new AzureWorld({ operationMs: 1, subscriptions: [SUB] });
  entra = await startEntraSim({
    stateDir,
    applications: [ARM_RESOURCE, AKS_SERVER_APPLICATION_ID],
    servicePrincipals: [SP],
  });
  arm = await startArmServer({
    world,
    authorize: entraAuthorizer(entra, { [SP.clientId]: [SUB] }),
    stateDir,
  });
  // Entra ID's stand-in, with the simulated Entra ID's serving certificate (so the same CA is trusted). MSAL reads the
  // token endpoint from OpenID discovery and checks the issuer is on the authority's host: the discovery document names
  // the simulated Entra ID's URL, so the front names itself there instead.
  const tls = join(stateDir, 'entra-tls');
  front = createHttpsServer(
    {
      cert: readFileSync(join(tls, 'server.crt')),
      key: readFileSync(join(tls, 'server.key')),
    },
    (req, res) => {
      const token =
        req.method === 'POST' &&
        (req.url ?? '').split('?')[0].endsWith('/oauth2/v2.0/token');
      if (token) {
        tokenRequests++;
        const fault = faults.shift();
        if (fault?.status === 0) {
          hung.push(res);
          return;
        }
        if (fault) {
          res.writeHead(fault.status, {
            'content-type': 'application/json',
            ...fault.headers,
          });
          // Entra's error body (docs/azure-facts.md#entra-throttling): `temporarily_unavailable` with an AADSTS code.
          res.end(
            JSON.stringify({
              error: 'temporarily_unavailable',
              error_description:
                fault.status === 429
                  ? 'AADSTS50196: The server terminated an operation because it encountered a client request loop.'
                  : 'AADSTS90012: The service is temporarily unavailable.',
              error_codes: [fault.status === 429 ? 50196 : 90012],
            }),
          );
          return;
        }
      }
      const upstream = httpsRequest(
        `${entra.url}${req.url}`,
        { method: req.method, headers: req.headers, ca: entra.caPem },
        r => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => {
            const body = Buffer.concat(chunks)
              .toString('utf8')
              .split(entra.url)
              .join(frontUrl);
            const headers = { ...r.headers };
            delete headers['content-length'];
            res.writeHead(r.statusCode ?? 502, headers);
            res.end(body);
          });
        },
      );
      req.pipe(upstream);
    },
  );
  await new Promise<void>(resolve =>
    front.listen(0, '127.0.0.1', () => resolve()),
  );
  frontUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
});

afterAll(async () => {
  hung.forEach(r => r.destroy());
  await new Promise(resolve => (front ? front.close(resolve) : resolve(0)));
  await arm?.close();
  await entra?.close();
  world?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

beforeEach(() => {
  faults = [];
  tokenRequests = 0;
});

afterEach(() => {
  hung.forEach(r => r.destroy());
  hung = [];
});

describe('AKS discovery when Entra ID throttles or does not answer', () => {
  it('answers a 429 with a long Retry-After at once: a 503 naming Entra ID with its wait', async () => {
    faults = [
      { status: 429, headers: { 'retry-after': `${LONG_WAIT_SECONDS}` } },
    ];
    const { result: err } = await listRegions(discovery());
    // Not retried: the one token request, refused.
    expect(tokenRequests).toBe(1);
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
    faults = [{ status: 503, headers: { 'retry-after': '120' } }];
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
    faults = [{ status: 429, headers: { 'retry-after': '1' } }];
    const ok = await listRegions(discovery());
    expect(ok.result).toMatchObject({ subscriptionId: SUB });
    expect(tokenRequests).toBe(2);
    expect(ok.ms).toBeGreaterThanOrEqual(900);

    tokenRequests = 0;
    faults = [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': '1' } },
    ];
    const { result: err } = await listRegions(discovery());
    expect(tokenRequests).toBe(2);
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
    tokenRequests = 0;
    faults = [
      { status: 503, headers: {} },
      { status: 503, headers: {} },
    ];
    const down = await listRegions(discovery());
    expect(tokenRequests).toBe(2);
    expect(down.result).toMatchObject({
      service: 'Entra ID',
      statusCode: 503,
      retryAfterSeconds: 10,
      code: 'HTTP 503',
    });
  });

  it('gives up a token request Entra ID never answers at the request bound: a 503 that says so', async () => {
    faults = [{ status: 0 }];
    const { result: err, ms } = await listRegions(
      discovery({ requestTimeoutSeconds: 1 }),
    );
    // Held until the bound, not retried, then the answer.
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(tokenRequests).toBe(1);
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
          authorityHost: frontUrl,
          disableInstanceDiscovery: true,
          authorityCaData: entra.caPem,
        },
        requestTimeoutMs,
      ),
      scope: `${AKS_SERVER_APPLICATION_ID}/.default`,
      clusterName: 'east',
    });

  it('fails at once on a long Retry-After and within the request bound on no answer, naming Entra ID', async () => {
    faults = [
      { status: 429, headers: { 'retry-after': `${LONG_WAIT_SECONDS}` } },
    ];
    let started = Date.now();
    const throttled = await provider()
      .getToken()
      .catch((e: Error) => e);
    expect(tokenRequests).toBe(1);
    expect((throttled as Error).message).toBe(
      `Entra ID token for management cluster east: Entra ID is throttling token requests (429); try again in ${LONG_WAIT_SECONDS} s`,
    );

    tokenRequests = 0;
    faults = [{ status: 0 }];
    const p = provider(1_000);
    started = Date.now();
    const silent = await p.getToken().catch((e: Error) => e);
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(tokenRequests).toBe(1);
    expect((silent as Error).message).toBe(
      'Entra ID token for management cluster east: Entra ID did not answer a token request within 1 s; try again in 10 s',
    );
    expect(p.status()).toMatchObject({ failures: 1 });
  });
});
