/**
 * A simulated ARM endpoint over an AzureWorld: the read API the plugin's backend uses for discovery (with the real
 * `@azure/arm-containerservice` client) and the write API ASO v2.18.0's generic ARM client uses
 * (`v2/internal/genericarmclient/generic_client.go`), on one model. Which fact of docs/azure-facts.md each behaviour
 * follows:
 *
 * - HTTPS on loopback with a generated CA instead of plain http: the SDK's bearer policy refuses non-https URLs
 *   (docs/azure-facts.md#arm-tls-only); clients point `endpoint` at `url` and trust `caPem`
 *   (docs/azure-facts.md#arm-sdk client options).
 * - `Authorization: Bearer` on every call, `?api-version=` on every call, JSON errors `{"error":{"code","message"}}`,
 *   case-insensitive paths and names, ids with lowercase `resourcegroups` (docs/azure-facts.md#arm-envelope,
 *   docs/azure-facts.md#arm-sdk).
 * - Read routes and wire shapes of managed clusters (list by subscription / resource group, get), including the
 *   read-only fields the SDK flattens (`fqdn`, `azurePortalFQDN`, `currentKubernetesVersion`, `nodeResourceGroup`,
 *   `resourceUID`, pool `currentOrchestratorVersion`, `nodeImageVersion`) (docs/azure-facts.md#arm-managed-clusters,
 *   docs/azure-facts.md#arm-sdk); agent pools list/get (docs/azure-facts.md#arm-agent-pools).
 * - Kubernetes versions of a region (`managedClusters.listKubernetesVersions(location)`) as
 *   `KubernetesVersionListResult`; a region the subscription does not offer is a 404 `NoRegisteredProviderFound`
 *   (inference from ARM's public error responses). The subscription's regions (`/subscriptions/{sub}/locations`).
 * - The write API (docs/azure-facts.md#arm-write-api): resource groups PUT (201/200, synchronous), GET, HEAD
 *   (204/404, ASO's `CheckExistenceByID`), DELETE (202 + `Location`); managed clusters and agent pools PUT (201/200 +
 *   `Azure-AsyncOperation`, body with `provisioningState` Creating/Updating), DELETE (202 + `Azure-AsyncOperation` and
 *   `Location`, 204 when absent); the operation status and result GETs (`./operations.ts`, docs/azure-facts.md#arm-lro);
 *   `POST …/listClusterUserCredential|listClusterAdminCredential`. Request bodies map onto the model in `./wire.ts`;
 *   what the model cannot represent is kept verbatim and echoed by GET.
 * - For CAPZ v1.26.0's legacy controllers (docs/real-controllers.md#legacy-path): the node resource group's
 *   `virtualMachineScaleSets` list and a scale set's `virtualMachines` list (`./compute.ts`, api-version 2024-03-01),
 *   which the legacy AzureManagedMachinePool reads for its providerIDs; `virtualNetworks` and their `subnets`
 *   PUT/GET/DELETE (`./network.ts`, 2020-11-01), which ASO writes for the legacy AzureManagedControlPlane.
 * - api-versions per provider: Microsoft.Resources `RESOURCES_API_VERSIONS`; Microsoft.ContainerService
 *   `CONTAINER_SERVICE_API_VERSIONS` (2025-08-01 for ASO's v1api20250801, 2024-09-01), plus 2022-04-01 for the
 *   credential actions (ASO's armcontainerservice v1.0.0). Every `METHOD type api-version` seen is counted
 *   (`apiVersionsSeen`) and reported to `onRequest`.
 * - 404s carry the ARM codes clients surface (`ResourceNotFound`, `ResourceGroupNotFound`, `SubscriptionNotFound`)
 *   (docs/azure-facts.md#arm-sdk, docs/azure-facts.md#arm-resource-groups, docs/azure-facts.md#arm-managed-clusters).
 * - Callers are static bearer tokens (`tokens`) or, through `authorize` / `entraAuthorizer`, access tokens the
 *   simulated Entra ID issued for either ARM audience (`https://management.azure.com`, or azcore's public-cloud
 *   `https://management.core.windows.net/` that ASO's Go clients ask for; docs/azure-facts.md#arm-write-api,
 *   docs/azure-facts.md#entra-token-endpoint). A caller granted a subscription may read and write in it.
 * Not covered by docs/azure-facts.md, modelled on ARM's public error responses: the auth, api-version and routing
 * codes (`AuthenticationFailed`, `AuthenticationFailedInvalidHeader`, `InvalidAuthenticationToken`, `AuthorizationFailed`,
 * `MissingApiVersionParameter`, `InvalidApiVersionParameter`, `NoRegisteredProviderFound`, `InvalidResourceType`,
 * `MethodNotAllowed`), and the order of the checks: authentication, a missing api-version, route, method, the route's
 * provider's api-versions, subscription existence, authorization, then the body.
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
  COMPUTE_API_VERSIONS,
  listScaleSetVms,
  listScaleSets,
} from './compute.ts';
import {
  NETWORK_API_VERSIONS,
  subnetFromWire,
  subnetToWire,
  vnetFromWire,
  vnetToWire,
} from './network.ts';
import {
  Operations,
  errorOf,
  operationToWire,
  type ArmOperation,
  type OperationOutcome,
} from './operations.ts';
import {
  CONTAINER_SERVICE_API_VERSIONS,
  CREDENTIAL_API_VERSIONS,
  LOCATIONS,
  LOCATIONS_API_VERSIONS,
  RESOURCES_API_VERSIONS,
  agentPoolFromWire,
  agentPoolToWire,
  credentialResultsToWire,
  kubernetesVersionsToWire,
  locationsToWire,
  managedClusterFromWire,
  managedClusterToWire,
  parseBody,
  resourceGroupFromWire,
  resourceGroupToWire,
} from './wire.ts';

/** Who a bearer token is and which subscriptions it may use (read and write: a Contributor there). */
export interface ArmCaller {
  /** The Entra object id ARM names in `AuthorizationFailed` messages. */
  objectId: string;
  subscriptions: string[];
}

