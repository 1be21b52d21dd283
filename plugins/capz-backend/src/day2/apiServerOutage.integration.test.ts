/**
 * The management cluster's API server unreachable for a minute around a day-2 action, through a real backend process
 * (packages/backend) on a management cluster of the test's own (capz-sim simulating Azure, ASO, CAPZ and CAPI on it):
 * - stopped (its port refuses connections) between a preview and its confirm: the confirm answers a 503 in words with
 *   nothing written, /management-clusters (what the clusters page reads) says the cluster is unreachable, the
 *   cluster stays listed as last seen; once the API server is back the watch cache converges and the confirm applies,
 *   its progress reaching done;
 * - frozen (SIGSTOP: connections hang) right after a confirm: the progress does not claim done while the cache cannot
 *   hear from the cluster, a new action answers a 503, and once the API server answers the progress reaches done.
 * docs/architecture.md#api-server-outage.
 */
import {
  day2Progress,
  treePools,
  type Day2Plan,
} from '@capz-backstage/plugin-capz-common';
import type { BackendProcess } from '../testing/backendProcess';
import { createDay2Cluster } from '../testing/day2Fixtures';
import { ApiServerFault, OUTAGE_MS } from '../testing/apiServerFault';
import { JobsWorld } from '../testing/jobsWorld';
import { until } from '../testing/realCluster';

const w = new JobsWorld('day2-outage');
const ns = 'outage';
const name = 'steady';
let b: BackendProcess;
let fault: ApiServerFault;

const clusterPath = () => `capz/clusters/${w.mcName}/${ns}/${name}`;

/** The management cluster as /management-clusters shows it (the clusters page's alert reads this). */
async function managementCluster(): Promise<any> {
  const r = await b.request('GET', 'capz/management-clusters');
  expect(r.status).toBe(200);
  return r.body.items.find((m: any) => m.name === w.mcName);
}

/** The applied action's progress as the cluster page computes it: capz-common day2Progress on the ungrouped tree. */
async function progress(plan: Day2Plan) {
  const r = await b.request('GET', `${clusterPath()}/tree?group=0`);
  expect(r.status).toBe(200);
  return day2Progress(plan, r.body.tree);
}

/** The cluster in /clusters (the clusters page's rows, from the watch cache), if listed. */
async function listed(): Promise<any | undefined> {
  const r = await b.request('GET', 'capz/clusters');
  expect(r.status).toBe(200);
  return r.body.items.find((c: any) => c.namespace === ns && c.name === name);
}

const scale = (replicas: number) => ({
  action: 'scale',
  pool: 'user',
  replicas,
});

async function preview(
  action: object,
): Promise<Day2Plan & { planDigest: string }> {
  const r = await b.request('POST', `${clusterPath()}/actions/preview`, action);
  expect({ status: r.status, body: r.body }).toMatchObject({
    status: 200,
    body: { planDigest: expect.stringMatching(/^[0-9a-f]{64}$/) },
  });
  return r.body;
}

const confirm = (action: object, planDigest: string) =>
  b.request('POST', `${clusterPath()}/actions`, { ...action, planDigest });

/** A 503 in words: the management cluster named, nothing written, no stack trace, no error of the backend's own. */
function expectUnavailable(
  r: { status: number; body: any },
  reason: RegExp,
): void {
  expect({ status: r.status, name: r.body?.error?.name }).toEqual({
    status: 503,
    name: 'ServiceUnavailableError',
  });
  expect(r.body.error.message).toMatch(
    new RegExp(
      `^Management cluster ${w.mcName} did not answer \\(${reason.source}\\), so nothing was written\\.`,
    ),
  );
  expect(r.body.error.stack).toBeUndefined();
  expect(r.body.error.message).not.toMatch(/\n\s+at /);
}

/** The pool's MachinePool as the API server holds it: its count and the generation of its spec. */
async function userPool() {
  const mp = await w.c.get('MachinePool', ns, `${name}-user`);
  return { replicas: mp.spec.replicas, generation: mp.metadata.generation };
}

