/**
 * An HTTPS proxy that lets real clients (the real ASO and CAPZ managers, Go) reach the simulated Entra ID and ARM
 * under their real host names, and nothing else (docs/real-controllers.md#plan, step 2).
 *
 * Why: MSAL Go (v1.6.0, ASO's pin) sends AAD instance discovery for any authority host it does not trust to
 * login.microsoftonline.com itself (`apps/internal/oauth/ops/authority/authority.go` `AADInstanceDiscovery`, lines
 * 603-608; and it asks discovery before every token request anyway: `apps/internal/base/storage/storage.go` lines
 * 128-136), and CAPZ only knows the named clouds, so pointing the clients at a loopback URL is not enough. The clients'
 * transports honour `HTTPS_PROXY` instead (`http.ProxyFromEnvironment`: azcore `sdk/azcore@v1.21.0/runtime/
 * transport_default_http_client.go` line 19, which MSAL Go also uses through azidentity's pipeline adapter,
 * `sdk/azidentity@v1.13.1/confidential_client.go` lines 156 and 182-184; ASO's own ARM transport,
 * `v2/internal/genericarmclient/default_http_client.go` line 22, v2.18.0). Go never proxies loopback or `localhost`
 * (`src/vendor/golang.org/x/net/http/httpproxy/proxy.go` `useProxy`, Go 1.26), so the managers still reach the API
 * server and their webhooks directly.
 *
 * What it does: `CONNECT <host>:443` for a host in `upstreams` is answered 200 and the tunnel's TLS is terminated here
 * with a certificate for the real names signed by this proxy's own loopback CA (clients trust it through a CA bundle,
 * `writeCaBundle`, passed as `SSL_CERT_FILE`, which Go reads instead of the system list: `src/crypto/x509/
 * root_unix.go` lines 35-38, Go 1.26). Each request inside is forwarded unchanged (method, path, `Host` header, body)
 * to that host's loopback server over HTTPS, and its answer streamed back. Any other CONNECT target (another host, or
 * another port), and any plain-HTTP proxy request, is refused with 403 and recorded in `refused`: the proof that
 * nothing leaves for real Azure. Every forwarded request is recorded in `requests` (host, method, path, status).
 *
 * Built on node's http/tls: the one library here that does this (mockttp 3.17, in node_modules through
 * @backstage/backend-openapi-utils) brings 42 direct dependencies and its own CA generation for a job of about a
 * hundred lines; http-proxy forwards requests but does not terminate CONNECT tunnels.
 */
import { readFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent, request } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext, TLSSocket } from 'node:tls';
import { ENTRA_HOST } from '../entra/server.ts';
import { ensureLoopbackTls } from '../runtime/loopbackTls.ts';

/** The real host names the managers use for the public cloud (ASO v2.18.0 `v2/pkg/common/cloud/cloud.go` lines 13-15). */
export { ENTRA_HOST };
export const ARM_HOST = 'management.azure.com';

/** Where the requests for one real host name go: a loopback HTTPS server and the CA that signed its certificate. */
export interface ProxyUpstream {
  url: string;
  caPem: string;
}

export interface SimProxyOptions {
  /** Where the proxy's CA and serving certificate live (reused if present). */
  stateDir: string;
  /** real host name (lower case, port 443) -> the simulated service that answers for it */
  upstreams: Record<string, ProxyUpstream>;
  /** default 0 = a free port on 127.0.0.1 */
  port?: number;
  /** Told about every refused connection or request (default: nothing). */
  log?: (line: string) => void;
}

export interface ProxiedRequest {
  host: string;
  method: string;
  path: string;
  /** the upstream's status, or 502 when the upstream could not be reached */
  status: number;
}

export interface RefusedRequest {
  /** `host:port` of a CONNECT, or the absolute URL of a plain-HTTP proxy request */
  target: string;
  host: string;
  reason: string;
}

export interface SimProxy {
  /** `http://127.0.0.1:<port>`: the value of `HTTPS_PROXY` */
  url: string;
  /** the CA that signed the certificate for the real names */
  caPem: string;
  /** every forwarded request, oldest first */
  readonly requests: ProxiedRequest[];
  /** every refused CONNECT or request, oldest first */
  readonly refused: RefusedRequest[];
  /** forwarded requests per host */
  counts(): Record<string, number>;
  /** Writes `systemBundle` (when present) followed by this proxy's CA to `file`; returns `file`. */
  writeCaBundle(file: string, systemBundle?: string): string;
  /**
   * The environment a Go client needs to reach the simulated services through this proxy: `HTTPS_PROXY`,
   * `SSL_CERT_FILE` and `NO_PROXY` (loopback, which Go never proxies anyway).
   */
  clientEnv(caBundleFile: string): Record<string, string>;
  close(): Promise<void>;
}

/** Debian's bundle of the system's CAs (ca-certificates). */
export const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

// Hop-by-hop headers (RFC 9110 section 7.6.1): each connection's own, never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
]);

function endToEnd(headers: IncomingMessage['headers']): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  }
  return out;
}

