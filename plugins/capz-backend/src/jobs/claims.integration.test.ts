/**
 * One owner per AKS cluster, through two real backend replicas on one PostgreSQL database, each
 * configured with two management clusters: `main` (an ephemeral cluster with `capz-sim run`: simulated Azure, ASO,
 * CAPZ, CAPI) and `other` (a second ephemeral cluster without a simulator, holding only what the tests write: it
 * stands for another management cluster of the same platform team, looking at the same Azure).
 *  (a) two adoptions of one AKS cluster into two namespaces, started at the same moment on the two replicas;
 *  (b) a migration racing an adoption of the same AKS cluster (the adoption from the other management cluster);
 *  (c) an adoption refused because another management cluster already manages the AKS cluster;
 *  (d) a ManagedCluster made by hand after the job's preflight, before its first write: the live check stops it;
 * and the clusters list's flag on an AKS cluster that a hand-made object manages from a second place.
 * Every wait is on a condition; timings are printed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { repoRoot as repo } from '@internal/mgmt-cluster';
import {
  BackendDatabase,
  BackendProcess,
  postgresConnection,
  startBackend,
} from '../testing/backendProcess';
import {
  Cluster,
  makeAzureResourceGroup,
  pathOf,
  writeLegacyCluster,
} from '../testing/jobFixtures';
import { JobsWorld, logTail, system, user } from '../testing/jobsWorld';
import { ClusterInfo, until } from '../testing/realCluster';

const w = new JobsWorld('claims');
const otherName = `claims-other-${process.pid}`;
let other: ClusterInfo;
let o: Cluster;
let r1: BackendProcess;
let r2: BackendProcess;
const mine = new Set<BackendProcess>();

/** The Azure-only clusters of the `azure-only` scenario, and the legacy cluster this file writes for (b). */
const ANALYTICS = {
  resourceGroup: 'rg-analytics',
  name: 'analytics-aks',
  pools: ['system', 'etl'],
};
const IDENTITY = {
  resourceGroup: 'rg-identity',
  name: 'identity-aks',
  pools: ['system'],
};
const QUICKSTART = {
  resourceGroup: 'My_Resource_Group',
  name: 'myAKSCluster',
  pools: ['nodepool1'],
};
const RACE_LAKE = {
  namespace: 'race-src',
  name: 'race-lake',
  resourceGroup: 'rg-race-lake',
  pools: [system(1), user('batch', 1)],
};

const armId = (rg: string, name: string) =>
  `/subscriptions/${w.arm.subscription}/resourceGroups/${rg}/providers/Microsoft.ContainerService/managedClusters/${name}`;

/** A backend replica configured with both management clusters, on the given database. */
async function replica(
  name: string,
  database: BackendDatabase,
  o2: {
    leaseSeconds?: number;
    env?: Record<string, string>;
    mayExitDuringStart?: boolean;
  } = {},
) {
  const mc = (i: ClusterInfo, n: string) => ({
    name: n,
    url: i.url,
    caData: i.caPem,
    serviceAccountToken: i.backendToken,
  });
  const b = await startBackend({
    name,
    managementCluster: {
      name: w.mcName,
      url: w.info.url,
      caPem: w.info.caPem,
      token: w.info.backendToken,
    },
    database,
    configFiles: [join(w.simState, 'app-config.azure-discovery.yaml')],
    capz: {
      jobs: { leaseSeconds: o2.leaseSeconds ?? 15 },
      managementClusters: [mc(w.info, w.mcName), mc(other, otherName)],
    },
    env: o2.env,
    mayExitDuringStart: o2.mayExitDuringStart,
  });
  mine.add(b);
  void b.exited.then(() => mine.delete(b));
  w.say(
    `backend ${b.name} (pid ${b.pid}${
      o2.env?.CAPZ_JOBS_FAULT ? `, fault ${o2.env.CAPZ_JOBS_FAULT}` : ''
    }) ready in ${b.startMs} ms`,
  );
  return b;
}

function pg(prefix: string): BackendDatabase {
  const connection = postgresConnection();
  if (!connection)
    throw new Error(
      'no PostgreSQL: set BACKSTAGE_TEST_DATABASE_POSTGRES<major>_CONNECTION_STRING (scripts/test.sh ensure_postgres does)',
    );
  return {
    client: 'pg',
    connection,
    prefix: `capz_claims_${process.pid}_${prefix}_`,
  };
}

/** The adoption request on the other management cluster. */
const adoptOnOther = (
  namespace: string,
  a: { resourceGroup: string; name: string },
) => {
  const body = w.adopt(namespace, a);
  return { ...body, params: { ...body.params, managementCluster: otherName } };
};

