import {
  type AccessToken,
  type TokenCredential,
  ClientSecretCredential,
  DefaultAzureCredential,
  ManagedIdentityCredential,
  WorkloadIdentityCredential,
  type TokenCredentialOptions,
} from '@azure/identity';
import type { LoggerService } from '@backstage/backend-plugin-api';
import { EntraUnavailableError, entraTokenBounds } from '../azure/errors';
import type {
  AzureAuthConfig,
  ManagementClusterConfig,
} from '../config/managementClusters';
import { REQUEST_TIMEOUT_MS } from './unreachable';

/**
 * The first-party "Azure Kubernetes Service AAD Server" application: AKS clusters with AKS-managed Entra ID accept
 * tokens issued for it, in every cloud (docs/azure-facts.md#aks-entra-token; CAPZ requests the same scope).
 */
export const AKS_SERVER_APPLICATION_ID = '6dae42f8-4368-4678-94ff-3960e28e3630';

/** Default refresh margin: MSAL's own renewal offset (300 s), so a refresh at that point gets a new token. */
export const DEFAULT_REFRESH_MARGIN_SECONDS = 300;

/** Retry delays after a failed or fruitless refresh: quick at first, never hammering the authority. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * The credential for an `azure` block, as @azure/identity builds it. Secrets go to the credential, nowhere else. Its
 * token requests have the bounds of the API server's own requests (docs/azure-facts.md#entra-throttling): one retry,
 * a long Retry-After answered at once, and `requestTimeoutMs` per request (the API server requests' bound).
 */
export function createAzureCredential(
  azure: AzureAuthConfig,
  requestTimeoutMs = REQUEST_TIMEOUT_MS,
): TokenCredential {
  const bounds = entraTokenBounds(requestTimeoutMs);
  const common: TokenCredentialOptions & {
    disableInstanceDiscovery?: boolean;
  } = {
    ...bounds.options,
    ...(azure.authorityHost ? { authorityHost: azure.authorityHost } : {}),
    // A private authority (Azure Stack Hub, a test Entra) is not in Microsoft's instance-discovery list.
    ...(azure.disableInstanceDiscovery
      ? { disableInstanceDiscovery: true }
      : {}),
    // Per credential, TLS verification stays on: a standard core-rest-pipeline option that @azure/identity passes to
    // the HTTP client it gives MSAL (identityClient.ts), so nothing process-wide is changed.
    ...(azure.authorityCaData
      ? { tlsOptions: { ca: azure.authorityCaData } }
      : {}),
  };
  switch (azure.credential) {
    case 'clientSecret':
      return bounds.guard(
        new ClientSecretCredential(
          azure.tenantId!,
          azure.clientId!,
          azure.clientSecret!,
          common,
        ),
      );
    case 'workloadIdentity':
      // Unset values fall back to AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_FEDERATED_TOKEN_FILE (the webhook's env).
      return bounds.guard(
        new WorkloadIdentityCredential({
          ...common,
          tenantId: azure.tenantId,
          clientId: azure.clientId,
          tokenFilePath: azure.tokenFilePath,
        }),
      );
    case 'managedIdentity':
      // ManagedIdentityCredential puts its IMDS retry policy in place of our additionalPolicies (it takes only
      // maxRetries): its requests to the local identity endpoint keep identity's own bounds.
      return bounds.guard(
        azure.clientId
          ? new ManagedIdentityCredential({
              ...common,
              clientId: azure.clientId,
            })
          : new ManagedIdentityCredential(common),
      );
    case 'default':
      return bounds.guard(
        new DefaultAzureCredential({
          ...common,
          tenantId: azure.tenantId,
          ...(azure.clientId
            ? {
                managedIdentityClientId: azure.clientId,
                workloadIdentityClientId: azure.clientId,
              }
            : {}),
        }),
      );
    default:
      throw new Error(`unknown azure.credential ${String(azure.credential)}`);
  }
}

interface Current {
  token: string;
  expiresOn: number;
  /** Until when requests may use it: a little before `expiresOn`, for transit time and clock skew. */
  usableUntil: number;
  /** From when a refresh is started in the background. */
  refreshAt: number;
}

export interface AzureTokenStatus {
  /** When the token in use expires (ISO time), if there is one. */
  expiresOn?: string;
  /** The last refresh error, cleared by the next successful refresh. */
  lastError?: string;
  refreshes: number;
  failures: number;
}

export interface AzureTokenProviderOptions {
  credential: TokenCredential;
  /** e.g. `6dae42f8-4368-4678-94ff-3960e28e3630/.default` */
  scope: string;
  refreshMarginSeconds?: number;
  /** Names the management cluster in errors and logs. */
  clusterName: string;
  logger?: LoggerService;
  /** Injected in tests. */
  now?: () => number;
}

/**
 * Keeps the Entra ID token of one management cluster and refreshes it before it expires. A request gets the current
 * token at once; once the token is within the refresh margin, the first request starts a refresh in the background
 * (concurrent callers share it) and keeps using the current token. Only a request without a usable token waits. A
 * failed refresh keeps the old token until it really expires, is logged, and is retried with backoff.
 *
 * Refreshing on demand rather than on a timer needs no lifecycle: every informer reconnects at least every 30 s
 * (client-node's inactivity timeout) and the connection monitor probes every 30 s, so a cluster in use always sees
 * a request inside the margin.
 */
