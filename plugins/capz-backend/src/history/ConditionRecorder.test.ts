import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { EventEmitter } from 'node:events';
import { CacheChange, CachedObject } from '../cluster/ClusterWatch';
import {
  ChangeSource,
  ConditionRecorder,
  HistoryFlush,
} from './ConditionRecorder';
import { DatabaseHistoryStore } from './DatabaseHistoryStore';
import {
  DeletionRow,
  EventRow,
  HistoryStore,
  TransitionRow,
} from './HistoryStore';

const MC = 'local';
const NS = 'team-a';
const CAPZ = 'infrastructure.cluster.x-k8s.io';

/** A watch cache stand-in: objects by kind, and the change stream the real one emits. */
class FakeCache extends EventEmitter implements ChangeSource {
  readonly objects = new Map<string, CachedObject[]>();

  list(_mc: string, kind: string, namespace?: string): CachedObject[] {
    return (this.objects.get(kind) ?? []).filter(
      o => namespace === undefined || o.metadata.namespace === namespace,
    );
  }

  change(type: CacheChange['type'], kind: string, object: CachedObject): void {
    const others = (this.objects.get(kind) ?? []).filter(
      o => o.metadata.uid !== object.metadata.uid,
    );
    this.objects.set(kind, type === 'delete' ? others : [...others, object]);
    this.emit('change', {
      managementCluster: MC,
      kind,
      type,
      object,
    } satisfies CacheChange);
  }
}

const ready = (
  status: string,
  reason: string,
  time: string,
  extra: Record<string, unknown> = {},
) => ({
  conditions: [
    { type: 'Ready', status, reason, lastTransitionTime: time, ...extra },
  ],
});

function cluster(): CachedObject {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'payments', namespace: NS, uid: 'cluster-uid' },
    spec: {
      controlPlaneRef: {
        apiGroup: CAPZ,
        kind: 'AzureASOManagedControlPlane',
        name: 'payments',
      },
      infrastructureRef: {
        apiGroup: CAPZ,
        kind: 'AzureASOManagedCluster',
        name: 'payments',
      },
    },
    status: {
      conditions: [
        {
          type: 'Available',
          status: 'False',
          reason: 'NotAvailable',
          lastTransitionTime: '2026-11-20T10:00:00Z',
        },
      ],
    },
  };
}

function controlPlane(): CachedObject {
  return {
    apiVersion: `${CAPZ}/v1beta1`,
    kind: 'AzureASOManagedControlPlane',
    metadata: { name: 'payments', namespace: NS, uid: 'cp-uid' },
    spec: {
      resources: [
        {
          apiVersion: 'containerservice.azure.com/v1api20240901',
          kind: 'ManagedCluster',
          metadata: { name: 'payments' },
        },
      ],
    },
  };
}

function managedCluster(status: Record<string, unknown>): CachedObject {
  return {
    apiVersion: 'containerservice.azure.com/v1api20240901',
    kind: 'ManagedCluster',
    metadata: { name: 'payments', namespace: NS, uid: 'mc-uid' },
    status,
  };
}

/** A store that keeps rows in memory and can be told to fail. */
class FakeStore implements HistoryStore {
  transitions: TransitionRow[] = [];
  events: EventRow[] = [];
  deletions: DeletionRow[] = [];
  calls = 0;
  failures = 0;
  async recordTransitions(rows: TransitionRow[]) {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('database is down');
    }
    this.transitions.push(...rows);
    return rows;
  }
  async recordEvents(rows: EventRow[]) {
    this.events.push(...rows);
  }
  async recordDeletions(rows: DeletionRow[]) {
    this.deletions.push(...rows);
  }
  async timeline(): Promise<never> {
    throw new Error('not used');
  }
  async prune() {
    return { transitions: 0, events: 0, deletions: 0 };
  }
}

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const clock = () => new Date('2026-11-20T10:10:00.000Z');

/** A watch cache doing its first list until the test sets `listing` false (and emits `listed`). */
const listingCache = () =>
  Object.assign(new FakeCache(), {
    listing: true,
    initialListing() {
      return this.listing;
    },
  });