/** The backend's watch cache has listed every kind again, none failing, and shows the server's count of the pool. */
async function converged(replicas: number): Promise<true | string> {
  const mc = await managementCluster();
  if (mc.status.state !== 'connected') return `status ${mc.status.state}`;
  const failing = Object.entries(mc.watch?.kinds ?? {})
    .filter(([, s]: [string, any]) => s.error || (s.version && !s.synced))
    .map(([k, s]: [string, any]) => `${k}: ${s.error ?? 'not synced'}`);
  if (!mc.watch?.synced || failing.length)
    return `watch not synced: ${failing.join('; ')}`;
  const r = await b.request('GET', `${clusterPath()}/tree?group=0`);
  const cached = r.status === 200 ? treePools(r.body.tree) : [];
  const user = cached.find(p => p.name === 'user');
  const { replicas: server } = await userPool();
  return (
    (server === replicas && user?.replicas === replicas) ||
    `tree ${r.status}: pool user ${user?.replicas}; server ${server}`
  );
}

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  fault = new ApiServerFault(w.mcName, w.say);
  await w.namespaceWithCredential(ns);
  await createDay2Cluster(w, {
    namespace: ns,
    name,
    kubernetesVersion: 'v1.33.2',
    userReplicas: 2,
  });
  b = await w.backend('day2-outage', w.sqlite('day2-outage'));
  await w.waitFor(
    `cluster ${name} healthy on the backend, its user pool at 2`,
    async () => {
      const c = await listed();
      return (
        (c?.health === 'healthy' && c?.pools?.replicas === 3) ||
        `listed: ${JSON.stringify(c && { health: c.health, pools: c.pools })}`
      );
    },
    180_000,
  );
  await w.waitFor('the management cluster connected', async () => {
    const mc = await managementCluster();
    return mc.status.state === 'connected' || mc.status.state;
  });
  w.markBaseline();
}, 600_000);

afterAll(async () => {
  // A test that failed midway: its API server back before the cluster stops (stop ends a paused one too).
  await fault?.restore().catch(e => w.say(`restore: ${(e as Error).message}`));
  await w.stop();
}, 180_000);