export class AzureTokenProvider {
  private current?: Current;
  private inflight?: Promise<string>;
  private retryAt = 0;
  private lastError?: string;
  private refreshes = 0;
  private failures = 0;
  private readonly marginMs: number;
  private readonly now: () => number;
  logger?: LoggerService;

  constructor(private readonly options: AzureTokenProviderOptions) {
    this.marginMs =
      (options.refreshMarginSeconds ?? DEFAULT_REFRESH_MARGIN_SECONDS) * 1000;
    this.now = options.now ?? Date.now;
    this.logger = options.logger;
  }

  /** The token to send now; waits only when there is no usable one. */
  async getToken(): Promise<string> {
    const now = this.now();
    const cur = this.current;
    if (cur && now < cur.usableUntil) {
      if (now >= cur.refreshAt && now >= this.retryAt) {
        // Errors are recorded in refresh(); the caller keeps the current token.
        this.refresh().catch(() => undefined);
      }
      return cur.token;
    }
    if (!this.inflight && now < this.retryAt && this.lastError) {
      // No usable token and the last attempt just failed: fail fast instead of hammering the authority.
      throw this.error(this.lastError);
    }
    return this.refresh();
  }

  status(): AzureTokenStatus {
    return {
      expiresOn: this.current
        ? new Date(this.current.expiresOn).toISOString()
        : undefined,
      lastError: this.lastError,
      refreshes: this.refreshes,
      failures: this.failures,
    };
  }

  private refresh(): Promise<string> {
    this.inflight ??= this.fetch().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetch(): Promise<string> {
    let token: AccessToken | null;
    try {
      token = await this.options.credential.getToken(this.options.scope);
      if (!token) throw new Error('the credential returned no token');
    } catch (e) {
      return this.failed(e as Error);
    }
    const now = this.now();
    const lifetime = token.expiresOnTimestamp - now;
    if (lifetime <= 0)
      return this.failed(new Error('the credential returned an expired token'));
    if (this.current && token.token === this.current.token) {
      // A credential's cache (MSAL renews only within 300 s of expiry) handed back the token we hold: keep it and
      // ask again a little later, well before it expires.
      this.current.refreshAt =
        now +
        Math.min(
          RETRY_MAX_MS,
          Math.max(RETRY_MIN_MS, (this.current.usableUntil - now) / 4),
        );
      return token.token;
    }
    // Short-lived tokens (tests, some managed identities): never spend more than half the lifetime in the margin.
    const margin = Math.min(this.marginMs, lifetime / 2);
    this.current = {
      token: token.token,
      expiresOn: token.expiresOnTimestamp,
      usableUntil: token.expiresOnTimestamp - Math.min(30_000, lifetime / 10),
      refreshAt: Math.min(
        token.expiresOnTimestamp - margin,
        token.refreshAfterTimestamp ?? Infinity,
      ),
    };
    this.refreshes++;
    if (this.lastError) {
      this.logger?.info(
        `management cluster ${this.options.clusterName}: Entra ID token refreshed again`,
      );
    }
    this.lastError = undefined;
    this.retryAt = 0;
    this.failures = 0;
    return token.token;
  }

  private failed(e: Error): string {
    const now = this.now();
    this.failures++;
    // The first line only: @azure/identity appends troubleshooting links and stack-like detail.
    this.lastError = (e.message ?? String(e)).split('\n')[0];
    // Entra ID's own wait (throttled, unavailable) counts too, within the same cap: a cluster's requests fail fast
    // meanwhile instead of each asking again.
    const asked =
      e instanceof EntraUnavailableError ? e.retryAfterSeconds * 1000 : 0;
    this.retryAt =
      now +
      Math.min(
        RETRY_MAX_MS,
        Math.max(asked, RETRY_MIN_MS * 2 ** (this.failures - 1)),
      );
    const cur = this.current;
    if (cur && now < cur.usableUntil) {
      this.logger?.warn(
        `management cluster ${
          this.options.clusterName
        }: Entra ID token refresh failed, keeping the current token until ${new Date(
          cur.expiresOn,
        ).toISOString()}: ${this.lastError}`,
      );
      return cur.token;
    }
    this.logger?.warn(
      `management cluster ${this.options.clusterName}: cannot get an Entra ID token: ${this.lastError}`,
    );
    throw this.error(this.lastError);
  }

  private error(message: string): Error {
    return new Error(
      `Entra ID token for management cluster ${this.options.clusterName}: ${message}`,
    );
  }
}

/**
 * One provider per configured management cluster, shared by everything that builds a KubeConfig for it (the watch
 * cache, the connection monitor's probes), so that they share one token and one refresh.
 */
const providers = new WeakMap<ManagementClusterConfig, AzureTokenProvider>();

export function azureTokenProviderFor(
  c: ManagementClusterConfig,
  logger?: LoggerService,
): AzureTokenProvider {
  let provider = providers.get(c);
  if (!provider) {
    const azure = c.azure;
    if (!azure)
      throw new Error(
        `management cluster ${c.name} has no azure configuration`,
      );
    provider = new AzureTokenProvider({
      credential: createAzureCredential(azure),
      scope: `${
        azure.serverApplicationId ?? AKS_SERVER_APPLICATION_ID
      }/.default`,
      refreshMarginSeconds: azure.refreshMarginSeconds,
      clusterName: c.name,
      logger,
    });
    providers.set(c, provider);
  }
  provider.logger ??= logger;
  return provider;
}
