/**
 * FleetRuns on the plugin's database (SQLite and the run's PostgreSQL): a run created from its preview, advanced tick
 * by tick with the writes made through the single-cluster upgrade's preview and confirm, commands and advances that
 * meet on one row without undoing each other, a write made before a crash counted once, and the notices told once.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ConflictError, ServiceUnavailableError } from '@backstage/errors';
import {
  capzClusterUpgradePermission,
  jobTargetOf,
  type ClusterPlace,
  type Day2Action,
  type Day2Plan,
  type FleetClusterPlan,
  type FleetRunCluster,
  type FleetRunPreview,
  type Job,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import {
  migratedDatabase,
  postgresId,
  storeDatabases,
} from '../testing/storeDatabases';
import {
  capzClusterConditions,
  createCapzClusterConditionalDecision,
} from '../permissions/rules';
import {
  FleetRuns,
  fleetJobObservation,
  fleetStepJobId,
  fleetStepObservation,
} from './fleetRuns';
import { FleetRunStore } from './fleetRunStore';

const databases = storeDatabases();
if (process.env.CI) {
  it(`has ${postgresId} to test on`, () => {
    expect(databases.supports(postgresId)).toBe(true);
  });
}

const place = (name: string): ClusterPlace => ({
  managementCluster: 'local',
  namespace: 'team-a',
  name,
});

const cpChange = (name: string) => ({
  operation: 'update' as const,
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'AzureASOManagedControlPlane',
  namespace: 'team-a',
  name,
  fields: [{ path: 'spec.version', before: 'v1.33.2', after: 'v1.34.3' }],
});
const poolChange = (name: string) => ({
  operation: 'update' as const,
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachinePool',
  namespace: 'team-a',
  name: `${name}-system`,
  fields: [
    { path: 'spec.template.spec.version', before: 'v1.33.2', after: 'v1.34.3' },
  ],
});

const plan = (name: string): FleetClusterPlan => ({
  ...place(name),
  outcome: 'upgrade',
  from: 'v1.33.2',
  to: 'v1.34.3',
  steps: [
    {
      target: 'controlPlane',
      version: 'v1.34.3',
      changes: [cpChange(name)],
      warnings: [],
    },
    {
      target: { pools: ['system'] },
      version: 'v1.34.3',
      changes: [poolChange(name)],
      warnings: [],
    },
  ],
  problems: [],
});

const preview = (
  stages: Array<[string, FleetClusterPlan[]]>,
): FleetRunPreview => ({
  target: { kind: 'next-minor' },
  concurrency: 1,
  stages: stages.map(([name, clusters]) => ({ name, clusters })),
  counts: {
    upgrade: stages.flatMap(s => s[1]).filter(c => c.outcome === 'upgrade')
      .length,
    current: 0,
    refused: stages.flatMap(s => s[1]).filter(c => c.outcome === 'refused')
      .length,
  },
});

const SPEC = {
  target: { kind: 'next-minor' as const },
  stages: [{ name: 'dev', clusters: [place('a')] }],
};

describe.each(databases.eachSupportedId())('FleetRuns on %p', id => {
  async function setUp(
    p: FleetRunPreview = preview([
      ['dev', [plan('a'), plan('b')]],
      ['prod', [plan('c')]],
    ]),
  ) {
    const knex = await migratedDatabase(databases, id);
    const store = new FleetRunStore(knex);
    const acts: string[] = [];
    /** Clusters whose step the world reports done, and the live plan each upgrade would make now. */
    const done = new Set<string>();
    const already = new Set<string>();
    /** Clusters whose objects Flux applies: a step is proposed as a pull request, not written. */
    const fromGit = new Set<string>();
    let fail: ((name: string) => Error | undefined) | undefined;
    let drift: Day2Plan['changes'] | undefined;
    const notices: string[] = [];
    const pushed: string[] = [];
    const audits: string[] = [];
    /** Each cluster's owner as the watch cache would have it. */
    const owners = new Map<string, string>();
    let clock = Date.UTC(2026, 11, 4, 12);
    const runs = new FleetRuns({
      store,
      ownerOf: pl => owners.get(pl.name),
      preview: { preview: async () => p },
      day2: {
        act: async (pl: ClusterPlace, a: Day2Action, o: { apply: boolean }) => {
          const u = a as Extract<Day2Action, { action: 'upgrade' }>;
          const what = `${pl.name} ${
            u.target === 'controlPlane' ? 'cp' : 'pools'
          } ${o.apply ? 'apply' : 'preview'}`;
          acts.push(what);
          const e = fail?.(pl.name);
          if (e) throw e;
          const changes =
            drift ??
            (already.has(pl.name)
              ? []
              : [
                  u.target === 'controlPlane'
                    ? cpChange(pl.name)
                    : poolChange(pl.name),
                ]);
          const git = fromGit.has(pl.name)
            ? {
                blockers: [
                  "Flux's Kustomization flux-system/clusters applies it.",
                ],
                git: {
                  proposable: true,
                  files: [],
                  byHand: [],
                  notes: [],
                  ...(o.apply
                    ? {
                        proposed: {
                          branch: `capz/upgrade-${pl.name}`,
                          commit: 'c0ffee',
                          pullRequest: {
                            number: 7,
                            url: `https://git.example/pulls/7`,
                          },
                        },
                      }
                    : {}),
                },
              }
            : {};
          return {
            action: a,
            changes,
            warnings: [],
            applied: o.apply,
            planDigest: 'd'.repeat(64),
            ...git,
          } as Day2Plan;
        },
      },
      observe: (c: FleetRunCluster) => ({
        stepDone: done.has(`${c.name}#${c.step}`),
        health: 'healthy',
      }),
      logger: mockServices.logger.mock(),
      auditor: mockServices.auditor.mock({
        createEvent: async e => {
          const meta = e.meta as unknown as { target: ClusterPlace };
          return {
            success: async () => {
              audits.push(`${meta.target.name} ok`);
            },
            fail: async () => {
              audits.push(`${meta.target.name} failed`);
            },
          };
        },
      }),
      onNotice: (_r, n) => notices.push(n.kind),
      onChange: r => pushed.push(r.run.state),
      now: () => new Date(clock),
    });
    return {
      knex,
      store,
      runs,
      acts,
      notices,
      pushed,
      audits,
      owners,
      done,
      already,
      fromGit,
      setFail: (f: typeof fail) => {
        fail = f;
      },
      setDrift: (d: typeof drift) => {
        drift = d;
      },
      later: (minutes: number) => {
        clock += minutes * 60_000;
      },
    };
  }

  it('creates a run from its preview and advances it: each step previewed then confirmed, audited, the stages in order', async () => {
    const w = await setUp();
    const created = await w.runs.create(
      SPEC,
      {},
      () => true,
      'user:default/pat',
    );
    expect(created).toMatchObject({
      createdBy: 'user:default/pat',
      version: 1,
      run: { state: 'running' },
    });
    expect(w.acts).toEqual([]);
    await w.runs.tick();
    expect(w.acts).toEqual(['a cp preview', 'a cp apply']);
    expect(w.audits).toEqual(['a ok']);
    // Not done yet: nothing more is written.
    await w.runs.tick();
    expect(w.acts).toHaveLength(2);
    w.done.add('a#0');
    await w.runs.tick();
    expect(w.acts.slice(2)).toEqual(['a pools preview', 'a pools apply']);
    w.done.add('a#1');
    for (const n of ['b', 'c']) {
      await w.runs.tick();
      w.done.add(`${n}#0`);
      await w.runs.tick();
      w.done.add(`${n}#1`);
    }
    await w.runs.tick();
    const end = await w.runs.get(created.id);
    expect(end.run.state).toBe('succeeded');
    expect(
      end.run.stages.flatMap(s => s.clusters.map(c => [c.name, c.state])),
    ).toEqual([
      ['a', 'succeeded'],
      ['b', 'succeeded'],
      ['c', 'succeeded'],
    ]);
    expect(w.notices).toEqual(['run-finished']);
    // Every write of the run is pushed, the last its end; a tick that changed nothing pushes nothing.
    expect(w.pushed.at(-1)).toBe('succeeded');
    const count = w.pushed.length;
    await w.runs.tick();
    expect(w.pushed).toHaveLength(count);
    // An ended run is not advanced any more.
    expect(await w.store.active()).toEqual([]);
  });

  it("applies its creator's policy decision again before each write: a cluster that changed hands since the start is refused in words, with nothing written", async () => {
    const w = await setUp();
    for (const n of ['a', 'b', 'c']) w.owners.set(n, 'group:default/team-a');
    const ownedByTeamA = createCapzClusterConditionalDecision(
      capzClusterUpgradePermission,
      capzClusterConditions.isClusterOwner({
        claims: ['group:default/team-a'],
      }),
    );
    const r = await w.runs.create(
      SPEC,
      { maxFailures: 1 },
      () => true,
      'user:default/pat',
      ownedByTeamA,
    );
    expect((await w.store.get(r.id)).decision).toEqual(ownedByTeamA);
    await w.runs.tick();
    expect(w.acts).toEqual(['a cp preview', 'a cp apply']);
    // Between a's first and second step, a is handed to another team; b keeps its owner.
    w.owners.set('a', 'group:default/team-b');
    w.done.add('a#0');
    await w.runs.tick();
    expect(w.acts.slice(2)).toEqual(['a pools preview']);
    const after = await w.runs.get(r.id);
    expect(after.run.stages[0].clusters[0]).toMatchObject({
      state: 'failed',
      message:
        'pools system to v1.34.3: not allowed any more: capz.cluster.upgrade as the policy decided it for user:default/pat, who started the run, does not allow team-a/a as it is now (its owner may have changed since the start); nothing was written',
    });
    expect(w.audits).toEqual(['a ok', 'a failed']);
    // The run goes on with the cluster that is still allowed.
    await w.runs.tick();
    expect(w.acts.slice(3)).toEqual(['b cp preview', 'b cp apply']);
  });

  it('refuses a run with nothing to upgrade (409) and a gate for a stage it does not have (400), storing nothing', async () => {
    const w = await setUp(
      preview([
        [
          'dev',
          [
            {
              ...place('a'),
              outcome: 'refused',
              steps: [],
              problems: ['degraded'],
            },
          ],
        ],
      ]),
    );
    await expect(w.runs.create(SPEC, {}, () => true, 'pat')).rejects.toThrow(
      'Nothing to run: 0 cluster(s) already run the target and 1 are left out (preview the run to see why)',
    );
    await expect(
      w.runs.create(
        SPEC,
        { gates: { qa: { approval: true } } },
        () => true,
        'pat',
      ),
    ).rejects.toThrow('gates: no stage named "qa"');
    expect(await w.runs.list()).toEqual([]);
  });

  it("a step refused by the upgrade's live rules fails the cluster in its words; fail-fast stops the run and tells it once", async () => {
    const w = await setUp();
    const r = await w.runs.create(SPEC, {}, () => true, 'pat');
    w.setFail(n =>
      n === 'a'
        ? new ConflictError(
            'offered-in-region: AKS does not offer v1.34.3 in westeurope',
          )
        : undefined,
    );
    await w.runs.tick();
    await w.runs.tick();
    const end = await w.runs.get(r.id);
    expect(end.run.state).toBe('failed');
    expect(end.run.stages[0].clusters[0]).toMatchObject({
      state: 'failed',
      message:
        'control plane to v1.34.3: offered-in-region: AKS does not offer v1.34.3 in westeurope',
    });
    expect(w.acts).toEqual(['a cp preview']);
    expect(w.audits).toEqual(['a failed']);
    expect(w.notices).toEqual(['cluster-failed', 'run-finished']);
  });

  it('an unavailable API server or a moment of contention is not a failure: the write is made at a later tick', async () => {
    const w = await setUp();
    const r = await w.runs.create(SPEC, {}, () => true, 'pat');
    w.setFail(
      () =>
        new ServiceUnavailableError('management cluster local does not answer'),
    );
    await w.runs.tick();
    w.setFail(
      () =>
        new ConflictError(
          'Another action on cluster local/team-a/a is being applied',
        ),
    );
    await w.runs.tick();
    w.setFail(undefined);
    await w.runs.tick();
    const now = await w.runs.get(r.id);
    expect(now.run.stages[0].clusters[0]).toMatchObject({
      state: 'running',
      written: true,
    });
    expect(w.acts).toEqual([
      'a cp preview',
      'a cp preview',
      'a cp preview',
      'a cp apply',
    ]);
    expect(w.notices).toEqual([]);
  });

  it('a tick whose time is up makes no further write: what it owes is made at the next tick', async () => {
    const w = await setUp({
      ...preview([['dev', [plan('a'), plan('b')]]]),
      concurrency: 2,
    });
    await w.runs.create(SPEC, {}, () => true, 'user:default/pat');
    const spent = new AbortController();
    spent.abort();
    await w.runs.tick(spent.signal);
    expect(w.acts).toEqual([]);
    // The time runs out during a's write: b's is left to the next tick.
    const ending = new AbortController();
    w.setFail(name => {
      if (name === 'a' && w.acts.includes('a cp apply')) ending.abort();
      return undefined;
    });
    await w.runs.tick(ending.signal);
    expect(w.acts).toEqual(['a cp preview', 'a cp apply']);
    w.setFail(undefined);
    await w.runs.tick();
    expect(w.acts.slice(2)).toEqual(['b cp preview', 'b cp apply']);
    expect(w.audits).toEqual(['a ok', 'b ok']);
  });

  it('a write made before a crash (the version already asked for) is counted as made, not made again', async () => {
    const w = await setUp();
    const r = await w.runs.create(SPEC, {}, () => true, 'pat');
    w.already.add('a');
    await w.runs.tick();
    expect(w.acts).toEqual(['a cp preview']);
    expect((await w.runs.get(r.id)).run.stages[0].clusters[0].written).toBe(
      true,
    );
  });

  it('a step planned through Git is proposed, not written, and keeps its pull request; a cluster Flux took over since the preview fails unwritten', async () => {
    const throughGit = plan('a');
    throughGit.steps[0] = {
      ...throughGit.steps[0],
      throughGit: "Flux's Kustomization flux-system/clusters applies it",
    } as (typeof throughGit.steps)[0];
    const w = await setUp(preview([['dev', [throughGit, plan('b')]]]));
    w.fromGit.add('a').add('b');
    const r = await w.runs.create(
      {
        ...SPEC,
        stages: [{ name: 'dev', clusters: [place('a'), place('b')] }],
      },
      {},
      () => true,
      'pat',
    );
    await w.runs.tick();
    expect(w.acts).toEqual(['a cp preview', 'a cp apply']);
    expect((await w.runs.get(r.id)).run.stages[0].clusters[0]).toMatchObject({
      state: 'running',
      written: true,
      proposal: {
        branch: 'capz/upgrade-a',
        pullRequest: { number: 7, url: 'https://git.example/pulls/7' },
      },
    });
    // Its step done: the next step (planned live: its pools are not Flux's) is written, without the first one's
    // pull request.
    w.fromGit.delete('a');
    w.done.add('a#0');
    await w.runs.tick();
    expect(w.acts.slice(2)).toEqual(['a pools preview', 'a pools apply']);
    const a = (await w.runs.get(r.id)).run.stages[0].clusters[0];
    expect(a.step).toBe(1);
    expect(a.proposal).toBeUndefined();
    // b was planned live; Flux applies it now: nothing written or proposed, it fails in words.
    w.done.add('a#1');
    await w.runs.tick();
    expect(w.acts.filter(x => x.startsWith('b'))).toEqual(['b cp preview']);
    expect((await w.runs.get(r.id)).run.stages[0].clusters[1]).toMatchObject({
      state: 'failed',
      message:
        "control plane to v1.34.3: it is applied from Git since the run's preview (Flux's Kustomization flux-system/clusters applies it.); nothing was written or proposed: upgrade it from its page, or in a new run",
    });
  });

  it("a cluster whose plan changed since the run's preview fails with what it would now change", async () => {
    const w = await setUp();
    const r = await w.runs.create(SPEC, {}, () => true, 'pat');
    w.setDrift([
      {
        ...cpChange('a'),
        fields: [{ path: 'spec.version', before: 'v1.33.2', after: 'v1.35.0' }],
      },
    ]);
    await w.runs.tick();
    expect(w.acts).toEqual(['a cp preview']);
    expect((await w.runs.get(r.id)).run.stages[0].clusters[0]).toMatchObject({
      state: 'failed',
      message:
        "control plane to v1.34.3: the cluster changed since the run's preview (it would now change AzureASOManagedControlPlane a); upgrade it from its page, or in a new run",
    });
  });

  it('a command and an advance on one row do not undo each other; a command the run cannot take is a 409 in words', async () => {
    const w = await setUp();
    const r = await w.runs.create(SPEC, {}, () => true, 'pat');
    await w.runs.tick();
    // The advance read the row before the pause was written: its save loses, it reads again and sees the pause.
    const stale = await w.store.get(r.id);
    await w.runs.command(r.id, { command: 'pause' }, 'user:default/pat');
    expect(await w.store.save(r.id, stale.version, stale.run)).toBe(false);
    w.done.add('a#0');
    await w.runs.tick();
    const paused = await w.runs.get(r.id);
    expect(paused.run.state).toBe('paused');
    // Paused: a's pools still follow its control plane; b does not start.
    expect(w.acts).toEqual([
      'a cp preview',
      'a cp apply',
      'a pools preview',
      'a pools apply',
    ]);
    await expect(
      w.runs.command(r.id, { command: 'pause' }, 'user:default/pat'),
    ).rejects.toThrow(
      `Fleet run ${r.id}: the run is paused: only a running run pauses`,
    );
    await expect(
      w.runs.command(
        r.id,
        { command: 'approve', stage: 'dev' },
        'user:default/pat',
      ),
    ).rejects.toThrow('stage "dev" is running, not awaiting approval');
  });
});

