import { mockServices } from '@backstage/backend-test-utils';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import { AddressInfo } from 'node:net';
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
    server = createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: certPem },
      (req, res) => {
        seenAuth.push(req.headers.authorization ?? '');
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({ major: '1', minor: '35', gitVersion: 'v1.35.4' }),
        );
      },
    );
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
