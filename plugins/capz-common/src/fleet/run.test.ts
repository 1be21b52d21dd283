import type { ClusterPlace } from '../api';
import type { Health } from '../tree/types';
import type { FleetClusterPlan, FleetRunPreview } from './plan';
import {
  advanceFleetRun,
  commandFleetRun,
  newFleetRun,
  recordFleetStepWrite,
  type FleetClusterObservation,
  type FleetRun,
  type FleetRunOptions,
} from './run';

const at = (minutes: number) =>
  new Date(Date.UTC(2026, 11, 4, 12, 0) + minutes * 60_000);

const place = (name: string): ClusterPlace => ({
  managementCluster: 'local',
  namespace: 'team-a',
  name,
});

/** A cluster's plan: the control plane, then its pools, to v1.34.3. */
const upgrade = (name: string): FleetClusterPlan => ({
  ...place(name),
  outcome: 'upgrade',
  from: 'v1.33.2',
  to: 'v1.34.3',
  steps: [
    { target: 'controlPlane', version: 'v1.34.3', changes: [], warnings: [] },
    {
      target: { pools: ['system', 'user'] },
      version: 'v1.34.3',
      changes: [],
      warnings: [],
    },
  ],
  problems: [],
});

const preview = (
  stages: Array<[string, FleetClusterPlan[]]>,
  concurrency = 1,
): FleetRunPreview => ({
  target: { kind: 'next-minor' },
  concurrency,
  stages: stages.map(([name, clusters]) => ({ name, clusters })),
  counts: { upgrade: 0, current: 0, refused: 0 },
});

/**
 * A world that the run acts on: each write the run owes is made at once (or refused when `refuse` names the cluster),
 * a written step is done when the test says so, health as the test sets it.
 */
function world(run: FleetRun) {
  const done = new Set<string>();
  const health = new Map<string, Health>();
  const writes: string[] = [];
  const refuse = new Map<string, string>();
  const person = new Map<string, string>();
  let state = run;
  const notices: string[] = [];
  const observe = (c: ClusterPlace): FleetClusterObservation => ({
    stepDone: done.has(c.name),
    health: health.get(c.name) ?? 'healthy',
    waitingFor: 'AKS to report v1.34.3',
    ...(person.has(c.name) ? { waitingForPerson: person.get(c.name) } : {}),
  });
  const tick = (minutes: number) => {
    const r = advanceFleetRun(state, observe, at(minutes));
    state = r.run;
    notices.push(...r.notices.map(n => JSON.stringify(n)));
    for (const s of r.start) {
      writes.push(`${s.name}#${s.stepIndex}`);
      const reason = refuse.get(s.name);
      const rec = recordFleetStepWrite(
        state,
        s,
        s.stepIndex,
        reason ? { ok: false, message: reason } : { ok: true },
        at(minutes),
      );
      state = rec.run;
      notices.push(...rec.notices.map(n => JSON.stringify(n)));
    }
    // A step is done once per write: the next one must be observed anew.
    done.clear();
    return state;
  };
  return {
    tick,
    finishStep: (...names: string[]) => names.forEach(n => done.add(n)),
    setHealth: (name: string, h: Health) => health.set(name, h),
    refuse: (name: string, why: string) => refuse.set(name, why),
    allow: (name: string) => refuse.delete(name),
    waitForPerson: (name: string, what: string) => person.set(name, what),
    personActed: (name: string) => person.delete(name),
    writes,
    notices,
    get run() {
      return state;
    },
    set run(r: FleetRun) {
      state = r;
    },
    clusters: () =>
      Object.fromEntries(
        state.stages.flatMap(s => s.clusters).map(c => [c.name, c.state]),
      ),
    stages: () => Object.fromEntries(state.stages.map(s => [s.name, s.state])),
  };
}

