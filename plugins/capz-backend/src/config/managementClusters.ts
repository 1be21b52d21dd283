import { Config } from '@backstage/config';
import {
  ManagementClusterAuthMethod,
  ManagementClusterInfo,
} from '@internal/plugin-capz-common';

/** A management cluster as configured, including how to authenticate. Never sent to the browser as is. */
export interface ManagementClusterConfig extends ManagementClusterInfo {
  caData?: string;
  serviceAccountToken?: string;
  kubeconfig?: { path: string; context?: string };
  azure?: {
    credential: AzureCredentialKind;
    tenantId?: string;
    clientId?: string;
    clientSecret?: string;
  };
  namespaces?: string[];
}

/** Which @azure/identity credential authenticates to an AKS management cluster. */
export type AzureCredentialKind = 'clientSecret' | 'workloadIdentity' | 'managedIdentity' | 'default';

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const AZURE_CREDENTIALS: AzureCredentialKind[] = ['clientSecret', 'workloadIdentity', 'managedIdentity', 'default'];

/**
 * Reads `capz.managementClusters` and checks what the schema cannot: unique names, exactly one auth method,
 * and the fields each method needs. Errors name the offending entry so a misconfiguration is fixed quickly.
 */
export function readManagementClusters(config: Config): ManagementClusterConfig[] {
  const entries = config.getOptionalConfigArray('capz.managementClusters') ?? [];
  const seen = new Set<string>();
  return entries.map((c, i) => {
    const name = c.getString('name');
    const where = `capz.managementClusters[${i}] (${name})`;
    if (!NAME.test(name)) {
      throw new Error(`${where}: name must be a lowercase DNS label (a-z, 0-9, '-'), at most 63 characters`);
    }
    if (seen.has(name)) throw new Error(`${where}: duplicate name`);
    seen.add(name);

    const methods: ManagementClusterAuthMethod[] = [];
    if (c.has('serviceAccountToken')) methods.push('serviceAccountToken');
    if (c.has('kubeconfig')) methods.push('kubeconfig');
    if (c.has('azure')) methods.push('azure');
    if (methods.length !== 1) {
      throw new Error(
        `${where}: set exactly one of serviceAccountToken, kubeconfig or azure (found ${methods.length ? methods.join(', ') : 'none'})`,
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
        throw new Error(`${where}: azure.credential must be one of ${AZURE_CREDENTIALS.join(', ')}`);
      }
      if (credential === 'clientSecret') {
        for (const key of ['tenantId', 'clientId', 'clientSecret']) {
          if (!c.has(`azure.${key}`)) throw new Error(`${where}: azure.${key} is required with clientSecret`);
        }
      }
      result.azure = {
        credential: credential as AzureCredentialKind,
        tenantId: c.getOptionalString('azure.tenantId'),
        clientId: c.getOptionalString('azure.clientId'),
        clientSecret: c.getOptionalString('azure.clientSecret'),
      };
    }
    return result;
  });
}

/** What the HTTP API may show of a management cluster: no tokens, secrets or file paths. */
export function toPublicInfo(c: ManagementClusterConfig): ManagementClusterInfo {
  return { name: c.name, title: c.title, url: c.url, authMethod: c.authMethod };
}
