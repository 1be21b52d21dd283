/**
 * The test harness's own promises: a started backend is the process the test talks to (a Backstage backend whose
 * port is taken before it binds logs EADDRINUSE and keeps running; a CI run's jobs test then sent its requests to
 * another test's backend and failed with 401s), and a prepared one does nothing a backend does before it is started.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { listenPort } from '@internal/mgmt-cluster';
import {
  BackendProcess,
  httpJson,
  prepareBackend,
  startBackend,
} from './backendProcess';
import { testClusterInfo, until } from './realCluster';

/** Whether anything accepts a connection on this local port. */
const listening = (port: number) =>
  new Promise<boolean>(resolve => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

it('a backend whose port is taken starts again on another port, and never answers through the process holding it', async () => {
  const info = testClusterInfo();
  // The holder answers the harness the way another backend would: healthy, and signing in the guest.
  const holder = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        req.url?.startsWith('/api/auth/')
          ? { backstageIdentity: { token: 'not-this-backend' } }
          : { status: 'ok' },
      ),
    );
  });
  await new Promise<void>(r => holder.listen(0, '127.0.0.1', r));
  const held = (holder.address() as AddressInfo).port;
  const directory = mkdtempSync(join(tmpdir(), 'capz-port-taken-'));
  const backend = await startBackend({
    name: 'port-taken',
    managementCluster: {
      name: 'port-taken',
      url: info.url,
      caPem: info.caPem,
      token: info.adminToken,
    },
    database: { client: 'better-sqlite3', directory },
    port: held,
  });
  try {
    expect(backend.url).not.toBe(`http://127.0.0.1:${held}`);
    expect(backend.log()).toContain(
      `port ${held} was taken before the backend bound it`,
    );
    // Its own guest token works on its own routes.
    const clusters = await backend.request('GET', 'capz/management-clusters');
    expect(clusters.status).toBe(200);
    expect(JSON.stringify(clusters.body)).toContain('port-taken');
  } finally {
    await backend.kill();
    holder.close();
    rmSync(directory, { recursive: true, force: true });
  }
}, 300_000);

it('a prepared backend loads its modules but opens neither its port nor its database until started; started, it runs with the environment given, serves, and redacts the secrets of its config', async () => {
  const info = testClusterInfo();
  const directory = mkdtempSync(join(tmpdir(), 'capz-prepared-'));
  const port = await listenPort();
  const prepared = await prepareBackend({
    name: 'prepared',
    entry: 'capz',
    managementCluster: {
      name: 'prepared',
      url: info.url,
      caPem: info.caPem,
      token: info.adminToken,
    },
    database: { client: 'better-sqlite3', directory },
    port,
  });
  let backend: BackendProcess | undefined;
  try {
    await until(
      'the prepared backend to load its modules',
      () =>
        readFileSync(prepared.logFile, 'utf8').includes(
          '[testBackend] modules loaded',
        ),
      120_000,
    );
    expect(await listening(port)).toBe(false);
    expect(readdirSync(directory)).toEqual([]);

    // The environment given at start is the one it starts with (the crash tests' fault is given so).
    backend = await prepared.start({ LOG_LEVEL: 'debug' });
    expect(backend.url).toBe(`http://127.0.0.1:${port}`);
    expect(backend.phases.preloaded).toBeGreaterThan(0);
    await until('debug lines in the log', () =>
      /debug.*Plugin startup hook succeeded/.test(backend!.log()),
    );
    const clusters = await backend.request('GET', 'capz/management-clusters');
    expect(clusters.status).toBe(200);
    expect(JSON.stringify(clusters.body)).toContain('prepared');
    expect(readdirSync(directory).length).toBeGreaterThan(0);
    // The lighter entry redacts its config's secrets by key (not by Backstage's config schema): a request that
    // carries the service-account token is logged without it.
    await httpJson(
      `${backend.url}/api/capz/health?probe=${info.adminToken}`,
      'GET',
    );
    await until('the probe request in the log', () =>
      backend!.log().includes('/api/capz/health?probe='),
    );
    // (Booleans: a failure must not print the log with the token in it.)
    const log = backend.log();
    expect({
      redacted: log.includes('/api/capz/health?probe=***'),
      tokenInLog: log.includes(info.adminToken),
    }).toEqual({ redacted: true, tokenInLog: false });
  } finally {
    await prepared.discard();
    await backend?.kill();
    rmSync(directory, { recursive: true, force: true });
  }
}, 300_000);
