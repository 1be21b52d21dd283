import { mockServices } from '@backstage/backend-test-utils';
import type {
  KubeObject,
  ObjectRef,
  StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { gitopsResumeOnCancel } from '@capz-backstage/plugin-capz-common';
import { EventEmitter } from 'node:events';
import type { JobClient } from '../cluster/clientViews';
import { JobEngine, type JobEngineOptions } from './JobEngine';
import { DatabaseJobStore } from './DatabaseJobStore';
import { describeLeftBehind } from './leftBehind';
import { JobDatabaseUnavailableError, type JobStore } from './JobStore';
import { storeDatabases } from '../testing/storeDatabases';

/**
 * The engine's mechanics on both databases: lease, step order, resume after a lost replica, pause/resume/cancel,
 * one active job per cluster, failure with what was left behind. The cluster here is an in-memory object map: the
 * real API server runs in the integration tests (jobs.integration.test.ts).
 */
const databases = storeDatabases();

const key = (r: ObjectRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

class MemoryCluster extends EventEmitter implements JobClient {
  objects = new Map<string, KubeObject>();
  writes: string[] = [];
  async get(ref: ObjectRef) {
    return this.objects.get(key(ref));
  }
  async list(_apiVersion: string, kind: string) {
    return [...this.objects.values()].filter(o => o.kind === kind);
  }
  async create(obj: KubeObject) {
    const k = key({
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata.namespace,
      name: obj.metadata.name,
    });
    const live = this.objects.get(k);
    if (live) return { outcome: 'exists' as const, object: live };
    this.objects.set(k, obj);
    this.writes.push(`create ${k}`);
    this.emit('change');
    return { outcome: 'created' as const, object: obj };
  }
  async mergePatch(ref: ObjectRef, patch: Record<string, unknown>) {
    const live = this.objects.get(key(ref));
    if (!live) return undefined;
    const next = {
      ...live,
      ...patch,
      metadata: { ...live.metadata, ...(patch.metadata as object) },
    } as KubeObject;
    this.objects.set(key(ref), next);
    this.writes.push(`patch ${key(ref)}`);
    this.emit('change');
    return next;
  }
  async delete(ref: ObjectRef) {
    const had = this.objects.delete(key(ref));
    if (had) this.writes.push(`delete ${key(ref)}`);
    return had ? ('deleted' as const) : ('absent' as const);
  }
  async canI() {
    return true;
  }
}

const cm = (name: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'ns',
  name,
});
const plan: StepPlan[] = [
  {
    id: 'create-a',
    title: 'Create a',
    description: '',
    preconditions: [],
    actions: [
      {
        action: 'create',
        ref: cm('a'),
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', namespace: 'ns' },
        },
        description: 'a',
      },
    ],
    waitFor: [{ type: 'exists', ref: cm('a'), description: 'a exists' }],
    timeoutSeconds: 5,
  },
  {
    id: 'wait-b',
    title: 'Wait for b',
    description: '',
    preconditions: [{ type: 'exists', ref: cm('a'), description: 'a exists' }],
    actions: [],
    waitFor: [{ type: 'exists', ref: cm('b'), description: 'b exists' }],
    timeoutSeconds: 30,
  },
  {
    id: 'label-a',
    title: 'Label a',
    description: '',
    preconditions: [],
    actions: [
      {
        action: 'merge-patch',
        ref: cm('a'),
        patch: { metadata: { labels: { done: 'yes' } } },
        description: 'label',
      },
    ],
    waitFor: [
      {
        type: 'label',
        ref: cm('a'),
        label: 'done',
        value: 'yes',
        description: 'a labelled',
      },
    ],
    timeoutSeconds: 5,
  },
];

const target = { managementCluster: 'mc', namespace: 'ns', name: 'c1' };
const request = { type: 'upgrade-api-version' as const, params: target };

function engine(
  store: JobStore,
  cluster: MemoryCluster,
  replicaId: string,
  leaseMs = 60_000,
  extra: Partial<JobEngineOptions> = {},
) {
  return new JobEngine({
    store,
    logger: mockServices.logger.mock(),
    ...extra,
    client: async () => cluster,
    waker: () => onChange => {
      cluster.on('change', onChange);
      return () => cluster.off('change', onChange);
    },
    leaseMs,
    recheckMs: 50,
    replicaId,
  });
}

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 20));
  }
}