/** POSTs both bodies at the same moment (one per replica); returns the answers with their times. */
async function together(
  a: [BackendProcess, unknown],
  b: [BackendProcess, unknown],
) {
  const t = Date.now();
  const timed = async ([be, body]: [BackendProcess, unknown]) => {
    const r = await be.request('POST', 'capz/jobs', body);
    return { ...r, ms: Date.now() - t, on: be.name };
  };
  return Promise.all([timed(a), timed(b)]);
}

/** ManagedCluster objects of either management cluster that point at this AKS cluster by ARM id or Azure names. */
async function pointingAt(
  c: Cluster,
  rg: string,
  name: string,
): Promise<string[]> {
  const r = await c.req(
    'GET',
    '/apis/containerservice.azure.com/v1api20240901/managedclusters',
  );
  const groups = (
    await c.req('GET', '/apis/resources.azure.com/v1api20200601/resourcegroups')
  ).body.items;
  return r.body.items
    .filter((m: any) => {
      if (m.status?.id)
        return m.status.id.toLowerCase() === armId(rg, name).toLowerCase();
      const g = groups.find(
        (x: any) =>
          x.metadata.namespace === m.metadata.namespace &&
          x.metadata.name === m.spec.owner?.name,
      );
      return (
        (m.spec.azureName ?? m.metadata.name).toLowerCase() ===
          name.toLowerCase() &&
        (g?.spec.azureName ?? '').toLowerCase() === rg.toLowerCase()
      );
    })
    .map((m: any) => `${m.metadata.namespace}/${m.metadata.name}`);
}

/** A ManagedCluster as a person writes it by hand: with its ResourceGroup, and the ARM id ASO would record if `id`. */
async function handMade(
  c: Cluster,
  ns: string,
  name: string,
  a: { resourceGroup: string; name: string },
  id?: string,
) {
  const rgName = `${name}-rg`;
  await c.create('ResourceGroup', {
    apiVersion: 'resources.azure.com/v1api20200601',
    kind: 'ResourceGroup',
    metadata: { name: rgName, namespace: ns },
    spec: { azureName: a.resourceGroup, location: 'westeurope' },
  });
  await c.create('ManagedCluster', {
    apiVersion: 'containerservice.azure.com/v1api20240901',
    kind: 'ManagedCluster',
    metadata: { name, namespace: ns },
    spec: {
      azureName: a.name,
      owner: { name: rgName },
      location: 'westeurope',
      dnsPrefix: name,
      identity: { type: 'SystemAssigned' },
    },
  });
  if (id) {
    const r = await c.req(
      'PATCH',
      `${pathOf('ManagedCluster', ns, name)}/status`,
      { status: { id } },
      'application/merge-patch+json',
    );
    if (r.status !== 200)
      throw new Error(
        `status of ManagedCluster ${ns}/${name}: ${r.status} ${JSON.stringify(
          r.body,
        )}`,
      );
  }
}

beforeAll(async () => {
  // The second management cluster first (no simulator: only what the tests write is on it).
  const kubeconfig = execFileSync(
    'node',
    [
      join(repo, 'packages', 'mgmt-cluster', 'src', 'cli.ts'),
      'start',
      '--name',
      otherName,
      '--ephemeral',
    ],
    { encoding: 'utf8' },
  ).trim();
  other = JSON.parse(
    readFileSync(join(dirname(kubeconfig), 'cluster.json'), 'utf8'),
  );
  o = new Cluster(other);
  w.say(`second management cluster ${otherName} at ${other.url}`);
  await w.start({ scenarios: 'azure-only' });
  await w.namespaceWithCredential('fixtures');
  await makeAzureResourceGroup(w.c, {
    scratchNamespace: 'fixtures',
    credentialSecret: 'aso-credential',
    resourceGroup: RACE_LAKE.resourceGroup,
  });
  await w.c.createNamespace(RACE_LAKE.namespace);
  await writeLegacyCluster(w.c, {
    ...RACE_LAKE,
    subscription: w.arm.subscription,
  });
  const db = pg('ab');
  // One after the other: the first creates the databases and runs the migrations.
  r1 = await replica('claims-1', db);
  r2 = await replica('claims-2', db);
  await w.waitFor(
    `legacy cluster ${RACE_LAKE.namespace}/${RACE_LAKE.name} to be ready to migrate`,
    () => w.legacyReady(RACE_LAKE.namespace, RACE_LAKE.name),
    180_000,
  );
  await until('the simulated Azure to hold every fixture', () => {
    const names = w.azure().managedClusters.map(m => m.name);
    return [ANALYTICS, IDENTITY, QUICKSTART, RACE_LAKE].every(x =>
      names.includes(x.name),
    );
  });
  w.markBaseline();
}, 600_000);