const make = (
  stages: Array<[string, FleetClusterPlan[]]>,
  options: FleetRunOptions = {},
  concurrency = 1,
) => world(newFleetRun(preview(stages, concurrency), options));

/** Runs a cluster's two steps to the end. */
function complete(w: ReturnType<typeof world>, name: string, minute: number) {
  w.finishStep(name);
  w.tick(minute);
  w.finishStep(name);
  w.tick(minute);
}

describe('newFleetRun', () => {
  it("takes the preview's refusals as skipped with their reasons and clusters at the target as done; nothing starts", () => {
    const run = newFleetRun(
      preview([
        [
          'dev',
          [
            upgrade('a'),
            {
              ...place('b'),
              outcome: 'refused',
              steps: [],
              problems: ['it is degraded', 'AKS offers no 1.35 version'],
            },
            {
              ...place('c'),
              outcome: 'current',
              to: 'v1.34.3',
              steps: [],
              problems: [],
            },
          ],
        ],
      ]),
    );
    expect(
      run.stages[0].clusters.map(c => [c.name, c.state, c.message]),
    ).toEqual([
      ['a', 'waiting', undefined],
      [
        'b',
        'skipped',
        'left out by the preview: it is degraded; AKS offers no 1.35 version',
      ],
      ['c', 'succeeded', 'already runs v1.34.3'],
    ]);
    expect(run).toMatchObject({
      state: 'running',
      failures: 0,
      maxFailures: 0,
    });
  });
});