/** One request as the server saw it (for `onRequest` and `apiVersionsSeen`). */
export interface ArmRequestLog {
  method: string;
  /** the route's ARM type, e.g. `Microsoft.ContainerService/managedClusters`, or the path when no route matched */
  resourceType: string;
  apiVersion: string;
  path: string;
  status: number;
  /** the ARM error code of a refused request */
  code?: string;
}

export interface ArmServerOptions {
  world: AzureWorld;
  /** bearer token -> the subscription ids that identity may use (read at request time, so it may be changed live) */
  tokens?: Record<string, string[]>;
  /**
   * Tokens not in `tokens`: who the token is, or undefined for an invalid token (401 InvalidAuthenticationToken).
   * `entraAuthorizer` builds one that accepts the simulated Entra ID's tokens for ARM.
   */
  authorize?: (token: string) => ArmCaller | undefined;
  /** Called after every answered request (e.g. to log which api-versions a real client sends). */
  onRequest?: (entry: ArmRequestLog) => void;
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
  /** Every `METHOD resourceType api-version` seen so far, with how often (refused requests included). */
  apiVersionsSeen(): Record<string, number>;
  close(): Promise<void>;
}

type RouteKind =
  | 'resourceGroup'
  | 'resourceGroupOperationResult'
  | 'listLocations'
  | 'listKubernetesVersions'
  | 'listBySubscription'
  | 'listByResourceGroup'
  | 'cluster'
  | 'listClusterUserCredential'
  | 'listClusterAdminCredential'
  | 'listPools'
  | 'pool'
  | 'operation'
  | 'operationResult'
  | 'listScaleSets'
  | 'listScaleSetVms'
  | 'virtualNetwork'
  | 'subnet';
type Params = Record<string, string>;

interface Route {
  kind: RouteKind;
  pattern: string[];
  methods: string[];
  /** ARM's resource type, for logs and ARM's messages */
  type: string;
  /** the action ARM names in AuthorizationFailed, per method */
  action: (method: string) => string;
  apiVersions: string[];
}

