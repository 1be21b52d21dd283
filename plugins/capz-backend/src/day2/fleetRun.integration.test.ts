/**
 * A fleet run on a real management cluster (the real CRDs; the simulated Azure, ASO, CAPZ and CAPI of capz-sim), the
 * backend running as a ServiceAccount bound to nothing but rbac/read.yaml and rbac/day2.yaml, the run kept in SQLite
 * and advanced as the scheduler advances it: two clusters on v1.32.5 in two stages, the first gated by an approval.
 * The first cluster's control plane, then its pools, reach 1.33.2 in AKS while the second is untouched; the run waits
 * for the approval; approved, the second follows and the run succeeds. The API server's audit log shows the backend
 * wrote the upgrade's objects and nothing else.
 */
import { auditLogEnd } from '@internal/mgmt-cluster';
import { mockServices } from '@backstage/backend-test-utils';
import type {
  FleetRun,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';
// Test-only: Backstage's test databases.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { TestDatabases } from '@backstage/backend-test-utils';
import { WatchCache } from '../cluster/WatchCache';
import { day2Client } from '../cluster/clientViews';
import { ManagementClusterClient } from '../cluster/ManagementClusterClient';
import type { ManagementClusterConfig } from '../config/managementClusters';
import {
  auditedWrites,
  createDay2Cluster,
  day2ServiceAccount,
} from '../testing/day2Fixtures';
import { JobsWorld } from '../testing/jobsWorld';
import { loadClientForTests } from '../testing/realCluster';
import { migratedDatabase } from '../testing/storeDatabases';
import { ClusterViews } from '../views/clusterViews';
import { Day2Service } from './Day2Service';
import { FleetPreview } from './fleetPreview';
import { FleetRuns, fleetStepObservation } from './fleetRuns';
import { FleetRunStore } from './fleetRunStore';

const w = new JobsWorld('fleet-run');
const ns = 'fleet';
const SA = 'capz-fleet-test';
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
let cache: WatchCache;
let runs: FleetRuns;

const place = (name: string) => ({
  managementCluster: 'local',
  namespace: ns,
  name,
});

/** The simulated AKS cluster as persisted (versions included). */
const aks = (name: string): any =>
  w.azure().managedClusters.find(m => m.name === name);

/** What AKS runs: the control plane and each pool. */
const running = (name: string) => {
  const mc = aks(name);
  return {
    controlPlane: mc?.currentKubernetesVersion,
    system: mc?.agentPools?.system?.currentOrchestratorVersion,
    user: mc?.agentPools?.user?.currentOrchestratorVersion,
  };
};

/**
 * Waits until the persisted Azure state says AKS runs `want` for the cluster (control plane and each pool). The file
 * trails ARM (written 200 ms after a change, later on a loaded machine), so a read right after the run's step saw the
 * new version in ASO's status may still hold the old one; a run that did not upgrade a pool times out here.
 */
const azureRuns = async (name: string, want: ReturnType<typeof running>) =>
  w.waitFor(
    `the simulated AKS ${name} to run ${JSON.stringify(want)}`,
    async () => {
      const now = running(name);
      return (
        JSON.stringify(now) === JSON.stringify(want) ||
        `runs ${JSON.stringify(now)}`
      );
    },
  );

/** The backend ServiceAccount's writes in the audit log from `from` on, as `verb resource/name`. */
const writesFrom = (from: number) =>
  auditedWrites(w.info.auditLog, SA, from).map(
    e => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`,
  );

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  await w.namespaceWithCredential(ns);
  const token = await day2ServiceAccount(w, SA);
  const mc: ManagementClusterConfig = {
    name: 'local',
    authMethod: 'serviceAccountToken',
    url: w.info.url,
    caData: w.info.caPem,
    serviceAccountToken: token,
  };
  const logger = mockServices.logger.mock();
  cache = new WatchCache([mc], logger, loadClientForTests);
  await cache.start();
  const client = day2Client(
    await ManagementClusterClient.create(mc, undefined, loadClientForTests),
  );
  const day2 = new Day2Service({
    logger,
    managementClusters: ['local'],
    cache,
    client: async () => client,
    azure: w.aksDiscovery(logger),
  });
  const views = new ClusterViews(cache, ['local']);
  runs = new FleetRuns({
    store: new FleetRunStore(await migratedDatabase(databases, 'SQLITE_3')),
    preview: new FleetPreview({
      day2,
      factsOf: p => {
        const c = views.summary(p.managementCluster, p.namespace, p.name);
        return c.health ? { health: c.health } : {};
      },
    }),
    day2,
    observe: c => {
      try {
        const { summary, tree } = views.tree(
          c.managementCluster,
          c.namespace,
          c.name,
          0,
        );
        return fleetStepObservation(c, {
          tree,
          ...(summary.health ? { health: summary.health } : {}),
        });
      } catch {
        return fleetStepObservation(c, undefined);
      }
    },
    logger,
  });
  // One minor behind what the simulated AKS offers last (1.33.2).
  await createDay2Cluster(w, {
    namespace: ns,
    name: 'dev-a',
    kubernetesVersion: 'v1.32.5',
    userReplicas: 1,
  });
  await createDay2Cluster(w, {
    namespace: ns,
    name: 'prod-a',
    kubernetesVersion: 'v1.32.5',
    userReplicas: 1,
  });
  await w.waitFor('both clusters healthy in the watch cache', async () => {
    const states = ['dev-a', 'prod-a'].map(n => {
      try {
        return views.summary('local', ns, n).health;
      } catch {
        return 'not cached';
      }
    });
    return states.every(h => h === 'healthy') || states.join(', ');
  });
  w.markBaseline();
}, 300_000);

afterAll(async () => {
  await cache?.stop();
  await w.stop();
}, 120_000);

/** Advances the run as the scheduler does until `done` holds for it (the timeout only detects a hang). */
async function advanceUntil(
  id: string,
  what: string,
  done: (run: FleetRun) => boolean,
) {
  let last: FleetRun | undefined;
  await w.waitFor(
    what,
    async () => {
      await runs.tick();
      last = (await runs.get(id)).run;
      return (
        done(last) ||
        `run ${last.state}; ${last.stages
          .map(
            s =>
              `${s.name} ${s.state}: ${s.clusters
                .map(c => `${c.name} ${c.state} (${c.message ?? ''})`)
                .join(', ')}`,
          )
          .join('; ')}`
      );
    },
    180_000,
  );
  return last!;
}

describe('a fleet run on a real management cluster', () => {
  it('upgrades dev-a (control plane, then pools), waits for the approval with prod-a untouched, then prod-a; the backend writes the upgrade and nothing else', async () => {
    const auditFrom = auditLogEnd(w.info.auditLog);
    const created = await runs.create(
      {
        target: { kind: 'next-minor' },
        stages: [
          { name: 'dev', clusters: [place('dev-a')] },
          { name: 'prod', clusters: [place('prod-a')] },
        ],
      },
      { gates: { dev: { approval: true } } },
      () => true,
      'user:default/pat',
    );
    expect(
      created.run.stages.map(s => s.clusters.map(c => [c.name, c.state])),
    ).toEqual([[['dev-a', 'waiting']], [['prod-a', 'waiting']]]);

    const gated = await advanceUntil(
      created.id,
      'dev to wait for its approval',
      r => r.stages[0].state === 'awaiting-approval',
    );
    expect(gated.stages[0].clusters[0]).toMatchObject({
      state: 'succeeded',
      message: 'upgraded to v1.33.2',
    });
    await azureRuns('dev-a', {
      controlPlane: '1.33.2',
      system: '1.33.2',
      user: '1.33.2',
    });
    expect(running('prod-a')).toEqual({
      controlPlane: '1.32.5',
      system: '1.32.5',
      user: '1.32.5',
    });
    // Waiting for a user: more advances start nothing.
    const before = writesFrom(auditFrom).length;
    await runs.tick();
    await runs.tick();
    expect(writesFrom(auditFrom)).toHaveLength(before);
    expect((await runs.get(created.id)).run.stages[1].state).toBe('waiting');

    await runs.command(
      created.id,
      { command: 'approve', stage: 'dev' },
      'user:default/platform-lead',
    );
    const end = await advanceUntil(
      created.id,
      'the run to succeed',
      r => r.state !== 'running',
    );
    expect(end.state).toBe('succeeded');
    expect(end.stages[0].approvedBy).toBe('user:default/platform-lead');
    await azureRuns('prod-a', {
      controlPlane: '1.33.2',
      system: '1.33.2',
      user: '1.33.2',
    });
    // The control plane, then both pools' MachinePools, of each cluster in turn (CAPZ carries them to AKS).
    expect(writesFrom(auditFrom)).toEqual([
      'patch azureasomanagedcontrolplanes/dev-a',
      'patch machinepools/dev-a-system',
      'patch machinepools/dev-a-user',
      'patch azureasomanagedcontrolplanes/prod-a',
      'patch machinepools/prod-a-system',
      'patch machinepools/prod-a-user',
    ]);
    const cps = (await w.c.list(
      'AzureASOManagedControlPlane',
      ns,
    )) as ObservedObject[];
    expect(
      cps.map(cp => [cp.metadata?.name, (cp.spec as any).version]),
    ).toEqual([
      ['dev-a', 'v1.33.2'],
      ['prod-a', 'v1.33.2'],
    ]);
  });
});
