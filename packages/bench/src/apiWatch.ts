/**
 * When the API server delivers a change to a watcher like the backend's (one kind, every namespace, from the current
 * resourceVersion): each event's arrival by object name and resourceVersion. Beside the change-to-push latency it
 * splits a push into the API server's part (PATCH sent → event delivered) and the backend's (event → push).
 */
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { apiRequest, type ClusterInfo } from '@internal/mgmt-cluster';

type Conn = Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>;

export class ApiWatch {
  private readonly arrivals = new Map<string, number>();
  private readonly waiters = new Map<string, (at: number) => void>();
  private req?: ClientRequest;

  private constructor() {}

  /** `collectionPath`: the kind's path without a namespace, e.g. `/apis/cluster.x-k8s.io/v1beta2/clusters`. */
  static async open(conn: Conn, collectionPath: string): Promise<ApiWatch> {
    const list = await apiRequest(conn, 'GET', `${collectionPath}?limit=1`);
    if (list.status !== 200)
      throw new Error(`GET ${collectionPath}: ${list.status}`);
    const rv = (
      JSON.parse(list.body) as { metadata: { resourceVersion: string } }
    ).metadata.resourceVersion;
    const w = new ApiWatch();
    await new Promise<void>((resolvePromise, reject) => {
      w.req = request(
        `${conn.url}${collectionPath}?watch=true&resourceVersion=${rv}`,
        {
          ca: conn.caPem,
          headers: { Authorization: `Bearer ${conn.adminToken}` },
        },
        res => {
          if (res.statusCode !== 200) {
            reject(new Error(`watch ${collectionPath}: ${res.statusCode}`));
            return;
          }
          resolvePromise();
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const at = performance.now();
            buffer += chunk;
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              w.arrived(line, at);
            }
          });
        },
      );
      w.req.on('error', (e: Error) => reject(e));
      w.req.end();
    });
    return w;
  }

  private arrived(line: string, at: number): void {
    let event: {
      object?: { metadata?: { name?: string; resourceVersion?: string } };
    };
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    const m = event.object?.metadata;
    if (!m?.name || !m.resourceVersion) return;
    const key = `${m.name}@${m.resourceVersion}`;
    this.arrivals.set(key, at);
    this.waiters.get(key)?.(at);
    this.waiters.delete(key);
  }

  /** When the event of this object at this resourceVersion arrived (undefined: not within `timeoutMs`). */
  arrival(
    name: string,
    resourceVersion: string,
    timeoutMs: number,
  ): Promise<number | undefined> {
    const key = `${name}@${resourceVersion}`;
    const known = this.arrivals.get(key);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise(resolvePromise => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        resolvePromise(undefined);
      }, timeoutMs);
      this.waiters.set(key, at => {
        clearTimeout(timer);
        resolvePromise(at);
      });
    });
  }

  close(): void {
    this.req?.destroy();
  }
}