describe.each(databases.eachSupportedId())('JobEngine on %p', databaseId => {
  let store: JobStore;
  beforeAll(async () => {
    const knex = await databases.init(databaseId);
    store = await DatabaseJobStore.create({
      database: mockServices.database({ knex }),
    });
  });

  let n = 0;
  const insert = (name = `c${++n}-${databaseId}`) =>
    store.insert({
      id: `${name}-id`,
      request,
      target: { ...target, name },
      plan,
      createdBy: 'user:default/ada',
    });

  it('runs the steps in order, waits on a condition, and succeeds', async () => {
    const cluster = new MemoryCluster();
    const e = engine(store, cluster, 'r1');
    const job = await insert();
    e.kick(job.id);
    await until('the wait step', async () =>
      (await store.get(job.id)).steps[1].message?.includes('b exists'),
    );
    // The job says which step it is at (a resume names it; the UI shows it).
    expect(await store.get(job.id)).toMatchObject({
      state: 'running',
      currentStep: 'wait-b',
    });
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'ns' },
    });
    await e.settled(job.id);
    const done = await store.get(job.id);
    expect(done.state).toBe('succeeded');
    expect(done.currentStep).toBeUndefined();
    expect(done.steps.map(s => [s.id, s.state, s.attempts])).toEqual([
      ['create-a', 'succeeded', 1],
      ['wait-b', 'succeeded', 1],
      ['label-a', 'succeeded', 1],
    ]);
    expect(
      cluster.objects.get('ConfigMap/ns/a')?.metadata.annotations?.[
        'capz.io/job'
      ],
    ).toBe(job.id);
    // The cluster is free again.
    await expect(
      store.insert({
        id: `${job.id}-2`,
        request,
        target: job.target,
        plan,
        createdBy: 'x',
      }),
    ).resolves.toBeDefined();
  });

  it('tells onStateChange once per change of state, by the replica that wrote it', async () => {
    const cluster = new MemoryCluster();
    const changes: string[] = [];
    const e = engine(store, cluster, 'r1', 60_000, {
      onStateChange: (j, from) => changes.push(`${from}->${j.state}`),
    });
    const job = await insert();
    e.kick(job.id);
    await until('the wait step', async () =>
      (await store.get(job.id)).steps[1].message?.includes('b exists'),
    );
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'ns' },
    });
    await e.settled(job.id);
    expect(changes).toEqual(['queued->running', 'running->succeeded']);
  });

  it('refuses a second active job on the same cluster, naming the first', async () => {
    const job = await insert();
    await expect(
      store.insert({
        id: 'other',
        request,
        target: job.target,
        plan,
        createdBy: 'x',
      }),
    ).rejects.toThrow(
      new RegExp(
        `already has a queued upgrade-api-version job \\(${job.id}\\)`,
      ),
    );
  });

  it('lets exactly one of two replicas run a job, and the other resume it after the lease expires', async () => {
    const cluster = new MemoryCluster();
    const a = engine(store, cluster, 'replica-a', 400);
    const b = engine(store, cluster, 'replica-b', 400);
    const job = await insert();
    a.kick(job.id);
    b.kick(job.id);
    await until(
      'the wait step',
      async () => (await store.get(job.id)).steps[1].state === 'running',
    );
    await Promise.all(
      [a.settled(job.id), b.settled(job.id)].map(p =>
        Promise.race([p, new Promise(r => setTimeout(r, 10))]),
      ),
    );
    // Replica a (or b) dies: stopping it without releasing is what a crash looks like to the database.
    const log = await store.readLog(job.id);
    const runner = log
      .find(l => l.message.startsWith('started on replica'))!
      .message.split(' ')
      .pop()!;
    const [dead, alive] = runner === 'replica-a' ? [a, b] : [b, a];
    (dead as unknown as { stopped: boolean }).stopped = true;
    (
      dead as unknown as { running: Map<string, { abort: AbortController }> }
    ).running
      .get(job.id)
      ?.abort.abort('lease lost');
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'ns' },
    });
    await until('another replica to resume and finish', async () => {
      await alive.pickup();
      return (await store.get(job.id)).state === 'succeeded';
    });
    const done = await store.get(job.id);
    expect(done.steps.map(s => s.attempts)).toEqual([1, 2, 1]);
    expect(
      (await store.readLog(job.id)).filter(l =>
        l.message.startsWith('started on replica'),
      ),
    ).toHaveLength(1);
    expect(
      cluster.writes.filter(w => w === 'create ConfigMap/ns/a'),
    ).toHaveLength(1);
  });

  it('pauses during a wait, resumes at the same step, and cancels with what was left behind', async () => {
    const cluster = new MemoryCluster();
    const e = engine(store, cluster, 'r1');
    const job = await insert();
    e.kick(job.id);
    await until(
      'the wait step',
      async () => (await store.get(job.id)).steps[1].state === 'running',
    );
    await store.request(job.id, 'pause', () => undefined);
    e.interrupt(job.id, 'pause');
    await e.settled(job.id);
    let now = await store.get(job.id);
    expect(now.state).toBe('paused');
    expect(now.steps[1]).toMatchObject({
      state: 'pending',
      message: 'interrupted by pause',
    });
    await store.resume(job.id);
    e.kick(job.id);
    await until(
      'the wait step again',
      async () => (await store.get(job.id)).steps[1].attempts === 2,
    );
    await store.request(job.id, 'cancel', describeLeftBehind);
    e.interrupt(job.id, 'cancel');
    await e.settled(job.id);
    now = await store.get(job.id);
    expect(now.state).toBe('cancelled');
    expect(now.leftBehind).toMatch(/Step create-a finished/);
    expect(now.leftBehind).toMatch(/No Azure resource was deleted/);
  });

  describe('a cancel of a job in Git mode', () => {
    const kustomization: ObjectRef = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'clusters',
    };
    const kkey = 'Kustomization/flux-system/clusters';
    // suspend-gitops as capz-common plans it (its patch marks the Kustomization), then two of the job's own steps.
    const gitPlan = (jobId: string): StepPlan[] => [
      {
        id: 'suspend-gitops',
        title: 'Suspend',
        description: '',
        preconditions: [],
        actions: [
          {
            action: 'merge-patch',
            ref: kustomization,
            patch: {
              metadata: { annotations: { 'capz.io/job': jobId } },
              spec: { suspend: true },
            },
            description: 'suspend',
          },
        ],
        waitFor: [],
        timeoutSeconds: 5,
      },
      plan[0],
      plan[1],
    ];
    /** A job that stopped (failed) with these step states, its Kustomization suspended and marked by `markedBy`. */
    const stoppedJob = async (
      name: string,
      cluster: MemoryCluster,
      states: Array<['pending' | 'succeeded' | 'failed', number]>,
      markedBy?: string,
    ) => {
      const id = `${name}-${databaseId}-id`;
      cluster.objects.set(kkey, {
        apiVersion: kustomization.apiVersion,
        kind: 'Kustomization',
        metadata: {
          name: 'clusters',
          namespace: 'flux-system',
          annotations: { 'capz.io/job': markedBy ?? id },
        },
        spec: { suspend: true },
      });
      const job = await store.insert({
        id,
        request,
        target: { ...target, name: `${name}-${databaseId}` },
        plan: gitPlan(id),
        createdBy: 'user:default/ada',
      });
      expect(await store.claim(id, 'gone', 60_000)).toBe(true);
      await store.update(id, 'gone', {
        state: 'failed',
        error: 'a step failed',
        steps: job.steps.map((st, i) => ({
          ...st,
          state: states[i][0],
          attempts: states[i][1],
        })),
      });
      await store.release(id, 'gone');
      return id;
    };
    /** What POST /jobs/:id/cancel does (routers/jobsHandlers.ts). */
    const cancel = async (e: JobEngine, id: string) => {
      const changed = await store.request(
        id,
        'cancel',
        describeLeftBehind,
        j => !!gitopsResumeOnCancel(j),
      );
      e.interrupt(id, 'cancel');
      if (changed?.state === 'queued') e.kick(id);
      await e.settled(id);
      return changed;
    };

    it('resumes the Kustomization the job suspended when none of its own steps had started, through a runner', async () => {
      const cluster = new MemoryCluster();
      const e = engine(store, cluster, 'r1');
      const id = await stoppedJob('untouched', cluster, [
        ['succeeded', 1],
        ['pending', 0],
        ['pending', 0],
      ]);
      const changed = await cancel(e, id);
      // An idle job whose cancel writes is queued for a runner, with the request.
      expect(changed).toMatchObject({ state: 'queued', requested: 'cancel' });
      const job = await store.get(id);
      expect(job.state).toBe('cancelled');
      const k = cluster.objects.get(kkey)!;
      expect((k.spec as any).suspend).toBeNull();
      expect(k.metadata.annotations?.['capz.io/job']).toBeNull();
      expect(job.result?.gitopsResumed).toMatchObject({
        kustomization: 'flux-system/clusters',
        why: 'untouched',
      });
      expect(job.leftBehind).toMatch(
        /^Flux's Kustomization flux-system\/clusters, which this job had suspended, was resumed when it was cancelled: none of the job's own steps had started/,
      );
      expect(job.leftBehind).not.toMatch(/is suspended by this job/);
      const log = (await store.readLog(id)).map(l => l.message);
      expect(log).toContain(
        "resumed Flux's Kustomization flux-system/clusters, which this job had suspended: none of the job's own steps had started",
      );
      // Nothing of the job's own steps ran for the cancel.
      expect(cluster.writes).toEqual([`patch ${kkey}`]);
    });

    it('leaves it suspended once an own step has started, and says why', async () => {
      const cluster = new MemoryCluster();
      const e = engine(store, cluster, 'r1');
      const id = await stoppedJob('started', cluster, [
        ['succeeded', 1],
        ['failed', 1],
        ['pending', 0],
      ]);
      const changed = await cancel(e, id);
      expect(changed?.state).toBe('cancelled');
      const job = await store.get(id);
      expect(cluster.objects.get(kkey)?.spec).toEqual({ suspend: true });
      expect(cluster.writes).toEqual([]);
      expect(job.result?.gitopsResumed).toBeUndefined();
      expect(job.leftBehind).toMatch(
        /^Flux's Kustomization flux-system\/clusters is suspended by this job/,
      );
    });

    it("leaves one that no longer carries the job's mark as it is", async () => {
      const cluster = new MemoryCluster();
      const e = engine(store, cluster, 'r1');
      const id = await stoppedJob(
        'notours',
        cluster,
        [
          ['succeeded', 1],
          ['pending', 0],
          ['pending', 0],
        ],
        'another-job',
      );
      await cancel(e, id);
      const job = await store.get(id);
      expect(job.state).toBe('cancelled');
      expect(cluster.objects.get(kkey)?.spec).toEqual({ suspend: true });
      expect(cluster.writes).toEqual([]);
      expect((await store.readLog(id)).map(l => l.message)).toContain(
        "Flux's Kustomization flux-system/clusters no longer carries this job's mark (someone else resumed or suspended it); left as it is",
      );
      expect(job.leftBehind).toMatch(/is suspended by this job/);
    });

    it('says the Kustomization runs when a cancel interrupted after its resume finds it resumed', async () => {
      const cluster = new MemoryCluster();
      const e = engine(store, cluster, 'r1');
      const id = await stoppedJob('interrupted', cluster, [
        ['succeeded', 1],
        ['pending', 0],
        ['pending', 0],
      ]);
      // The first runner's resume patch landed, and it was killed before its record.
      cluster.objects.set(kkey, {
        ...cluster.objects.get(kkey)!,
        metadata: { name: 'clusters', namespace: 'flux-system' },
        spec: {},
      });
      await cancel(e, id);
      const job = await store.get(id);
      expect(job.state).toBe('cancelled');
      expect(cluster.writes).toEqual([]);
      expect(job.result?.gitopsResumed).toMatchObject({
        kustomization: 'flux-system/clusters',
        why: 'untouched',
        found: true,
      });
      expect(job.leftBehind).toMatch(
        /^Flux's Kustomization flux-system\/clusters, which this job had suspended, was found running when the job was cancelled/,
      );
      expect(job.leftBehind).not.toMatch(/is suspended by this job/);
    });
  });

  it('a resumed job first re-checks what its finished steps established, and refuses if the world moved', async () => {
    const cluster = new MemoryCluster();
    const e = engine(store, cluster, 'r1');
    const guarded: StepPlan[] = [
      {
        ...plan[0],
        invariants: [
          {
            type: 'label',
            ref: cm('a'),
            label: 'keep',
            value: 'yes',
            description: 'ConfigMap a is labelled keep=yes',
          },
        ],
      },
      plan[1],
    ];
    guarded[0] = {
      ...guarded[0],
      actions: [
        {
          action: 'create',
          ref: cm('a'),
          object: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'a', namespace: 'ns', labels: { keep: 'yes' } },
          },
          description: 'a',
        },
      ],
    };
    const name = `guarded-${databaseId}`;
    const job = await store.insert({
      id: `${name}-id`,
      request,
      target: { ...target, name },
      plan: guarded,
      createdBy: 'user:default/ada',
    });
    e.kick(job.id);
    await until(
      'the wait step',
      async () => (await store.get(job.id)).steps[1].state === 'running',
    );
    await store.request(job.id, 'pause', () => undefined);
    e.interrupt(job.id, 'pause');
    await e.settled(job.id);
    // Someone undoes what step 1 established while the job is paused.
    await cluster.mergePatch(cm('a'), { metadata: { labels: { keep: 'no' } } });
    const writes = cluster.writes.length;
    await store.resume(job.id);
    e.kick(job.id);
    await e.settled(job.id);
    const refused = await store.get(job.id);
    expect(refused.state).toBe('failed');
    expect(refused.error).toMatch(
      /ConfigMap a is labelled keep=yes, established by step "Create a", no longer holds \(now: ConfigMap ns\/a: label keep=no\)/,
    );
    expect(refused.error).toMatch(/Nothing was changed by this resume/);
    expect(refused.steps[1].attempts).toBe(1);
    expect(cluster.writes.length).toBe(writes);
    // Put back, the job goes on from where it was.
    await cluster.mergePatch(cm('a'), {
      metadata: { labels: { keep: 'yes' } },
    });
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'ns' },
    });
    await store.resume(job.id);
    e.kick(job.id);
    await until(
      'success',
      async () => (await store.get(job.id)).state === 'succeeded',
    );
    expect((await store.get(job.id)).steps.map(s => s.attempts)).toEqual([
      1, 2,
    ]);
  });

  it('fails a step whose precondition does not hold, changing nothing, and resumes after the fix', async () => {
    const cluster = new MemoryCluster();
    const e = engine(store, cluster, 'r1');
    const job = await insert();
    // Someone else's object with the planned name: the job must not take it over.
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
    });
    const writes = cluster.writes.length;
    e.kick(job.id);
    await e.settled(job.id);
    const failed = await store.get(job.id);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(
      /ConfigMap ns\/a already exists and was not created by this job/,
    );
    expect(cluster.writes.length).toBe(writes);
    await cluster.delete(cm('a'));
    await cluster.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'ns' },
    });
    await store.resume(job.id);
    e.kick(job.id);
    await until(
      'success',
      async () => (await store.get(job.id)).state === 'succeeded',
    );
    expect((await store.get(job.id)).steps[0].attempts).toBe(2);
  });

  describe('a database outage', () => {
    /**
     * The store as a run meets an unreachable database: while `down`, or for the next `blips[method]` calls of a
     * method, every call rejects as DatabaseJobStore does when PostgreSQL refuses or cuts the connection. The real
     * restart of a real PostgreSQL under a backend process is postgresRestart.integration.test.ts.
     */
    function outage(inner: JobStore) {
      const state = {
        down: false,
        failures: 0,
        blips: {} as Partial<Record<keyof JobStore, number>>,
      };
      const flaky = new Proxy(inner, {
        get(obj, prop, receiver) {
          const v = Reflect.get(obj, prop, receiver);
          if (typeof v !== 'function') return v;
          return async (...args: unknown[]) => {
            const m = prop as keyof JobStore;
            if (state.down || (state.blips[m] ?? 0) > 0) {
              if (!state.down) state.blips[m]! -= 1;
              state.failures++;
              throw new JobDatabaseUnavailableError(
                'connection refused, ECONNREFUSED',
              );
            }
            return v.apply(obj, args);
          };
        },
      });
      return { store: flaky, state };
    }

    const withLogger = () => {
      const logger = mockServices.logger.mock();
      return { logger };
    };

    it('a run waits it out mid-step and goes on: no step runs twice, the job is not failed', async () => {
      const cluster = new MemoryCluster();
      const { store: flaky, state } = outage(store);
      const { logger } = withLogger();
      const e = engine(flaky, cluster, 'r1', 60_000, { logger });
      const job = await insert();
      e.kick(job.id);
      await until(
        'the wait step',
        async () => (await store.get(job.id)).steps[1].state === 'running',
      );
      state.down = true;
      // The wait holds now, during the outage: the step's record is the write that meets it.
      await cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b', namespace: 'ns' },
      });
      await until(
        'the run to retry its write',
        async () => state.failures >= 3,
      );
      expect((await store.get(job.id)).state).toBe('running');
      state.down = false;
      await e.settled(job.id);
      const done = await store.get(job.id);
      expect(done.state).toBe('succeeded');
      expect(done.steps.map(s => s.attempts)).toEqual([1, 1, 1]);
      expect(
        cluster.writes.filter(w => w === 'create ConfigMap/ns/a'),
      ).toHaveLength(1);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /^the job database cannot be reached \(connection refused, ECONNREFUSED\); running jobs wait up to 240 s/,
        ),
      );
      expect(logger.info).toHaveBeenCalledWith(
        expect.stringMatching(/^the job database is reachable again after/),
      );
      expect(logger.error).not.toHaveBeenCalled();
    });

    it('a blip on a write inside a step (its progress) does not fail the job', async () => {
      const cluster = new MemoryCluster();
      const { store: flaky, state } = outage(store);
      const e = engine(flaky, cluster, 'r1');
      // A wait whose progress changes while it waits: what it sees of a's label.
      const labelled: StepPlan[] = [
        plan[0],
        {
          id: 'wait-label',
          title: 'Wait for the label',
          description: '',
          preconditions: [],
          actions: [],
          waitFor: [
            {
              type: 'label',
              ref: cm('a'),
              label: 'done',
              value: 'yes',
              description: 'a labelled done=yes',
            },
          ],
          timeoutSeconds: 30,
        },
      ];
      const name = `blip-${databaseId}`;
      const job = await store.insert({
        id: `${name}-id`,
        request,
        target: { ...target, name },
        plan: labelled,
        createdBy: 'user:default/ada',
      });
      e.kick(job.id);
      await until(
        'the wait step',
        async () => (await store.get(job.id)).steps[1].state === 'running',
      );
      // The next progress write of the wait fails once (as if PostgreSQL restarted right then).
      state.blips.update = 1;
      await cluster.mergePatch(cm('a'), {
        metadata: { labels: { done: 'not yet' } },
      });
      await until('the blip', async () => state.failures === 1);
      await until('the progress after the blip', async () =>
        (await store.get(job.id)).steps[1].message?.includes('not yet'),
      );
      await cluster.mergePatch(cm('a'), {
        metadata: { labels: { done: 'yes' } },
      });
      await e.settled(job.id);
      const done = await store.get(job.id);
      expect(done.error).toBeUndefined();
      expect(done.state).toBe('succeeded');
      expect(done.steps.map(s => s.attempts)).toEqual([1, 1]);
    });

    it('past databaseWaitMs the run stops without writing, and the job resumes at its step once the database is back', async () => {
      const cluster = new MemoryCluster();
      const { store: flaky, state } = outage(store);
      const { logger } = withLogger();
      const e = engine(flaky, cluster, 'r1', 400, {
        logger,
        databaseWaitMs: 300,
      });
      const job = await insert();
      e.kick(job.id);
      await until('the wait step to say what it waits for', async () =>
        (await store.get(job.id)).steps[1].message?.includes('b exists'),
      );
      const before = await store.get(job.id);
      state.down = true;
      await cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b', namespace: 'ns' },
      });
      await e.settled(job.id);
      expect(logger.warn).toHaveBeenCalledWith(
        `job ${job.id}: stopped after waiting 0 s for the job database (connection refused, ECONNREFUSED); the job resumes at its current step when the database is back`,
      );
      expect(logger.error).not.toHaveBeenCalled();
      // Nothing of the stopped run reached the database: not a failure, not a log line.
      const log = await store.readLog(job.id);
      const stopped = await store.get(job.id);
      expect(stopped.state).toBe('running');
      expect(stopped.steps).toEqual(before.steps);
      // The pickup while the database is away finds nothing to do and throws nothing.
      await expect(e.pickup()).resolves.toBeUndefined();
      state.down = false;
      await until('the pickup to resume the job and finish it', async () => {
        await e.pickup();
        return (await store.get(job.id)).state === 'succeeded';
      });
      const done = await store.get(job.id);
      expect(done.steps.map(s => s.attempts)).toEqual([1, 2, 1]);
      const after = (await store.readLog(job.id)).slice(log.length);
      expect(after[0].message).toMatch(/^resumed on replica r1 at step wait-b/);
      expect(
        cluster.writes.filter(w => w === 'create ConfigMap/ns/a'),
      ).toHaveLength(1);
    });
  });
});
