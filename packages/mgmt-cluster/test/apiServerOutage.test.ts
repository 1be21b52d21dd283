import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  apiGet,
  apiRequest,
  pauseApiServer,
  resumeApiServer,
  runningCluster,
  startApiServer,
  startManagementCluster,
  stopApiServer,
  stopManagementCluster,
  type ClusterInfo,
} from '../src/cluster.ts';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * What a client meets at the API server's port: `refused` (nothing listens), `hangs` (no TLS handshake within
 * `ms`: the kernel took the connection, the process does not answer), or `answers` (the handshake completes).
 */
function probe(info: ClusterInfo, ms: number): Promise<string> {
  const { port } = new URL(info.url);
  return new Promise(resolve => {
    const socket = connect({
      host: '127.0.0.1',
      port: Number(port),
      ca: info.caPem,
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('hangs');
    }, ms);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('answers');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(e.code === 'ECONNREFUSED' ? 'refused' : `error ${e.code}`);
    });
  });
}

// A cluster of its own (without CRDs, so it starts in seconds): taking the shared run cluster's API server away would
// disturb every other test.
test('the API server goes away (refused, then hung) and comes back with its objects; stop ends a paused one', async t => {
  const name = `outage-${process.pid}`;
  let info = await startManagementCluster({
    name,
    stateDir: join(tmpdir(), `capz-${name}`),
    ephemeral: true,
    crds: false,
  });
  t.after(() => stopManagementCluster(info));
  const created = await apiRequest(
    info,
    'POST',
    '/api/v1/namespaces/default/configmaps',
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'survives' },
      data: { k: 'v' },
    },
  );
  assert.equal(created.status, 201, created.body);
  assert.equal(await probe(info, 5000), 'answers');

  // Stopped: the port refuses, and the cluster is still found (by `stop`, `start-apiserver`) without its process.
  const first = info.pids.apiserver;
  info = await stopApiServer(info);
  assert.equal(isAlive(first), false, 'the kube-apiserver process is gone');
  assert.equal(await probe(info, 5000), 'refused');
  assert.equal(runningCluster(name, info.stateDir)?.apiserverDown, 'stopped');
  info = await startApiServer(info);
  assert.equal(runningCluster(name, info.stateDir)?.apiserverDown, undefined);
  const read = await apiGet(
    info,
    '/api/v1/namespaces/default/configmaps/survives',
  );
  assert.equal(read.status, 200, read.body);

  // Paused: the connection is taken (the socket still listens) but the handshake never comes; SIGCONT answers again.
  info = await pauseApiServer(info);
  assert.equal(await probe(info, 3000), 'hangs');
  assert.equal(runningCluster(name, info.stateDir)?.apiserverDown, 'paused');
  info = await resumeApiServer(info);
  assert.equal(await probe(info, 5000), 'answers');

  // A test that fails while the API server is paused still ends every process: stop sends SIGCONT after SIGTERM.
  info = await pauseApiServer(info);
  const pids = Object.entries(info.pids);
  const stopping = Date.now();
  await stopManagementCluster(info);
  assert.deepEqual(
    pids.filter(([, pid]) => isAlive(pid)).map(([name]) => name),
    [],
    'no process left after stopping a cluster whose API server was paused',
  );
  t.diagnostic(
    `stopped with a paused API server in ${Date.now() - stopping} ms`,
  );
});
