/**
 * What a client needs to reach a running management cluster, and the raw request to its API server. Below
 * cluster.ts and install.ts, which both use it.
 */
import { request } from 'node:https';

/** What a client needs to reach a running management cluster. Written to `<stateDir>/cluster.json`. */
export interface ClusterInfo {
  name: string;
  url: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  caPem: string;
  /** Static token of `capz-admin` (system:masters). */
  adminToken: string;
  /** Static token of `capz-backend`, the Backstage backend's own identity. */
  backendToken: string;
  /** The API server's audit log (JSON lines, metadata level): who asked for what. */
  auditLog: string;
  kubeconfigPath: string;
  stateDir: string;
  ephemeral: boolean;
  pids: { etcd: number; apiserver: number; controllerManager: number };
  /** The kube-apiserver command line, kept so that tests can restart it on the same port and state. */
  apiserverArgs: string[];
  /** Its extra environment (`StartOptions.apiserverEnv`), kept for the same reason. */
  apiserverEnv?: Record<string, string>;
  /**
   * Set while a test holds the kube-apiserver away ({@link stopApiServer}: no process, connections refused;
   * {@link pauseApiServer}: the process stopped by SIGSTOP, connections hang). `pids.apiserver` is 0 while stopped.
   */
  apiserverDown?: 'stopped' | 'paused';
}

/**
 * A request to the API server with its CA and (optionally) the admin token; resolves with status and body.
 * Raw JSON on purpose: client-node's typed models drop fields they do not know (e.g. x-kubernetes-int-or-string in
 * CRD schemas, kubernetes-client/javascript#2483), which would corrupt what we send.
 */
export function apiRequest(
  info: Pick<ClusterInfo, 'url' | 'caPem'> & { adminToken?: string },
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: string }> {
  return new Promise((resolvePromise, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${info.url}${path}`,
      {
        method,
        ca: info.caPem,
        headers: {
          ...(info.adminToken
            ? { Authorization: `Bearer ${info.adminToken}` }
            : {}),
          ...(payload
            ? {
                'Content-Type': contentType,
                'Content-Length': Buffer.byteLength(payload),
              }
            : {}),
        },
        timeout: 30_000,
      },
      res => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', d => (text += d));
        res.on('end', () =>
          resolvePromise({ status: res.statusCode ?? 0, body: text }),
        );
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`timeout on ${method} ${path}`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const apiGet = (
  info: Pick<ClusterInfo, 'url' | 'caPem'> & { adminToken?: string },
  path: string,
) => apiRequest(info, 'GET', path);
