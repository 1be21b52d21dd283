import { Config } from '@backstage/config';
import {
  validateDnsLabel,
  ManagementClusterAuthMethod,
  ManagementClusterInfo,
} from '@capz-backstage/plugin-capz-common';

/** A management cluster as configured, including how to authenticate. Never sent to the browser as is. */
export interface ManagementClusterConfig extends ManagementClusterInfo {
  caData?: string;
  serviceAccountToken?: string;
  kubeconfig?: { path: string; context?: string };
  azure?: AzureAuthConfig;
  namespaces?: string[];
}

/** Microsoft Entra ID for an AKS management cluster with local accounts disabled (config.d.ts `azure`). */
export interface AzureAuthConfig {
  credential: AzureCredentialKind;
  tenantId?: string;
  /** App registration (clientSecret, workloadIdentity) or user-assigned managed identity. */
  clientId?: string;
  clientSecret?: string;
  /** The projected service-account token that workload identity exchanges (default AZURE_FEDERATED_TOKEN_FILE). */
  tokenFilePath?: string;
  /** The Entra application the API server accepts tokens for (default: the AKS server application). */
  serverApplicationId?: string;
  /** The Entra authority, for sovereign or private clouds (default: the public cloud's). */
  authorityHost?: string;
  /** For authorities outside Microsoft's instance-discovery list (Azure Stack Hub, a test authority). */
  disableInstanceDiscovery?: boolean;
  /** PEM CA bundle the authority's certificate is verified against (default: the well-known CAs). */
  authorityCaData?: string;
  /** How long before expiry the token is refreshed (default 300 s; at most half the token's lifetime). */
  refreshMarginSeconds?: number;
}

/** Which @azure/identity credential authenticates to an AKS management cluster. */
export type AzureCredentialKind =
  | 'clientSecret'
  | 'workloadIdentity'
  | 'managedIdentity'
  | 'default';

const AZURE_CREDENTIALS: AzureCredentialKind[] = [
  'clientSecret',
  'workloadIdentity',
  'managedIdentity',
  'default',
];

/**
 * Reads `capz.managementClusters` and checks what the schema cannot: unique names, exactly one auth method,
 * and the fields each method needs. Errors name the offending entry so a misconfiguration is fixed quickly.
 */
export function readManagementClusters(
  config: Config,
): ManagementClusterConfig[] {
  const entries =
    config.getOptionalConfigArray('capz.managementClusters') ?? [];
  const seen = new Set<string>();
  return entries.map((c, i) => {
    const name = c.getString('name');
    const where = `capz.managementClusters[${i}] (${name})`;
    if (validateDnsLabel(name)) {
      throw new Error(
        `${where}: name must be a lowercase DNS label (a-z, 0-9, '-'), at most 63 characters`,
      );
    }
    if (seen.has(name)) throw new Error(`${where}: duplicate name`);
    seen.add(name);

    const methods: ManagementClusterAuthMethod[] = [];
    if (c.has('serviceAccountToken')) methods.push('serviceAccountToken');
    if (c.has('kubeconfig')) methods.push('kubeconfig');
    if (c.has('azure')) methods.push('azure');
    if (methods.length !== 1) {
      throw new Error(
        `${where}: set exactly one of serviceAccountToken, kubeconfig or azure (found ${
          methods.length ? methods.join(', ') : 'none'
        })`,
      );
    }
    const authMethod = methods[0];
    const url = c.getOptionalString('url');
    if (authMethod !== 'kubeconfig' && !url) {
      throw new Error(`${where}: url is required with ${authMethod}`);
    }
    const result: ManagementClusterConfig = {
      name,
      title: c.getOptionalString('title'),
      url,
      authMethod,
      caData: c.getOptionalString('caData'),
      namespaces: c.getOptionalStringArray('namespaces'),
    };
    if (authMethod === 'serviceAccountToken') {
      result.serviceAccountToken = c.getString('serviceAccountToken');
    } else if (authMethod === 'kubeconfig') {
      result.kubeconfig = {
        path: c.getString('kubeconfig.path'),
        context: c.getOptionalString('kubeconfig.context'),
      };
    } else {
      const credential = c.getString('azure.credential');
      if (!(AZURE_CREDENTIALS as string[]).includes(credential)) {
        throw new Error(
          `${where}: azure.credential must be one of ${AZURE_CREDENTIALS.join(
            ', ',
          )}`,
        );
      }
      if (credential === 'clientSecret') {
        for (const key of ['tenantId', 'clientId', 'clientSecret']) {
          if (!c.has(`azure.${key}`))
            throw new Error(
              `${where}: azure.${key} is required with clientSecret`,
            );
        }
      } else if (c.has('azure.clientSecret')) {
        // A secret that would silently be ignored is a misconfiguration worth stopping for.
        throw new Error(
          `${where}: azure.clientSecret is only used with credential clientSecret`,
        );
      }
      if (c.has('azure.tokenFilePath') && credential !== 'workloadIdentity') {
        throw new Error(
          `${where}: azure.tokenFilePath is only used with credential workloadIdentity`,
        );
      }
      // Bearer tokens only ever travel over TLS (client-node refuses plain HTTP too, but after getting a token).
      if (!/^https:\/\//i.test(url!))
        throw new Error(`${where}: url must be https with azure`);
      const authorityHost = c.getOptionalString('azure.authorityHost');
      if (
        authorityHost !== undefined &&
        !/^https:\/\/[^/]+/i.test(authorityHost)
      ) {
        throw new Error(`${where}: azure.authorityHost must be an https URL`);
      }
      const serverApplicationId = c.getOptionalString(
        'azure.serverApplicationId',
      );
      if (
        serverApplicationId !== undefined &&
        !/^[\w.:/-]+$/.test(serverApplicationId)
      ) {
        throw new Error(
          `${where}: azure.serverApplicationId must be an application id (GUID) or URI`,
        );
      }
      const refreshMarginSeconds = c.getOptionalNumber(
        'azure.refreshMarginSeconds',
      );
      if (
        refreshMarginSeconds !== undefined &&
        !(refreshMarginSeconds >= 0 && refreshMarginSeconds <= 3600)
      ) {
        throw new Error(
          `${where}: azure.refreshMarginSeconds must be between 0 and 3600`,
        );
      }
      result.azure = {
        credential: credential as AzureCredentialKind,
        tenantId: c.getOptionalString('azure.tenantId'),
        clientId: c.getOptionalString('azure.clientId'),
        clientSecret: c.getOptionalString('azure.clientSecret'),
        tokenFilePath: c.getOptionalString('azure.tokenFilePath'),
        serverApplicationId,
        authorityHost: authorityHost?.replace(/\/+$/, ''),
        disableInstanceDiscovery: c.getOptionalBoolean(
          'azure.disableInstanceDiscovery',
        ),
        authorityCaData: c.getOptionalString('azure.authorityCaData'),
        refreshMarginSeconds,
      };
    }
    return result;
  });
}

/** What the HTTP API may show of a management cluster: no tokens, secrets or file paths. */
export function toPublicInfo(
  c: ManagementClusterConfig,
): ManagementClusterInfo {
  return { name: c.name, title: c.title, url: c.url, authMethod: c.authMethod };
}
