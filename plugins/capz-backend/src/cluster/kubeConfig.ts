import type { LoggerService } from '@backstage/backend-plugin-api';
import type { KubeConfig } from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { ManagementClusterConfig } from '../config/managementClusters';
import { azureTokenProviderFor } from './azureToken';

/** client-node 1.x/2.x is ESM-only; a CJS backend loads it with a real dynamic import (kept by the build). */
export type ClientNode = typeof import('@kubernetes/client-node');
export const loadClientNode = (): Promise<ClientNode> =>
  import('@kubernetes/client-node');

/**
 * A KubeConfig for one management cluster, whichever auth method it is configured with. Each cluster gets its own
 * user name: client-node caches credentials by user name across KubeConfigs (kubernetes-client/javascript#592).
 */
export async function kubeConfigFor(
  c: ManagementClusterConfig,
  k8s: ClientNode,
  logger?: LoggerService,
): Promise<KubeConfig> {
  const kc = new k8s.KubeConfig();
  if (c.authMethod === 'kubeconfig' && c.kubeconfig) {
    kc.loadFromString(await readFile(c.kubeconfig.path, 'utf8'));
    if (c.kubeconfig.context) {
      if (!kc.getContextObject(c.kubeconfig.context)) {
        throw new Error(
          `context "${c.kubeconfig.context}" not found in ${c.kubeconfig.path}`,
        );
      }
      kc.setCurrentContext(c.kubeconfig.context);
    }
    return kc;
  }
  if (c.authMethod === 'serviceAccountToken' && c.url) {
    const name = `capz-${c.name}`;
    kc.loadFromOptions({
      clusters: [
        {
          name,
          server: c.url,
          caData: c.caData
            ? Buffer.from(c.caData).toString('base64')
            : undefined,
          skipTLSVerify: false,
        },
      ],
      users: [{ name: `${name}-sa`, token: c.serviceAccountToken }],
      contexts: [{ name, cluster: name, user: `${name}-sa` }],
      currentContext: name,
    });
    return kc;
  }
  if (c.authMethod === 'azure' && c.url && c.azure) {
    const name = `capz-${c.name}`;
    const user = `${name}-entra`;
    const tokens = azureTokenProviderFor(c, logger);
    kc.loadFromOptions({
      clusters: [
        {
          name,
          server: c.url,
          caData: c.caData
            ? Buffer.from(c.caData).toString('base64')
            : undefined,
          skipTLSVerify: false,
        },
      ],
      users: [{ name: user }],
      contexts: [{ name, cluster: name, user }],
      currentContext: name,
    });
    // client-node asks the authenticators of the current user for headers on every request: each API call
    // (applySecurityAuthentication) and each Watch.watch(), hence every informer (re)connection and relist. A static
    // `token` would be sent until it expired; this sends whatever token is current at that moment.
    kc.addAuthenticator({
      isAuthProvider: u => u?.name === user,
      applyAuthentication: async (_u, opts) => {
        const token = await tokens.getToken();
        opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
      },
    });
    return kc;
  }
  throw new Error(`auth method ${c.authMethod} is not supported`);
}