afterAll(async () => {
  await Promise.all([...mine].map(b => b.kill()));
  await w.stop();
  if (other && !process.env.CAPZ_JOBS_KEEP)
    execFileSync('node', [
      join(repo, 'packages', 'mgmt-cluster', 'src', 'cli.ts'),
      'stop',
      '--name',
      otherName,
    ]);
}, 120_000);

/* eslint-disable jest/expect-expect */

it('(a) two adoptions of one AKS cluster into two namespaces at the same moment on two replicas: one runs, one is refused, Azure untouched', async () => {
  for (const ns of ['race-a', 'race-b']) await w.namespaceWithCredential(ns);
  const before = {
    'race-a': await w.c.snapshot(['race-a']),
    'race-b': await w.c.snapshot(['race-b']),
  };
  const [a, b] = await together(
    [r1, w.adopt('race-a', ANALYTICS)],
    [r2, w.adopt('race-b', ANALYTICS)],
  );
  const [won, lost] = a.status === 201 ? [a, b] : [b, a];
  const loser = lost.on === r1.name ? r1 : r2;
  const atDatabase = /lost a race at the database/.test(loser.log());
  w.say(
    `(a) answers: ${a.on} ${a.status} in ${a.ms} ms, ${b.on} ${b.status} in ${
      b.ms
    } ms; refused ${
      atDatabase
        ? 'at the database (both passed the early check)'
        : 'by the early claim check'
    }`,
  );
  expect([won.status, lost.status]).toEqual([201, 409]);
  expect(lost.body.jobId).toBe(won.body.id);
  expect(lost.body.error.message).toMatch(
    new RegExp(
      `^AKS cluster ${w.arm.subscription}/rg-analytics/analytics-aks is claimed by the (queued|running) adopt job ${won.body.id} on ${w.mcName}/${won.body.target.namespace}/analytics-aks`,
    ),
  );
  const loserNs = won.body.target.namespace === 'race-a' ? 'race-b' : 'race-a';
  const job = await w.finished(r2, won.body.id);
  // The loser left nothing: no job stored, nothing in its namespace; one ManagedCluster points at the AKS cluster.
  const jobs = (
    await r1.request(
      'GET',
      `capz/jobs?managementCluster=${w.mcName}&name=analytics-aks`,
    )
  ).body.items;
  expect(jobs.map((j: any) => j.id)).toEqual([won.body.id]);
  const { namespaces: _n, ...loserBefore } = before[loserNs];
  const { namespaces: _m, ...loserAfter } = await w.c.snapshot([loserNs]);
  expect(loserAfter).toEqual(loserBefore);
  expect(
    await pointingAt(w.c, ANALYTICS.resourceGroup, ANALYTICS.name),
  ).toEqual([`${won.body.target.namespace}/analytics-aks`]);
  await w.azureUntouched(
    ANALYTICS.resourceGroup,
    ANALYTICS.name,
    ANALYTICS.pools,
  );
  w.say(
    `(a) adoption ${job.id} succeeded; Azure counters ${JSON.stringify(
      w.azure().counters,
    )}`,
  );

  // Its claims went with its end; what guards the cluster now is the preflight: the ManagedCluster is there.
  const again = await r1.request(
    'POST',
    'capz/jobs',
    w.adopt(loserNs, ANALYTICS),
  );
  expect(again.status).toBe(422);
  expect(
    again.body.preflight.find((c: any) => c.id === 'not-managed'),
  ).toMatchObject({
    status: 'fail',
    message: expect.stringContaining(
      `ManagedCluster ${w.mcName}/${won.body.target.namespace}/analytics-aks`,
    ),
  });

  // What the product cannot prevent: a ManagedCluster made by hand, elsewhere, after the job finished. The clusters
  // list flags the adopted cluster with the other place (the other management cluster's cache, no API request).
  await o.createNamespace('by-hand');
  await handMade(
    o,
    'by-hand',
    'analytics-copy',
    ANALYTICS,
    armId(ANALYTICS.resourceGroup, ANALYTICS.name),
  );
  const t = Date.now();
  let flagged: any;
  await until(
    'the clusters list to flag analytics-aks',
    async () => {
      const items = (await r2.request('GET', 'capz/clusters')).body.items;
      flagged = items.find(
        (c: any) =>
          c.managementCluster === w.mcName && c.name === 'analytics-aks',
      );
      return !!flagged?.managedFrom;
    },
    30_000,
  );
  w.say(
    `(a) flagged in GET /clusters ${
      Date.now() - t
    } ms after the hand-made object`,
  );
  expect(flagged.managedFrom).toEqual([
    {
      managementCluster: otherName,
      namespace: 'by-hand',
      name: 'analytics-copy',
    },
  ]);
}, 400_000);

