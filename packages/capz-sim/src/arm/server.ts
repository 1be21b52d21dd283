/**
 * A read-only, simulated ARM endpoint over an AzureWorld, for discovery of AKS clusters with the real
 * `@azure/arm-containerservice` client. Which fact of docs/azure-facts.md each behaviour follows:
 *
 * - HTTPS on loopback with a generated CA instead of plain http: the SDK's bearer policy refuses non-https URLs
 *   (docs/azure-facts.md#arm-tls-only); clients point `endpoint` at `url` and trust `caPem`
 *   (docs/azure-facts.md#arm-sdk client options).
 * - `Authorization: Bearer` on every call, `?api-version=` on every call, JSON errors `{"error":{"code","message"}}`,
 *   case-insensitive paths and names, ids with lowercase `resourcegroups` (docs/azure-facts.md#arm-envelope,
 *   docs/azure-facts.md#arm-sdk).
 * - Routes and wire shapes of managed clusters (list by subscription / resource group, get) for api-version 2024-09-01,
 *   including the read-only fields the SDK flattens (`fqdn`, `azurePortalFQDN`, `currentKubernetesVersion`,
 *   `nodeResourceGroup`, `resourceUID`, pool `currentOrchestratorVersion`, `nodeImageVersion`)
 *   (docs/azure-facts.md#arm-managed-clusters, docs/azure-facts.md#arm-sdk).
 * - Agent pools list/get and their resource shape (docs/azure-facts.md#arm-agent-pools).
 * - Kubernetes versions of a region (`managedClusters.listKubernetesVersions(location)`:
 *   `/subscriptions/{sub}/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions`, AKS's
 *   api-version) as `KubernetesVersionListResult` (`values[]` of minor versions with isDefault, isPreview,
 *   capabilities.supportPlan, patchVersions{patch: {upgrades}}); a region the subscription does not offer is a 404
 *   `NoRegisteredProviderFound` (inference from ARM's public error responses).
 * - The subscription's regions (`/subscriptions/{sub}/locations`, Microsoft.Resources api-version 2022-12-01).
 * - Resource group GET (`/subscriptions/{sub}/resourcegroups/{rg}`, Microsoft.Resources api-versions
 *   `RESOURCES_API_VERSIONS`), 404 `ResourceGroupNotFound` (docs/azure-facts.md#arm-resource-groups); the same
 *   authentication and authorization as the AKS routes, with ARM's action
 *   `Microsoft.Resources/subscriptions/resourceGroups/read` in a 403 (inference).
 * - Provisioning states are reported as the model has them, so a poller reading `properties.provisioningState` sees
 *   Creating/Updating/Deleting -> Succeeded (docs/azure-facts.md#arm-managed-clusters, docs/azure-facts.md#arm-lro). No
 *   LRO routes: this endpoint is read-only.
 * - 404s carry the ARM codes the SDK surfaces as `RestError.code` (`ResourceNotFound`, `ResourceGroupNotFound`,
 *   `SubscriptionNotFound`) (docs/azure-facts.md#arm-sdk, docs/azure-facts.md#arm-resource-groups,
 *   docs/azure-facts.md#arm-managed-clusters).
 * - Callers are static bearer tokens (`tokens`) or, through `authorize` / `entraAuthorizer`, access tokens the
 *   simulated Entra ID issued for `https://management.azure.com` (docs/azure-facts.md#arm-envelope: ARM tokens have
 *   that audience; docs/azure-facts.md#entra-token-endpoint).
 * Not covered by docs/azure-facts.md, modelled on ARM's public error responses: the auth, api-version and routing
 * codes (`AuthenticationFailed`, `AuthenticationFailedInvalidHeader`, `InvalidAuthenticationToken`, `AuthorizationFailed`,
 * `MissingApiVersionParameter`, `InvalidApiVersionParameter`, `InvalidResourceType`), the 405 for writes (this
 * endpoint is read-only), and the order of the checks: authentication, method, a missing api-version, route, the
 * route's provider's api-versions, subscription existence, authorization.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { AzureError, notFound } from '../azure/errors.ts';
import type { AzureWorld } from '../azure/model.ts';
import { ARM_RESOURCE } from '../entra/server.ts';
import { ensureLoopbackTls } from '../runtime/loopbackTls.ts';
import {
  API_VERSION,
  LOCATIONS,
  LOCATIONS_API_VERSIONS,
  RESOURCES_API_VERSIONS,
  kubernetesVersionsToWire,
  locationsToWire,
  agentPoolToWire,
  managedClusterToWire,
  resourceGroupToWire,
} from './wire.ts';

/** Who a bearer token is and which subscriptions it may read. */
export interface ArmCaller {
  /** The Entra object id ARM names in `AuthorizationFailed` messages. */
  objectId: string;
  subscriptions: string[];
}

