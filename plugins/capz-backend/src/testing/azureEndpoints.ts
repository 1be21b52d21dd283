/**
 * The simulated Azure endpoints in process for the unit tests that drive the real Azure SDK (AKS discovery, the
 * pickers, the throttling tests): the Azure model's ARM endpoint and Entra ID with the tests' own service principals,
 * AKS discovery's configuration for them, and a front that stands in for either endpoint, answering queued faults
 * (throttling, outages, silence) before passing requests on. No Kubernetes (testing/simulatedAzure.ts is the
 * integration tests' counterpart, reading Secrets from a real API server).
 */
import { ConfigReader } from '@backstage/config';
// Test-only: the simulated Azure endpoints.
// eslint-disable-next-line @backstage/no-undeclared-imports
import {
  ARM_RESOURCE,
  entraAuthorizer,
  startArmServer,
  startEntraSim,
  type ArmServer,
  type AzureWorld,
  type EntraSim,
} from '@internal/capz-sim/azure';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpsServer,
  request as httpsRequest,
} from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A service principal with a client secret, registered with the simulated Entra ID. */
export interface TestServicePrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** A new service principal of the tenant; `label` starts its secret (so a leaked secret names its test). */
export const newServicePrincipal = (
  tenantId: string,
  label = 'sp',
): TestServicePrincipal => ({
  tenantId,
  clientId: randomUUID(),
  clientSecret: `${label}-${randomBytes(8).toString('hex')}`,
});

/** The data of an ASO credential Secret (client-secret mode) for the service principal, decoded. */
export const credentialSecretData = (
  sp: TestServicePrincipal,
  subscription: string,
  clientSecret = sp.clientSecret,
): Record<string, string> => ({
  AZURE_SUBSCRIPTION_ID: subscription,
  AZURE_TENANT_ID: sp.tenantId,
  AZURE_CLIENT_ID: sp.clientId,
  AZURE_CLIENT_SECRET: clientSecret,
});

/** An answer a front gives instead of its endpoint. */
export type Fault =
  | { status: 429 | 503; headers: Record<string, string> }
  /** An endpoint that accepts the request and never answers. */
  | { status: 0 };

/** ARM's error body for a throttled (429) or unavailable (503) request. */
const armFaultBody = (status: 429 | 503) => ({
  error:
    status === 429
      ? { code: 'TooManyRequests', message: 'The request is being throttled.' }
      : {
          code: 'ServiceUnavailable',
          message: 'The service is temporarily unavailable.',
        },
});

/** Entra ID's error body (docs/azure-facts.md#entra-throttling): `temporarily_unavailable` with an AADSTS code. */
const entraFaultBody = (status: 429 | 503) => ({
  error: 'temporarily_unavailable',
  error_description:
    status === 429
      ? 'AADSTS50196: The server terminated an operation because it encountered a client request loop.'
      : 'AADSTS90012: The service is temporarily unavailable.',
  error_codes: [status === 429 ? 50196 : 90012],
});

export interface FaultFront {
  /** `https://127.0.0.1:<port>`, to configure in place of the endpoint. */
  readonly url: string;
  /** Answered to the next requests it faults, in order (then the endpoint answers). */
  faults: Fault[];
  /** Every request it may fault, as `METHOD path`, oldest first. */
  seen: string[];
  /** How many requests it may fault it saw. */
  readonly requests: number;
  /** Empties `faults` and `seen` and ends the answers held open (status 0), so the next test starts afresh. */
  reset(): void;
  close(): Promise<void>;
}

interface FrontOptions {
  /** The endpoint's TLS folder in the state folder: `arm-tls` or `entra-tls`. */
  tls: string;
  upstream: { url: string; caPem: string };
  /** The error body of a 429 or 503. */
  faultBody: (status: 429 | 503) => unknown;
  /** The requests it counts and may fault; every request by default. */
  faultable?: (req: IncomingMessage) => boolean;
  /** Answers a request itself (before any fault) when it returns true. */
  serve?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * Writes its own URL for the endpoint's in answers: MSAL checks the token endpoint OpenID discovery names is on the
   * authority's host, so a front for Entra ID names itself there.
   */
  renameUpstream?: boolean;
}

/**
 * A local HTTPS server in front of a simulated endpoint, with that endpoint's serving certificate (so the same CA is
 * trusted): it answers the queued faults, and passes every other request on.
 */