/** A ResourceGroup with a Ready condition (Succeeded when True, else Failed). */
const resourceGroup = (
  i: number,
  status = 'True',
  time = '2026-11-20T10:00:00Z',
): CachedObject => ({
  kind: 'ResourceGroup',
  metadata: { name: `rg-${i}`, namespace: NS, uid: `rg-${i}` },
  status: ready(status, status === 'True' ? 'Succeeded' : 'Failed', time),
});

type RecorderOptions = ConstructorParameters<typeof ConditionRecorder>[0];

/** A recorder over the cache and store: a mock logger, the test clock, no timed flush unless `options` say. */
const recorderOf = (
  cache: RecorderOptions['cache'],
  store: HistoryStore,
  options: Partial<RecorderOptions> = {},
) =>
  new ConditionRecorder({
    cache,
    store,
    logger: mockServices.logger.mock(),
    clock,
    flushIntervalMs: 60_000,
    ...options,
  });

/** Every flush the recorder announces, as it announces them. */
function flushesOf(recorder: ConditionRecorder): HistoryFlush[] {
  const flushes: HistoryFlush[] = [];
  recorder.on('flush', f => flushes.push(f));
  return flushes;
}

/** Cluster payments and its control plane, whose tree reaches the ManagedCluster payments. */
function addCluster(cache: FakeCache): void {
  cache.change('add', 'Cluster', cluster());
  cache.change('add', 'AzureASOManagedControlPlane', controlPlane());
}

/** A started recorder over a new cache and store, with the flushes it announces. */
function started() {
  const cache = new FakeCache();
  const store = new FakeStore();
  const recorder = recorderOf(cache, store);
  const flushes = flushesOf(recorder);
  recorder.start();
  return { cache, store, recorder, flushes };
}

/** Runs `around` in each write of transitions; it calls `write` to write them. */
function aroundWrites(
  store: FakeStore,
  around: (
    rows: TransitionRow[],
    write: (rows: TransitionRow[]) => Promise<TransitionRow[]>,
  ) => Promise<TransitionRow[]>,
): void {
  const write = store.recordTransitions.bind(store);
  store.recordTransitions = rows => around(rows, write);
}