export interface ArmServerOptions {
  world: AzureWorld;
  /** bearer token -> the subscription ids that identity may read (read at request time, so it may be changed live) */
  tokens?: Record<string, string[]>;
  /**
   * Tokens not in `tokens`: who the token is, or undefined for an invalid token (401 InvalidAuthenticationToken).
   * `entraAuthorizer` builds one that accepts the simulated Entra ID's tokens for ARM.
   */
  authorize?: (token: string) => ArmCaller | undefined;
  /** default 0 = a free port on 127.0.0.1 */
  port?: number;
  /** where the generated CA/server cert live (reused if present) */
  stateDir: string;
}

export interface ArmServer {
  /** `https://127.0.0.1:<port>`, to pass as the SDK's `endpoint` */
  url: string;
  /** the CA that signed the serving certificate; clients trust it (e.g. the SDK's `tlsOptions: { ca }`) */
  caPem: string;
  close(): Promise<void>;
}

type RouteKind =
  | 'getResourceGroup'
  | 'listLocations'
  | 'listKubernetesVersions'
  | 'listBySubscription'
  | 'listByResourceGroup'
  | 'getCluster'
  | 'listPools'
  | 'getPool';
type Params = Record<string, string>;

const MC =
  'subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.ContainerService/managedClusters';
const ROUTES: Array<[RouteKind, string[]]> = [
  ['getResourceGroup', 'subscriptions/{sub}/resourceGroups/{rg}'.split('/')],
  ['listLocations', 'subscriptions/{sub}/locations'.split('/')],
  [
    'listKubernetesVersions',
    'subscriptions/{sub}/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions'.split(
      '/',
    ),
  ],
  [
    'listBySubscription',
    'subscriptions/{sub}/providers/Microsoft.ContainerService/managedClusters'.split(
      '/',
    ),
  ],
  ['listByResourceGroup', MC.split('/')],
  ['getCluster', `${MC}/{name}`.split('/')],
  ['listPools', `${MC}/{name}/agentPools`.split('/')],
  ['getPool', `${MC}/{name}/agentPools/{pool}`.split('/')],
];

/** Literal segments match case-insensitively, as in ARM. */
function matchRoute(
  segments: string[],
): { kind: RouteKind; params: Params } | undefined {
  for (const [kind, pattern] of ROUTES) {
    if (pattern.length !== segments.length) continue;
    const params: Params = {};
    const ok = pattern.every((p, i) => {
      if (p.startsWith('{')) {
        params[p.slice(1, -1)] = segments[i];
        return segments[i].length > 0;
      }
      return p.toLowerCase() === segments[i].toLowerCase();
    });
    if (ok) return { kind, params };
  }
  return undefined;
}

/** ARM names the api-version the caller sent. */
function unknownRoute(segments: string[], apiVersion: string): AzureError {
  const i = segments.findIndex(s => s.toLowerCase() === 'providers');
  if (i >= 0 && segments[i + 1] && segments[i + 2]) {
    // /providers/{namespace}/{type}/{name}/{subtype}/... -> the type is every other segment after the namespace
    const type = segments
      .slice(i + 2)
      .filter((_, j) => j % 2 === 0)
      .join('/');
    return new AzureError(
      404,
      'InvalidResourceType',
      `The resource type '${type}' could not be found in the namespace '${
        segments[i + 1]
      }' for api version '${apiVersion}'.`,
    );
  }
  return new AzureError(
    404,
    'InvalidResourceType',
    `The resource type could not be found for the request path '/${segments.join(
      '/',
    )}' and api version '${apiVersion}'.`,
  );
}