const MC =
  'subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.ContainerService/managedClusters';
const VMSS =
  'subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets';
const VNET =
  'subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks';
const CS_LOC =
  'subscriptions/{sub}/providers/Microsoft.ContainerService/locations/{location}';
/** ARM's RBAC verbs: GET/HEAD read, PUT write, DELETE delete. */
const verb = (method: string) =>
  method === 'PUT' ? 'write' : method === 'DELETE' ? 'delete' : 'read';
const route = (
  kind: RouteKind,
  path: string,
  methods: string[],
  type: string,
  apiVersions: string[],
  action: (method: string) => string = m => `${type}/${verb(m)}`,
): Route => ({
  kind,
  pattern: path.split('/'),
  methods,
  type,
  action,
  apiVersions,
});
const RG_TYPE = 'Microsoft.Resources/subscriptions/resourceGroups';
const MC_TYPE = 'Microsoft.ContainerService/managedClusters';
const AP_TYPE = 'Microsoft.ContainerService/managedClusters/agentPools';
const CS = CONTAINER_SERVICE_API_VERSIONS;
const ROUTES: Route[] = [
  route(
    'resourceGroup',
    'subscriptions/{sub}/resourceGroups/{rg}',
    ['GET', 'HEAD', 'PUT', 'DELETE'],
    RG_TYPE,
    RESOURCES_API_VERSIONS,
  ),
  route(
    'resourceGroupOperationResult',
    'subscriptions/{sub}/operationresults/{op}',
    ['GET'],
    'Microsoft.Resources/subscriptions/operationresults',
    RESOURCES_API_VERSIONS,
  ),
  route(
    'listLocations',
    'subscriptions/{sub}/locations',
    ['GET'],
    'Microsoft.Resources/subscriptions/locations',
    LOCATIONS_API_VERSIONS,
  ),
  route(
    'listKubernetesVersions',
    `${CS_LOC}/kubernetesVersions`,
    ['GET'],
    'Microsoft.ContainerService/locations/kubernetesVersions',
    CS,
  ),
  route(
    'operation',
    `${CS_LOC}/operations/{op}`,
    ['GET'],
    'Microsoft.ContainerService/locations/operations',
    CREDENTIAL_API_VERSIONS,
  ),
  route(
    'operationResult',
    `${CS_LOC}/operationresults/{op}`,
    ['GET'],
    'Microsoft.ContainerService/locations/operationresults',
    CREDENTIAL_API_VERSIONS,
  ),
  route(
    'listBySubscription',
    'subscriptions/{sub}/providers/Microsoft.ContainerService/managedClusters',
    ['GET'],
    MC_TYPE,
    CS,
  ),
  route('listByResourceGroup', MC, ['GET'], MC_TYPE, CS),
  route('cluster', `${MC}/{name}`, ['GET', 'PUT', 'DELETE'], MC_TYPE, CS),
  route(
    'listClusterUserCredential',
    `${MC}/{name}/listClusterUserCredential`,
    ['POST'],
    MC_TYPE,
    CREDENTIAL_API_VERSIONS,
    () => `${MC_TYPE}/listClusterUserCredential/action`,
  ),
  route(
    'listClusterAdminCredential',
    `${MC}/{name}/listClusterAdminCredential`,
    ['POST'],
    MC_TYPE,
    CREDENTIAL_API_VERSIONS,
    () => `${MC_TYPE}/listClusterAdminCredential/action`,
  ),
  route('listPools', `${MC}/{name}/agentPools`, ['GET'], AP_TYPE, CS),
  route(
    'pool',
    `${MC}/{name}/agentPools/{pool}`,
    ['GET', 'PUT', 'DELETE'],
    AP_TYPE,
    CS,
  ),
  // The legacy AzureManagedMachinePool's two reads (./compute.ts); `{rg}` is the node resource group.
  route(
    'listScaleSets',
    `${VMSS}`,
    ['GET'],
    'Microsoft.Compute/virtualMachineScaleSets',
    COMPUTE_API_VERSIONS,
  ),
  route(
    'listScaleSetVms',
    `${VMSS}/{vmss}/virtualMachines`,
    ['GET'],
    'Microsoft.Compute/virtualMachineScaleSets/virtualMachines',
    COMPUTE_API_VERSIONS,
  ),
  // The legacy AzureManagedControlPlane's VNet and subnet, written by ASO (./network.ts).
  route(
    'virtualNetwork',
    `${VNET}/{vnet}`,
    ['GET', 'PUT', 'DELETE'],
    'Microsoft.Network/virtualNetworks',
    NETWORK_API_VERSIONS,
  ),
  route(
    'subnet',
    `${VNET}/{vnet}/subnets/{subnet}`,
    ['GET', 'PUT', 'DELETE'],
    'Microsoft.Network/virtualNetworks/subnets',
    NETWORK_API_VERSIONS,
  ),
];

