/**
 * Deleting a Cluster as a user does, on both APIs, as the real controllers do it (docs/real-controllers.md#findings,
 * finding 9): CAPI v1.13.3 deletes one phase at a time (internal/controllers/cluster/cluster_controller.go
 * `reconcileDelete`: MachinePools, then the control plane, then the infrastructure cluster, each waited for), and
 * CAPZ v1.26.0 leaves the agent pools of a deleting Cluster to AKS (controllers/azureasomanagedmachinepool_controller.go
 * and azuremanagedmachinepool_controller.go `reconcileDelete`): no agent pool is deleted on its own in Azure (AKS
 * would refuse the last System pool), the AKS cluster takes them with it, and their ASO objects go by garbage
 * collection once their ManagedCluster is gone (ASO made it their owner).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { K, type KindName } from '../src/runtime/kinds.ts';
import type { Obj } from '../src/runtime/types.ts';
import { asoManagedCluster, legacyCluster } from '../src/scenarios/seed.ts';
import {
  condition,
  credentialSecret,
  namespaceFor,
  simulatorForFile,
  SUB,
  until,
} from './helpers.ts';

const env = simulatorForFile();
const pools = [
  { name: 'system', mode: 'System' as const, count: 1 },
  { name: 'user', mode: 'User' as const, count: 2 },
];

const WATCHED: KindName[] = [
  'Cluster',
  'MachinePool',
  'AzureASOManagedCluster',
  'AzureASOManagedControlPlane',
  'AzureASOManagedMachinePool',
  'AzureManagedCluster',
  'AzureManagedControlPlane',
  'AzureManagedMachinePool',
  'ResourceGroup',
  'ManagedCluster',
  'ManagedClustersAgentPool',
];

/**
 * What happened, in the order the API server did it: `<Kind>/<name> deleting|gone`, and the Cluster's Deleting reasons.
 * The simulator's cache watches each kind on a stream of its own, so the order in which it hears of two kinds is not
 * the order of the writes (under load the news of a ManagedCluster's deletion came after its agent pools'):
 * the entries are ordered by the resourceVersion each was seen at, which this API server takes from etcd's one
 * revision counter (a delete's event carries the deletion's revision), and kept in arrival order within an equal one.
 */
function recorder(ns: string) {
  const entries: Array<{ rv: bigint; text: string }> = [];
  const events = {
    push(text: string, o: Obj) {
      entries.push({ rv: BigInt(o.metadata.resourceVersion ?? '0'), text });
    },
    /** The entries so far, in the API server's order. */
    inOrder: () =>
      entries
        .map((e, i) => ({ ...e, i }))
        .sort((a, b) => (a.rv === b.rv ? a.i - b.i : a.rv < b.rv ? -1 : 1))
        .map(e => e.text),
  };
  const seen = new Set<string>();
  let lastReason: string | undefined;
  for (const kind of WATCHED)
    env.sim.cache.on(kind, (type: string, o: Obj) => {
      if (o.metadata.namespace !== ns) return;
      const id = `${kind}/${o.metadata.name}`;
      if (type === 'delete') {
        events.push(`${id} gone`, o);
        return;
      }
      if (o.metadata.deletionTimestamp && !seen.has(id)) {
        seen.add(id);
        events.push(`${id} deleting`, o);
      }
      const reason = condition(o, 'Deleting')?.reason;
      // The Deleting reasons CAPI wrote while deleting, each once in a row (the first update after the delete may
      // still carry NotDeleting).
      if (
        kind === 'Cluster' &&
        o.metadata.deletionTimestamp &&
        reason &&
        reason !== 'NotDeleting' &&
        reason !== lastReason
      ) {
        lastReason = reason;
        events.push(`Cluster Deleting=${reason}`, o);
      }
    });
  return events;
}

/** Counts the agent pool deletions Azure accepted (the DELETE calls that did not fail). */
function countPoolDeletes() {
  const counted = { accepted: 0, refused: [] as string[] };
  const original = env.world.deleteAgentPool.bind(env.world);
  env.world.deleteAgentPool = (...args: Parameters<typeof original>) => {
    try {
      const r = original(...args);
      if (r) counted.accepted++;
      return r;
    } catch (e) {
      counted.refused.push((e as Error).message);
      throw e;
    }
  };
  return { counted, restore: () => (env.world.deleteAgentPool = original) };
}

async function deleteAndWait(ns: string, name: string) {
  await env.kube.delete(K.Cluster, ns, name);
  await until(
    `every object of Cluster ${ns}/${name} to be gone`,
    async () => {
      for (const kind of WATCHED)
        if ((await env.kube.list(K[kind], ns)).items.length) return false;
      return true;
    },
    60_000,
  );
}

