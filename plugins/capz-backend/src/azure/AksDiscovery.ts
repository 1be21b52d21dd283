/**
 * AKS discovery for adoption and the migration's final check: which AKS clusters an ASO credential can see, and
 * whether one (with its pools) exists, and a resource group's location and tags (for adoption). Reads ARM with
 * `@azure/arm-containerservice` and the credential the ASO Secret describes
 * (docs/azure-facts.md#credential-from-aso-secret, docs/azure-facts.md#arm-sdk), against `capz.azureDiscovery` (public
 * cloud by default; the simulated ARM and Entra ID in dev and test).
 */
import {
  ContainerServiceClient,
  type ManagedCluster,
} from '@azure/arm-containerservice';
import {
  createDefaultHttpClient,
  createPipelineRequest,
  RestError,
  type HttpClient,
} from '@azure/core-rest-pipeline';
import type { LoggerService } from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import type {
  DiscoveredAksClustersResponse,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { createHash } from 'node:crypto';
import {
  readAzureDiscoveryConfig,
  type AzureDiscoveryConfig,
  type AzureDiscoverySettings,
} from './config';
import { credentialFromSecret, type SecretCredential } from './credentials';
import {
  AzureCredentialError,
  AzureRequestError,
  AzureServiceError,
  keepErrorBodies,
  ARM_REQUEST_TIMEOUT_MS,
  limitRetryAfter,
  LOCATION_CODES,
  requestTimeout,
  toAzureServiceError,
} from './errors';
import { asoTargets, findManagedBy, toDiscoveredCluster } from './mapping';

/** The API version of the ASO CRDs the plugin writes (v1api20240901) and of the simulated ARM (docs/azure-facts.md#arm-sdk). */
export const AKS_API_VERSION = '2024-09-01';

/**
 * The Microsoft.Resources api-version of the resource group GET: a long-GA version whose body has `location`
 * (docs/azure-facts.md#arm-resource-groups shape; ASO's own version is 2020-06-01). Which one is an inference: every GA
 * version has this body.
 */
export const RESOURCES_API_VERSION = '2021-04-01';

/** The Microsoft.Resources api-version of the subscription's locations list (ARM's `Subscriptions - List Locations`). */
export const LOCATIONS_API_VERSION = '2022-12-01';

/** The Microsoft.Resources api-version of the subscriptions list (ARM's `Subscriptions - List`). */
export const SUBSCRIPTIONS_API_VERSION = '2022-12-01';

/** The picker's query: which credential Secret, on which management cluster (its subscription unless given). */
export interface CredentialQuery {
  managementCluster: string;
  namespace: string;
  credentialSecret: string;
  subscriptionId?: string;
}

/** One Kubernetes version AKS offers for new clusters in a region. */
export interface OfferedKubernetesVersion {
  /** With the leading v, as CAPI writes it (v1.33.2). */
  version: string;
  /** major.minor */
  minor: string;
  /** The latest patch of AKS's default minor version. */
  isDefault: boolean;
  /** AKS support plans of the minor (KubernetesOfficial, AKSLongTermSupport). */
  supportPlans: string[];
}

export interface OfferedKubernetesVersions {
  subscriptionId: string;
  location: string;
  /** Newest first; previews are left out. */
  items: OfferedKubernetesVersion[];
  /** How many preview patch versions were left out. */
  previewsHidden: number;
}

export interface AzureRegion {
  name: string;
  displayName: string;
}

/** At most this many Secrets' credentials are kept (their MSAL token caches live in them: docs/azure-facts.md#credential-from-aso-secret). */
const CREDENTIAL_CACHE_SIZE = 64;

/**
 * How long a credential's list of regions is kept: the regions of a subscription change rarely, and the list is read
 * for every check of a region (pickers, POST /clusters), so it is read once per credential and subscription, never per
 * page view.
 */
export const LOCATIONS_TTL_MS = 10 * 60_000;

/** How an ARM call may read its credential Secret. */
export interface ArmCallOptions {
  /** Accept the Secret's data as read up to this long ago (background work); default: read it afresh. */
  secretMaxAgeMs?: number;
}

export interface AksDiscoveryOptions {
  /** The root config (`capz.azureDiscovery`). */
  config: Config;
  logger: LoggerService;
  /** A Secret's data, base64-decoded; undefined when it does not exist. */
  readSecret: (
    managementCluster: string,
    namespace: string,
    name: string,
  ) => Promise<Record<string, string> | undefined>;
  /** The ASO ManagedCluster objects of the management cluster's watch cache (all namespaces). */
  managedClusters: (managementCluster: string) => ObservedObject[];
  /** Its ASO ResourceGroup objects, to resolve a ManagedCluster's owner group by name (optional). */
  resourceGroups?: (managementCluster: string) => ObservedObject[];
  /** Every configured management cluster: an AKS cluster managed from any of them is marked (one owner per cluster). */
  managementClusters?: () => string[];
}

export interface ClusterExistsQuery {
  managementCluster: string;
  credential: { namespace: string; name: string };
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  agentPools?: string[];
}

export interface ResourceGroupQuery {
  managementCluster: string;
  namespace: string;
  credentialSecret: string;
  subscriptionId: string;
  resourceGroup: string;
}

export interface ClusterExistsResult {
  exists: boolean;
  /** Requested pools the cluster does not have (all of them when the cluster does not exist). */
  missingPools: string[];
  /** What ARM showed, in words. */
  observed: string;
}

/** What adoption needs of a resource group: where it is, and the tags its ASO ResourceGroup must carry. */
export interface ResourceGroupInfo {
  location: string;
  /** ARM's tags of the group ({} when it has none); ARM replaces them on PUT, so adoption writes them back. */
  tags: Record<string, string>;
}

/** A credential Secret as read for one request: its credential, an ARM client for the subscription, the settings. */
interface Resolved {
  credential: SecretCredential;
  client: ContainerServiceClient;
  settings: AzureDiscoverySettings;
  entry: Cached;
}

interface Cached {
  fingerprint: string;
  credential: SecretCredential;
  clients: Map<string, ContainerServiceClient>;
  /** The subscriptions this credential can see (for LOCATIONS_TTL_MS; a failed read is not kept). */
  subscriptions?: {
    at: number;
    value: Promise<Array<{ id: string; displayName?: string }>>;
  };
  /** The regions by subscription, read with this credential (see LOCATIONS_TTL_MS); a failed read is not kept. */
  locations: Map<
    string,
    {
      at: number;
      value: Promise<{ subscriptionId: string; items: AzureRegion[] }>;
    }
  >;
}

const NOT_FOUND_CODES = new Set([
  'ResourceNotFound',
  'ResourceGroupNotFound',
  'NotFound',
]);

/** One HTTP client for the resource group reads; it caches an https.Agent per pipeline's TLS settings. */
let sharedHttpClient: HttpClient | undefined;
const httpClient = () => (sharedHttpClient ??= createDefaultHttpClient());

export class AksDiscovery {
  private readonly settings: AzureDiscoveryConfig;
  private readonly cache = new Map<string, Cached>();
  /** Secrets read for background work that may be a little old (see `secretMaxAgeMs`), by management cluster/ref. */
  private readonly recentSecrets = new Map<
    string,
    { at: number; data: Promise<Record<string, string> | undefined> }
  >();

  constructor(private readonly options: AksDiscoveryOptions) {
    // Validated here, so a misconfiguration stops the backend at start with the key's name.
    this.settings = readAzureDiscoveryConfig(options.config);
  }

  /** GET /azure/clusters: every AKS cluster of the Secret's subscription, marked when an ASO object already owns it. */
  async listClusters(q: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
  }): Promise<DiscoveredAksClustersResponse> {
    const resolved = await this.clientFor(
      q.managementCluster,
      q.namespace,
      q.credentialSecret,
    );
    const { credential, client } = resolved;
    const what = `listing AKS clusters in subscription ${
      credential.subscriptionId
    } with ${this.describe(q.namespace, q.credentialSecret, credential)}`;
    const found: ManagedCluster[] = [];
    try {
      for await (const mc of client.managedClusters.list()) found.push(mc);
    } catch (e) {
      throw await this.withVisibleSubscriptions(this.fail(e, what), resolved);
    }
    // This management cluster first, so that a cluster managed here is named without a management cluster.
    const others = (this.options.managementClusters?.() ?? []).filter(
      m => m !== q.managementCluster,
    );
    const targets = [q.managementCluster, ...others].map(m => ({
      managementCluster: m,
      targets: asoTargets(
        this.options.managedClusters(m),
        this.options.resourceGroups?.(m) ?? [],
      ),
    }));
    const items = found
      .map(mc => {
        const d = toDiscoveredCluster(mc, credential.subscriptionId);
        for (const t of targets) {
          const managedBy = findManagedBy(d, t.targets);
          if (managedBy)
            return {
              ...d,
              managedBy:
                t.managementCluster === q.managementCluster
                  ? managedBy
                  : { ...managedBy, managementCluster: t.managementCluster },
            };
        }
        return d;
      })
      .sort(
        (a, b) =>
          a.resourceGroup.localeCompare(b.resourceGroup) ||
          a.name.localeCompare(b.name),
      );
    return { subscriptionId: credential.subscriptionId, items };
  }

  /**
   * Whether the AKS cluster (and these pools) exists, read with the job's credential Secret in the given
   * subscription. A missing cluster or group is an answer (exists: false); any other failure throws.
   */
  async clusterExists(q: ClusterExistsQuery): Promise<ClusterExistsResult> {
    const { credential, client } = await this.clientFor(
      q.managementCluster,
      q.credential.namespace,
      q.credential.name,
      q.subscriptionId,
    );
    const where = `${q.resourceGroup}/${q.name} in subscription ${q.subscriptionId}`;
    let mc: ManagedCluster;
    try {
      mc = await client.managedClusters.get(q.resourceGroup, q.name);
    } catch (e) {
      const err = e as { statusCode?: number; code?: string };
      if (err.statusCode === 404 && NOT_FOUND_CODES.has(err.code ?? '')) {
        return {
          exists: false,
          missingPools: [...(q.agentPools ?? [])],
          observed: `AKS cluster ${where} does not exist (ARM: ${err.code})`,
        };
      }
      throw this.fail(
        e,
        `reading AKS cluster ${where} with ${this.describe(
          q.credential.namespace,
          q.credential.name,
          credential,
        )}`,
      );
    }
    const pools = (mc.agentPoolProfiles ?? []).map(p => p.name);
    const missingPools = (q.agentPools ?? []).filter(
      p => !pools.some(x => x.toLowerCase() === p.toLowerCase()),
    );
    const state = mc.provisioningState ? ` (${mc.provisioningState})` : '';
    const poolText = pools.length ? `pools ${pools.join(', ')}` : 'no pools';
    return {
      exists: true,
      missingPools,
      observed: missingPools.length
        ? `AKS cluster ${where} exists${state} with ${poolText}; missing pools: ${missingPools.join(
            ', ',
          )}`
        : `AKS cluster ${where} exists${state} with ${poolText}`,
    };
  }

  /**
   * A resource group's location and tags (ARM's resource group GET, docs/azure-facts.md#arm-resource-groups), read with
   * the Secret's credential in the given subscription; undefined when the group does not exist (404
   * ResourceGroupNotFound) or ARM's answer has no location. Any other failure throws AzureServiceError /
   * AzureCredentialError, as the other reads do.
   */
  async resourceGroup(
    q: ResourceGroupQuery,
  ): Promise<ResourceGroupInfo | undefined> {
    const { credential, client, settings } = await this.clientFor(
      q.managementCluster,
      q.namespace,
      q.credentialSecret,
      q.subscriptionId,
    );
    const what = `reading resource group ${q.resourceGroup} in subscription ${
      q.subscriptionId
    } with ${this.describe(q.namespace, q.credentialSecret, credential)}`;
    // Through the AKS client's own pipeline: the same credential, token scope (audience), trusted CAs, retry and
    // error-body policies; only the path and the api-version (Microsoft.Resources', which the pipeline keeps) differ.
    const url = `${settings.resourceManagerEndpoint.replace(
      /\/+$/,
      '',
    )}/subscriptions/${encodeURIComponent(
      q.subscriptionId,
    )}/resourcegroups/${encodeURIComponent(
      q.resourceGroup,
    )}?api-version=${RESOURCES_API_VERSION}`;
    const request = createPipelineRequest({ url, method: 'GET' });
    let body:
      | {
          location?: unknown;
          tags?: unknown;
          error?: { code?: unknown; message?: unknown };
        }
      | undefined;
    try {
      const response = await client.pipeline.sendRequest(httpClient(), request);
      const status = response.status;
      try {
        body = response.bodyAsText
          ? JSON.parse(response.bodyAsText)
          : undefined;
      } catch {
        body = undefined;
      }
      if (status >= 400) {
        const code =
          typeof body?.error?.code === 'string' ? body.error.code : undefined;
        if (status === 404 && code === 'ResourceGroupNotFound')
          return undefined;
        throw new RestError(
          typeof body?.error?.message === 'string'
            ? body.error.message
            : `HTTP ${status}`,
          {
            code,
            statusCode: status,
            request,
            response,
          },
        );
      }
    } catch (e) {
      throw this.fail(e, what);
    }
    // As before: an answer without a location is no answer (the planner then warns that the location is unknown).
    return typeof body?.location === 'string' && body.location
      ? { location: body.location, tags: stringMap(body.tags) }
      : undefined;
  }

  /**
   * The Kubernetes versions AKS offers in a region (`managedClusters.listKubernetesVersions(location)`), with the
   * Secret's credential: every patch of every GA minor, newest first, the default minor's newest patch marked.
   */
  async listKubernetesVersions(
    q: CredentialQuery & { location: string },
  ): Promise<OfferedKubernetesVersions> {
    let answer;
    try {
      answer = await this.armCall(
        q,
        sub =>
          `listing the Kubernetes versions of ${q.location} in subscription ${sub}`,
        ({ client }) =>
          client.managedClusters.listKubernetesVersions(q.location),
      );
    } catch (e) {
      throw await this.regionRefused(e, q);
    }
    const { subscriptionId, result } = answer;
    const items: OfferedKubernetesVersion[] = [];
    let previewsHidden = 0;
    for (const minor of result.values ?? []) {
      const patches = Object.keys(minor.patchVersions ?? {});
      if (minor.isPreview) {
        previewsHidden += patches.length;
        continue;
      }
      const sorted = [...patches].sort(compareVersions).reverse();
      sorted.forEach((patch, i) =>
        items.push({
          version: `v${patch}`,
          minor: minor.version ?? patch.split('.').slice(0, 2).join('.'),
          isDefault: minor.isDefault === true && i === 0,
          supportPlans: [...(minor.capabilities?.supportPlan ?? [])],
        }),
      );
    }
    items.sort((a, b) => compareVersions(b.version, a.version));
    return { subscriptionId, location: q.location, items, previewsHidden };
  }

  /**
   * The AKS cluster's user kubeconfig (`POST …/listClusterUserCredential?format=exec`, what `az aks get-credentials`
   * reads: docs/capz-aso-facts.md#kubeconfig-download), decoded, with the Secret's credential; it needs the ARM action
   * `Microsoft.ContainerService/managedClusters/listClusterUserCredential/action`. The text may hold a secret (a
   * cluster with local accounts): callers check it, and it is never logged here.
   */
  async listClusterUserCredential(
    q: CredentialQuery & { resourceGroup: string; name: string },
    opts: ArmCallOptions = {},
  ): Promise<string> {
    const { result, what } = await this.armCall(
      q,
      sub =>
        `reading the user kubeconfig of AKS cluster ${q.resourceGroup}/${q.name} in subscription ${sub}`,
      ({ client }) =>
        client.managedClusters.listClusterUserCredentials(
          q.resourceGroup,
          q.name,
          { format: 'exec' },
        ),
      opts,
    );
    const value = result.kubeconfigs?.[0]?.value;
    if (!value)
      throw new AzureServiceError('ARM', `${what}: ARM returned no kubeconfig`);
    return Buffer.from(value).toString('utf8');
  }

  /**
   * ARM's refusal of a region (NoRegisteredProviderFound, LocationNotAvailableForResourceType, ...) as the user's
   * mistake: a 400 naming the regions of the subscription (read once per credential, `listLocations`). Any other error
   * passes through.
   */
  private async regionRefused(
    e: unknown,
    q: CredentialQuery & { location: string },
  ): Promise<unknown> {
    if (!(e instanceof AzureServiceError) || !LOCATION_CODES.has(e.code ?? ''))
      return e;
    let regions: AzureRegion[];
    let subscriptionId: string;
    try {
      ({ items: regions, subscriptionId } = await this.listLocations(q));
    } catch {
      // The regions cannot be read: ARM's own words, which name the supported locations, still say it.
      return new AzureRequestError(e.message, {
        statusCode: 400,
        code: e.code!,
        field: 'location',
      });
    }
    const names = regions.map(r => r.name);
    const known = names.some(n => n === q.location.toLowerCase());
    // A region of the subscription: the provider may not be registered, or not offer the region or the api-version;
    // ARM's message says which (docs/azure-facts.md#arm-error-classes).
    const message = known
      ? `AKS offers no Kubernetes versions in "${
          q.location
        }" of subscription ${subscriptionId}: ${
          e.message
        }. The regions of the subscription are ${names.join(', ')}`
      : `"${
          q.location
        }" is not a region of subscription ${subscriptionId} (ARM: ${
          e.code
        }); its regions are ${names.join(', ')}`;
    return new AzureRequestError(message, {
      statusCode: 400,
      code: e.code!,
      field: 'location',
      offered: names,
    });
  }

  /**
   * The regions of the Secret's subscription (ARM's subscription locations list), physical regions only, by display
   * name. Read once per credential and subscription for LOCATIONS_TTL_MS (the Secret itself is read every time).
   */
  async listLocations(
    q: CredentialQuery,
  ): Promise<{ subscriptionId: string; items: AzureRegion[] }> {
    const resolved = await this.clientFor(
      q.managementCluster,
      q.namespace,
      q.credentialSecret,
      q.subscriptionId,
    );
    const { entry } = resolved;
    const sub = q.subscriptionId ?? entry.credential.subscriptionId;
    const now = Date.now();
    const kept = entry.locations.get(sub);
    if (kept && now - kept.at < LOCATIONS_TTL_MS) return kept.value;
    const value = this.readLocations(q, resolved);
    entry.locations.set(sub, { at: now, value });
    value.catch(() => {
      if (entry.locations.get(sub)?.value === value)
        entry.locations.delete(sub);
    });
    return value;
  }

  private async readLocations(
    q: CredentialQuery,
    resolved: Resolved,
  ): Promise<{ subscriptionId: string; items: AzureRegion[] }> {
    type Locations = {
      value?: Array<{
        name?: unknown;
        displayName?: unknown;
        metadata?: { regionType?: unknown };
      }>;
    };
    const { subscriptionId, result: body } = await this.armCall(
      q,
      sub => `listing the regions of subscription ${sub}`,
      ({ client, settings, subscriptionId: sub }) =>
        armGet<Locations>(
          client,
          `${settings.resourceManagerEndpoint.replace(
            /\/+$/,
            '',
          )}/subscriptions/${encodeURIComponent(
            sub,
          )}/locations?api-version=${LOCATIONS_API_VERSION}`,
        ),
      { resolved },
    );
    const items = (body?.value ?? [])
      .filter(
        l =>
          typeof l.name === 'string' &&
          (l.metadata?.regionType === undefined ||
            l.metadata.regionType === 'Physical'),
      )
      .map(l => ({
        name: l.name as string,
        displayName:
          typeof l.displayName === 'string'
            ? l.displayName
            : (l.name as string),
      }))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
    return { subscriptionId, items };
  }

  /**
   * One ARM call with the Secret's credential, in its subscription unless the query names one; a failure is named by
   * what was being done and with which credential (never its secret), and logged once.
   */
  private async armCall<T>(
    q: CredentialQuery,
    doing: (subscriptionId: string) => string,
    call: (arm: {
      client: ContainerServiceClient;
      settings: AzureDiscoverySettings;
      subscriptionId: string;
    }) => Promise<T>,
    opts: ArmCallOptions & { resolved?: Resolved } = {},
  ): Promise<{ subscriptionId: string; result: T; what: string }> {
    const { credential, client, settings, entry } =
      opts.resolved ??
      (await this.clientFor(
        q.managementCluster,
        q.namespace,
        q.credentialSecret,
        q.subscriptionId,
        opts.secretMaxAgeMs,
      ));
    const subscriptionId = q.subscriptionId ?? credential.subscriptionId;
    const what = `${doing(subscriptionId)} with ${this.describe(
      q.namespace,
      q.credentialSecret,
      credential,
    )}`;
    try {
      return {
        subscriptionId,
        result: await call({ client, settings, subscriptionId }),
        what,
      };
    } catch (e) {
      throw await this.withVisibleSubscriptions(this.fail(e, what), {
        credential,
        client,
        settings,
        entry,
      });
    }
  }

  /**
   * A subscription ARM does not know or the credential cannot see, with the subscriptions it can see (ARM's
   * `Subscriptions - List`, read once per credential for LOCATIONS_TTL_MS); any other error, or when they cannot be
   * listed, unchanged.
   */
  private async withVisibleSubscriptions(
    err: Error,
    r: Resolved,
  ): Promise<Error> {
    if (!(err instanceof AzureRequestError) || err.field !== 'subscriptionId')
      return err;
    let visible: Array<{ id: string; displayName?: string }>;
    try {
      visible = await this.visibleSubscriptions(r);
    } catch {
      return err;
    }
    const list = visible.length
      ? `The subscriptions it can see: ${visible
          .map(v => (v.displayName ? `${v.id} (${v.displayName})` : v.id))
          .join(', ')}`
      : 'It can see no subscription';
    return new AzureRequestError(`${err.message.replace(/\.$/, '')}. ${list}`, {
      statusCode: err.statusCode,
      code: err.code,
      field: err.field,
      offered: visible.map(v => v.id),
    });
  }

  private visibleSubscriptions(
    r: Resolved,
  ): Promise<Array<{ id: string; displayName?: string }>> {
    const now = Date.now();
    const kept = r.entry.subscriptions;
    if (kept && now - kept.at < LOCATIONS_TTL_MS) return kept.value;
    const value = (async () => {
      type Page = {
        value?: Array<{ subscriptionId?: unknown; displayName?: unknown }>;
        nextLink?: unknown;
      };
      const found: Array<{ id: string; displayName?: string }> = [];
      let url:
        | string
        | undefined = `${r.settings.resourceManagerEndpoint.replace(
        /\/+$/,
        '',
      )}/subscriptions?api-version=${SUBSCRIPTIONS_API_VERSION}`;
      // A few pages at most: this only illustrates a message.
      for (let page = 0; url && page < 5; page++) {
        const body: Page | undefined = await armGet<Page>(r.client, url);
        for (const v of body?.value ?? [])
          if (typeof v.subscriptionId === 'string')
            found.push({
              id: v.subscriptionId,
              ...(typeof v.displayName === 'string'
                ? { displayName: v.displayName }
                : {}),
            });
        url = typeof body?.nextLink === 'string' ? body.nextLink : undefined;
      }
      return found;
    })();
    const entry = r.entry;
    entry.subscriptions = { at: now, value };
    value.catch(() => {
      if (entry.subscriptions?.value === value) delete entry.subscriptions;
    });
    return value;
  }

  private describe(
    namespace: string,
    name: string,
    c: SecretCredential,
  ): string {
    return `credential Secret ${namespace}/${name} (${c.mode}, tenant ${c.tenantId})`;
  }

  private fail(e: unknown, what: string): Error {
    const err = toAzureServiceError(e, what);
    // Only the composed message: SDK errors can carry request details; secret values are never part of either.
    this.options.logger.warn(`AKS discovery: ${err.message}`);
    return err;
  }

  /**
   * The Secret's data: read afresh (a user who just fixed a Secret sees the fix), unless the caller accepts one read
   * up to `maxAgeMs` ago: background work over many clusters sharing one Secret (ClusterEndpoints at a backend's
   * start) then reads it once, not once a cluster. A failed read is not kept.
   */
  private secretData(
    managementCluster: string,
    namespace: string,
    name: string,
    maxAgeMs?: number,
  ): Promise<Record<string, string> | undefined> {
    const read = () =>
      this.options.readSecret(managementCluster, namespace, name);
    if (!maxAgeMs) return read();
    const key = `${managementCluster}/${namespace}/${name}`;
    const now = Date.now();
    const kept = this.recentSecrets.get(key);
    if (kept && now - kept.at < maxAgeMs) return kept.data;
    const data = read();
    this.recentSecrets.delete(key);
    if (this.recentSecrets.size >= CREDENTIAL_CACHE_SIZE)
      this.recentSecrets.delete(this.recentSecrets.keys().next().value!);
    this.recentSecrets.set(key, { at: now, data });
    data.catch(() => {
      if (this.recentSecrets.get(key)?.data === data)
        this.recentSecrets.delete(key);
    });
    return data;
  }

  /** The credential (cached per Secret content) and an ARM client for the subscription (default: the Secret's). */
  private async clientFor(
    managementCluster: string,
    namespace: string,
    name: string,
    subscriptionId?: string,
    secretMaxAgeMs?: number,
  ): Promise<Resolved> {
    const data = await this.secretData(
      managementCluster,
      namespace,
      name,
      secretMaxAgeMs,
    );
    const ref = `${namespace}/${name}`;
    if (!data) {
      throw new AzureCredentialError(
        `ASO credential Secret ${ref} was not found on management cluster ${managementCluster}`,
        404,
      );
    }
    const settings = this.settings.forManagementCluster(managementCluster);
    const key = `${managementCluster}/${ref}`;
    // The Secret's content (and the settings) identify the credential: a rotated secret gets a new one.
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([Object.entries(data).sort(), settings]))
      .digest('hex');
    let entry = this.cache.get(key);
    if (!entry || entry.fingerprint !== fingerprint) {
      entry = {
        fingerprint,
        credential: credentialFromSecret(ref, data, settings),
        clients: new Map(),
        locations: new Map(),
      };
      this.cache.delete(key);
      if (this.cache.size >= CREDENTIAL_CACHE_SIZE)
        this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, entry);
    }
    const sub = subscriptionId ?? entry.credential.subscriptionId;
    let client = entry.clients.get(sub);
    if (!client) {
      client = createClient(entry.credential, sub, settings);
      entry.clients.set(sub, client);
    }
    return { credential: entry.credential, client, settings, entry };
  }
}

