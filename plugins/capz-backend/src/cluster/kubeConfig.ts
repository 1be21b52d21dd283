import type { LoggerService } from '@backstage/backend-plugin-api';
import type { KubeConfig } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ManagementClusterConfig } from '../config/managementClusters';
import { azureTokenProviderFor } from './azureToken';

/** client-node 1.x/2.x is ESM-only; a CJS backend loads it with a real dynamic import (kept by the build). */
export type ClientNode = typeof import('@kubernetes/client-node');
export const loadClientNode = (): Promise<ClientNode> =>
  import('@kubernetes/client-node');

/** The undici dispatchers in use, by API server and TLS identity (see shareDispatchers). */
const dispatchers = new Map<string, unknown>();

function tlsKey(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).map(([k, x]) => [
      k,
      tlsKey(x),
    ]),
  );
}

/**
 * client-node 2.0.1 builds a new undici Agent for every request and every watch (KubeConfig.createDispatcher, called
 * from applySecurityAuthentication), so none reuses a connection: each pays a TCP and TLS handshake. One dispatcher
 * per API server and TLS identity (server URL, CA, client certificate) lets all of them share keep-alive connections;
 * credentials sent as headers (tokens) stay per request.
 */
function shareDispatchers(kc: KubeConfig): KubeConfig {
  const k = kc as unknown as {
    createDispatcher(
      cluster: { server?: string } | null,
      opts: unknown,
    ): unknown;
  };
  const create = k.createDispatcher.bind(kc);
  k.createDispatcher = (cluster, opts) => {
    const key = createHash('sha256')
      .update(
        JSON.stringify([
          cluster?.server,
          tlsKey(kc.createDispatcherOptions(cluster as never, opts as never)),
        ]),
      )
      .digest('hex');
    if (!dispatchers.has(key)) {
      const dispatcher = create(cluster, opts);
      if (dispatcher === undefined) return undefined;
      dispatchers.set(key, dispatcher);
    }
    return dispatchers.get(key);
  };
  return kc;
}

/**
 * A KubeConfig for one management cluster, whichever auth method it is configured with. Each cluster gets its own
 * user name: client-node caches credentials by user name across KubeConfigs (kubernetes-client/javascript#592).
 * Requests to one API server share one keep-alive dispatcher.
 */
export async function kubeConfigFor(
  c: ManagementClusterConfig,
  k8s: ClientNode,
  logger?: LoggerService,
): Promise<KubeConfig> {
  return shareDispatchers(await newKubeConfig(c, k8s, logger));
}

async function newKubeConfig(
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
