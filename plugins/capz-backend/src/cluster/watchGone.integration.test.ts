/**
 * The watch cache when the API server answers its resumed watch with 410 Gone, under churn. On a
 * management cluster of the test's own, whose kube-apiserver has no watch cache (`--watch-cache=false`: every watch
 * is an etcd watch) and compacts etcd every 2 s (`--etcd-compaction-interval=2s`): a watch resumed from a
 * resourceVersion that etcd has compacted gets an ERROR event with a 410 Status ("The resourceVersion for the
 * provided watch is too old.", k8s.io/apiserver pkg/storage/etcd3/errors.go interpretWatchError; a watch-cache
 * window that has moved on answers "too old resource version" the same way, pkg/storage/cacher/watch_cache.go
 * getAllEventsSinceLocked, sent as an ERROR event by cacher.go Watch's newErrWatcher).
 *
 * The backend reaches that API server through a TLS-terminating proxy in this test (it serves the API server's own
 * certificate), which forwards every request unchanged and records what the server answered. At one moment the proxy
 * pauses every open watch: from then on nothing the server sends on them reaches the backend, and the connections stay
 * open and silent, as when a load balancer silently drops them. Objects keep changing meanwhile, and some changes are
 * made only in that gap. client-node's watch gives up on a silent connection after 30 s (TimeoutError) and resumes
 * from the last resourceVersion it saw, which etcd has compacted by then: the real API server answers 410, the
 * informer re-lists, and the cache must equal a fresh LIST again, the gap's adds, updates and deletes included.
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  auditLogEnd,
  auditLogEntries,
  startManagementCluster,
  stopManagementCluster,
} from '@internal/mgmt-cluster';
import { testStateDir } from '@internal/mgmt-cluster/testing';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as pace } from 'node:timers/promises';
import {
  ClusterInfo,
  kube,
  loadClientForTests,
  until,
} from '../testing/realCluster';
import { cacheMatchesServer } from '../testing/cacheMatchesServer';
import { WatchCache } from './WatchCache';

const name = `gone-${process.pid}`;
const NS = 'churn';
const RG_API = '/apis/resources.azure.com/v1api20200601';
const rgPath = (rg = '') =>
  `${RG_API}/namespaces/${NS}/resourcegroups${rg ? `/${rg}` : ''}`;
const eventPath = (ev = '') =>
  `/api/v1/namespaces/${NS}/events${ev ? `/${ev}` : ''}`;

/** One request the backend made through the proxy, and what the API server answered. */
interface Exchange {
  method: string;
  /** Path without the query. */
  path: string;
  watch: boolean;
  /** The resourceVersion asked for (a watch resumes from it). */
  rv?: string;
  limit?: string;
  status?: number;
  /** The resourceVersion of the last event forwarded to the backend on this watch. */
  lastRv?: string;
  /** ERROR events the server sent on this watch (their Status). */
  errors: Array<{ code?: number; reason?: string; message?: string }>;
  /** Whether the stream was paused: nothing the server sends after that reaches the backend. */
  paused: boolean;
  open: boolean;
  at: number;
}

/**
 * A TLS-terminating HTTP proxy to the API server that forwards every request on a connection of its own and records
 * the exchanges; `pause()` silences every watch open at that moment for good (the backend sees a silent connection)
 * and holds new requests until `resume()`.
 */