describe('ConditionRecorder', () => {
  it('records the transitions of every object with the Cluster it belongs to, and announces the Cluster', async () => {
    const { cache, store, recorder, flushes } = started();

    addCluster(cache);
    cache.change(
      'add',
      'ManagedCluster',
      managedCluster(
        ready('False', 'Reconciling', '2026-11-20T10:00:00Z', {
          severity: 'Info',
        }),
      ),
    );
    // A pool CAPI labelled but that no tree reaches (its MachinePool is missing): the label decides.
    cache.change('add', 'ManagedClustersAgentPool', {
      kind: 'ManagedClustersAgentPool',
      metadata: {
        name: 'payments-pool',
        namespace: NS,
        uid: 'pool-uid',
        labels: { 'cluster.x-k8s.io/cluster-name': 'payments' },
      },
      status: ready('True', 'Succeeded', '2026-11-20T10:01:00Z'),
    });
    cache.change('add', 'ResourceGroup', {
      kind: 'ResourceGroup',
      metadata: { name: 'stray', namespace: NS, uid: 'rg-uid' },
      status: ready('True', 'Succeeded', '2026-11-20T10:00:00Z'),
    });
    cache.change(
      'update',
      'ManagedCluster',
      managedCluster(ready('True', 'Succeeded', '2026-11-20T10:05:00Z')),
    );
    // Unchanged conditions: nothing to record.
    cache.change('update', 'ManagedCluster', {
      ...managedCluster(ready('True', 'Succeeded', '2026-11-20T10:05:00Z')),
      spec: { x: 1 },
    });
    cache.change('add', 'Event', {
      kind: 'Event',
      metadata: { name: 'mc.1', namespace: NS, uid: 'ev-uid' },
      involvedObject: {
        kind: 'ManagedCluster',
        name: 'payments',
        namespace: NS,
        uid: 'mc-uid',
      },
      type: 'Normal',
      reason: 'Created',
      firstTimestamp: '2026-11-20T10:00:00Z',
      lastTimestamp: '2026-11-20T10:00:00Z',
    });
    // Events about objects the history does not follow are not kept.
    cache.change('add', 'Event', {
      kind: 'Event',
      metadata: { name: 'pod.1', namespace: NS, uid: 'ev-pod' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: NS, uid: 'pod-uid' },
    });
    expect(store.calls).toBe(0); // nothing was written synchronously with the watch
    await recorder.flush();

    expect(
      store.transitions.map(t => [
        t.kind,
        t.conditionType,
        t.status,
        t.reason,
        t.clusterName,
      ]),
    ).toEqual([
      ['Cluster', 'Available', 'False', 'NotAvailable', 'payments'],
      ['ManagedCluster', 'Ready', 'False', 'Reconciling', 'payments'],
      ['ManagedClustersAgentPool', 'Ready', 'True', 'Succeeded', 'payments'],
      ['ResourceGroup', 'Ready', 'True', 'Succeeded', undefined],
      ['ManagedCluster', 'Ready', 'True', 'Succeeded', 'payments'],
    ]);
    expect(store.events.map(e => [e.eventUid, e.kind, e.clusterName])).toEqual([
      ['ev-uid', 'ManagedCluster', 'payments'],
    ]);
    expect(flushes).toEqual([
      {
        managementCluster: MC,
        namespace: NS,
        clusterNames: ['payments'],
        clusterUids: ['cluster-uid'],
      },
    ]);
    await recorder.stop();
  });

  it("keeps Flux's Kustomizations and GitRepositories out of the history: no transition, deletion or Event row", async () => {
    const { cache, store, recorder, flushes } = started();
    addCluster(cache);
    await recorder.flush();
    const before = {
      transitions: store.transitions.length,
      deletions: store.deletions.length,
      events: store.events.length,
    };
    flushes.length = 0;
    // In the cluster's namespace, even labelled with its name: still no part of its history.
    const flux = (
      kind: string,
      name: string,
      status: string,
    ): CachedObject => ({
      kind,
      metadata: {
        name,
        namespace: NS,
        uid: `${kind}-uid`,
        labels: { 'cluster.x-k8s.io/cluster-name': 'payments' },
      },
      status: ready(
        status,
        status === 'True' ? 'Succeeded' : 'Failed',
        '2026-11-20T10:02:00Z',
      ),
    });
    for (const kind of ['Kustomization', 'GitRepository']) {
      cache.change('add', kind, flux(kind, 'payments', 'False'));
      cache.change('update', kind, flux(kind, 'payments', 'True'));
      cache.change('add', 'Event', {
        kind: 'Event',
        metadata: { name: `${kind}.1`, namespace: NS, uid: `ev-${kind}` },
        involvedObject: {
          kind,
          name: 'payments',
          namespace: NS,
          uid: `${kind}-uid`,
        },
        type: 'Normal',
        reason: 'ReconciliationSucceeded',
        firstTimestamp: '2026-11-20T10:02:00Z',
        lastTimestamp: '2026-11-20T10:02:00Z',
      });
      cache.change('delete', kind, flux(kind, 'payments', 'True'));
    }
    await recorder.flush();
    expect({
      transitions: store.transitions.length,
      deletions: store.deletions.length,
      events: store.events.length,
    }).toEqual(before);
    expect(flushes).toEqual([]);
    await recorder.stop();
  });

  it('records a deleted object with the Cluster its transitions were written with, and announces it', async () => {
    const { cache, store, recorder, flushes } = started();
    addCluster(cache);
    // No cluster-name label: only the tree (gone with the object) knew its Cluster.
    cache.change(
      'add',
      'ManagedCluster',
      managedCluster(ready('True', 'Succeeded', '2026-11-20T10:00:00Z')),
    );
    await recorder.flush();
    flushes.length = 0;
    cache.change(
      'delete',
      'ManagedCluster',
      managedCluster(ready('True', 'Succeeded', '2026-11-20T10:00:00Z')),
    );
    await recorder.flush();
    expect(store.deletions).toEqual([
      {
        managementCluster: MC,
        namespace: NS,
        clusterName: 'payments',
        objectUid: 'mc-uid',
        kind: 'ManagedCluster',
        name: 'payments',
        deletedAt: clock().toISOString(),
      },
    ]);
    expect(flushes.map(f => f.clusterNames)).toEqual([['payments']]);
    await recorder.stop();
  });

  it('writes a burst (the initial list) in batches, never one row at a time', async () => {
    const cache = new FakeCache();
    const store = new FakeStore();
    const recorder = recorderOf(cache, store, { maxBatchSize: 1000 });
    recorder.start();
    for (let i = 0; i < 3500; i++) {
      cache.change('add', 'ResourceGroup', resourceGroup(i));
    }
    await recorder.flush();
    expect(store.transitions).toHaveLength(3500);
    expect(store.calls).toBeLessThanOrEqual(4);
    await recorder.stop();
  });

  it("holds the rows of a cache's first list until it is over, then writes them at once", async () => {
    const cache = listingCache();
    const store = new FakeStore();
    const recorder = recorderOf(cache, store, {
      maxBatchSize: 1,
      maxPending: 2,
    });
    const written = new Promise<void>(resolve => {
      aroundWrites(store, async (rows, write) => {
        const result = await write(rows);
        resolve();
        return result;
      });
    });
    recorder.start();
    for (let i = 0; i < 3; i++) {
      cache.change('add', 'ResourceGroup', resourceGroup(i));
    }
    // A full batch, yet nothing written, and nothing dropped beyond maxPending while the list lasts.
    expect(store.calls).toBe(0);
    cache.listing = false;
    cache.emit('listed', MC);
    await written;
    await recorder.flush();
    expect(store.transitions).toHaveLength(3);
    await recorder.stop();
  });

  it("turns a first list's objects into rows after it, in order, in batches that let other work run between them", async () => {
    const cache = listingCache();
    const store = new FakeStore();
    const recorder = recorderOf(cache, store, { maxBatchSize: 1000 });
    // Macrotasks that run while the rows are computed and written: a page view's request would be one.
    let ticks = 0;
    const ticksAtWrite: number[] = [];
    aroundWrites(store, async (rows, write) => {
      ticksAtWrite.push(ticks);
      return write(rows);
    });
    recorder.start();
    for (let i = 0; i < 2500; i++)
      cache.change('add', 'ResourceGroup', resourceGroup(i));
    // A change of a listed object while the list goes on: recorded after its add, not instead of it.
    cache.change(
      'update',
      'ResourceGroup',
      resourceGroup(7, 'False', '2026-11-20T10:05:00Z'),
    );
    cache.listing = false;
    cache.emit('listed', MC);
    let ticking = true;
    const tick = () => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    await recorder.flush();
    ticking = false;
    expect(store.transitions).toHaveLength(2501);
    expect(
      store.transitions
        .filter(t => t.objectUid === 'rg-7')
        .map(t => [t.status, t.transitionTime]),
    ).toEqual([
      ['True', '2026-11-20T10:00:00.000Z'],
      ['False', '2026-11-20T10:05:00.000Z'],
    ]);
    // Batches of at most maxBatchSize rows, with other macrotasks run before and between them.
    expect(store.calls).toBe(3);
    expect(ticksAtWrite[0]).toBeGreaterThan(0);
    expect(ticksAtWrite[2]).toBeGreaterThan(ticksAtWrite[0]);
    await recorder.stop();
  });

  it('records what the cache already holds when it starts (the cache started first), then its changes', async () => {
    const cache = listingCache();
    // Half the list arrived before the recorder subscribed, half after.
    cache.change('add', 'ResourceGroup', resourceGroup(1));
    const store = new FakeStore();
    const recorder = recorderOf(cache, store, { managementClusters: [MC] });
    recorder.start();
    cache.change('add', 'ResourceGroup', resourceGroup(2));
    cache.change(
      'update',
      'ResourceGroup',
      resourceGroup(1, 'False', '2026-11-20T10:05:00Z'),
    );
    cache.listing = false;
    cache.emit('listed', MC);
    await recorder.flush();
    expect(
      store.transitions.map(t => [t.objectUid, t.status, t.transitionTime]),
    ).toEqual([
      ['rg-1', 'True', '2026-11-20T10:00:00.000Z'],
      ['rg-1', 'False', '2026-11-20T10:05:00.000Z'],
      ['rg-2', 'True', '2026-11-20T10:00:00.000Z'],
    ]);
    await recorder.stop();
  });

  it('writes what arrived during a write without waiting for another change', async () => {
    const cache = new FakeCache();
    const store = new FakeStore();
    let release!: () => void;
    let entered!: () => void;
    const blocked = new Promise<void>(resolve => (release = resolve));
    const inFirstWrite = new Promise<void>(resolve => (entered = resolve));
    let first = true;
    aroundWrites(store, async (rows, write) => {
      if (first) {
        first = false;
        entered();
        await blocked;
      }
      return write(rows);
    });
    const recorder = recorderOf(cache, store, { flushIntervalMs: 1 });
    const written = new Promise<void>(resolve =>
      recorder.on('flush', () => store.transitions.length === 2 && resolve()),
    );
    recorder.start();
    cache.change('add', 'Cluster', cluster());
    await inFirstWrite;
    cache.change('add', 'Cluster', {
      ...cluster(),
      metadata: { name: 'search', namespace: NS, uid: 'search-uid' },
    });
    release();
    await written;
    expect(store.transitions.map(t => t.clusterName)).toEqual([
      'payments',
      'search',
    ]);
    await recorder.stop();
  });

  it('keeps the rows when a write fails, logs it, and writes them on the retry', async () => {
    const cache = new FakeCache();
    const store = new FakeStore();
    store.failures = 1;
    const logger = mockServices.logger.mock();
    const recorder = recorderOf(cache, store, {
      logger,
      flushIntervalMs: 1,
      retryDelayMs: 1,
    });
    const flushed = new Promise<HistoryFlush>(resolve =>
      recorder.once('flush', resolve),
    );
    recorder.start();
    cache.change('add', 'Cluster', cluster());
    expect(await flushed).toMatchObject({ clusterNames: ['payments'] });
    expect(store.calls).toBe(2);
    expect(store.transitions.map(t => t.objectUid)).toEqual(['cluster-uid']);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining(
        'could not write 1 row(s), retrying in 1 ms: database is down',
      ),
    );
    await recorder.stop();
  });

  it('writes nothing twice when a restarted backend lists the same objects again', async () => {
    const knex = await databases.init('SQLITE_3');
    const store = await DatabaseHistoryStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    const objects: Array<[string, CachedObject]> = [
      ['Cluster', cluster()],
      ['AzureASOManagedControlPlane', controlPlane()],
      [
        'ManagedCluster',
        managedCluster(ready('True', 'Succeeded', '2026-11-20T10:05:00Z')),
      ],
    ];
    const run = async () => {
      const cache = new FakeCache();
      // The recorder's own clock, as in a running backend.
      const recorder = recorderOf(cache, store, { clock: undefined });
      const flushes = flushesOf(recorder);
      recorder.start();
      for (const [kind, o] of objects) cache.change('add', kind, o);
      await recorder.stop();
      return flushes;
    };
    expect(await run()).toHaveLength(1);
    expect(await run()).toEqual([]); // nothing new: no announcement either
    const timeline = await store.timeline({
      managementCluster: MC,
      namespace: NS,
      cluster: 'payments',
      from: new Date(0),
      to: new Date('2030-01-01'),
      limit: 100,
    });
    expect(
      timeline.transitions.map(t => `${t.kind}/${t.conditionType}=${t.status}`),
    ).toEqual(['Cluster/Available=False', 'ManagedCluster/Ready=True']);
  });
});
