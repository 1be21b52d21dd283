/**
 * A fleet run survives the crash of the replica advancing it: a real backend process (the lighter test entry, the CAPZ
 * plugin as packages/backend installs it) on a real management cluster with capz-sim's simulated Azure, ASO, CAPZ and
 * CAPI, kills itself with SIGKILL (CAPZ_FLEET_FAULT=written) right after the run's first write and before its record:
 * the worst point, a write the database does not know of. A second backend on the same database resumes the run once
 * the scheduler frees the dead replica's lock, makes the owed write again as a change of nothing, and finishes both
 * clusters. The API server's audit log shows each of the upgrade's objects written once: nothing twice, nothing else.
 */
import { auditLogEnd } from '@internal/mgmt-cluster';
import type { FleetRun } from '@capz-backstage/plugin-capz-common';
import type { BackendProcess } from '../testing/backendProcess';
import { auditedWritesBy, createDay2Cluster } from '../testing/day2Fixtures';
import { JobsWorld } from '../testing/jobsWorld';

const w = new JobsWorld('fleet-crash');
const ns = 'fleet-crash';
/** The identity the test backends use on the management cluster (packages/mgmt-cluster's static token). */
const BACKEND_USER = 'capz-backend';

const place = (name: string) => ({
  managementCluster: w.mcName,
  namespace: ns,
  name,
});

/** What AKS runs: the control plane and each pool. */
const running = (name: string) => {
  const mc: any = w.azure().managedClusters.find(m => m.name === name);
  return {
    controlPlane: mc?.currentKubernetesVersion,
    system: mc?.agentPools?.system?.currentOrchestratorVersion,
    user: mc?.agentPools?.user?.currentOrchestratorVersion,
  };
};

const writesFrom = (from: number) =>
  auditedWritesBy(w.info.auditLog, BACKEND_USER, from).map(
    e => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`,
  );

const SPEC = {
  target: { kind: 'next-minor' },
  stages: [{ name: 'all', clusters: [place('crash-a'), place('crash-b')] }],
};

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  await w.namespaceWithCredential(ns);
  // One minor behind what the simulated AKS offers last (1.33.2).
  for (const name of ['crash-a', 'crash-b'])
    await createDay2Cluster(w, {
      namespace: ns,
      name,
      kubernetesVersion: 'v1.32.5',
      userReplicas: 1,
    });
  await w.azureHolds(['crash-a', 'crash-b']);
  w.markBaseline();
}, 300_000);

afterAll(async () => {
  await w.stop();
}, 120_000);

/** The run as the backend answers it. */
async function runOf(b: BackendProcess, id: string): Promise<FleetRun> {
  const r = await b.request('GET', `capz/fleet-runs/${id}`);
  if (r.status !== 200)
    throw new Error(`GET fleet run: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run as FleetRun;
}

const words = (run: FleetRun) =>
  `run ${run.state}; ${run.stages
    .flatMap(s => s.clusters)
    .map(
      c =>
        `${c.name} ${c.state} step ${c.step}${c.written ? ' written' : ''} (${
          c.message ?? ''
        })`,
    )
    .join(', ')}`;

describe('a fleet run on a backend that crashes', () => {
  it('is resumed by another replica after a SIGKILL between a write and its record; every object is written once', async () => {
    const db = w.sqlite('fleet-crash');
    const first = await w.backend(
      'fleet-crash-1',
      db,
      { CAPZ_FLEET_FAULT: 'written' },
      false,
      2,
      'capz',
    );
    // The clusters are planned once the backend's watch cache holds them healthy.
    await w.waitFor(
      'both clusters planned for an upgrade',
      async () => {
        const r = await first.request('POST', 'capz/fleet-runs/preview', SPEC);
        return (
          (r.status === 200 && r.body.counts?.upgrade === 2) ||
          `${r.status} ${JSON.stringify(r.body.counts ?? r.body)}`
        );
      },
      180_000,
    );
    const auditFrom = auditLogEnd(w.info.auditLog);
    const created = await first.request('POST', 'capz/fleet-runs', {
      spec: SPEC,
      options: {},
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // The scheduler's first advance writes crash-a's control plane, and the fault ends the process before the record.
    const exit = await Promise.race([
      first.exited,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error('the first backend did not reach its fault')),
          120_000,
        ),
      ),
    ]);
    expect(exit.signal).toBe('SIGKILL');
    expect(first.log()).toContain('CAPZ_FLEET_FAULT');
    expect(writesFrom(auditFrom)).toEqual([
      'patch azureasomanagedcontrolplanes/crash-a',
    ]);

    // The write the first made is not recorded: the run still owes it, and the second backend makes it again.
    const second = await w.backend('fleet-crash-2', db, {}, false, 2, 'capz');
    const t0 = Date.now();
    let last: FleetRun | undefined;
    await w.waitFor(
      'the run to end on the second backend',
      async () => {
        last = await runOf(second, id);
        return last.state === 'succeeded' || words(last);
      },
      300_000,
    );
    w.say(
      `the second backend ended the run ${Math.round(
        (Date.now() - t0) / 1000,
      )} s after it started (the dead replica's lock freed by the scheduler's janitor)`,
    );
    expect(
      last!.stages[0].clusters.map(c => [c.name, c.state, c.message]),
    ).toEqual([
      ['crash-a', 'succeeded', 'upgraded to v1.33.2'],
      ['crash-b', 'succeeded', 'upgraded to v1.33.2'],
    ]);
    for (const name of ['crash-a', 'crash-b'])
      expect(running(name)).toEqual({
        controlPlane: '1.33.2',
        system: '1.33.2',
        user: '1.33.2',
      });
    // crash-a's control plane once (the resumed write found it asked for already), then the rest in turn.
    expect(writesFrom(auditFrom)).toEqual([
      'patch azureasomanagedcontrolplanes/crash-a',
      'patch machinepools/crash-a-system',
      'patch machinepools/crash-a-user',
      'patch azureasomanagedcontrolplanes/crash-b',
      'patch machinepools/crash-b-system',
      'patch machinepools/crash-b-user',
    ]);
  }, 600_000);
});