describe('advanceFleetRun', () => {
  it('runs the stages in order, one cluster at a time, each cluster its control plane and then its pools', () => {
    const w = make([
      ['dev', [upgrade('a'), upgrade('b')]],
      ['prod', [upgrade('c')]],
    ]);
    w.tick(0);
    expect(w.writes).toEqual(['a#0']);
    expect(w.clusters()).toEqual({ a: 'running', b: 'waiting', c: 'waiting' });
    // Not observed done: nothing moves, nothing is written again.
    w.tick(1);
    expect(w.writes).toEqual(['a#0']);
    w.finishStep('a');
    w.tick(2);
    expect(w.writes).toEqual(['a#0', 'a#1']);
    w.finishStep('a');
    w.tick(3);
    expect(w.writes).toEqual(['a#0', 'a#1', 'b#0']);
    complete(w, 'b', 4);
    expect(w.stages()).toEqual({ dev: 'succeeded', prod: 'running' });
    expect(w.writes).toEqual(['a#0', 'a#1', 'b#0', 'b#1', 'c#0']);
    complete(w, 'c', 5);
    expect(w.run.state).toBe('succeeded');
    expect(w.clusters()).toEqual({
      a: 'succeeded',
      b: 'succeeded',
      c: 'succeeded',
    });
    expect(w.run.stages[0].clusters[0].message).toBe('upgraded to v1.34.3');
    expect(w.notices).toEqual([
      JSON.stringify({ kind: 'run-finished', state: 'succeeded' }),
    ]);
    // An ended run stays as it is.
    w.tick(6);
    expect(w.writes).toHaveLength(6);
  });

  it('starts up to the concurrency at once within a stage', () => {
    const w = make(
      [['dev', [upgrade('a'), upgrade('b'), upgrade('c')]]],
      {},
      2,
    );
    w.tick(0);
    expect(w.writes).toEqual(['a#0', 'b#0']);
    complete(w, 'b', 1);
    expect(w.writes).toEqual(['a#0', 'b#0', 'b#1', 'c#0']);
  });

  it("owes a step's write until it is recorded: after a crash between the decision and the write, the next advance asks again", () => {
    const run = newFleetRun(preview([['dev', [upgrade('a')]]]));
    const first = advanceFleetRun(run, () => ({ stepDone: false }), at(0));
    expect(first.start.map(s => [s.name, s.stepIndex])).toEqual([['a', 0]]);
    // The process died before the write: the stored run still owes it.
    const again = advanceFleetRun(first.run, () => ({ stepDone: true }), at(1));
    expect(again.start.map(s => [s.name, s.stepIndex])).toEqual([['a', 0]]);
    expect(again.run.stages[0].clusters[0].step).toBe(0);
    // Recorded twice (two replicas): the second record changes nothing.
    const once = recordFleetStepWrite(
      again.run,
      place('a'),
      0,
      { ok: true },
      at(2),
    ).run;
    const twice = recordFleetStepWrite(
      once,
      place('a'),
      0,
      { ok: true },
      at(3),
    ).run;
    expect(twice).toEqual(once);
    expect(
      advanceFleetRun(twice, () => ({ stepDone: false }), at(4)).start,
    ).toEqual([]);
  });

  it('soaks a stage: every cluster healthy for the soak before the next stage; one that is not restarts it and is named', () => {
    const w = make(
      [
        ['dev', [upgrade('a')]],
        ['prod', [upgrade('b')]],
      ],
      { gates: { dev: { soakSeconds: 600 } } },
    );
    w.tick(0);
    complete(w, 'a', 1);
    expect(w.stages()).toEqual({ dev: 'soaking', prod: 'waiting' });
    expect(w.run.stages[0].soakUntil).toBe(at(11).toISOString());
    w.tick(5);
    w.setHealth('a', 'degraded');
    w.tick(8);
    expect(w.run.stages[0].gate).toBe(
      'waiting for team-a/a (degraded) to be healthy',
    );
    expect(w.run.stages[0].soakUntil).toBe(at(18).toISOString());
    w.setHealth('a', 'healthy');
    w.tick(12);
    expect(w.stages()).toEqual({ dev: 'soaking', prod: 'waiting' });
    expect(w.run.stages[0].gate).toBeUndefined();
    w.tick(18);
    expect(w.stages()).toEqual({ dev: 'succeeded', prod: 'running' });
    expect(w.writes).toEqual(['a#0', 'a#1', 'b#0']);
  });

  it('holds a stage for approval, says so once, and goes on when a user approves', () => {
    const w = make(
      [
        ['dev', [upgrade('a')]],
        ['prod', [upgrade('b')]],
      ],
      { gates: { dev: { approval: true } } },
    );
    w.tick(0);
    complete(w, 'a', 1);
    w.tick(2);
    expect(w.stages()).toEqual({ dev: 'awaiting-approval', prod: 'waiting' });
    expect(w.notices).toEqual([
      JSON.stringify({ kind: 'approval-needed', stage: 'dev' }),
    ]);
    expect(
      commandFleetRun(
        w.run,
        { command: 'approve', stage: 'prod' },
        'pat',
        at(3),
      ),
    ).toEqual({
      problem: 'stage "prod" is waiting, not awaiting approval',
    });
    const approved = commandFleetRun(
      w.run,
      { command: 'approve', stage: 'dev' },
      'pat',
      at(3),
    );
    if ('problem' in approved) throw new Error(approved.problem);
    w.run = approved.run;
    expect(w.run.stages[0].approvedBy).toBe('pat');
    w.tick(3);
    expect(w.stages()).toEqual({ dev: 'succeeded', prod: 'running' });
    expect(w.writes).toEqual(['a#0', 'a#1', 'b#0']);
  });

  it('fails fast: a step refused by the live checks fails its cluster, the run starts nothing more and ends failed', () => {
    const w = make([
      ['dev', [upgrade('a'), upgrade('b')]],
      ['prod', [upgrade('c')]],
    ]);
    w.refuse(
      'a',
      'offered-in-region: AKS does not offer v1.34.3 in westeurope',
    );
    w.tick(0);
    expect(w.clusters()).toEqual({ a: 'failed', b: 'waiting', c: 'waiting' });
    expect(w.run.stages[0].clusters[0].message).toBe(
      'control plane to v1.34.3: offered-in-region: AKS does not offer v1.34.3 in westeurope',
    );
    w.tick(1);
    expect(w.run.state).toBe('failed');
    expect(w.clusters()).toEqual({
      a: 'failed',
      b: 'cancelled',
      c: 'cancelled',
    });
    expect(w.run.stages[1].clusters[0].message).toBe(
      'not started: the run stopped after 1 failure',
    );
    expect(w.writes).toEqual(['a#0']);
    expect(w.notices.map(n => JSON.parse(n).kind)).toEqual([
      'cluster-failed',
      'run-finished',
    ]);
  });

  it('a step not done within the timeout fails its cluster, naming what it waited for; with one failure allowed the run goes on', () => {
    const w = make([['dev', [upgrade('a'), upgrade('b')]]], {
      maxFailures: 1,
      stepTimeoutSeconds: 3600,
    });
    w.tick(0);
    w.tick(60);
    expect(w.clusters()).toEqual({ a: 'running', b: 'waiting' });
    w.tick(61);
    expect(w.clusters()).toEqual({ a: 'failed', b: 'running' });
    expect(w.run.stages[0].clusters[0].message).toBe(
      'control plane to v1.34.3: not done after 60 minutes (waiting for AKS to report v1.34.3)',
    );
    complete(w, 'b', 62);
    expect(w.run).toMatchObject({ state: 'succeeded', failures: 1 });
  });

  it("a step waiting for a person (its job's pull request to be merged) says so and is not timed out; its timeout counts again from the person's act", () => {
    const w = make([['dev', [upgrade('a')]]], { stepTimeoutSeconds: 3600 });
    w.tick(0);
    w.tick(30);
    w.waitForPerson('a', 'the merge of pull request #3 (https://git/pr/3)');
    w.tick(31);
    const a = () => w.run.stages[0].clusters[0];
    expect(a()).toMatchObject({
      state: 'running',
      waitingForPersonSince: at(31).toISOString(),
      message:
        'control plane to v1.34.3: waiting for the merge of pull request #3 (https://git/pr/3)',
    });
    // Told once, to whoever must act.
    expect(w.notices.filter(n => n.includes('person-needed'))).toEqual([
      JSON.stringify({
        kind: 'person-needed',
        cluster: place('a'),
        message:
          'control plane to v1.34.3: waiting for the merge of pull request #3 (https://git/pr/3)',
      }),
    ]);
    // Three days of waiting for the merge: no timeout, the wait's start kept, nothing told again.
    w.tick(3 * 24 * 60);
    expect(w.notices.filter(n => n.includes('person-needed'))).toHaveLength(1);
    expect(a()).toMatchObject({
      state: 'running',
      waitingForPersonSince: at(31).toISOString(),
    });
    // Merged: the step's own work has its whole timeout from now, then fails as any step.
    w.personActed('a');
    w.tick(3 * 24 * 60 + 1);
    expect(a()).toMatchObject({
      state: 'running',
      stepStartedAt: at(3 * 24 * 60 + 1).toISOString(),
      message: 'control plane to v1.34.3',
    });
    expect(a().waitingForPersonSince).toBeUndefined();
    w.tick(3 * 24 * 60 + 61);
    expect(a().state).toBe('running');
    w.tick(3 * 24 * 60 + 62);
    expect(a()).toMatchObject({
      state: 'failed',
      message:
        'control plane to v1.34.3: not done after 60 minutes (waiting for AKS to report v1.34.3)',
    });
    expect(a().waitingForPersonSince).toBeUndefined();
  });

  it('when the failures pass the allowance, clusters already being upgraded finish their part before the run ends failed', () => {
    const w = make(
      [['dev', [upgrade('a'), upgrade('b'), upgrade('c')]]],
      {},
      2,
    );
    w.refuse('b', 'no-downgrade: …');
    w.tick(0);
    expect(w.run.state).toBe('stopping');
    expect(w.clusters()).toEqual({ a: 'running', b: 'failed', c: 'waiting' });
    w.finishStep('a');
    w.tick(1);
    // a's pools follow its control plane: a cluster is not left half-way.
    expect(w.writes).toEqual(['a#0', 'b#0', 'a#1']);
    expect(w.run.state).toBe('stopping');
    w.finishStep('a');
    w.tick(2);
    expect(w.run.state).toBe('failed');
    expect(w.clusters()).toEqual({
      a: 'succeeded',
      b: 'failed',
      c: 'cancelled',
    });
  });
});

