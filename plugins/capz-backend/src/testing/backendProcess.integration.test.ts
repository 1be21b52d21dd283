/**
 * The test harness's own promise: a started backend is the process the test talks to. A Backstage backend whose
 * port is taken before it binds logs EADDRINUSE and keeps running; a CI run's jobs test then sent its requests to
 * another test's backend and failed with 401s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend } from './backendProcess';
import { testClusterInfo } from './realCluster';

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