/** Literal segments match case-insensitively, as in ARM. */
function matchRoute(
  segments: string[],
): { route: Route; params: Params } | undefined {
  for (const r of ROUTES) {
    if (r.pattern.length !== segments.length) continue;
    const params: Params = {};
    const ok = r.pattern.every((p, i) => {
      if (p.startsWith('{')) {
        params[p.slice(1, -1)] = segments[i];
        return segments[i].length > 0;
      }
      return p.toLowerCase() === segments[i].toLowerCase();
    });
    if (ok) return { route: r, params };
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
 * The audiences ARM accepts: `https://management.azure.com` (what `@azure/arm-containerservice` asks for) and
 * `https://management.core.windows.net/`, azcore's public-cloud ResourceManager audience, which ASO's Go clients ask
 * for (azcore v1.21.0 `sdk/azcore/arm/runtime/runtime.go` lines 17-20 set `cloud.AzurePublic`'s ResourceManager
 * Audience; ASO v2.18.0 `v2/internal/genericarmclient/policy_register_rp.go` line 39 builds the scope as
 * `Audience + "/.default"`). The simulated Entra ID compares audiences
 * without a trailing `/`.
 */
export const ARM_AUDIENCES = [
  ARM_RESOURCE,
  'https://management.core.windows.net/',
];

/**
 * Accepts the simulated Entra ID's access tokens for ARM (either audience of `ARM_AUDIENCES`, valid signature and
 * lifetime) and grants each client (app id) the subscriptions `grants` lists for it at request time; a valid token of
 * a client without grants authenticates but may do nothing (403 AuthorizationFailed, as ARM without a role
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
    const claims = ARM_AUDIENCES.map(a => entra.verify(token, a)).find(Boolean);
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

/**
 * Each provider has its own versions. Microsoft.Resources' own types answer `InvalidApiVersionParameter`; a resource
 * provider's type answers `NoRegisteredProviderFound` naming the supported versions, as ARM does for a version the
 * provider does not register (inference from ARM's public error responses; docs/azure-facts.md#arm-write-api).
 */
function checkApiVersion(values: string[], r: Route, location: string): void {
  if (values.length === 1 && r.apiVersions.includes(values[0])) return;
  if (r.type.startsWith('Microsoft.Resources/')) {
    throw new AzureError(
      400,
      'InvalidApiVersionParameter',
      `The api-version '${values.join(
        ',',
      )}' is invalid. The supported versions are '${r.apiVersions.join(',')}'.`,
    );
  }
  throw new AzureError(
    400,
    'NoRegisteredProviderFound',
    `No registered resource provider found for location '${location}' and API version '${values.join(
      ',',
    )}' for type '${r.type
      .split('/')
      .slice(1)
      .join('/')}'. The supported api-versions are '${r.apiVersions.join(
      ', ',
    )}'.`,
  );
}

const read = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });

/** What a handler answers: status, JSON body (none for HEAD/204), extra headers. */
interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Ctx {
  world: AzureWorld;
  ops: Operations;
  p: Params;
  method: string;
  body: Record<string, unknown> | undefined;
  /** `https://<Host header>`: where the client reached this server (the proxy's `management.azure.com` included) */
  origin: string;
  apiVersion: string;
}