describe.each(databases.eachSupportedId())(
  'FleetRuns with job steps (a migration wave) on %p',
  id => {
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
          plan: ['Pause'],
          warnings: [],
        },
      ],
      problems: [],
    });

    async function setUp() {
      const knex = await migratedDatabase(databases, id);
      const store = new FleetRunStore(knex);
      const jobs = new Map<string, Job>();
      const starts: string[] = [];
      let refuse: Error | undefined;
      let crashAfterStart = false;
      const observed: string[] = [];
      const runs = new FleetRuns({
        store,
        preview: {
          preview: async () => ({
            ...preview([['legacy', [migrate('a'), migrate('b')]]]),
            target: { kind: 'migrate' },
          }),
        },
        day2: {
          act: async () => {
            throw new Error('a migration wave makes no day-2 action');
          },
        },
        jobs: {
          start: async (request, createdBy, jobId) => {
            starts.push(`${jobTargetOf(request).name} ${jobId} ${createdBy}`);
            if (refuse) throw refuse;
            if (jobs.has(jobId)) {
              const e = new ConflictError('already active') as Error & {
                jobId?: string;
              };
              e.jobId = jobId;
              throw e;
            }
            jobs.set(jobId, {
              id: jobId,
              type: 'migrate',
              target: jobTargetOf(request),
              state: 'running',
              steps: [],
            } as unknown as Job);
            if (crashAfterStart) throw new Error('the process died here');
            return undefined;
          },
          get: async jobId => jobs.get(jobId),
        },
        observe: (c: FleetRunCluster) => {
          observed.push(`${c.namespace}/${c.name}`);
          return { stepDone: false, health: 'healthy' };
        },
        logger: mockServices.logger.mock(),
      });
      return {
        runs,
        jobs,
        starts,
        observed,
        refuse: (e: Error | undefined) => {
          refuse = e;
        },
        crash: (on: boolean) => {
          crashAfterStart = on;
        },
      };
    }

    it('starts one job per cluster under an id of the run, cluster and attempt, follows it, and reads the health where the job moved the cluster', async () => {
      const w = await setUp();
      const r = await w.runs.create(
        { target: { kind: 'migrate' }, stages: [] },
        {},
        () => true,
        'user:default/pat',
      );
      await w.runs.tick();
      const idA = fleetStepJobId(r.id, place('a'), 0, 0);
      expect(w.starts).toEqual([`a ${idA} user:default/pat`]);
      expect((await w.runs.get(r.id)).run.stages[0].clusters[0]).toMatchObject({
        state: 'running',
        written: true,
        jobId: idA,
      });
      // The job runs: nothing new starts, the run waits for it.
      await w.runs.tick();
      expect(w.starts).toHaveLength(1);
      w.jobs.set(idA, {
        ...w.jobs.get(idA)!,
        state: 'succeeded',
        result: { cluster: { ...place('a'), namespace: 'team-a-a' } },
      });
      w.observed.length = 0;
      await w.runs.tick();
      const after = (await w.runs.get(r.id)).run.stages[0].clusters;
      expect(after[0]).toMatchObject({
        state: 'succeeded',
        movedTo: { ...place('a'), namespace: 'team-a-a' },
        message: 'migrated: now team-a-a/a',
      });
      expect(w.observed).toContain('team-a-a/a');
      expect(after[1]).toMatchObject({ state: 'running', written: true });
    });

    it('a start made again after a crash meets its own job and starts no second one', async () => {
      const w = await setUp();
      const r = await w.runs.create(
        { target: { kind: 'migrate' }, stages: [] },
        {},
        () => true,
        'pat',
      );
      // The job is stored, then the process dies before the run records it.
      w.crash(true);
      await w.runs.tick();
      expect((await w.runs.get(r.id)).run.stages[0].clusters[0]).toMatchObject({
        state: 'running',
        written: false,
      });
      w.crash(false);
      await w.runs.tick();
      const idA = fleetStepJobId(r.id, place('a'), 0, 0);
      expect(w.starts).toEqual([`a ${idA} pat`]);
      expect(w.jobs.size).toBe(1);
      expect((await w.runs.get(r.id)).run.stages[0].clusters[0]).toMatchObject({
        state: 'running',
        written: true,
        jobId: idA,
      });
    });

    it("fails the cluster in the preflight's words when its job would not start, and a failed job fails it too", async () => {
      const w = await setUp();
      const r = await w.runs.create(
        { target: { kind: 'migrate' }, stages: [] },
        { maxFailures: 1 },
        () => true,
        'pat',
      );
      const refused = new Error(
        'Preflight failed: The target namespace is new: Namespace team-a-a already exists.',
      );
      refused.name = 'PreflightFailedError';
      w.refuse(refused);
      await w.runs.tick();
      expect((await w.runs.get(r.id)).run.stages[0].clusters[0]).toMatchObject({
        state: 'failed',
        message:
          'migrate to the ASO API in namespace team-a-a: Preflight failed: The target namespace is new: Namespace team-a-a already exists.',
      });
      w.refuse(undefined);
      await w.runs.tick();
      const idB = fleetStepJobId(r.id, place('b'), 0, 0);
      w.jobs.set(idB, {
        ...w.jobs.get(idB)!,
        state: 'failed',
        error: 'the ManagedCluster is not Ready',
      });
      await w.runs.tick();
      const run = (await w.runs.get(r.id)).run;
      expect(run.stages[0].clusters[1]).toMatchObject({
        state: 'failed',
        message: `migrate to the ASO API in namespace team-a-b: job ${idB} failed: the ManagedCluster is not Ready`,
      });
      expect(run.state).toBe('failed');
    });
  },
);