async function startProxy(info: ClusterInfo) {
  const target = new URL(info.url);
  const exchanges: Exchange[] = [];
  let holding = false;
  const held: Array<() => void> = [];
  const pki = join(info.stateDir, 'pki');
  const server = https.createServer(
    {
      cert: readFileSync(join(pki, 'apiserver.crt')),
      key: readFileSync(join(pki, 'apiserver.key')),
    },
    (req, res) => {
      const url = new URL(req.url ?? '/', info.url);
      const ex: Exchange = {
        method: req.method ?? 'GET',
        path: url.pathname,
        watch: url.searchParams.get('watch') === 'true',
        rv: url.searchParams.get('resourceVersion') ?? undefined,
        limit: url.searchParams.get('limit') ?? undefined,
        errors: [],
        paused: false,
        open: true,
        at: Date.now(),
      };
      exchanges.push(ex);
      const forward = () => {
        const up = https.request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
            ca: info.caPem,
            agent: false,
          },
          upRes => {
            ex.status = upRes.statusCode;
            const headers = { ...upRes.headers };
            for (const h of [
              'connection',
              'keep-alive',
              'transfer-encoding',
              'content-length',
            ])
              delete headers[h];
            res.writeHead(upRes.statusCode ?? 502, headers);
            const decoder = new StringDecoder('utf8');
            let partial = '';
            upRes.on('data', (chunk: Buffer) => {
              if (ex.paused) return; // a silent connection: what the server sends now never arrives
              res.write(chunk);
              if (!ex.watch) return;
              partial += decoder.write(chunk);
              for (let i = partial.indexOf('\n'); i >= 0; ) {
                const line = partial.slice(0, i);
                partial = partial.slice(i + 1);
                i = partial.indexOf('\n');
                let event: any;
                try {
                  event = JSON.parse(line);
                } catch {
                  continue;
                }
                if (event.type === 'ERROR')
                  ex.errors.push({
                    code: event.object?.code,
                    reason: event.object?.reason,
                    message: event.object?.message,
                  });
                else if (event.object?.metadata?.resourceVersion)
                  ex.lastRv = event.object.metadata.resourceVersion;
              }
            });
            upRes.on('end', () => {
              if (!ex.paused) res.end();
            });
            upRes.on('error', () => res.destroy());
          },
        );
        up.on('error', () => res.destroy());
        res.on('close', () => {
          ex.open = false;
          up.destroy();
        });
        req.pipe(up);
      };
      if (holding) held.push(forward);
      else forward();
    },
  );
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    exchanges,
    /** Silences the watches open now, and returns them. */
    pause(): Exchange[] {
      holding = true;
      const open = exchanges.filter(ex => ex.watch && ex.open);
      for (const ex of open) ex.paused = true;
      return open;
    },
    resume() {
      holding = false;
      for (const f of held.splice(0)) f();
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The first event of a watch from `rv` (the admin's own, straight to the API server), or undefined if none came. */
function firstWatchEvent(
  info: ClusterInfo,
  path: string,
  rv: string,
): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${info.url}${path}?watch=true&resourceVersion=${rv}&timeoutSeconds=2`,
      {
        ca: info.caPem,
        agent: false,
        headers: { Authorization: `Bearer ${info.adminToken}` },
      },
      res => {
        let text = '';
        res.on('data', d => {
          text += d;
          const nl = text.indexOf('\n');
          if (nl >= 0) {
            resolve(JSON.parse(text.slice(0, nl)));
            req.destroy();
          }
        });
        res.on('end', () => resolve(undefined));
      },
    );
    req.on('error', reject);
  });
}

/** The API server's audit log from a byte offset: one JSON line per request stage, completed requests kept. */
function auditSince(info: ClusterInfo, offset: number): any[] {
  return auditLogEntries(info.auditLog, offset).filter(
    e => e.stage === 'ResponseComplete',
  );
}

let tmp: string;
let info: ClusterInfo;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let cache: WatchCache;

const rg = (rgName: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  metadata: { name: rgName, labels },
  spec: { location: 'westeurope' },
});
const event = (evName: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: evName },
  involvedObject: {
    apiVersion: 'resources.azure.com/v1api20200601',
    kind: 'ResourceGroup',
    namespace: NS,
    name: 'seed-0',
  },
  reason: 'Churn',
  message: evName,
  type: 'Normal',
});
const merge = (body: unknown) =>
  [body, 'application/merge-patch+json'] as const;

/** A write as the admin that must answer `status`. */
async function must(
  status: number,
  method: string,
  path: string,
  ...rest: [unknown?, string?]
): Promise<void> {
  const res = await kube(info, method, path, ...rest);
  if (res.status !== status)
    throw new Error(
      `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`,
    );
}

beforeAll(async () => {
  tmp = testStateDir('capz-watch-gone-');
  info = await startManagementCluster({
    name,
    stateDir: join(tmp, 'cluster'),
    ephemeral: true,
    crds: true,
    extraApiserverArgs: [
      '--watch-cache=false',
      '--etcd-compaction-interval=2s',
    ],
  });
  await must(201, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS },
  });
  for (let i = 0; i < 6; i++) {
    await must(201, 'POST', rgPath(), rg(`seed-${i}`));
    await must(201, 'POST', eventPath(), event(`seed-${i}`));
  }
  proxy = await startProxy(info);
  cache = new WatchCache(
    [
      {
        name,
        authMethod: 'serviceAccountToken' as const,
        url: proxy.url,
        caData: info.caPem,
        serviceAccountToken: info.backendToken,
      },
    ],
    mockServices.logger.mock(),
    loadClientForTests,
  );
  await cache.start();
}, 240_000);

afterAll(async () => {
  await cache?.stop();
  proxy?.close();
  if (info) await stopManagementCluster(info);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const cachedRg = (rgName: string) =>
  cache.get(name, 'ResourceGroup', NS, rgName);
const cachedEvent = (evName: string) => cache.get(name, 'Event', NS, evName);

/**
 * Runs `body` with churn going on (the seeds' labels and new Events, a round every 200 ms or so: a pace, not a wait),
 * and stops the churn after it.
 */
async function withChurn<T>(body: () => Promise<T>): Promise<T> {
  let churning = true;
  let tick = 0;
  const churn = (async () => {
    while (churning) {
      tick++;
      await kube(
        info,
        'PATCH',
        rgPath(`seed-${tick % 2}`),
        ...merge({ metadata: { labels: { tick: String(tick) } } }),
      );
      await kube(info, 'POST', eventPath(), event(`churn-${Date.now()}`));
      await pace(200);
    }
  })();
  try {
    const start = Number(cachedRg('seed-1')?.metadata.labels?.tick ?? 0);
    await until(
      'the churn to reach the cache',
      () => Number(cachedRg('seed-1')?.metadata.labels?.tick ?? 0) >= start + 3,
    );
    return await body();
  } finally {
    churning = false;
    await churn;
  }
}

const RGS = `${RG_API}/resourcegroups`;

/**
 * Cuts every watch of the backend off (the proxy silences them), makes `gap`'s changes, which no watch then carries,
 * waits until etcd has compacted past the last resourceVersion the ResourceGroup watch delivered (a watch from there
 * is answered 410), lets new requests through again, and waits for the evidence that the real API server answered
 * the backend's resumed watch 410 and the backend re-listed ResourceGroups: the proxy's record of both, and the audit
 * log's (the watch from that resourceVersion by capz-backend, then its paged LIST).
 */
async function cutOff(gap: () => Promise<void>) {
  await until('the ResourceGroup watch to carry an event', () =>
    proxy.exchanges.some(e => e.watch && e.open && e.path === RGS && e.lastRv),
  );
  const auditFrom = auditLogEnd(info.auditLog);
  const pausedAt = Date.now();
  const restarts = () =>
    Object.fromEntries(
      Object.entries(cache.status(name).kinds).map(([k, st]) => [
        k,
        st.restarts,
      ]),
    );
  const restartsBefore = restarts();
  const paused = proxy.pause().filter(e => e.path === RGS);
  expect(paused).toHaveLength(1);
  const lastSeen = paused[0].lastRv ?? paused[0].rv!;

  await gap();

  // The server has compacted past what the backend last saw: a watch from there is answered 410.
  const gone = await until(
    `etcd to compact past resourceVersion ${lastSeen}`,
    async () => {
      const first = await firstWatchEvent(info, RGS, lastSeen);
      return first?.type === 'ERROR' && first.object?.code === 410
        ? first.object
        : false;
    },
    60_000,
  );
  proxy.resume();

  // client-node gives up on the silent watch (30 s without a byte), resumes from lastSeen, is answered 410 by the
  // API server, and re-lists.
  const resumed = await until(
    `the backend's watch resumed from ${lastSeen} to be answered 410`,
    () =>
      proxy.exchanges.find(
        e =>
          e.watch &&
          e.path === RGS &&
          e.rv === lastSeen &&
          e.errors.some(x => x.code === 410),
      ),
    90_000,
  );
  const relist = await until('the backend to re-list ResourceGroups', () =>
    proxy.exchanges.find(
      e =>
        !e.watch &&
        e.method === 'GET' &&
        e.path === RGS &&
        e.limit === '500' &&
        e.at >= resumed.at &&
        e.status !== undefined,
    ),
  );
  expect(relist.status).toBe(200);
  // The informers recovered by themselves (client-node's 410 path), not through ClusterWatch's restart of a failed
  // watch: no kind's watch failed.
  expect(restarts()).toEqual(restartsBefore);

  // The API server's side: the backend's watch from lastSeen, then its LIST.
  const audit = auditSince(info, auditFrom).filter(
    e => e.user?.username === 'capz-backend',
  );
  const watchAt = audit.findIndex(
    e =>
      e.verb === 'watch' &&
      new URL(e.requestURI, info.url).pathname === RGS &&
      new URL(e.requestURI, info.url).searchParams.get('resourceVersion') ===
        lastSeen,
  );
  expect(watchAt).toBeGreaterThanOrEqual(0);
  expect(
    audit
      .slice(watchAt)
      .some(
        e =>
          e.verb === 'list' &&
          new URL(e.requestURI, info.url).pathname === RGS &&
          new URL(e.requestURI, info.url).searchParams.get('limit') === '500',
      ),
  ).toBe(true);
  return {
    lastSeen,
    answer: resumed.errors,
    afterS: Math.round((resumed.at - pausedAt) / 1000),
    adminAnswer: gone.message,
  };
}