/** A stable stand-in for the caller's Entra object id, for ARM's AuthorizationFailed message. */
function objectId(token: string): string {
  const h = createHash('sha256').update(token).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(
    16,
    20,
  )}-${h.slice(20, 32)}`;
}

function authenticate(req: IncomingMessage, opts: ArmServerOptions): ArmCaller {
  const header = req.headers.authorization;
  if (!header) {
    throw new AzureError(
      401,
      'AuthenticationFailed',
      "Authentication failed. The 'Authorization' header is missing.",
    );
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) {
    throw new AzureError(
      401,
      'AuthenticationFailedInvalidHeader',
      "Authentication failed. The 'Authorization' header is provided in an invalid format.",
    );
  }
  const tokens = opts.tokens ?? {};
  if (Object.hasOwn(tokens, m[1]))
    return { objectId: objectId(m[1]), subscriptions: tokens[m[1]] };
  const caller = opts.authorize?.(m[1]);
  if (!caller)
    throw new AzureError(
      401,
      'InvalidAuthenticationToken',
      'The access token is invalid.',
    );
  return caller;
}

/**
 * Accepts the simulated Entra ID's access tokens for ARM (`aud` https://management.azure.com, valid signature and
 * lifetime) and grants each client (app id) the subscriptions `grants` lists for it at request time; a valid token of
 * a client without grants authenticates but may read nothing (403 AuthorizationFailed, as ARM without a role
 * assignment).
 */
export function entraAuthorizer(
  entra: {
    verify(
      token: string,
      audience?: string,
    ): { clientId: string; objectId: string } | undefined;
  },
  grants: Record<string, string[]> | ((clientId: string) => string[]),
): (token: string) => ArmCaller | undefined {
  return token => {
    const claims = entra.verify(token, ARM_RESOURCE);
    if (!claims) return undefined;
    const subscriptions =
      typeof grants === 'function'
        ? grants(claims.clientId)
        : grants[claims.clientId] ?? [];
    return { objectId: claims.objectId, subscriptions };
  };
}

function apiVersions(url: URL): string[] {
  const values = [...url.searchParams]
    .filter(([k]) => k.toLowerCase() === 'api-version')
    .map(([, v]) => v);
  if (!values.length || !values[0]) {
    throw new AzureError(
      400,
      'MissingApiVersionParameter',
      'The api-version query parameter (?api-version=) is required for all requests.',
    );
  }
  return values;
}

/** Each provider has its own versions: Microsoft.Resources for resource groups, Microsoft.ContainerService for AKS. */
function checkApiVersion(values: string[], kind: RouteKind): void {
  const supported =
    kind === 'getResourceGroup'
      ? RESOURCES_API_VERSIONS
      : kind === 'listLocations'
      ? LOCATIONS_API_VERSIONS
      : [API_VERSION];
  if (values.length > 1 || !supported.includes(values[0])) {
    throw new AzureError(
      400,
      'InvalidApiVersionParameter',
      `The api-version '${values.join(
        ',',
      )}' is invalid. The supported versions are '${supported.join(',')}'.`,
    );
  }
}

function dispatch(world: AzureWorld, kind: RouteKind, p: Params): unknown {
  switch (kind) {
    case 'getResourceGroup':
      return resourceGroupToWire(world.requireResourceGroup(p.sub, p.rg));
    case 'listLocations':
      return locationsToWire(p.sub);
    case 'listKubernetesVersions': {
      const location = p.location.toLowerCase().replace(/\s/g, '');
      if (!LOCATIONS.some(l => l.name === location)) {
        throw new AzureError(
          404,
          'NoRegisteredProviderFound',
          `No registered resource provider found for location '${p.location}' and API version '${API_VERSION}' for type 'locations/kubernetesVersions'.`,
        );
      }
      return kubernetesVersionsToWire();
    }
    case 'listBySubscription':
      return {
        value: world.listManagedClusters(p.sub).map(managedClusterToWire),
      };
    case 'listByResourceGroup':
      return {
        value: world.listManagedClusters(p.sub, p.rg).map(managedClusterToWire),
      };
    case 'getCluster':
      return managedClusterToWire(
        world.requireManagedCluster(p.sub, p.rg, p.name),
      );
    case 'listPools': {
      const mc = world.requireManagedCluster(p.sub, p.rg, p.name);
      return {
        value: Object.values(mc.agentPools).map(pool =>
          agentPoolToWire(mc, pool),
        ),
      };
    }
    case 'getPool': {
      const mc = world.requireManagedCluster(p.sub, p.rg, p.name);
      const pool = Object.values(mc.agentPools).find(
        ap => ap.name.toLowerCase() === p.pool.toLowerCase(),
      );
      if (!pool)
        throw notFound(
          'Microsoft.ContainerService/managedClusters/agentPools',
          `${mc.name}/${p.pool}`,
          p.rg,
        );
      return agentPoolToWire(mc, pool);
    }
  }
}