describe('fleetJobObservation', () => {
  const job = (over: Partial<Job>): Job => ({
    id: 'j1',
    type: 'migrate',
    target: { managementCluster: 'local', namespace: 'team-a', name: 'c1' },
    params: {
      managementCluster: 'local',
      namespace: 'team-a',
      name: 'c1',
      targetNamespace: 'team-a-aso',
    },
    createdBy: 'user:default/alice',
    state: 'running',
    currentStep: 'migrate',
    steps: [
      { id: 'migrate', title: 'Migrate', state: 'succeeded', attempts: 1 },
      {
        id: 'wait-merge',
        title: 'Wait for the pull request to be merged',
        state: 'running',
        attempts: 1,
      },
    ],
    createdAt: '2026-12-06T12:00:00Z',
    updatedAt: '2026-12-06T12:00:00Z',
    ...over,
  });
  const proposal = {
    url: 'https://git.example/platform/fleet.git',
    base: 'main',
    branch: 'capz/migrate-c1',
    commit: 'abc',
    files: [],
  };

  it('names a job in Git mode at its merge wait as waiting for a person: the pull request, or the branch on a plain Git server', () => {
    expect(
      fleetJobObservation(
        job({
          currentStep: 'wait-merge',
          result: {
            gitProposal: {
              ...proposal,
              pullRequest: { number: 7, url: 'https://git.example/pr/7' },
            },
          },
        }),
        'j1',
      ),
    ).toEqual({
      stepDone: false,
      waitingFor: 'job j1 (running: Wait for the pull request to be merged)',
      waitingForPerson:
        "the merge of pull request #7 (https://git.example/pr/7) and Flux's fetch of it (job j1)",
    });
    expect(
      fleetJobObservation(
        job({ currentStep: 'wait-merge', result: { gitProposal: proposal } }),
        'j1',
      ).waitingForPerson,
    ).toBe(
      "the merge of branch capz/migrate-c1 into main (https://git.example/platform/fleet.git) and Flux's fetch of it (job j1)",
    );
  });

  it('a job at another step waits for no person: its time counts; a paused job waits for whoever resumes or cancels it', () => {
    expect(fleetJobObservation(job({}), 'j1')).toEqual({
      stepDone: false,
      waitingFor: 'job j1 (running: Migrate)',
    });
    expect(
      fleetJobObservation(
        job({
          state: 'paused',
          currentStep: 'wait-merge',
          result: { gitProposal: proposal },
        }),
        'j1',
      ),
    ).toEqual({
      stepDone: false,
      waitingFor: 'job j1 (paused: Wait for the pull request to be merged)',
      waitingForPerson:
        'someone to resume or cancel job j1, paused at "Wait for the pull request to be merged"',
    });
  });
});