describe('commandFleetRun', () => {
  const cmd = (run: FleetRun, c: Parameters<typeof commandFleetRun>[1]) => {
    const r = commandFleetRun(run, c, 'pat', at(0));
    if ('problem' in r) throw new Error(r.problem);
    return r.run;
  };

  it('pause lets the cluster being upgraded finish and starts no other; resume goes on', () => {
    const w = make([['dev', [upgrade('a'), upgrade('b')]]]);
    w.tick(0);
    w.run = cmd(w.run, { command: 'pause' });
    complete(w, 'a', 1);
    expect(w.clusters()).toEqual({ a: 'succeeded', b: 'waiting' });
    expect(w.writes).toEqual(['a#0', 'a#1']);
    expect(commandFleetRun(w.run, { command: 'pause' }, 'pat', at(2))).toEqual({
      problem: 'the run is paused: only a running run pauses',
    });
    w.run = cmd(w.run, { command: 'resume' });
    w.tick(2);
    expect(w.writes).toEqual(['a#0', 'a#1', 'b#0']);
  });

  it('cancel starts nothing more and ends cancelled once the cluster being upgraded is done', () => {
    const w = make([['dev', [upgrade('a'), upgrade('b')]]]);
    w.tick(0);
    w.run = cmd(w.run, { command: 'cancel' });
    w.tick(1);
    expect(w.run.state).toBe('stopping');
    complete(w, 'a', 2);
    expect(w.run.state).toBe('cancelled');
    expect(w.clusters()).toEqual({ a: 'succeeded', b: 'cancelled' });
    expect(w.run.stages[0].clusters[1].message).toBe(
      'not started: the run was cancelled',
    );
    expect(commandFleetRun(w.run, { command: 'cancel' }, 'pat', at(3))).toEqual(
      {
        problem: 'the run has already cancelled',
      },
    );
    expect(
      commandFleetRun(
        w.run,
        { command: 'retry', cluster: place('a') },
        'pat',
        at(3),
      ),
    ).toEqual({
      problem: 'local/team-a/a is succeeded: only a failed cluster is retried',
    });
  });

  it('skips a cluster that has not started, and refuses one under way', () => {
    const w = make([['dev', [upgrade('a'), upgrade('b')]]]);
    w.tick(0);
    expect(
      commandFleetRun(
        w.run,
        { command: 'skip', cluster: place('a') },
        'pat',
        at(1),
      ),
    ).toEqual({
      problem:
        'local/team-a/a is running: only a cluster that has not started or has failed can be skipped (its upgrade is under way in AKS)',
    });
    w.run = cmd(w.run, { command: 'skip', cluster: place('b') });
    complete(w, 'a', 1);
    expect(w.run.state).toBe('succeeded');
    expect(w.run.stages[0].clusters[1]).toMatchObject({
      state: 'skipped',
      message: 'skipped by pat',
    });
    expect(w.writes).toEqual(['a#0', 'a#1']);
  });

  it('skips a failed cluster: it stays as it is, the failed run goes on with what it had not processed', () => {
    const w = make([
      ['dev', [upgrade('a'), upgrade('b')]],
      ['prod', [upgrade('c')]],
    ]);
    w.refuse('a', 'denied by policy');
    w.tick(0);
    w.tick(1);
    expect(w.run).toMatchObject({ state: 'failed', failures: 1 });
    expect(w.clusters()).toEqual({
      a: 'failed',
      b: 'cancelled',
      c: 'cancelled',
    });
    w.run = cmd(w.run, { command: 'skip', cluster: place('a') });
    expect(w.run).toMatchObject({ state: 'running', failures: 0 });
    expect(w.run.stages[0].clusters[0].message).toMatch(
      /^skipped by pat after it failed: control plane to v\S+: denied by policy$/,
    );
    expect(w.clusters()).toEqual({ a: 'skipped', b: 'waiting', c: 'waiting' });
    w.tick(3);
    complete(w, 'b', 4);
    complete(w, 'c', 5);
    expect(w.run.state).toBe('succeeded');
    // a's write was refused, and a skip writes nothing for it.
    expect(w.writes.filter(x => x.startsWith('a#'))).toEqual(['a#0']);
    expect(
      commandFleetRun(
        w.run,
        { command: 'skip', cluster: place('a') },
        'pat',
        at(6),
      ),
    ).toEqual({
      problem:
        'local/team-a/a is skipped: only a cluster that has not started or has failed can be skipped',
    });
  });

  it('does not skip a failed cluster of a cancelled run', () => {
    const w = make([['dev', [upgrade('a'), upgrade('b')]]], { maxFailures: 1 });
    w.refuse('a', 'denied');
    w.tick(0);
    expect(w.run).toMatchObject({ state: 'running', failures: 1 });
    w.run = cmd(w.run, { command: 'cancel' });
    w.tick(1);
    expect(w.run.state).toBe('cancelled');
    expect(
      commandFleetRun(
        w.run,
        { command: 'skip', cluster: place('a') },
        'pat',
        at(3),
      ),
    ).toEqual({ problem: 'the run is cancelled: start a new run' });
  });

  it('retries a failed cluster from the step it failed at: the failed run goes on with what it had not processed', () => {
    const w = make([
      ['dev', [upgrade('a'), upgrade('b')]],
      ['prod', [upgrade('c')]],
    ]);
    w.tick(0);
    w.finishStep('a');
    w.refuse('a', 'pool-not-newer-than-control-plane: …');
    w.tick(1);
    w.tick(2);
    expect(w.run.state).toBe('failed');
    expect(w.writes).toEqual(['a#0', 'a#1']);
    w.allow('a');
    w.run = cmd(w.run, { command: 'retry', cluster: place('a') });
    expect(w.run).toMatchObject({ state: 'running', failures: 0 });
    expect(w.clusters()).toEqual({ a: 'waiting', b: 'waiting', c: 'waiting' });
    w.tick(3);
    // From its pools: the control plane is not written again.
    expect(w.writes).toEqual(['a#0', 'a#1', 'a#1']);
    w.finishStep('a');
    w.tick(4);
    complete(w, 'b', 5);
    complete(w, 'c', 6);
    expect(w.run.state).toBe('succeeded');
  });
});