describe('a day-2 action while the management cluster is unreachable', () => {
  it('refused for a minute between preview and confirm: 503 in words, nothing written, the page says unreachable; back, the confirm applies and completes', async () => {
    const plan = await preview(scale(3));
    const before = await userPool();
    expect(before.replicas).toBe(2);
    let unreachableAfter: number | undefined;
    let unreachableSaid = '';
    let confirms = 0;
    /** The cluster's row as /clusters shows it at each look during the outage (asserted at the end). */
    const rows: string[] = [];
    await fault.stop();
    try {
      await fault.holdFor(OUTAGE_MS, async () => {
        // The cluster stays listed as last seen (looked at throughout, asserted once the API server is back).
        const row = await listed();
        rows.push(row ? `${row.health} ${row.pools?.replicas}` : 'missing');
        const mc = await managementCluster();
        if (
          mc.status.state === 'unreachable' &&
          unreachableAfter === undefined
        ) {
          unreachableAfter = fault.elapsed();
          unreachableSaid = mc.status.message;
        }
        if (confirms < 3) {
          confirms++;
          expectUnavailable(
            await confirm(scale(3), plan.planDigest),
            /connection refused \(ECONNREFUSED\)/,
          );
        }
      });
    } finally {
      await fault.restore();
    }
    w.say(
      `management cluster shown unreachable ${(
        (unreachableAfter ?? NaN) / 1000
      ).toFixed(1)} s into the outage; ${confirms} confirms answered 503`,
    );
    // Said while it lasted (the probe runs every 30 s; a refused one fails at once: 11-22 s measured).
    expect(unreachableAfter).toBeLessThan(OUTAGE_MS);
    expect(unreachableSaid).toBe(
      'its API server did not answer (connection refused (ECONNREFUSED))',
    );
    // Nothing was written: the pool's spec is as it was.
    expect(await userPool()).toEqual(before);

    const back = Date.now();
    await w.waitFor(
      'the watch cache to converge after the outage',
      () => converged(2),
      120_000,
    );
    w.say(
      `converged ${((Date.now() - back) / 1000).toFixed(
        1,
      )} s after the restart`,
    );
    // The same confirm, or a new preview and confirm when a controller changed what the plan read meanwhile.
    let applied = await confirm(scale(3), plan.planDigest);
    if (applied.status === 409)
      applied = await confirm(scale(3), (await preview(scale(3))).planDigest);
    expect({ status: applied.status, body: applied.body }).toMatchObject({
      status: 200,
      body: { applied: true },
    });
    await until(
      'the scale to complete',
      async () => (await progress(applied.body)).done,
      120_000,
    );
    expect((await userPool()).replicas).toBe(3);
    // Throughout the outage the clusters page kept the cluster as last seen: not gone, not changed.
    expect({ looks: rows.length, seen: [...new Set(rows)] }).toEqual({
      looks: expect.any(Number),
      seen: ['healthy 3'],
    });
  }, 420_000);

  it('frozen for a minute right after a confirm: the progress does not claim done, a new action answers 503; back, the progress reaches done', async () => {
    // AKS busy on the pool until the API server is frozen: the scale cannot complete before the outage starts.
    const pool = [`${name}-user`] as const;
    await w.forceAsoFailure('ManagedClustersAgentPool', ns, pool[0], {
      reason: 'OperationNotAllowed',
      severity: 'Warning',
      message:
        "Operation is not allowed because there's an in progress operation on the managed cluster (held by the test)",
    });
    let held = true;
    try {
      const plan = await preview(scale(4));
      const applied = await confirm(scale(4), plan.planDigest);
      expect(applied.status).toBe(200);
      await fault.pause();
      // From here Azure may finish: only the frozen API server keeps the news from the backend.
      await w.forceAsoFailure('ManagedClustersAgentPool', ns, pool[0], null);
      held = false;
      let unreachableAfter: number | undefined;
      let previews = 0;
      try {
        await fault.holdFor(OUTAGE_MS, async () => {
          const p = await progress(applied.body);
          expect({ done: p.done, items: p.items }).toMatchObject({
            done: false,
          });
          const mc = await managementCluster();
          if (
            mc.status.state === 'unreachable' &&
            unreachableAfter === undefined
          )
            unreachableAfter = fault.elapsed();
          // A new action's preview: its reads hang, and end at the connect or request timeout as a 503.
          if (previews < 1) {
            previews++;
            const r = await b.request(
              'POST',
              `${clusterPath()}/actions/preview`,
              scale(5),
            );
            expectUnavailable(
              r,
              /no connection: the connect or TLS handshake timed out \(UND_ERR_CONNECT_TIMEOUT\)|no answer within 30 s/,
            );
          }
        });
      } finally {
        await fault.restore();
      }
      w.say(
        `management cluster shown unreachable ${(
          (unreachableAfter ?? NaN) / 1000
        ).toFixed(1)} s into the freeze`,
      );
      // Said while it lasted (a hung probe ends at its 10 s bound, probes run every 30 s: 32-34 s measured).
      expect(unreachableAfter).toBeLessThan(OUTAGE_MS);
      const back = Date.now();
      await until(
        'the scale to complete after the freeze',
        async () => (await progress(applied.body)).done,
        120_000,
      );
      w.say(
        `done ${((Date.now() - back) / 1000).toFixed(1)} s after the resume`,
      );
      expect((await userPool()).replicas).toBe(4);
      await w.waitFor(
        'the management cluster connected again',
        async () => {
          const mc = await managementCluster();
          return mc.status.state === 'connected' || mc.status.state;
        },
        90_000,
      );
    } finally {
      if (held)
        await w.forceAsoFailure('ManagedClustersAgentPool', ns, pool[0], null);
    }
  }, 420_000);
});