const clusterPath = (p: Params) =>
  `/subscriptions/${p.sub}/resourceGroups/${p.rg}/providers/Microsoft.ContainerService/managedClusters/${p.name}`;

/**
 * The headers of an accepted LRO: `Azure-AsyncOperation` (status URL) and for DELETE `Location` (operationresults),
 * as AKS answers (docs/azure-facts.md#arm-write-api).
 */
function lroHeaders(c: Ctx, op: ArmOperation, del: boolean) {
  const base = `${c.origin}/subscriptions/${op.subscriptionId}/providers/Microsoft.ContainerService/locations/${op.location}`;
  const q = `?api-version=${encodeURIComponent(c.apiVersion)}`;
  return {
    'azure-asyncoperation': `${base}/operations/${op.id}${q}`,
    ...(del ? { location: `${base}/operationresults/${op.id}${q}` } : {}),
  };
}

/** A create/update operation: done when the model settles the resource; Failed with the model's error. */
function putOutcome(
  state: () => string | undefined,
  error: () => AzureError | undefined,
  what: string,
): () => OperationOutcome {
  return () => {
    const s = state();
    if (s === undefined || s === 'Deleting' || s === 'Canceled') {
      return {
        status: 'Canceled',
        error: {
          code: 'OperationCanceled',
          message: `The operation on ${what} was canceled: the resource is being deleted or is gone.`,
        },
      };
    }
    if (s === 'Succeeded') return { status: 'Succeeded' };
    if (s === 'Failed') {
      const e = error();
      return {
        status: 'Failed',
        error: e
          ? errorOf(e)
          : { code: 'InternalOperationError', message: `${what} failed.` },
      };
    }
    return { status: 'InProgress' };
  };
}

function handleResourceGroup(c: Ctx): Answer {
  const { world, p } = c;
  switch (c.method) {
    case 'HEAD':
      // CheckExistenceByID (ASO v2.18.0 generic_client.go) accepts 204 (exists) and 404 (absent), no body.
      return { status: world.getResourceGroup(p.sub, p.rg) ? 204 : 404 };
    case 'PUT': {
      const { created, resourceGroup } = world.putResourceGroup(
        p.sub,
        p.rg,
        resourceGroupFromWire(c.body ?? {}),
      );
      return {
        status: created ? 201 : 200,
        body: resourceGroupToWire(resourceGroup),
      };
    }
    case 'DELETE': {
      // The model deletes a group and its contents at once; ARM answers 202 + Location whose GET then says 200.
      if (!world.deleteResourceGroup(p.sub, p.rg))
        throw notFound('Microsoft.Resources/resourceGroups', p.rg);
      const op = c.ops.start(p.sub, 'global', () => ({ status: 'Succeeded' }));
      return {
        status: 202,
        headers: {
          location: `${c.origin}/subscriptions/${p.sub}/operationresults/${
            op.id
          }?api-version=${encodeURIComponent(c.apiVersion)}`,
        },
      };
    }
    default:
      return {
        status: 200,
        body: resourceGroupToWire(world.requireResourceGroup(p.sub, p.rg)),
      };
  }
}

function handleCluster(c: Ctx): Answer {
  const { world, p } = c;
  if (c.method === 'PUT') {
    const { created, cluster } = world.putManagedCluster(
      p.sub,
      p.rg,
      p.name,
      managedClusterFromWire(c.body ?? {}),
    );
    const path = clusterPath(p);
    const op = c.ops.start(
      p.sub,
      cluster.location,
      putOutcome(
        () =>
          world.getManagedCluster(p.sub, p.rg, p.name) === cluster
            ? cluster.provisioningState
            : undefined,
        () => world.operationError(path),
        `managed cluster '${p.name}'`,
      ),
    );
    return {
      status: created ? 201 : 200,
      body: managedClusterToWire(cluster),
      headers: lroHeaders(c, op, false),
    };
  }
  if (c.method === 'DELETE') {
    const mc = world.getManagedCluster(p.sub, p.rg, p.name);
    // 204 when absent (the group must exist: the model answers ResourceGroupNotFound otherwise).
    if (!world.deleteManagedCluster(p.sub, p.rg, p.name) || !mc)
      return { status: 204 };
    const op = c.ops.start(p.sub, mc.location, () =>
      world.getManagedCluster(p.sub, p.rg, p.name) === mc
        ? { status: 'InProgress' }
        : { status: 'Succeeded' },
    );
    return { status: 202, headers: lroHeaders(c, op, true) };
  }
  return {
    status: 200,
    body: managedClusterToWire(
      world.requireManagedCluster(p.sub, p.rg, p.name),
    ),
  };
}

