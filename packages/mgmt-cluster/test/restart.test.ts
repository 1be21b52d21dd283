import assert from 'node:assert/strict';
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

// A cluster of its own (without CRDs, so it starts in seconds): killing the shared run cluster's API server would
// disturb every other test.
test('the API server restarts on the same port and keeps its objects', async t => {
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
});
