import { mockServices } from '@backstage/backend-test-utils';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionMonitor } from './ConnectionMonitor';

// Jest's transform turns client-node's ESM into CommonJS; the backend itself uses a native import(). On a cold
// Jest cache that transform takes several seconds, so it happens once, in beforeAll, with room to finish.
let clientNode: unknown;
const loadClient = async () => clientNode as any;
beforeAll(() => {
  clientNode = require('@kubernetes/client-node');
}, 120_000);

describe('ConnectionMonitor', () => {
  let server: Server;
  let url: string;
  let certPem: string;
  let keyPem: string;
  const seenAuth: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capz-monitor-'));
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
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    certPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    keyPem = readFileSync(join(dir, 'key.pem'), 'utf8');
    server = createServer({ key: keyPem, cert: certPem }, (req, res) => {
      seenAuth.push(req.headers.authorization ?? '');
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({ major: '1', minor: '35', gitVersion: 'v1.35.4' }),
      );
    });
    rmSync(dir, { recursive: true });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise(r => server.close(r)));

  it('reports each cluster on its own: connected, unreachable, misconfigured', async () => {
    const monitor = new ConnectionMonitor(
      [
        {
          name: 'up',
          authMethod: 'serviceAccountToken',
          url,
          caData: certPem,
          serviceAccountToken: 'tok',
        },
        {
          name: 'down',
          authMethod: 'serviceAccountToken',
          url: 'https://127.0.0.1:1',
          serviceAccountToken: 'tok',
        },
        {
          name: 'nofile',
          authMethod: 'kubeconfig',
          kubeconfig: { path: '/nonexistent/kubeconfig' },
        },
        {
          name: 'wrongca',
          authMethod: 'serviceAccountToken',
          url,
          serviceAccountToken: 'tok',
        },
      ],
      mockServices.logger.mock(),
      loadClient,
    );
    expect(monitor.status('up')).toEqual({ state: 'unknown' });
    await monitor.probeAll();
    expect(monitor.status('up')).toMatchObject({
      state: 'connected',
      version: 'v1.35.4',
    });
    expect(seenAuth).toEqual(['Bearer tok']); // the server without a trusted CA never saw the token
    expect(monitor.status('down')).toMatchObject({ state: 'unreachable' });
    expect(monitor.status('nofile')).toMatchObject({
      state: 'unreachable',
      message: expect.stringContaining('/nonexistent/kubeconfig'),
    });
    expect(monitor.status('wrongca')).toMatchObject({ state: 'unreachable' });
  });

  it('says why an API server did not answer: refused, or no answer within the probe timeout (hung)', async () => {
    // Reads the request and never answers: a frozen API server on a kept-alive connection.
    const hung = createServer({ key: keyPem, cert: certPem }, () => undefined);
    await new Promise<void>(r => hung.listen(0, '127.0.0.1', r));
    const hungUrl = `https://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    // A port nothing listens on (fetch refuses port 1 itself, as a "bad port", without connecting).
    const free = createTcpServer();
    await new Promise<void>(r => free.listen(0, '127.0.0.1', r));
    const downUrl = `https://127.0.0.1:${(free.address() as AddressInfo).port}`;
    await new Promise(r => free.close(r));
    try {
      const monitor = new ConnectionMonitor(
        [
          {
            name: 'down',
            authMethod: 'serviceAccountToken',
            url: downUrl,
            caData: certPem,
            serviceAccountToken: 'tok',
          },
          {
            name: 'hung',
            authMethod: 'serviceAccountToken',
            url: hungUrl,
            caData: certPem,
            serviceAccountToken: 'tok',
          },
        ],
        mockServices.logger.mock(),
        loadClient,
        500,
      );
      const changes: string[] = [];
      monitor.onChange((name, status) =>
        changes.push(`${name} ${status.state}`),
      );
      await monitor.probeAll();
      expect(changes.sort()).toEqual(['down unreachable', 'hung unreachable']);
      // The same state again is no change.
      await monitor.probeAll();
      expect(changes).toHaveLength(2);
      expect(monitor.status('down')).toMatchObject({
        state: 'unreachable',
        message:
          'its API server did not answer (connection refused (ECONNREFUSED))',
      });
      expect(monitor.status('hung')).toMatchObject({
        state: 'unreachable',
        message: 'its API server did not answer (no answer within 0.5 s)',
      });
    } finally {
      hung.closeAllConnections();
      await new Promise(r => hung.close(r));
    }
  });

  it('refuses to send a token over plain HTTP', async () => {
    const monitor = new ConnectionMonitor(
      [
        {
          name: 'plain',
          authMethod: 'serviceAccountToken',
          url: 'http://127.0.0.1:1',
          serviceAccountToken: 'tok',
        },
      ],
      mockServices.logger.mock(),
      loadClient,
    );
    await monitor.probeAll();
    expect(monitor.status('plain')).toMatchObject({
      state: 'unreachable',
      message: expect.stringContaining('HTTP protocol is not allowed'),
    });
  });
});
