import type { KubeConfig } from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { ManagementClusterConfig } from '../config/managementClusters';

/** client-node 1.x/2.x is ESM-only; a CJS backend loads it with a real dynamic import (kept by the build). */
export type ClientNode = typeof import('@kubernetes/client-node');
export const loadClientNode = (): Promise<ClientNode> => import('@kubernetes/client-node');

/**
 * A KubeConfig for one management cluster, whichever auth method it is configured with. Each cluster gets its own
 * user name: client-node caches credentials by user name across KubeConfigs (kubernetes-client/javascript#592).
 */
export async function kubeConfigFor(c: ManagementClusterConfig, k8s: ClientNode): Promise<KubeConfig> {
  const kc = new k8s.KubeConfig();
  if (c.authMethod === 'kubeconfig' && c.kubeconfig) {
    kc.loadFromString(await readFile(c.kubeconfig.path, 'utf8'));
    if (c.kubeconfig.context) {
      if (!kc.getContextObject(c.kubeconfig.context)) {
        throw new Error(`context "${c.kubeconfig.context}" not found in ${c.kubeconfig.path}`);
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
          caData: c.caData ? Buffer.from(c.caData).toString('base64') : undefined,
          skipTLSVerify: false,
        },
      ],
      users: [{ name: `${name}-sa`, token: c.serviceAccountToken }],
      contexts: [{ name, cluster: name, user: `${name}-sa` }],
      currentContext: name,
    });
    return kc;
  }
  throw new Error(`auth method ${c.authMethod} is not supported yet`);
}
