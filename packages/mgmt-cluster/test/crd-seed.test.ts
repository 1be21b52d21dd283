import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { auditLogEntries } from '../src/audit.ts';
import { ensureBinaries } from '../src/binaries.ts';
import {
  apiGet,
  apiRequest,
  startManagementCluster,
  stopManagementCluster,
} from '../src/cluster.ts';
import { crdSeedFor, saveCrdSeed } from '../src/crdSeed.ts';
import { loadCrds } from '../src/crds.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** The CRDs' specs as the API server serves them, by name. */
async function servedSpecs(info: Parameters<typeof apiGet>[0]) {
  const res = await apiGet(info, CRDS);
  assert.equal(res.status, 200, res.body);
  const items = JSON.parse(res.body).items as Array<{
    metadata: { name: string; resourceVersion: string };
    spec: unknown;
    status: { conditions?: Array<{ type: string; status: string }> };
  }>;
  return new Map(items.map(c => [c.metadata.name, c]));
}

/** The requests of `verb` on CRDs in the cluster's audit log (Metadata level, every request). */
function crdWrites(auditLog: string): string[] {
  return auditLogEntries(auditLog)
    .filter(
      e =>
        e.objectRef?.resource === 'customresourcedefinitions' &&
        ['create', 'update', 'patch'].includes(e.verb) &&
        e.user?.username === 'capz-admin',
    )
    .map(e => `${e.verb} ${e.objectRef.name ?? ''}`);
}

// One cluster of its own, started from the seed that the run's cluster made or used (the shared cluster is left
// alone). The seed's records must be what creating the CRDs makes: replacing each with the CRD as installCrds sends
// it changes nothing, and reading them back from this cluster's etcd gives the seed again.
test('a cluster started from the seed serves the CRDs as created, established, without creating them', async t => {
  const bins = await ensureBinaries();
  const crds = loadCrds();
  const seedOf = () => crdSeedFor(bins, crds);
  assert.ok(seedOf(), 'the seed is on unless CAPZ_CRD_SEED=off');
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
  // A run whose cluster was kept from an earlier start made no seed: the first cluster here makes it.
  if (!seedOf()?.records) {
    const first = await start('first');
    assert.equal(
      crdWrites(first.auditLog).filter(w => w.startsWith('create')).length,
      crds.length,
      'a cluster without a seed creates every CRD through its API server',
    );
  }
  const seed = seedOf()!;
  assert.equal(seed.records?.length, crds.length, 'the seed holds every CRD');

  const seeded = await start('b');
  assert.deepEqual(
    crdWrites(seeded.auditLog),
    [],
    'the seeded cluster writes no CRD: they were in its etcd',
  );
  const served = await servedSpecs(seeded);
  assert.deepEqual(
    [...served.keys()].sort(),
    crds.map(c => c.metadata.name).sort(),
  );
  for (const [name, crd] of served)
    assert.ok(
      crd.status.conditions?.some(
        c => c.type === 'Established' && c.status === 'True',
      ),
      `${name} is established`,
    );

  // Read back from its etcd, the records are the seed's: saveCrdSeed reads what plantCrdSeed wrote, nothing else.
  const etcdUrl = seeded.apiserverArgs
    .find(a => a.startsWith('--etcd-servers='))!
    .slice('--etcd-servers='.length);
  const copy = { file: join(seeded.stateDir, 'seed-copy.json') };
  await saveCrdSeed(etcdUrl, copy, crds);
  assert.deepEqual(
    JSON.parse(readFileSync(copy.file, 'utf8')).records,
    seed.records,
  );

  // What creating them makes: each CRD replaced as installCrds replaces one keeps its resourceVersion (no write).
  for (const crd of crds) {
    const live = served.get(crd.metadata.name)!;
    const put = await apiRequest(
      seeded,
      'PUT',
      `${CRDS}/${crd.metadata.name}`,
      {
        ...crd,
        metadata: {
          ...crd.metadata,
          resourceVersion: live.metadata.resourceVersion,
        },
      },
    );
    assert.equal(put.status, 200, put.body);
    assert.equal(
      JSON.parse(put.body).metadata.resourceVersion,
      live.metadata.resourceVersion,
      `${crd.metadata.name}: the seeded CRD is the created one`,
    );
  }

  // Served and validated: a Cluster made, and a wrong one refused with the CRD's schema.
  const made = await apiRequest(
    seeded,
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
    seeded,
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
  // Only CRDs come from the seed: the authentication ConfigMap names this cluster's own CA alone (the API server
  // adds its CA to what the ConfigMap holds, so one copied from the seeding cluster would name two).
  const auth = await apiGet(
    seeded,
    '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
  );
  assert.equal(auth.status, 200, auth.body);
  const clientCa = JSON.parse(auth.body).data['client-ca-file'] as string;
  const certs = (pem: string) =>
    pem.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
  assert.ok(clientCa.includes(seeded.caPem.trim()), 'its own CA');
  assert.equal(certs(clientCa), certs(seeded.caPem), 'and no other');
});