const converged = () =>
  until(
    'the cache to match the server',
    async () => (await cacheMatchesServer(cache, name, info)) === true,
  ).catch(async e => {
    throw new Error(
      `${e.message}: ${await cacheMatchesServer(cache, name, info)}`,
    );
  });

describe('a watch the API server ends with 410 Gone under churn', () => {
  it('re-lists, and the cache then equals a fresh LIST, the adds, updates and deletes made while it was cut off included', async () => {
    await until(
      'the cache to be synced',
      () => cache.status(name).synced,
    ).catch(e => {
      throw new Error(
        `${e.message}: ${JSON.stringify(cache.status(name).kinds)}`,
      );
    });
    const evidence = await withChurn(async () => {
      const cut = await cutOff(async () => {
        // The gap: an add, an update and a delete of each kind, which no watch carries.
        const writes: Array<[number, Promise<{ status: number }>]> = [
          [201, kube(info, 'POST', rgPath(), rg('gap-added'))],
          [
            200,
            kube(
              info,
              'PATCH',
              rgPath('seed-3'),
              ...merge({ metadata: { labels: { phase: 'gap' } } }),
            ),
          ],
          [200, kube(info, 'DELETE', rgPath('seed-4'))],
          [201, kube(info, 'POST', eventPath(), event('gap-added'))],
          [
            200,
            kube(
              info,
              'PATCH',
              eventPath('seed-3'),
              ...merge({ message: 'updated in the gap' }),
            ),
          ],
          [200, kube(info, 'DELETE', eventPath('seed-4'))],
        ];
        for (const [status, write] of writes)
          expect((await write).status).toBe(status);
        expect(cachedRg('gap-added')).toBeUndefined();
        expect(cachedRg('seed-4')).toBeDefined();
        expect(cachedEvent('seed-4')).toBeDefined();
      });
      // Still churning while the re-list's answer is applied and its watch starts.
      const gapInCache = () => ({
        'ResourceGroup gap-added added': Boolean(cachedRg('gap-added')),
        'ResourceGroup seed-3 updated':
          cachedRg('seed-3')?.metadata.labels?.phase === 'gap',
        'ResourceGroup seed-4 deleted': !cachedRg('seed-4'),
        'Event gap-added added': Boolean(cachedEvent('gap-added')),
        'Event seed-3 updated':
          cachedEvent('seed-3')?.message === 'updated in the gap',
        'Event seed-4 deleted': !cachedEvent('seed-4'),
      });
      await until('the gap to show in the cache', () =>
        Object.values(gapInCache()).every(Boolean),
      ).catch(e => {
        throw new Error(`${e.message}: ${JSON.stringify(gapInCache())}`);
      });
      return cut;
    });
    await converged();
    expect(cachedRg('gap-added')).toBeDefined();
    expect(cachedRg('seed-3')?.metadata.labels?.phase).toBe('gap');
    expect(cachedRg('seed-4')).toBeUndefined();
    expect(cachedEvent('gap-added')).toBeDefined();
    expect(cachedEvent('seed-3')?.message).toBe('updated in the gap');
    expect(cachedEvent('seed-4')).toBeUndefined();
    expect(cache.status(name).synced).toBe(true);
    // eslint-disable-next-line no-console
    console.log(
      `cut off at resourceVersion ${evidence.lastSeen}; ${
        evidence.afterS
      } s later the API server answered the backend's resumed watch ${JSON.stringify(
        evidence.answer,
      )} (an admin's watch from there: "${
        evidence.adminAnswer
      }"); the backend re-listed`,
    );
  }, 240_000);

  // A re-list reports an object deleted and created again under the same name as an update (client-node's ListWatch
  // matches by namespace/name): ClusterWatch drops the old uid and reports its delete, or a stale copy would stay that
  // no later event removes (seen before the fix: "ResourceGroup: cache has 7, server 6").
  it('leaves no stale copy of an object deleted and created again under the same name while it was cut off', async () => {
    let oldUid = '';
    await withChurn(() =>
      cutOff(async () => {
        oldUid = cachedRg('seed-5')!.metadata.uid;
        expect((await kube(info, 'DELETE', rgPath('seed-5'))).status).toBe(200);
        expect((await kube(info, 'POST', rgPath(), rg('seed-5'))).status).toBe(
          201,
        );
      }),
    );
    await until(
      'the new seed-5 in the cache',
      () => cachedRg('seed-5') && cachedRg('seed-5')!.metadata.uid !== oldUid,
    );
    expect(
      cache
        .list(name, 'ResourceGroup', NS)
        .filter(o => o.metadata.uid === oldUid),
    ).toEqual([]);
    await converged();
  }, 240_000);
});
