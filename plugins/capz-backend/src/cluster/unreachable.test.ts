/**
 * How client-node 2.0.1's requests fail when an API server does not answer, against real sockets on loopback: a port
 * nothing listens on, one that takes the connection but never completes the TLS handshake (a frozen process), a
 * server that reads the request and never answers, one that cuts the connection, one that answers 503, and one whose
 * certificate the CA does not sign (no outage: a configuration problem that waiting does not cure).
 */
import { mockServices } from '@backstage/backend-test-utils';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, Server } from 'node:https';
import {
  createServer as createTcpServer,
  Server as TcpServer,
  Socket,
} from 'node:net';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KubeRequestError,
  ManagementClusterClient,
} from './ManagementClusterClient';
import { kubeConfigFor } from './kubeConfig';
import { whyNoAnswer, objectApiWithTimeout } from './unreachable';

// Jest's transform turns client-node's ESM into CommonJS (slow on a cold cache): once, with room to finish.
let k8s: any;
beforeAll(() => {
  k8s = require('@kubernetes/client-node');
}, 120_000);

let certPem = '';
let keyPem = '';
let otherCa = '';
const servers: Array<Server | TcpServer> = [];
const sockets = new Set<Socket>();

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'capz-unreachable-'));
  const cert = (name: string) =>
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, `${name}.key`),
        '-out',
        join(dir, `${name}.pem`),
      ],
      { stdio: 'ignore' },
    );
  cert('server');
  cert('other');
  certPem = readFileSync(join(dir, 'server.pem'), 'utf8');
  keyPem = readFileSync(join(dir, 'server.key'), 'utf8');
  otherCa = readFileSync(join(dir, 'other.pem'), 'utf8');
  rmSync(dir, { recursive: true });
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(
    servers.map(s => new Promise(r => s.close(() => r(undefined)))),
  );
});

const listen = async (s: Server | TcpServer): Promise<string> => {
  servers.push(s);
  s.on('connection', (c: Socket) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
  });
  await new Promise<void>(r => s.listen(0, '127.0.0.1', r));
  return `https://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

/** An HTTPS server with the test's certificate, answering with `handler`. */
const https = (handler: ConstructorParameters<typeof Server>[1]) =>
  listen(createHttpsServer({ key: keyPem, cert: certPem }, handler));

/** A port that was free a moment ago (listened on, then closed): nothing listens. */
async function closedPort(): Promise<string> {
  const s = createTcpServer();
  await new Promise<void>(r => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise(r => s.close(r));
  return `https://127.0.0.1:${port}`;
}

const cluster = (url: string, caData = certPem) => ({
  name: `t-${url.split(':').pop()}`,
  authMethod: 'serviceAccountToken' as const,
  url,
  caData,
  serviceAccountToken: 'tok',
});
const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  namespace: 'team-a',
  name: 'aso-credential',
};

/** What ManagementClusterClient.get throws against `url` (it must throw). */
async function getFails(
  url: string,
  caData?: string,
): Promise<KubeRequestError> {
  const client = await ManagementClusterClient.create(
    cluster(url, caData),
    mockServices.logger.mock(),
    async () => k8s,
  );
  const e = await client.get(secret).then(
    () => undefined,
    x => x,
  );
  expect(e).toBeInstanceOf(KubeRequestError);
  return e;
}

describe('an API server that does not answer', () => {
  it('nothing listens: connection refused at once, certainly not sent', async () => {
    const e = await getFails(await closedPort());
    expect(e.noAnswer).toEqual({
      reason: 'connection refused (ECONNREFUSED)',
      maybeSent: false,
    });
    expect(e.statusCode).toBe(0);
    expect(e.message).toBe(
      'reading Secret team-a/aso-credential: the API server did not answer (connection refused (ECONNREFUSED))',
    );
  });

  it("the connection is taken but no TLS handshake comes: undici's connect timeout (10 s), certainly not sent", async () => {
    // A frozen process: its socket listens (the kernel completes the TCP handshake) but nothing reads.
    const url = await listen(createTcpServer(() => undefined));
    const started = Date.now();
    const e = await getFails(url);
    expect(e.noAnswer).toEqual({
      reason:
        'no connection: the connect or TLS handshake timed out (UND_ERR_CONNECT_TIMEOUT)',
      maybeSent: false,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
  }, 60_000);

  it('the request is read and never answered: the request timeout ends it, maybe sent', async () => {
    const url = await https(() => undefined);
    const kc = await kubeConfigFor(cluster(url), k8s);
    const api = objectApiWithTimeout(k8s, kc, 500);
    const e = await api
      .read({ apiVersion: 'v1', kind: 'Secret', metadata: secret } as never)
      .then(
        () => undefined,
        x => x,
      );
    expect(whyNoAnswer(e)).toEqual({
      reason: 'no answer within 0.5 s',
      maybeSent: true,
    });
  });

  it('the connection is cut after the request: maybe sent', async () => {
    const url = await https(req => req.socket.destroy());
    const e = await getFails(url);
    expect(e.noAnswer?.maybeSent).toBe(true);
    expect(e.noAnswer?.reason).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
  });

  it('503 from the API server (or a gateway in front of it): try again; 404 is an answer', async () => {
    let status = 503;
    const url = await https((_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'Status', code: status, message: 'nope' }),
      );
    });
    const e = await getFails(url);
    expect(e.statusCode).toBe(503);
    expect(e.noAnswer).toEqual({
      reason: 'HTTP 503 Service Unavailable',
      maybeSent: true,
    });
    status = 404;
    const client = await ManagementClusterClient.create(
      cluster(url),
      undefined,
      async () => k8s,
    );
    await expect(client.get(secret)).resolves.toBeUndefined();
    expect(whyNoAnswer({ code: 404 })).toBeUndefined();
    expect(whyNoAnswer({ code: 429 })).toEqual({
      reason: 'HTTP 429 Too Many Requests',
      maybeSent: false,
    });
  });

  it('a certificate the CA does not sign is not an outage: no waiting cures it', async () => {
    const url = await https((_req, res) => res.end('{}'));
    const e = await getFails(url, otherCa);
    expect(e.noAnswer).toBeUndefined();
  });
});