describe('fleetStepObservation', () => {
  const node = (n: Partial<TreeNode>): TreeNode => ({
    id: `${n.kind}/${n.name}`,
    kind: 'Cluster',
    name: 'a',
    health: 'healthy',
    conditions: [],
    facts: {},
    children: [],
    ...n,
  });
  /** A cluster whose control plane asks for `asked` and runs `runs`. */
  const tree = (asked: string, runs: string) =>
    node({
      children: [
        node({
          kind: 'AzureASOManagedControlPlane',
          name: 'a',
          facts: {
            kubernetesVersion: runs,
            desiredKubernetesVersion: asked,
          },
        }),
      ],
    });
  const running = (over: Partial<FleetRunCluster> = {}): FleetRunCluster => ({
    ...place('a'),
    state: 'running',
    steps: plan('a').steps,
    step: 0,
    written: true,
    ...over,
  });
  const proposal = {
    branch: 'capz/upgrade-a',
    pullRequest: { number: 7, url: 'https://git.example/pulls/7' },
  };

  it('waits for a person while the pull request its step was proposed as is not applied (the objects do not ask for the version yet)', () => {
    expect(
      fleetStepObservation(running({ proposal }), {
        tree: tree('v1.33.2', 'v1.33.2'),
        health: 'healthy',
      }),
    ).toEqual({
      stepDone: false,
      health: 'healthy',
      waitingFor: 'control plane: v1.33.2 → v1.34.3',
      waitingForPerson:
        "the merge of pull request #7 (https://git.example/pulls/7) and Flux's apply of it",
    });
    // Merged and applied: the upgrade's own progress, timed again.
    expect(
      fleetStepObservation(running({ proposal }), {
        tree: tree('v1.34.3', 'v1.33.2'),
        health: 'healthy',
      }),
    ).toEqual({
      stepDone: false,
      health: 'healthy',
      waitingFor: 'control plane: v1.33.2 → v1.34.3',
    });
    expect(
      fleetStepObservation(running({ proposal }), {
        tree: tree('v1.34.3', 'v1.34.3'),
        health: 'healthy',
      }).stepDone,
    ).toBe(true);
  });

  it('a step written live never waits for a person', () => {
    expect(
      fleetStepObservation(running(), {
        tree: tree('v1.33.2', 'v1.33.2'),
        health: 'healthy',
      }).waitingForPerson,
    ).toBeUndefined();
  });
});
