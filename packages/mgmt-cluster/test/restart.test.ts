import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  apiGet,
  apiRequest,
  restartApiServer,
  startManagementCluster,
  stopManagementCluster,
} from '../src/cluster.ts';

/** A process's GOMAXPROCS, from its environment as the kernel shows it (undefined: Go's default). */
function goMaxProcsOf(pid: number): string | undefined {
  return readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find(v => v.startsWith('GOMAXPROCS='))
    ?.slice('GOMAXPROCS='.length);
}

// A cluster of its own (without CRDs, so it starts in seconds): killing the shared run cluster's API server would
// disturb every other test. Idle test clusters cost a run's CPU: an ephemeral cluster's Go servers run on one
// processor each (StartOptions.goMaxProcs), also after a restart, unless the caller's environment sets GOMAXPROCS.
test('the API server restarts on the same port and keeps its objects (and GOMAXPROCS=1)', async t => {
  const name = `restart-${process.pid}`;
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
  const procs = process.env.GOMAXPROCS ?? '1';
  for (const [server, pid] of Object.entries(info.pids))
    assert.equal(goMaxProcsOf(pid), procs, server);
  const before = info.pids.apiserver;

  info = await restartApiServer(info);

  assert.notEqual(info.pids.apiserver, before, 'a new kube-apiserver process');
  assert.throws(() => process.kill(before, 0), 'the old process is gone');
  const read = await apiGet(
    info,
    '/api/v1/namespaces/default/configmaps/survives',
  );
  assert.equal(read.status, 200, read.body);
  assert.equal(JSON.parse(read.body).data.k, 'v');
  assert.equal(goMaxProcsOf(info.pids.apiserver), procs, 'after the restart');
});