const before = (events: string[], a: string, b: string) => {
  const ia = events.indexOf(a);
  const ib = events.indexOf(b);
  assert.ok(ia >= 0, `${a} was seen: ${events.join('; ')}`);
  assert.ok(ib >= 0, `${b} was seen: ${events.join('; ')}`);
  assert.ok(ia < ib, `${a} before ${b}: ${events.join('; ')}`);
};

for (const api of ['aso', 'legacy'] as const) {
  test(`deleting a ${api} Cluster: machine pools, then the control plane, then the infrastructure; no agent pool deleted on its own in Azure`, async t => {
    const name = `del-${api}`;
    const ns = await namespaceFor(t, name);
    const rg = `rg-${name}`;
    const [cpKind, infraKind, ammpKind] =
      api === 'aso'
        ? ([
            'AzureASOManagedControlPlane',
            'AzureASOManagedCluster',
            'AzureASOManagedMachinePool',
          ] as const)
        : ([
            'AzureManagedControlPlane',
            'AzureManagedCluster',
            'AzureManagedMachinePool',
          ] as const);
    if (api === 'aso') {
      await env.kube.create(K.Secret, credentialSecret(ns, 'aso-credential'));
      await asoManagedCluster(env.kube, {
        namespace: ns,
        name,
        credentialSecret: 'aso-credential',
        pools,
      });
    } else {
      await legacyCluster(env.kube, env.world, {
        namespace: ns,
        name,
        subscription: SUB,
        resourceGroup: rg,
        pools,
      });
    }
    await until(
      `${name} to be Available with its pools in Azure`,
      async () =>
        condition(await env.kube.get(K.Cluster, ns, name), 'Available')
          ?.status === 'True' &&
        (
          await env.kube.list(K.ManagedClustersAgentPool, ns)
        ).items.filter(
          p =>
            condition(p, 'Ready')?.status === 'True' &&
            // ASO made the ManagedCluster an owner of each pool (common.go ApplyOwnership).
            (p.metadata.ownerReferences ?? []).some(
              r => r.kind === 'ManagedCluster',
            ),
        ).length === pools.length,
      30_000,
    );
    const mcName =
      api === 'aso'
        ? name
        : (await env.kube.list(K.ManagedCluster, ns)).items[0].spec.azureName;
    const azureRg =
      api === 'aso'
        ? (await env.kube.list(K.ResourceGroup, ns)).items[0].spec?.azureName ??
          (await env.kube.list(K.ResourceGroup, ns)).items[0].metadata.name
        : rg;
    assert.ok(env.world.getManagedCluster(SUB, azureRg, mcName));
    const recorded = recorder(ns);
    const { counted, restore } = countPoolDeletes();
    t.after(restore);
    const deleted = structuredClone(env.world.counters.deleted);

    await deleteAndWait(ns, name);
    const events = recorded.inOrder();

    // CAPI's phases, as its Deleting condition names them.
    assert.deepEqual(
      events.filter(e => e.startsWith('Cluster Deleting=')),
      [
        'Cluster Deleting=WaitingForWorkersDeletion',
        'Cluster Deleting=WaitingForControlPlaneDeletion',
        'Cluster Deleting=WaitingForInfrastructureDeletion',
      ],
    );
    for (const p of pools) {
      before(
        events,
        `MachinePool/${name}-${p.name} gone`,
        `${cpKind}/${name} deleting`,
      );
      before(
        events,
        `${ammpKind}/${name}-${p.name} gone`,
        `${cpKind}/${name} deleting`,
      );
    }
    // The legacy AzureManagedCluster has no finalizer (CAPZ's controller adds none), so it may be seen only gone.
    before(
      events,
      `${cpKind}/${name} gone`,
      events.find(e => e.startsWith(`${infraKind}/${name} `)) ??
        `${infraKind}/${name} deleting`,
    );
    // The pools' ASO objects outlive their CAPZ objects and go only after their ManagedCluster.
    for (const p of pools)
      before(
        events,
        `ManagedCluster/${api === 'aso' ? name : mcName} gone`,
        `ManagedClustersAgentPool/${name}-${p.name} gone`,
      );

    // ASO's delete of those pool objects still needs their credential: the legacy `<cluster>-aso-secret` goes with
    // its control plane, which CAPZ keeps until well after the ManagedCluster is gone.
    if (api === 'legacy')
      for (const p of pools)
        before(
          events,
          `ManagedClustersAgentPool/${name}-${p.name} gone`,
          `${cpKind}/${name} gone`,
        );
    assert.equal(counted.accepted, 0, 'no agent pool deleted on its own');
    assert.deepEqual(
      counted.refused.filter(m => /system agent pool/.test(m)),
      [],
    );
    assert.equal(env.world.getManagedCluster(SUB, azureRg, mcName), undefined);
    assert.equal(
      env.world.counters.deleted.managedClusters - deleted.managedClusters,
      1,
    );
    assert.equal(
      env.world.counters.deleted.agentPools - deleted.agentPools,
      pools.length,
      'each pool went with its cluster, counted once',
    );
  });
}