function handle(
  opts: ArmServerOptions,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const requestId = randomUUID();
  const correlationId =
    (req.headers['x-ms-correlation-request-id'] as string | undefined) ??
    requestId;
  const send = (
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-cache',
      'x-ms-request-id': requestId,
      'x-ms-correlation-request-id': correlationId,
      ...headers,
    });
    res.end(text);
  };
  try {
    const caller = authenticate(req, opts);
    if (req.method !== 'GET') {
      throw new AzureError(
        405,
        'MethodNotAllowed',
        `The requested resource does not support http method '${req.method}'. The simulated ARM endpoint is read-only.`,
      );
    }
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const versions = apiVersions(url);
    let segments: string[];
    try {
      segments = url.pathname
        .split('/')
        .filter(Boolean)
        .map(decodeURIComponent);
    } catch {
      throw new AzureError(
        400,
        'InvalidRequestUri',
        `The request URI '${url.pathname}' is not valid.`,
      );
    }
    const route = matchRoute(segments);
    if (!route) throw unknownRoute(segments, versions[0]);
    checkApiVersion(versions, route.kind);
    const { sub } = route.params;
    // A subscription that does not exist is reported as such whatever the caller's access (as ARM does).
    if (!opts.world.hasSubscription(sub)) {
      throw new AzureError(
        404,
        'SubscriptionNotFound',
        `The subscription '${sub}' could not be found.`,
      );
    }
    if (
      !caller.subscriptions.some(s => s.toLowerCase() === sub.toLowerCase())
    ) {
      const oid = caller.objectId;
      const action =
        route.kind === 'getResourceGroup'
          ? 'Microsoft.Resources/subscriptions/resourceGroups/read'
          : route.kind === 'listLocations'
          ? 'Microsoft.Resources/subscriptions/locations/read'
          : route.kind === 'listKubernetesVersions'
          ? 'Microsoft.ContainerService/locations/kubernetesVersions/read'
          : route.kind === 'listPools' || route.kind === 'getPool'
          ? 'Microsoft.ContainerService/managedClusters/agentPools/read'
          : 'Microsoft.ContainerService/managedClusters/read';
      throw new AzureError(
        403,
        'AuthorizationFailed',
        `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${action}' over scope '${url.pathname}' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
      );
    }
    send(200, dispatch(opts.world, route.kind, route.params));
  } catch (e) {
    if (e instanceof AzureError) {
      const headers: Record<string, string> = {};
      if (e.status === 401) {
        // ARM's challenge; without `claims` the SDK's bearer policy does not retry (no CAE flow), it surfaces the 401.
        headers[
          'www-authenticate'
        ] = `Bearer authorization_uri="https://login.microsoftonline.com/common", error="invalid_token", error_description="${e.message.replace(
          /"/g,
          "'",
        )}"`;
      }
      if (e.status === 405) headers.allow = 'GET';
      send(e.status, e.toBody(), headers);
    } else {
      send(500, {
        error: {
          code: 'InternalServerError',
          message: e instanceof Error ? e.message : String(e),
        },
      });
    }
  }
}

export async function startArmServer(
  opts: ArmServerOptions,
): Promise<ArmServer> {
  const tls = ensureLoopbackTls(opts.stateDir, 'arm');
  const server = createServer(
    { key: tls.keyPem, cert: tls.certPem },
    (req, res) => handle(opts, req, res),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: tls.caPem,
    close() {
      closing ??= new Promise<void>(resolve => {
        server.close(() => resolve());
        server.closeAllConnections(); // the SDK keeps connections alive; don't wait for them to time out
      });
      return closing;
    },
  };
}