it('(b) a migration racing an adoption of the same AKS cluster (from the other management cluster): the migration runs, the adoption is refused', async () => {
  await o.createNamespace('race-adopt');
  await o.create('Secret', {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential', namespace: 'race-adopt' },
    type: 'Opaque',
    data: (await w.c.get('Secret', 'fixtures', 'aso-credential')).data,
  });
  const otherBefore = await o.snapshot(['race-adopt']);
  const adoptLake = adoptOnOther('race-adopt', {
    resourceGroup: RACE_LAKE.resourceGroup,
    name: RACE_LAKE.name,
  });
  const [m, a] = await together(
    [r1, w.migrate(RACE_LAKE.namespace, RACE_LAKE.name, 'race-lake-aso')],
    [r2, adoptLake],
  );
  w.say(
    `(b) answers: migration ${m.status} in ${m.ms} ms on ${m.on}, adoption ${a.status} in ${a.ms} ms on ${a.on}: ${a.body?.error?.message}`,
  );
  expect(m.status).toBe(201);
  // Refused either by the claim (409, naming the migration) or, had the adoption's preflight run first, by the
  // preflight that reads every management cluster (422, naming the legacy ManagedCluster on main).
  expect([409, 422]).toContain(a.status);
  const claimed = a.status === 409;
  expect(claimed ? a.body.jobId : m.body.id).toBe(m.body.id);
  expect(
    claimed
      ? a.body.error.message
      : a.body.preflight.find((c: any) => c.id === 'not-managed')?.message,
  ).toMatch(
    claimed
      ? new RegExp(
          `^AKS cluster ${w.arm.subscription}/rg-race-lake/race-lake is claimed by the (queued|running) migrate job ${m.body.id} on ${w.mcName}/race-src/race-lake`,
        )
      : new RegExp(
          `^ManagedCluster ${w.mcName}/race-src/race-lake \\(Cluster race-lake\\) already points at`,
        ),
  );
  // While the migration runs, the claim answers first, before any preflight: 409 naming it.
  const during = await r2.request('POST', 'capz/jobs', adoptLake);
  expect({ status: during.status, jobId: during.body.jobId }).toEqual({
    status: 409,
    jobId: m.body.id,
  });
  const job = await w.finished(r1, m.body.id, 300_000);
  expect(await o.snapshot(['race-adopt'])).toEqual(otherBefore);
  expect(
    (await r2.request('GET', `capz/jobs?managementCluster=${otherName}`)).body
      .items,
  ).toEqual([]);
  await w.migrated(
    RACE_LAKE.namespace,
    'race-lake-aso',
    RACE_LAKE.name,
    RACE_LAKE.resourceGroup,
    RACE_LAKE.pools,
  );
  expect(await pointingAt(o, RACE_LAKE.resourceGroup, RACE_LAKE.name)).toEqual(
    [],
  );
  w.say(
    `(b) migration ${job.id} succeeded: ${job.steps
      .map((s: any) => s.id)
      .join(' ')}`,
  );
}, 400_000);

it('(c) an adoption is refused because another management cluster already manages the AKS cluster', async () => {
  await o.createNamespace('edge');
  await handMade(
    o,
    'edge',
    'identity',
    IDENTITY,
    armId(IDENTITY.resourceGroup, IDENTITY.name),
  );
  await w.namespaceWithCredential('adopt-identity');
  const before = await w.c.snapshot(['adopt-identity']);
  // The other management cluster's watch cache has it once the preview says so (a watch event away).
  let preview: any;
  await until(
    "the preview to see the other management cluster's ManagedCluster",
    async () => {
      preview = (
        await r1.request(
          'POST',
          'capz/jobs/preview',
          w.adopt('adopt-identity', IDENTITY),
        )
      ).body;
      return (
        preview.preflight?.find((c: any) => c.id === 'not-managed')?.status ===
        'fail'
      );
    },
    30_000,
  );
  const r = await r2.request(
    'POST',
    'capz/jobs',
    w.adopt('adopt-identity', IDENTITY),
  );
  expect(r.status).toBe(422);
  const check = r.body.preflight.find((c: any) => c.id === 'not-managed');
  expect(check).toMatchObject({
    status: 'fail',
    title: 'Nothing manages it yet',
  });
  expect(check.message).toBe(
    `ManagedCluster ${otherName}/edge/identity already points at AKS cluster rg-identity/identity-aks.`,
  );
  w.say(`(c) refused: ${check.message}`);
  expect(await w.c.snapshot(['adopt-identity'])).toEqual(before);
  expect(
    (await r1.request('GET', `capz/jobs?namespace=adopt-identity`)).body.items,
  ).toEqual([]);
  await w.azureUntouched(IDENTITY.resourceGroup, IDENTITY.name, IDENTITY.pools);
}, 120_000);

