/**
 * A migration wave, end to end: a real backend process (the lighter test entry, the CAPZ plugin as
 * packages/backend installs it) on a real kube-apiserver with capz-sim's simulated Azure, ASO, CAPZ and CAPI, three
 * legacy clusters (AzureManagedControlPlane) in one namespace, and one fleet run that migrates them in two stages:
 * the preview plans each as its migration job (the job's preflight read live), the run starts one migration job per
 * cluster as POST /jobs would, follows each to its end and gates the stages on the migrated clusters' health. It ends
 * with three ASO clusters, each in its own new namespace, the old objects gone, and Azure untouched: nothing created,
 * nothing deleted, every pool as it was.
 */
import type { FleetRun } from '@capz-backstage/plugin-capz-common';
import type { BackendProcess } from '../testing/backendProcess';
import {
  makeAzureResourceGroup,
  writeLegacyCluster,
} from '../testing/jobFixtures';
import { everyStep, JobsWorld, system, user } from '../testing/jobsWorld';
import { until } from '../testing/realCluster';

const w = new JobsWorld('fleet-wave');
const ns = 'team-wave';

const WAVE = {
  'wave-a': { resourceGroup: 'rg-wave-a', pools: [system(1), user('web', 1)] },
  'wave-b': { resourceGroup: 'rg-wave-b', pools: [system(1)] },
  'wave-c': {
    resourceGroup: 'rg-wave-c',
    pools: [
      system(1),
      user('batch', 1, { enableAutoScaling: true, minCount: 1, maxCount: 3 }),
    ],
  },
};
type WaveName = keyof typeof WAVE;
const names = Object.keys(WAVE) as WaveName[];

const place = (name: string) => ({
  managementCluster: w.mcName,
  namespace: ns,
  name,
});

const SPEC = () => ({
  target: { kind: 'migrate' },
  stages: [
    { name: 'first', clusters: [place('wave-a')] },
    { name: 'rest', clusters: [place('wave-b'), place('wave-c')] },
  ],
  concurrency: 2,
});

let backend: BackendProcess;

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  const starting = w.backend(
    'fleet-wave',
    w.sqlite('fleet-wave'),
    {},
    false,
    2,
    'capz',
  );
  starting.catch(() => undefined);
  await w.namespaceWithCredential('fixtures');
  await w.c.createNamespace(ns);
  for (const name of names) {
    await makeAzureResourceGroup(w.c, {
      scratchNamespace: 'fixtures',
      credentialSecret: 'aso-credential',
      resourceGroup: WAVE[name].resourceGroup,
    });
    await writeLegacyCluster(w.c, {
      namespace: ns,
      name,
      subscription: w.arm.subscription,
      resourceGroup: WAVE[name].resourceGroup,
      pools: WAVE[name].pools,
    });
  }
  for (const name of names)
    await w.waitFor(
      `legacy cluster ${ns}/${name} to be ready to migrate`,
      () => w.legacyReady(ns, name),
      180_000,
    );
  await until('the simulated Azure to hold the three clusters', () => {
    const held = w.azure().managedClusters.map(m => m.name);
    return names.every(n => held.includes(n));
  });
  backend = await starting;
  // From here on the wave may create or delete nothing in Azure.
  w.markBaseline();
}, 600_000);

afterAll(() => w.stop(), 120_000);

async function runOf(id: string): Promise<FleetRun> {
  const r = await backend.request('GET', `capz/fleet-runs/${id}`);
  if (r.status !== 200)
    throw new Error(`GET fleet run: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run as FleetRun;
}

const words = (run: FleetRun) =>
  `run ${run.state}; ${run.stages
    .map(
      s =>
        `${s.name} ${s.state}: ${s.clusters
          .map(c => `${c.name} ${c.state} (${c.message ?? ''})`)
          .join(', ')}`,
    )
    .join('; ')}`;

describe('a migration wave of three legacy clusters', () => {
  it('previews each as its migration job, migrates them stage by stage, and leaves Azure untouched', async () => {
    // Planned once the backend's watch cache holds the three healthy.
    let preview: any;
    await w.waitFor(
      'the three clusters planned as migrations',
      async () => {
        const r = await backend.request(
          'POST',
          'capz/fleet-runs/preview',
          SPEC(),
        );
        preview = r.body;
        return (
          (r.status === 200 && r.body.counts?.upgrade === 3) ||
          `${r.status} ${JSON.stringify(
            r.body.stages?.flatMap((s: any) => s.clusters) ?? r.body,
          )}`
        );
      },
      180_000,
    );
    const planned = preview.stages.flatMap((s: any) => s.clusters);
    expect(planned.map((c: any) => [c.name, c.steps[0].title])).toEqual([
      ['wave-a', 'migrate to the ASO API in namespace team-wave-wave-a'],
      ['wave-b', 'migrate to the ASO API in namespace team-wave-wave-b'],
      ['wave-c', 'migrate to the ASO API in namespace team-wave-wave-c'],
    ]);
    // The job's own plan, as its wizard shows it.
    expect(planned[0].steps[0].plan.length).toBeGreaterThan(3);

    const created = await backend.request('POST', 'capz/fleet-runs', {
      spec: SPEC(),
      options: {},
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const t0 = Date.now();
    let last: FleetRun | undefined;
    await w.waitFor(
      'the wave to end',
      async () => {
        last = await runOf(id);
        return ['succeeded', 'failed', 'cancelled'].includes(last.state)
          ? true
          : words(last);
      },
      480_000,
    );
    w.say(
      `the wave ended in ${Math.round((Date.now() - t0) / 1000)} s: ${words(
        last!,
      )}`,
    );
    const clusters = last!.stages.flatMap(s => s.clusters);
    expect(last!.state).toBe('succeeded');
    expect(clusters.map(c => [c.name, c.state, c.message])).toEqual(
      names.map(n => [n, 'succeeded', `migrated: now team-wave-${n}/${n}`]),
    );
    // Stage by stage: wave-a's job finished before the second stage's jobs were created.
    const jobs = await Promise.all(
      clusters.map(async c => w.job(backend, c.jobId!)),
    );
    for (const job of jobs) {
      expect(job).toMatchObject({ type: 'migrate', state: 'succeeded' });
      everyStep(job);
    }
    expect(Date.parse(jobs[0].finishedAt)).toBeLessThanOrEqual(
      Math.min(Date.parse(jobs[1].createdAt), Date.parse(jobs[2].createdAt)),
    );
    for (const name of names)
      await w.migrated(
        ns,
        `team-wave-${name}`,
        name,
        WAVE[name].resourceGroup,
        WAVE[name].pools,
      );
  }, 900_000);
});
