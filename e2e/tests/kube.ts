import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse } from 'yaml';

/** Talks to the e2e run's management cluster (CAPZ_KUBECONFIG) with its admin token, as a person with kubectl would. */
function connection() {
  const path = process.env.CAPZ_KUBECONFIG;
  if (!path)
    throw new Error(
      'CAPZ_KUBECONFIG is not set: scripts/test.sh exports it for the e2e stage',
    );
  const kc = parse(readFileSync(path, 'utf8'));
  const cluster = kc.clusters[0].cluster;
  return {
    server: new URL(cluster.server as string),
    ca: Buffer.from(cluster['certificate-authority-data'] as string, 'base64'),
    token: kc.users[0].user.token as string,
  };
}

/** A JSON request; PATCH bodies are merge patches, POST bodies objects to create. */
export function kube<T = any>(
  method: 'GET' | 'PATCH' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const c = connection();
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: c.server.hostname,
        port: c.server.port,
        path,
        method,
        ca: c.ca,
        headers: {
          authorization: `Bearer ${c.token}`,
          accept: 'application/json',
          ...(data
            ? {
                'content-type':
                  method === 'PATCH'
                    ? 'application/merge-patch+json'
                    : 'application/json',
                'content-length': Buffer.byteLength(data),
              }
            : {}),
        },
      },
      res => {
        let text = '';
        res.on('data', chunk => (text += chunk));
        res.on('end', () =>
          res.statusCode && res.statusCode < 300
            ? resolve(JSON.parse(text))
            : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