export async function startSimProxy(opts: SimProxyOptions): Promise<SimProxy> {
  const upstreams = new Map(
    Object.entries(opts.upstreams).map(([h, u]) => [h.toLowerCase(), u]),
  );
  const tls = ensureLoopbackTls(opts.stateDir, 'proxy', [...upstreams.keys()]);
  const secureContext = createSecureContext({
    cert: tls.certPem,
    key: tls.keyPem,
  });
  const agents = new Map(
    [...upstreams].map(([h, u]) => [
      h,
      // servername: the upstreams' certificates name localhost; without it node would check the forwarded Host.
      new Agent({ keepAlive: true, ca: u.caPem, servername: 'localhost' }),
    ]),
  );
  const requests: ProxiedRequest[] = [];
  const refused: RefusedRequest[] = [];
  const sockets = new Set<Duplex>();
  const tunnelHost = new WeakMap<Socket, string>();

  const refuse = (target: string, host: string, reason: string) => {
    refused.push({ target, host, reason });
    opts.log?.(`refused ${target}: ${reason}`);
  };

  // Requests inside the tunnels (plain HTTP/1.1 after this proxy's TLS).
  const inner = createServer((req, res) => forward(req, res));
  // Go keeps idle connections 90 s (azcore's transport): node's 5 s default would close them under its feet.
  inner.keepAliveTimeout = 120_000;
  function forward(req: IncomingMessage, res: ServerResponse): void {
    const tunnel = tunnelHost.get(req.socket) ?? '';
    const host = (req.headers.host ?? '').toLowerCase().replace(/:443$/, '');
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const upstream = upstreams.get(host);
    if (!upstream || host !== tunnel) {
      // A Host that is not the tunnel's: never sent on, whatever it names.
      refuse(`${tunnel}:443 Host ${host}`, host, 'Host differs from CONNECT');
      res.writeHead(421, { 'Content-Type': 'text/plain' });
      res.end(`capz-sim proxy: ${host} is not served on this connection\n`);
      return;
    }
    const target = new URL(upstream.url);
    const entry: ProxiedRequest = { host, method, path, status: 0 };
    requests.push(entry);
    const out = request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path,
        headers: endToEnd(req.headers),
        agent: agents.get(host),
      },
      up => {
        entry.status = up.statusCode ?? 0;
        res.writeHead(up.statusCode ?? 502, endToEnd(up.headers));
        up.pipe(res);
      },
    );
    out.on('error', e => {
      entry.status = 502;
      if (!res.headersSent) {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`capz-sim proxy: ${host} upstream failed: ${e.message}\n`);
      } else res.destroy(e);
    });
    req.pipe(out);
  }

  const server = createServer((req, res) => {
    // A plain-HTTP proxy request (absolute URL): nothing here is served over plain HTTP.
    const target = req.url ?? '';
    let host = '';
    try {
      host = new URL(target).hostname;
    } catch {
      host = req.headers.host ?? '';
    }
    refuse(target, host, 'plain HTTP is not proxied');
    res.writeHead(403, { 'Content-Type': 'text/plain' });
    res.end(`capz-sim proxy: ${target} refused\n`);
  });
  server.on('connection', s => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, socket: Duplex, head) => {
    socket.on('error', () => socket.destroy());
    const target = (req.url ?? '').toLowerCase();
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    const host = m?.[1] ?? target;
    if (!m || m[2] !== '443' || !upstreams.has(host)) {
      refuse(target, host, 'not a simulated host');
      socket.end(
        'HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n' +
          `capz-sim proxy: ${target} is not simulated; nothing leaves this machine\n`,
      );
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) socket.unshift(head);
    const tlsSocket = new TLSSocket(socket, {
      isServer: true,
      secureContext,
      // HTTP/1.1 only: the inner server is node's http, and Go falls back from h2 when it is not offered.
      ALPNProtocols: ['http/1.1'],
    });
    tlsSocket.on('error', () => tlsSocket.destroy());
    sockets.add(tlsSocket);
    tlsSocket.on('close', () => sockets.delete(tlsSocket));
    tunnelHost.set(tlsSocket, host);
    inner.emit('connection', tlsSocket);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    caPem: tls.caPem,
    requests,
    refused,
    counts() {
      const c: Record<string, number> = {};
      for (const r of requests) c[r.host] = (c[r.host] ?? 0) + 1;
      return c;
    },
    writeCaBundle(file, systemBundle = SYSTEM_CA_BUNDLE) {
      const system = existsSync(systemBundle)
        ? readFileSync(systemBundle, 'utf8').trimEnd()
        : '';
      writeFileSync(`${file}.tmp`, `${system}\n${tls.caPem.trim()}\n`);
      renameSync(`${file}.tmp`, file);
      return file;
    },
    clientEnv(caBundleFile) {
      return {
        HTTPS_PROXY: url,
        SSL_CERT_FILE: caBundleFile,
        NO_PROXY: '127.0.0.1,localhost',
      };
    },
    close: () =>
      new Promise<void>(resolve => {
        for (const a of agents.values()) a.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