function findPool(world: AzureWorld, p: Params) {
  const mc = world.requireManagedCluster(p.sub, p.rg, p.name);
  const pool = Object.values(mc.agentPools).find(
    ap => ap.name.toLowerCase() === p.pool.toLowerCase(),
  );
  return { mc, pool };
}

function handlePool(c: Ctx): Answer {
  const { world, p } = c;
  if (c.method === 'PUT') {
    const { mc, pool: existing } = findPool(world, p);
    const name = existing?.name ?? p.pool;
    const { created, pool } = world.putAgentPool(
      p.sub,
      p.rg,
      mc.name,
      name,
      agentPoolFromWire(c.body ?? {}),
    );
    const path = `${clusterPath(p)}/agentPools/${name}`;
    const op = c.ops.start(
      p.sub,
      mc.location,
      putOutcome(
        () =>
          world.getManagedCluster(p.sub, p.rg, p.name)?.agentPools[name] ===
          pool
            ? pool.provisioningState
            : undefined,
        () => world.operationError(path),
        `agent pool '${name}'`,
      ),
    );
    return {
      status: created ? 201 : 200,
      body: agentPoolToWire(mc, pool),
      headers: lroHeaders(c, op, false),
    };
  }
  if (c.method === 'DELETE') {
    const { mc, pool } = findPool(world, p);
    if (!pool) return { status: 204 };
    world.deleteAgentPool(p.sub, p.rg, mc.name, pool.name);
    const op = c.ops.start(p.sub, mc.location, () =>
      world.getManagedCluster(p.sub, p.rg, p.name)?.agentPools[pool.name] ===
      pool
        ? { status: 'InProgress' }
        : { status: 'Succeeded' },
    );
    return { status: 202, headers: lroHeaders(c, op, true) };
  }
  const { mc, pool } = findPool(world, p);
  if (!pool) throw notFound(AP_TYPE, `${mc.name}/${p.pool}`, p.rg);
  return { status: 200, body: agentPoolToWire(mc, pool) };
}

function handleVirtualNetwork(c: Ctx): Answer {
  const { world, p } = c;
  if (c.method === 'PUT') {
    const { created, vnet } = world.putVirtualNetwork(
      p.sub,
      p.rg,
      p.vnet,
      vnetFromWire(c.body ?? {}),
    );
    return { status: created ? 201 : 200, body: vnetToWire(vnet) };
  }
  if (c.method === 'DELETE')
    return {
      status: world.deleteVirtualNetwork(p.sub, p.rg, p.vnet) ? 200 : 204,
    };
  return {
    status: 200,
    body: vnetToWire(world.requireVirtualNetwork(p.sub, p.rg, p.vnet)),
  };
}

function handleSubnet(c: Ctx): Answer {
  const { world, p } = c;
  if (c.method === 'PUT') {
    const { created, subnet } = world.putSubnet(
      p.sub,
      p.rg,
      p.vnet,
      p.subnet,
      subnetFromWire(c.body ?? {}),
    );
    const vnet = world.requireVirtualNetwork(p.sub, p.rg, p.vnet);
    return { status: created ? 201 : 200, body: subnetToWire(vnet, subnet) };
  }
  if (c.method === 'DELETE')
    return {
      status: world.deleteSubnet(p.sub, p.rg, p.vnet, p.subnet) ? 200 : 204,
    };
  const vnet = world.requireVirtualNetwork(p.sub, p.rg, p.vnet);
  const subnet = Object.values(vnet.subnets).find(
    s => s.name.toLowerCase() === p.subnet.toLowerCase(),
  );
  if (!subnet)
    throw notFound(
      'Microsoft.Network/virtualNetworks/subnets',
      `${vnet.name}/${p.subnet}`,
      p.rg,
    );
  return { status: 200, body: subnetToWire(vnet, subnet) };
}

