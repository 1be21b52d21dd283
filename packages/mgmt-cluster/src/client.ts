import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterInfo } from './api.ts';

/** A client-node KubeConfig for the admin user of a local management cluster. */
export function adminKubeConfig(
  info: Pick<ClusterInfo, 'name' | 'url' | 'caPem' | 'adminToken'>,
): KubeConfig {
  const kc = new KubeConfig();
  const name = `capz-${info.name}`;
  kc.loadFromOptions({
    clusters: [
      {
        name,
        server: info.url,
        caData: Buffer.from(info.caPem).toString('base64'),
        skipTLSVerify: false,
      },
    ],
    // Unique user names per cluster: client-node caches credentials by user name (kubernetes-client/javascript#592).
    users: [{ name: `${name}-admin`, token: info.adminToken }],
    contexts: [{ name, cluster: name, user: `${name}-admin` }],
    currentContext: name,
  });
  return kc;
}
