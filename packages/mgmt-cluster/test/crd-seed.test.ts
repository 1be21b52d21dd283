import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureBinaries } from '../src/binaries.ts';
import {
  apiGet,
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
} from '../src/cluster.ts';
import { crdSeedFor } from '../src/crdSeed.ts';
import { loadCrds } from '../src/crds.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** The CRDs' specs as the API server serves them, by name. */
async function servedSpecs(info: Parameters<typeof apiGet>[0]) {
  const res = await apiGet(info, CRDS);
  assert.equal(res.status, 200, res.body);
  const items = JSON.parse(res.body).items as Array<{
    metadata: { name: string };
    spec: unknown;
    status: { conditions?: Array<{ type: string; status: string }> };
  }>;
  return new Map(items.map(c => [c.metadata.name, c]));
}

/** The requests of `verb` on CRDs in the cluster's audit log (Metadata level, every request). */
function crdWrites(auditLog: string): string[] {
  return readFileSync(auditLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l))
    .filter(
      e =>
        e.objectRef?.resource === 'customresourcedefinitions' &&
        ['create', 'update', 'patch'].includes(e.verb) &&
        e.user?.username === 'capz-admin',
    )
    .map(e => `${e.verb} ${e.objectRef.name ?? ''}`);
}

// Two clusters of their own, one after the other: the first installs the CRDs and keeps their records; the second
// gets them in its etcd before its API server starts. The shared run cluster is left alone.
test('a cluster started after another gets the same CRDs from the seed, established, without creating them', async t => {
  const crds = loadCrds();
  const seed = crdSeedFor(await ensureBinaries(), crds);
  assert.ok(seed, 'the seed is on unless CAPZ_CRD_SEED=off');
  rmSync(seed.file, { force: true });

  const start = async (suffix: string) => {
    const name = `seed-${suffix}-${process.pid}`;
    const info = await startManagementCluster({
      name,
      stateDir: join(tmpdir(), `capz-${name}`),
      ephemeral: true,
    });
    t.after(() => stopManagementCluster(info));
    return info;
  };

  const first = await start('a');
  assert.equal(
    crdWrites(first.auditLog).filter(w => w.startsWith('create')).length,
    crds.length,
    'the first cluster creates every CRD through its API server',
  );
  assert.ok(existsSync(seed.file), 'and leaves the seed');
  assert.equal(
    crdSeedFor(await ensureBinaries(), crds)?.records?.length,
    crds.length,
  );

  const second = await start('b');
  assert.deepEqual(
    crdWrites(second.auditLog),
    [],
    'the second cluster writes no CRD: they were in its etcd',
  );
  const [a, b] = [await servedSpecs(first), await servedSpecs(second)];
  assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
  for (const [name, crd] of b) {
    assert.deepEqual(crd.spec, a.get(name)!.spec, `${name}: the same spec`);
    assert.ok(
      crd.status.conditions?.some(
        c => c.type === 'Established' && c.status === 'True',
      ),
      `${name} is established`,
    );
  }
  // Served, validated and stored as on the first cluster: a Cluster made and read back.
  const made = await apiRequest(
    second,
    'POST',
    '/apis/cluster.x-k8s.io/v1beta2/namespaces/default/clusters',
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'seeded' },
      spec: { paused: true },
    },
  );
  assert.equal(made.status, 201, made.body);
  const bad = await apiRequest(
    second,
    'POST',
    '/apis/cluster.x-k8s.io/v1beta2/namespaces/default/clusters',
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'bad' },
      spec: { paused: 'not a boolean' },
    },
  );
  assert.equal(
    bad.status,
    422,
    'the CRD schema validates on the seeded cluster',
  );
  // Only CRDs come from the seed: the authentication ConfigMap names the second cluster's own CA alone.
  const auth = await apiGet(
    second,
    '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
  );
  assert.equal(auth.status, 200, auth.body);
  const clientCa = JSON.parse(auth.body).data['client-ca-file'] as string;
  assert.ok(clientCa.includes(second.caPem.trim()), 'its own CA');
  assert.ok(!clientCa.includes(first.caPem.trim()), "not the first one's");
});