function operationNotFound(id: string): AzureError {
  return new AzureError(
    404,
    'NotFound',
    `The operation '${id}' could not be found.`,
  );
}

function dispatch(c: Ctx, kind: RouteKind): Answer {
  const { world, p } = c;
  const ok = (body: unknown): Answer => ({ status: 200, body });
  switch (kind) {
    case 'resourceGroup':
      return handleResourceGroup(c);
    case 'resourceGroupOperationResult': {
      const op = c.ops.get(p.sub, p.op);
      if (!op) throw operationNotFound(p.op);
      return { status: op.status === 'InProgress' ? 202 : 200 };
    }
    case 'cluster':
      return handleCluster(c);
    case 'pool':
      return handlePool(c);
    case 'listClusterUserCredential':
    case 'listClusterAdminCredential': {
      const which = kind === 'listClusterAdminCredential' ? 'admin' : 'user';
      const mc = world.requireManagedCluster(p.sub, p.rg, p.name);
      return ok(
        credentialResultsToWire(
          which,
          world.listClusterCredentials(p.sub, p.rg, mc.name, which),
        ),
      );
    }
    case 'operation': {
      const op = c.ops.get(p.sub, p.op);
      if (!op) throw operationNotFound(p.op);
      return ok(operationToWire(op));
    }
    case 'operationResult': {
      // Location polling: 202 while running, 204 once done, the operation's error (status 400/409…) if it failed.
      const op = c.ops.get(p.sub, p.op);
      if (!op) throw operationNotFound(p.op);
      if (op.status === 'InProgress') {
        return {
          status: 202,
          headers: {
            location: `${c.origin}/${[
              'subscriptions',
              p.sub,
              'providers/Microsoft.ContainerService/locations',
              p.location,
              'operationresults',
              op.id,
            ].join('/')}?api-version=${encodeURIComponent(c.apiVersion)}`,
          },
        };
      }
      if (op.status === 'Succeeded') return { status: 204 };
      return { status: 400, body: { error: op.error } };
    }
    case 'listLocations':
      return ok(locationsToWire(p.sub));
    case 'listKubernetesVersions': {
      const location = p.location.toLowerCase().replace(/\s/g, '');
      if (!LOCATIONS.some(l => l.name === location)) {
        throw new AzureError(
          404,
          'NoRegisteredProviderFound',
          `No registered resource provider found for location '${p.location}' and API version '${c.apiVersion}' for type 'locations/kubernetesVersions'.`,
        );
      }
      return ok(kubernetesVersionsToWire(world.kubernetesVersions()));
    }
    case 'listBySubscription':
      return ok({
        value: world.listManagedClusters(p.sub).map(managedClusterToWire),
      });
    case 'listByResourceGroup':
      return ok({
        value: world.listManagedClusters(p.sub, p.rg).map(managedClusterToWire),
      });
    case 'listScaleSets':
      return ok(listScaleSets(world, p.sub, p.rg));
    case 'listScaleSetVms':
      return ok(listScaleSetVms(world, p.sub, p.rg, p.vmss));
    case 'virtualNetwork':
      return handleVirtualNetwork(c);
    case 'subnet':
      return handleSubnet(c);
    case 'listPools': {
      const mc = world.requireManagedCluster(p.sub, p.rg, p.name);
      return ok({
        value: Object.values(mc.agentPools).map(pool =>
          agentPoolToWire(mc, pool),
        ),
      });
    }
  }
}

