/**
 * ARM access with the credential an ASO Secret describes (docs/azure-facts.md#credential-from-aso-secret): the Secret
 * read by name, a credential kept per Secret content (its MSAL token cache lives in it), an ARM client per
 * subscription, and one way to make a call whose failure names what was being done and with which credential (never
 * its secret).
 */
import type { ContainerServiceClient } from '@azure/arm-containerservice';
import type { LoggerService } from '@backstage/backend-plugin-api';
import { createHash } from 'node:crypto';
import type { AzureDiscoveryConfig, AzureDiscoverySettings } from '../config';
import { credentialFromSecret, type SecretCredential } from '../credentials';
import {
  AzureCredentialError,
  AzureRequestError,
  toAzureServiceError,
} from '../errors';
import {
  armGet,
  armUrl,
  createArmClient,
  SUBSCRIPTIONS_API_VERSION,
} from './pipeline';

/** The picker's query: which credential Secret, on which management cluster (its subscription unless given). */
export interface CredentialQuery {
  managementCluster: string;
  namespace: string;
  credentialSecret: string;
  subscriptionId?: string;
}

/** How an ARM call may read its credential Secret. */
export interface ArmCallOptions {
  /** Accept the Secret's data as read up to this long ago (background work); default: read it afresh. */
  secretMaxAgeMs?: number;
}

/** A Secret's data, base64-decoded; undefined when it does not exist. */
export type SecretReader = (
  managementCluster: string,
  namespace: string,
  name: string,
) => Promise<Record<string, string> | undefined>;

/** At most this many Secrets' credentials are kept (their MSAL token caches live in them: docs/azure-facts.md#credential-from-aso-secret). */
const CREDENTIAL_CACHE_SIZE = 64;

/**
 * How long a credential's lists of regions and subscriptions are kept: they change rarely, and the regions are read
 * for every check of a region (pickers, POST /clusters), so once per credential and subscription, never per page view.
 */
export const LOCATIONS_TTL_MS = 10 * 60_000;

/** What one credential Secret's content gave: its credential, its clients and its lists read for LOCATIONS_TTL_MS. */
export interface CredentialEntry {
  fingerprint: string;
  credential: SecretCredential;
  clients: Map<string, ContainerServiceClient>;
  /** The subscriptions this credential can see (a failed read is not kept). */
  subscriptions?: {
    at: number;
    value: Promise<Array<{ id: string; displayName?: string }>>;
  };
  /** The regions by subscription, read with this credential (a failed read is not kept). */
  locations: Map<
    string,
    {
      at: number;
      value: Promise<{ subscriptionId: string; items: AzureRegion[] }>;
    }
  >;
}

export interface AzureRegion {
  name: string;
  displayName: string;
}

/** A credential Secret as read for one request: its credential, an ARM client for the subscription, the settings. */
export interface ResolvedCredential {
  credential: SecretCredential;
  client: ContainerServiceClient;
  settings: AzureDiscoverySettings;
  entry: CredentialEntry;
}

export class ArmAccess {
  private readonly cache = new Map<string, CredentialEntry>();
  /** Secrets read for background work that may be a little old (see `secretMaxAgeMs`), by management cluster/ref. */
  private readonly recentSecrets = new Map<
    string,
    { at: number; data: Promise<Record<string, string> | undefined> }
  >();

  constructor(
    private readonly settings: AzureDiscoveryConfig,
    private readonly readSecret: SecretReader,
    private readonly logger: LoggerService,
  ) {}

  /** The credential (cached per Secret content) and an ARM client for the subscription (default: the Secret's). */
  async resolve(
    managementCluster: string,
    namespace: string,
    name: string,
    subscriptionId?: string,
    secretMaxAgeMs?: number,
  ): Promise<ResolvedCredential> {
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
      client = createArmClient(entry.credential, sub, settings);
      entry.clients.set(sub, client);
    }
    return { credential: entry.credential, client, settings, entry };
  }

  /**
   * One ARM call with the Secret's credential, in its subscription unless the query names one; a failure is named by
   * what was being done and with which credential (never its secret), and logged once.
   */
  async call<T>(
    q: CredentialQuery,
    doing: (subscriptionId: string) => string,
    call: (arm: {
      client: ContainerServiceClient;
      settings: AzureDiscoverySettings;
      subscriptionId: string;
    }) => Promise<T>,
    opts: ArmCallOptions & { resolved?: ResolvedCredential } = {},
  ): Promise<{ subscriptionId: string; result: T; what: string }> {
    const resolved =
      opts.resolved ??
      (await this.resolve(
        q.managementCluster,
        q.namespace,
        q.credentialSecret,
        q.subscriptionId,
        opts.secretMaxAgeMs,
      ));
    const { credential, client, settings } = resolved;
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
      throw await this.withVisibleSubscriptions(this.fail(e, what), resolved);
    }
  }

  describe(namespace: string, name: string, c: SecretCredential): string {
    return `credential Secret ${namespace}/${name} (${c.mode}, tenant ${c.tenantId})`;
  }

  /** ARM's failure as the plugin's error, named by what was being done; logged once. */
  fail(e: unknown, what: string): Error {
    const err = toAzureServiceError(e, what);
    // Only the composed message: SDK errors can carry request details; secret values are never part of either.
    this.logger.warn(`AKS discovery: ${err.message}`);
    return err;
  }

  /**
   * A subscription ARM does not know or the credential cannot see, with the subscriptions it can see (ARM's
   * `Subscriptions - List`, read once per credential for LOCATIONS_TTL_MS); any other error, or when they cannot be
   * listed, unchanged.
   */
  async withVisibleSubscriptions(
    err: Error,
    r: ResolvedCredential,
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
    r: ResolvedCredential,
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
      let url: string | undefined = armUrl(
        r.settings,
        `/subscriptions?api-version=${SUBSCRIPTIONS_API_VERSION}`,
      );
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
    const read = () => this.readSecret(managementCluster, namespace, name);
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
}
