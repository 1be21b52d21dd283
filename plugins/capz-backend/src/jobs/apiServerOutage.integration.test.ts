/**
 * A job with its management cluster's API server away for a minute mid-job, through a real backend process
 * (packages/backend) on a management cluster of the test's own (capz-sim simulating Azure, ASO, CAPZ and CAPI): an
 * adoption waiting in its step adopt-managed-cluster when the API server is stopped (its port refuses connections)
 * does not fail, says in its log and on its step that it waits for the management cluster, and once the API server is
 * back goes on and succeeds, every step in one attempt, with Azure creating and deleting nothing.
 * docs/job-guarantees.md#management-cluster-outage.
 */
import type { BackendProcess } from '../testing/backendProcess';
import { ApiServerFault, OUTAGE_MS } from '../testing/apiServerFault';
import { makeAzureOnlyCluster } from '../testing/jobFixtures';
import {
  everyStep,
  JobsWorld,
  logTail,
  messages,
  system,
  user,
} from '../testing/jobsWorld';
import { until } from '../testing/realCluster';

const w = new JobsWorld('jobs-outage');
let b: BackendProcess;
let fault: ApiServerFault;

const AKS = {
  resourceGroup: 'rg-outage-aks',
  name: 'outage-aks',
  pools: [system(1), user('web', 2)],
};
const ns = 'adopt-outage';

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  fault = new ApiServerFault(w.mcName, w.say);
  const backendStarting = w.backend('jobs-outage', w.sqlite('jobs-outage'));
  backendStarting.catch(() => undefined);
  await w.namespaceWithCredential('fixtures');
  await makeAzureOnlyCluster(w.c, {
    scratchNamespace: 'fixtures',
    credentialSecret: 'aso-credential',
    ...AKS,
  });
  await w.namespaceWithCredential(ns);
  b = await backendStarting;
  await until(
    'the simulated Azure to hold the AKS cluster',
    () => w.azure().managedClusters.some(m => m.name === AKS.name),
    120_000,
  );
  w.markBaseline();
}, 600_000);

afterAll(async () => {
  // A test that failed midway: its API server back before the cluster stops.
  await fault?.restore().catch(e => w.say(`restore: ${(e as Error).message}`));
  await w.stop();
}, 180_000);

describe('a job while its management cluster is unreachable', () => {
  it('an adoption waits out a minute without its API server, says so, then succeeds with Azure untouched', async () => {
    // Azure busy on the cluster: the step's wait is certainly unmet when the API server goes away.
    const hold = (on: boolean) =>
      w.forceAsoFailure(
        'ManagedCluster',
        ns,
        AKS.name,
        on
          ? {
              reason: 'OperationNotAllowed',
              severity: 'Warning',
              message:
                "Operation is not allowed because there's an in progress operation on the managed cluster (held by the test)",
            }
          : null,
      );
    await hold(true);
    let held = true;
    try {
      const { id } = await w.submit(b, w.adopt(ns, AKS));
      await until(
        'the job waiting in step adopt-managed-cluster',
        async () => {
          const job = await w.job(b, id);
          if (['failed', 'cancelled', 'succeeded'].includes(job.state))
            throw new Error(`job ${job.state}: ${job.error}\n${logTail(job)}`);
          const step = job.steps.find(
            (s: any) => s.id === 'adopt-managed-cluster',
          );
          return (
            step?.state === 'running' &&
            /^waiting for /.test(step.message ?? '')
          );
        },
        180_000,
      );

      const states = new Set<string>();
      let stepSaid = '';
      await fault.stop();
      try {
        await fault.holdFor(OUTAGE_MS, async () => {
          const job = await w.job(b, id);
          states.add(job.state);
          const step = job.steps.find(
            (s: any) => s.id === 'adopt-managed-cluster',
          );
          if (/^waiting for management cluster/.test(step?.message ?? ''))
            stepSaid = step.message;
        });
      } finally {
        await fault.restore();
      }
      // The job never failed; its log and its step said what it waited for. The cause is the first failed request's:
      // a new connection is refused, one open when the API server stopped is reset (which comes first is timing).
      expect([...states]).toEqual(['running']);
      expect(stepSaid).toMatch(
        new RegExp(
          `^waiting for management cluster ${w.mcName}: its API server did not answer \\(connection (refused \\(ECONNREFUSED\\)|reset \\(ECONNRESET\\))\\); the step goes on once it answers`,
        ),
      );
      const during = await w.job(b, id);
      const waiting = messages(during, /^waiting for management cluster/);
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatchObject({
        level: 'warn',
        step: 'adopt-managed-cluster',
      });

      await hold(false);
      held = false;
      const job = await w.finished(b, id, 300_000);
      everyStep(job);
      expect(
        messages(job, /^management cluster .* answers again \(after \d+ s/),
      ).toHaveLength(1);
      w.say(
        `job log around the outage:\n${job.log
          .filter((l: any) => /management cluster/.test(l.message))
          .map((l: any) => `  ${l.at} ${l.level} ${l.step}: ${l.message}`)
          .join('\n')}`,
      );
      await w.adoptedCluster(ns, AKS.name, AKS.pools);
      await w.azureUntouched(
        AKS.resourceGroup,
        AKS.name,
        AKS.pools.map(p => p.name),
      );
    } finally {
      if (held) await hold(false);
    }
  }, 600_000);
});
