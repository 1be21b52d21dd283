/**
 * Which events reach the simulated adoption controllers (finding 16, docs/real-controllers.md#findings): as in CAPZ
 * v1.26.0 (controllers/agentpooladopt_controller.go, managedclusteradopt_controller.go `WithEventFilter`), creates
 * do, updates only when the adopt annotation changed, deletions never. A pool object whose AzureASOManagedMachinePool
 * owner reference the garbage collector drops (a deleting Cluster leaves its pools to their ManagedCluster) is
 * therefore not adopted again. The event source is a stub: this is about the controller loop's filter, not the API.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADOPT, AdoptionControllers } from '../src/capz/adopt.ts';
import type { Cache, EventType } from '../src/runtime/cache.ts';
import type { Kube } from '../src/runtime/kube.ts';
import type { Obj } from '../src/runtime/types.ts';

type Handler = (type: EventType, obj: Obj) => void;

function stubCache() {
  const handlers = new Map<string, Handler[]>();
  return {
    cache: {
      on: (kind: string, h: Handler) =>
        handlers.set(kind, [...(handlers.get(kind) ?? []), h]),
      get: () => undefined,
      list: () => [],
    } as unknown as Cache,
    emit: (kind: string, type: EventType, obj: Obj) =>
      (handlers.get(kind) ?? []).forEach(h => h(type, obj)),
    kinds: () => [...handlers.keys()],
  };
}

const pool = (annotations: Record<string, string>, owners: string[]): Obj => ({
  apiVersion: 'containerservice.azure.com/v1api20240901',
  kind: 'ManagedClustersAgentPool',
  metadata: {
    namespace: 'ns',
    name: 'c1-pool0',
    annotations,
    ownerReferences: owners.map(kind => ({
      apiVersion:
        kind === 'ManagedCluster'
          ? 'containerservice.azure.com/v1api20240901'
          : 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind,
      name: 'c1-pool0',
      uid: kind,
    })),
  },
  spec: { owner: { name: 'c1' } },
});

for (const [kind, controllerName] of [
  ['ManagedClustersAgentPool', 'capz-agentpool-adopt'],
  ['ManagedCluster', 'capz-managedcluster-adopt'],
] as const) {
  test(`${controllerName}: creates and adopt-annotation changes are reconciled; other updates and deletions are not`, () => {
    const { cache, emit, kinds } = stubCache();
    const adoption = new AdoptionControllers(
      {} as Kube,
      cache,
      () => undefined,
    );
    const controller = adoption.controllers.find(
      c => c.spec.name === controllerName,
    )!;
    const enqueued: string[] = [];
    controller.enqueue = key => void enqueued.push(key);
    // The real controllers watch nothing but their own kind (no Owns/Watches in SetupWithManager).
    assert.deepEqual(kinds().sort(), [
      'ManagedCluster',
      'ManagedClustersAgentPool',
    ]);

    const adopted = pool({ [ADOPT]: 'true' }, [
      'AzureASOManagedMachinePool',
      'ManagedCluster',
    ]);
    const o = { ...adopted, kind };
    emit(kind, 'add', o);
    assert.deepEqual(enqueued, ['ns/c1-pool0'], 'a create is reconciled');

    // The garbage collector drops the CAPZ owner reference: an update with the same adopt annotation.
    const orphaned = {
      ...pool({ [ADOPT]: 'true' }, ['ManagedCluster']),
      kind,
    };
    emit(kind, 'update', orphaned);
    emit(kind, 'update', {
      ...orphaned,
      metadata: { ...orphaned.metadata, deletionTimestamp: 'now' },
    });
    assert.deepEqual(enqueued, ['ns/c1-pool0'], 'other updates are not');

    emit(kind, 'update', { ...pool({}, ['ManagedCluster']), kind });
    emit(kind, 'update', { ...pool({ [ADOPT]: 'true' }, []), kind });
    assert.deepEqual(
      enqueued,
      ['ns/c1-pool0', 'ns/c1-pool0', 'ns/c1-pool0'],
      'removing and adding the annotation are',
    );

    emit(kind, 'delete', o);
    assert.equal(enqueued.length, 3, 'a deletion is not');
    for (const c of adoption.controllers) c.stop();
  });
}