describe('a migration wave: one job step per cluster', () => {
  const migrate = (name: string): FleetClusterPlan => ({
    ...place(name),
    outcome: 'upgrade',
    steps: [
      {
        kind: 'job',
        request: {
          type: 'migrate',
          params: { ...place(name), targetNamespace: `team-a-${name}` },
        },
        title: `migrate to the ASO API in namespace team-a-${name}`,
        plan: ['Pause', 'Adopt'],
        warnings: [],
      },
    ],
    problems: [],
  });

  const wave = () =>
    newFleetRun(
      {
        ...preview([['legacy', [migrate('a'), migrate('b')]]]),
        target: { kind: 'migrate' },
      },
      { gates: { legacy: { soakSeconds: 60 } } },
    );

  it('starts a job per cluster, records its id, and reads the health where the job moved the cluster', () => {
    let run = wave();
    const first = advanceFleetRun(run, () => ({ stepDone: false }), at(0));
    expect(first.start).toEqual([
      expect.objectContaining({ name: 'a', stepIndex: 0, attempt: 0 }),
    ]);
    run = recordFleetStepWrite(
      first.run,
      place('a'),
      0,
      { ok: true, jobId: 'job-a' },
      at(0),
    ).run;
    expect(run.stages[0].clusters[0]).toMatchObject({
      state: 'running',
      written: true,
      jobId: 'job-a',
    });
    const moved = { ...place('a'), namespace: 'team-a-a' };
    const seen: string[] = [];
    const done = advanceFleetRun(
      run,
      c => {
        seen.push(`${c.namespace}/${c.name}`);
        return { stepDone: true, movedTo: moved, health: 'healthy' };
      },
      at(5),
    );
    const a = done.run.stages[0].clusters[0];
    expect(a).toMatchObject({
      state: 'succeeded',
      movedTo: moved,
      message: 'migrated: now team-a-a/a',
    });
    // The next cluster starts once the first is done (concurrency 1).
    expect(done.start.map(s => s.name)).toEqual(['b']);
  });

  it('fails the cluster in the words of its failed job, and a retry starts a new job (next attempt)', () => {
    const first = advanceFleetRun(wave(), () => ({ stepDone: false }), at(0));
    let run = recordFleetStepWrite(
      first.run,
      place('a'),
      0,
      { ok: true, jobId: 'job-a' },
      at(0),
    ).run;
    const failed = advanceFleetRun(
      run,
      () => ({
        stepDone: false,
        failed: 'job job-a failed: the AKS cluster is not Succeeded',
      }),
      at(1),
    );
    expect(failed.run.state).toBe('failed');
    expect(failed.run.stages[0].clusters[0]).toMatchObject({
      state: 'failed',
      message:
        'migrate to the ASO API in namespace team-a-a: job job-a failed: the AKS cluster is not Succeeded',
    });
    expect(failed.notices).toContainEqual(
      expect.objectContaining({ kind: 'cluster-failed' }),
    );
    const retried = commandFleetRun(
      failed.run,
      { command: 'retry', cluster: place('a') },
      'user:default/ops',
      at(2),
    );
    if ('problem' in retried) throw new Error(retried.problem);
    run = retried.run;
    expect(run.stages[0].clusters[0].jobId).toBeUndefined();
    const again = advanceFleetRun(run, () => ({ stepDone: false }), at(3));
    expect(again.start).toEqual([
      expect.objectContaining({ name: 'a', attempt: 1 }),
    ]);
  });
});