/**
 * A GET through an ARM client's pipeline (its credential, token scope, trusted CAs, retry and error-body policies), the
 * parsed body; an error answer is thrown as the SDK would (RestError with ARM's code, status, request and response).
 */
async function armGet<T>(
  client: ContainerServiceClient,
  url: string,
): Promise<T | undefined> {
  const request = createPipelineRequest({ url, method: 'GET' });
  const response = await client.pipeline.sendRequest(httpClient(), request);
  let parsed:
    | (T & { error?: { code?: unknown; message?: unknown } })
    | undefined;
  try {
    parsed = response.bodyAsText ? JSON.parse(response.bodyAsText) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.status >= 400) {
    throw new RestError(
      typeof parsed?.error?.message === 'string'
        ? parsed.error.message
        : `HTTP ${response.status}`,
      {
        code:
          typeof parsed?.error?.code === 'string'
            ? parsed.error.code
            : undefined,
        statusCode: response.status,
        request,
        response,
      },
    );
  }
  return parsed;
}

/** Orders versions like 1.33.2 / v1.33.10 numerically. */
export function compareVersions(a: string, b: string): number {
  const x = a.replace(/^v/, '').split('.').map(Number);
  const y = b.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** ARM's tags object, string values only (ARM's tag values are strings). */
function stringMap(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).filter(
      ([, x]) => typeof x === 'string',
    ),
  ) as Record<string, string>;
}

function createClient(
  c: SecretCredential,
  subscriptionId: string,
  s: AzureDiscoverySettings,
): ContainerServiceClient {
  return new ContainerServiceClient(c.credential, subscriptionId, {
    endpoint: s.resourceManagerEndpoint,
    apiVersion: AKS_API_VERSION,
    credentials: { scopes: [`${s.resourceManagerAudience}/.default`] },
    // Per client, verification on: the trusted CAs for a private endpoint or the simulator, nothing process-wide.
    ...(s.caData ? { tlsOptions: { ca: s.caData } } : {}),
    // A discovery request is interactive: fail within seconds rather than retry for a minute. One retry, and a 429 or
    // 503 is waited for only when ARM's Retry-After is at most MAX_RETRY_WAIT_SECONDS (docs/azure-facts.md#arm-throttling).
    retryOptions: { maxRetries: 1 },
    additionalPolicies: [
      { position: 'perCall', policy: keepErrorBodies },
      { position: 'perRetry', policy: limitRetryAfter },
      {
        position: 'perRetry',
        policy: requestTimeout(s.requestTimeoutMs ?? ARM_REQUEST_TIMEOUT_MS),
      },
    ],
  });
}

export { AzureCredentialError, AzureRequestError, AzureServiceError };