async function startFaultFront(o: FrontOptions): Promise<FaultFront> {
  const state = {
    faults: [] as Fault[],
    seen: [] as string[],
    hung: [] as Array<{ destroy(): void }>,
  };
  let url = '';
  const server = createHttpsServer(
    {
      cert: readFileSync(join(o.tls, 'server.crt')),
      key: readFileSync(join(o.tls, 'server.key')),
    },
    (req, res) => {
      if (o.faultable?.(req) ?? true) {
        state.seen.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
        if (o.serve?.(req, res)) return;
        const fault = state.faults.shift();
        if (fault?.status === 0) {
          state.hung.push(res);
          return;
        }
        if (fault) {
          res.writeHead(fault.status, {
            'content-type': 'application/json',
            ...fault.headers,
          });
          res.end(JSON.stringify(o.faultBody(fault.status)));
          return;
        }
      } else if (o.serve?.(req, res)) return;
      const upstream = httpsRequest(
        `${o.upstream.url}${req.url}`,
        { method: req.method, headers: req.headers, ca: o.upstream.caPem },
        r => {
          if (!o.renameUpstream) {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
            return;
          }
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => {
            const body = Buffer.concat(chunks)
              .toString('utf8')
              .split(o.upstream.url)
              .join(url);
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
    server.listen(0, '127.0.0.1', () => resolve()),
  );
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endHung = () => {
    state.hung.forEach(r => r.destroy());
    state.hung = [];
  };
  return {
    url,
    get faults() {
      return state.faults;
    },
    set faults(faults) {
      state.faults = faults;
    },
    get seen() {
      return state.seen;
    },
    set seen(seen) {
      state.seen = seen;
    },
    get requests() {
      return state.seen.length;
    },
    reset: () => {
      state.faults = [];
      state.seen = [];
      endHung();
    },
    close: async () => {
      endHung();
      await new Promise(resolve => server.close(resolve));
    },
  };
}

export interface AzureEndpoints {
  entra: EntraSim;
  arm: ArmServer;
  /**
   * A front for ARM or Entra ID (see startFaultFront). ARM's faults every request; Entra ID's only token requests,
   * and it names itself where Entra ID's answers name Entra ID.
   */
  startFront(
    endpoint: 'arm' | 'entra',
    options?: Pick<FrontOptions, 'serve'>,
  ): Promise<FaultFront>;
  /** Stops the fronts, both endpoints and the world, and removes the state folder. */
  stop(): Promise<void>;
}

/**
 * Entra ID and ARM over the world, once its create operations have finished: the service principals get tokens, and
 * ARM lets each one use the subscriptions `grants` lists for its client id. Meant to be imported as a namespace
 * (`azureEndpoints.start`).
 */
export async function start(o: {
  /** Names the state folder. */
  name: string;
  world: AzureWorld;
  servicePrincipals: TestServicePrincipal[];
  grants: Record<string, string[]>;
  /** Resource applications tokens are issued for; ARM's by default. */
  applications?: string[];
}): Promise<AzureEndpoints> {
  await o.world.settled();
  const stateDir = mkdtempSync(join(tmpdir(), `capz-${o.name}-`));
  const entra = await startEntraSim({
    stateDir,
    applications: o.applications ?? [ARM_RESOURCE],
    servicePrincipals: o.servicePrincipals,
  });
  const arm = await startArmServer({
    world: o.world,
    authorize: entraAuthorizer(entra, o.grants),
    stateDir,
  });
  const fronts: FaultFront[] = [];
  return {
    entra,
    arm,
    startFront: async (endpoint, options = {}) => {
      const front = await startFaultFront({
        ...options,
        tls: join(stateDir, `${endpoint}-tls`),
        ...(endpoint === 'arm'
          ? { upstream: arm, faultBody: armFaultBody }
          : {
              upstream: entra,
              faultBody: entraFaultBody,
              faultable: req =>
                req.method === 'POST' &&
                (req.url ?? '').split('?')[0].endsWith('/oauth2/v2.0/token'),
              renameUpstream: true,
            }),
      });
      fronts.push(front);
      return front;
    },
    stop: async () => {
      for (const front of fronts) await front.close();
      await arm.close();
      await entra.close();
      o.world.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** `capz.azureDiscovery` for the endpoints (both CAs trusted), with `extra` keys over it (e.g. a front's URL). */
export const discoveryConfig = (
  endpoints: Pick<AzureEndpoints, 'arm' | 'entra'>,
  extra: Record<string, unknown> = {},
) =>
  new ConfigReader({
    capz: {
      azureDiscovery: {
        resourceManagerEndpoint: endpoints.arm.url,
        authorityHost: endpoints.entra.url,
        disableInstanceDiscovery: true,
        caData: `${endpoints.arm.caPem}\n${endpoints.entra.caPem}`,
        ...extra,
      },
    },
  });
