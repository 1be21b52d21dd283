/**
 * `capz.azureDiscovery`: where the backend finds ARM and Entra ID for AKS discovery, and which credential it uses.
 * Defaults are the public cloud with the ASO credential Secret's own service principal, so production needs no config.
 */
import type { Config } from '@backstage/config';

export type DiscoveryCredentialMode = 'secret' | 'default';

export interface AzureDiscoverySettings {
  /** ARM base URL, no trailing slash. */
  resourceManagerEndpoint: string;
  /** The resource tokens are requested for: `<audience>/.default`. */
  resourceManagerAudience: string;
  authorityHost?: string;
  disableInstanceDiscovery: boolean;
  /** PEM bundle trusted for ARM and Entra ID instead of the well-known CAs (private endpoints, the simulator). */
  caData?: string;
  credential: DiscoveryCredentialMode;
  /** One ARM request's bound (`requestTimeoutSeconds`; default ARM_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

export interface AzureDiscoveryConfig {
  defaults: AzureDiscoverySettings;
  /** Per management cluster (by `capz.managementClusters[].name`): the defaults with that cluster's overrides. */
  forManagementCluster(name: string): AzureDiscoverySettings;
}

export const PUBLIC_RESOURCE_MANAGER = 'https://management.azure.com';
const CREDENTIALS: DiscoveryCredentialMode[] = ['secret', 'default'];

function httpsUrl(c: Config, key: string, where: string): string | undefined {
  const value = c.getOptionalString(key);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${where}.${key} must be an https URL, got "${value}"`);
  }
  // Bearer tokens only ever travel over TLS (the SDK's bearer policy refuses http too,
  // docs/azure-facts.md#arm-tls-only).
  if (url.protocol !== 'https:')
    throw new Error(`${where}.${key} must be an https URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function readSettings(
  c: Config | undefined,
  where: string,
  base: AzureDiscoverySettings,
): AzureDiscoverySettings {
  if (!c) return base;
  const credential = c.getOptionalString('credential');
  if (
    credential !== undefined &&
    !(CREDENTIALS as string[]).includes(credential)
  ) {
    throw new Error(
      `${where}.credential must be one of ${CREDENTIALS.join(
        ', ',
      )}, got "${credential}"`,
    );
  }
  const caData = c.getOptionalString('caData');
  if (caData !== undefined && !caData.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(
      `${where}.caData must be PEM text with at least one "-----BEGIN CERTIFICATE-----" block`,
    );
  }
  const endpoint = httpsUrl(c, 'resourceManagerEndpoint', where);
  const timeout = c.getOptionalNumber('requestTimeoutSeconds');
  if (timeout !== undefined && !(timeout > 0 && timeout <= 600)) {
    throw new Error(
      `${where}.requestTimeoutSeconds must be a number of seconds from above 0 to 600, got ${timeout}`,
    );
  }
  return {
    resourceManagerEndpoint: endpoint ?? base.resourceManagerEndpoint,
    resourceManagerAudience:
      httpsUrl(c, 'resourceManagerAudience', where) ??
      base.resourceManagerAudience,
    authorityHost: httpsUrl(c, 'authorityHost', where) ?? base.authorityHost,
    disableInstanceDiscovery:
      c.getOptionalBoolean('disableInstanceDiscovery') ??
      base.disableInstanceDiscovery,
    caData: caData ?? base.caData,
    credential:
      (credential as DiscoveryCredentialMode | undefined) ?? base.credential,
    requestTimeoutMs:
      timeout !== undefined ? timeout * 1000 : base.requestTimeoutMs,
  };
}

/** Reads and checks `capz.azureDiscovery`; errors name the key. */
export function readAzureDiscoveryConfig(config: Config): AzureDiscoveryConfig {
  const root = config.getOptionalConfig('capz.azureDiscovery');
  const defaults = readSettings(root, 'capz.azureDiscovery', {
    resourceManagerEndpoint: PUBLIC_RESOURCE_MANAGER,
    resourceManagerAudience: PUBLIC_RESOURCE_MANAGER,
    disableInstanceDiscovery: false,
    credential: 'secret',
  });
  const overrides = new Map<string, AzureDiscoverySettings>();
  const perCluster = root?.getOptionalConfig('managementClusters');
  for (const name of perCluster?.keys() ?? []) {
    overrides.set(
      name,
      readSettings(
        perCluster!.getConfig(name),
        `capz.azureDiscovery.managementClusters.${name}`,
        defaults,
      ),
    );
  }
  return {
    defaults,
    forManagementCluster: name => overrides.get(name) ?? defaults,
  };
}