it("(d) a ManagedCluster made by hand after the preflight, before the job's first write: the live check refuses, naming it, and nothing changes", async () => {
  const db = pg('d');
  await w.namespaceWithCredential('late-adopt');
  await w.c.createNamespace('by-hand');
  const before = await w.c.snapshot(['late-adopt']);
  // This replica dies right before the first step (after the preflight passed and the job was stored).
  const d1 = await replica('claims-d1', db, {
    leaseSeconds: 2,
    env: { CAPZ_JOBS_FAULT: 'adopt-resource-group:before' },
  });
  let dead = false;
  void d1.exited.then(() => (dead = true));
  // The answer may be cut off by the fault (the job's run starts as the 201 is written): the job is read back below.
  const answer = await d1
    .request('POST', 'capz/jobs', w.adopt('late-adopt', QUICKSTART))
    .catch((e: Error) => ({ status: 0, body: { error: e.message } }));
  await until(
    'the first replica to die before the first step',
    async () => dead,
    60_000,
  );
  // Meanwhile, someone writes a ManagedCluster for the same AKS cluster (ASO has not recorded its id yet).
  await handMade(w.c, 'by-hand', 'quickstart', QUICKSTART);
  const t = Date.now();
  const d2 = await replica('claims-d2', db, { leaseSeconds: 2 });
  const stored = (await d2.request('GET', 'capz/jobs?namespace=late-adopt'))
    .body.items;
  expect(stored).toHaveLength(1);
  const created = stored[0];
  w.say(
    `(d) job ${created.id} stored (the first replica answered ${answer.status}) and its replica died before its first step`,
  );
  expect([0, 201]).toContain(answer.status);
  expect(answer.status === 201 ? (answer.body as any).id : created.id).toBe(
    created.id,
  );
  const job = await w.settled(d2, created.id, 120_000);
  w.say(
    `(d) job ${job.id} ${job.state} ${((Date.now() - t) / 1000).toFixed(
      1,
    )} s after the second replica started: ${job.error}`,
  );
  expect(job.state).toBe('failed');
  expect(job.steps[0]).toMatchObject({
    id: 'adopt-resource-group',
    state: 'failed',
  });
  expect(job.error).toMatch(/precondition not met/);
  expect(job.error).toContain(
    `ManagedCluster ${w.mcName}/by-hand/quickstart already manages it`,
  );
  expect(job.error).toMatch(/nothing was changed by this step/);
  // Nothing was written for the job, and Azure is as it was.
  expect(await w.c.snapshot(['late-adopt'])).toEqual(before);
  await w.azureUntouched(
    QUICKSTART.resourceGroup,
    QUICKSTART.name,
    QUICKSTART.pools,
  );
  // A failed job keeps its claims (it may resume); cancelled, it lets go of them: then the preflight speaks.
  const held = await d2.request(
    'POST',
    'capz/jobs',
    w.adopt('team-late', QUICKSTART),
  );
  expect({ status: held.status, jobId: held.body.jobId }).toEqual({
    status: 409,
    jobId: created.id,
  });
  expect(
    (await d2.request('POST', `capz/jobs/${created.id}/cancel`)).status,
  ).toBe(200);
  await w.c.createNamespace('team-late');
  await w.createCredentialSecret('team-late');
  const next = await d2.request(
    'POST',
    'capz/jobs',
    w.adopt('team-late', QUICKSTART),
  );
  expect(next.status).toBe(422);
  expect(
    next.body.preflight.find((c: any) => c.id === 'not-managed'),
  ).toMatchObject({
    status: 'fail',
    message: expect.stringContaining(`${w.mcName}/by-hand/quickstart`),
  });
  w.say(
    `(d) after cancel: ${next.status} ${
      next.body.preflight.find((c: any) => c.id === 'not-managed').message
    }\n${logTail(job, 5)}`,
  );
  // A hang detector: two backend starts (82 s and 102 s each on a loaded 2-core machine, 2026-12-03) and the job.
}, 600_000);