/** The location ARM names in NoRegisteredProviderFound: the body's, else the existing resource's, else `global`. */
function locationOf(
  world: AzureWorld,
  p: Params,
  body: Record<string, unknown> | undefined,
): string {
  if (typeof body?.location === 'string') return body.location;
  if (p.location) return p.location;
  try {
    if (p.name && world.hasSubscription(p.sub))
      return world.getManagedCluster(p.sub, p.rg, p.name)?.location ?? 'global';
  } catch {
    // fall through
  }
  return 'global';
}

async function handle(
  opts: ArmServerOptions,
  ops: Operations,
  seen: Map<string, number>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const requestId = randomUUID();
  const correlationId =
    (req.headers['x-ms-correlation-request-id'] as string | undefined) ??
    requestId;
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  const log: ArmRequestLog = {
    method,
    resourceType: url.pathname,
    apiVersion: url.searchParams.get('api-version') ?? '',
    path: url.pathname,
    status: 0,
  };
  const send = (a: Answer) => {
    const text =
      a.body === undefined || method === 'HEAD' ? '' : JSON.stringify(a.body);
    res.writeHead(a.status, {
      ...(text
        ? {
            'content-type': 'application/json; charset=utf-8',
          }
        : {}),
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-cache',
      'x-ms-request-id': requestId,
      'x-ms-correlation-request-id': correlationId,
      ...a.headers,
    });
    res.end(text);
    log.status = a.status;
    const k = `${log.method} ${log.resourceType} ${log.apiVersion}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
    opts.onRequest?.(log);
  };
  try {
    // The body is read whatever happens next, so a refused request does not leave it unread on the connection.
    const text = await read(req);
    const caller = authenticate(req, opts);
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
    const matched = matchRoute(segments);
    if (!matched) throw unknownRoute(segments, versions[0]);
    const { route: r, params } = matched;
    log.resourceType = r.type;
    if (!r.methods.includes(method)) {
      throw Object.assign(
        new AzureError(
          405,
          'MethodNotAllowed',
          `The requested resource does not support http method '${method}'.`,
        ),
        { allow: r.methods.join(', ') },
      );
    }
    // A bad body is reported after the api-version and access checks (ARM answers those first).
    let body: Record<string, unknown> | undefined;
    let bodyError: unknown;
    if (method === 'PUT') {
      try {
        body = parseBody(text);
      } catch (e) {
        bodyError = e;
      }
    }
    checkApiVersion(versions, r, locationOf(opts.world, params, body));
    const { sub } = params;
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
      throw new AzureError(
        403,
        'AuthorizationFailed',
        `The client '${oid}' with object id '${oid}' does not have authorization to perform action '${r.action(
          method,
        )}' over scope '${
          url.pathname
        }' or the scope is invalid. If access was recently granted, please refresh your credentials.`,
      );
    }
    if (bodyError) throw bodyError;
    const host = req.headers.host ?? `127.0.0.1`;
    send(
      dispatch(
        {
          world: opts.world,
          ops,
          p: params,
          method,
          body,
          origin: `https://${host}`,
          apiVersion: versions[0],
        },
        r.kind,
      ),
    );
  } catch (e) {
    if (e instanceof AzureError) {
      log.code = e.code;
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
      const allow = (e as AzureError & { allow?: string }).allow;
      if (allow) headers.allow = allow;
      send({ status: e.status, body: e.toBody(), headers });
    } else {
      send({
        status: 500,
        body: {
          error: {
            code: 'InternalServerError',
            message: e instanceof Error ? e.message : String(e),
          },
        },
      });
    }
  }
}

export async function startArmServer(
  opts: ArmServerOptions,
): Promise<ArmServer> {
  const tls = ensureLoopbackTls(opts.stateDir, 'arm');
  const ops = new Operations(opts.world);
  const seen = new Map<string, number>();
  const server = createServer(
    { key: tls.keyPem, cert: tls.certPem },
    (req, res) => void handle(opts, ops, seen, req, res),
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
    apiVersionsSeen: () => Object.fromEntries(seen),
    close() {
      closing ??= new Promise<void>(resolve => {
        ops.close();
        server.close(() => resolve());
        server.closeAllConnections(); // the SDK keeps connections alive; don't wait for them to time out
      });
      return closing;
    },
  };
}