describe('groups in a stage', () => {
  it('runs the groups side by side up to the concurrency, the clusters of a group one after the other', () => {
    const inGroup = (name: string, group: string) => ({
      ...upgrade(name),
      group,
    });
    const w = make(
      [
        [
          'prod',
          [
            inGroup('a1', 'eu'),
            inGroup('a2', 'eu'),
            inGroup('b1', 'us'),
            inGroup('b2', 'us'),
            upgrade('solo'),
          ],
        ],
      ],
      {},
      2,
    );
    expect(w.run.stages[0].clusters.map(c => c.group)).toEqual([
      'eu',
      'eu',
      'us',
      'us',
      undefined,
    ]);
    w.tick(0);
    // One of each group: a2 waits for a1 although the concurrency is not used up by eu.
    expect(w.clusters()).toMatchObject({
      a1: 'running',
      a2: 'waiting',
      b1: 'running',
      b2: 'waiting',
      solo: 'waiting',
    });
    complete(w, 'a1', 1);
    // a1 done: its group goes on with a2; us still holds b1.
    expect(w.clusters()).toMatchObject({
      a1: 'succeeded',
      a2: 'running',
      b1: 'running',
      b2: 'waiting',
    });
    complete(w, 'b1', 2);
    expect(w.clusters()).toMatchObject({ b1: 'succeeded', b2: 'running' });
  });
});
