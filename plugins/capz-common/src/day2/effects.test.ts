import { clusterOf, edit, world } from './__fixtures__/cluster';
import { planDay2Action, type Day2PlanResult } from './plan';
import { readDay2Cluster } from './snapshot';
import type { Day2Action } from './api';
import type { ObservedObject } from '../objects/types';

const plan = (
  objects: ObservedObject[],
  action: Day2Action,
  ctx: Parameters<typeof planDay2Action>[2] = {},
) => {
  const r: Day2PlanResult = planDay2Action(
    readDay2Cluster(clusterOf(objects), objects),
    action,
    ctx,
  );
  if (!r.ok) throw new Error(r.problems.map(p => p.message).join('; '));
  return r;
};

/** The live ASO object's status as ASO writes it (provisioning state from ARM, its Ready condition). */
const withStatus = (
  objects: ObservedObject[],
  kind: string,
  name: string,
  status: Record<string, unknown>,
) =>
  edit(objects, kind, name, o => {
    o.status = { ...o.status, ...status };
  });

describe("a plan's effects in Azure, from the same plan", () => {
  it('a scale names the agent pool, the AKS cluster and the VMs added or deleted', () => {
    expect(
      plan(world(), { action: 'scale', pool: 'user', replicas: 5 }).effects,
    ).toEqual([
      'AKS agent pool user of AKS cluster alpha: 2 → 5 VMs (AKS adds 3 VMs of Standard_D4s_v3).',
    ]);
    expect(
      plan(world(), { action: 'scale', pool: 'user', replicas: 1 }).effects,
    ).toEqual([
      "AKS agent pool user of AKS cluster alpha: 2 → 1 VM (AKS deletes 1 VM; the pods on it are evicted and rescheduled on the pool's other nodes).",
    ]);
    // Nothing to change: nothing happens in Azure either.
    expect(
      plan(world(), { action: 'scale', pool: 'user', replicas: 2 }).effects,
    ).toBeUndefined();
  });

  it("a pool upgrade says AKS surges and reimages the pool's VMs; a control-plane upgrade says the VMs are not touched", () => {
    const offered = ['1.33.2', '1.34.1'];
    // Written without the v, as some manifests have it: one form on both sides.
    const older = edit(world(), 'MachinePool', 'alpha-user', o => {
      (o.spec as any).template.spec.version = '1.32.6';
    });
    const pools = plan(older, {
      action: 'upgrade',
      version: 'v1.33.2',
      target: { pools: ['user'] },
    });
    expect(pools.effects).toEqual([
      'AKS agent pool user of AKS cluster alpha: v1.32.6 → v1.33.2 on each of its 2 VMs: AKS adds surge VMs (max surge, 10% by default), then cordons, drains and reimages the old nodes a batch at a time, evicting their pods.',
    ]);
    const cp = plan(
      world(),
      { action: 'upgrade', version: 'v1.34.1', target: 'controlPlane' },
      { offeredVersions: offered },
    );
    expect(cp.effects).toEqual([
      "AKS cluster alpha: AKS upgrades the control plane (the API server) from v1.33.2 to v1.34.1; the agent pools' VMs are not touched.",
    ]);
  });

  it("autoscaling on names the autoscaler's bounds; off, the count the pool keeps", () => {
    expect(
      plan(world(), {
        action: 'autoscale',
        pool: 'user',
        enabled: true,
        minCount: 1,
        maxCount: 5,
      }).effects,
    ).toEqual([
      "AKS agent pool user of AKS cluster alpha: AKS's cluster autoscaler sets the VM count, between 1 and 5, from the pods waiting to be scheduled.",
    ]);
  });
});

describe("the live state's cautions (status, outside the digest)", () => {
  it('says AKS is busy when the ManagedCluster or the pool is in an operation, and nothing when settled', () => {
    const action: Day2Action = { action: 'scale', pool: 'user', replicas: 3 };
    expect(plan(world(), action).cautions).toBeUndefined();
    expect(
      plan(
        withStatus(world(), 'ManagedCluster', 'alpha', {
          provisioningState: 'Succeeded',
        }),
        action,
      ).cautions,
    ).toBeUndefined();

    const busyCluster = withStatus(world(), 'ManagedCluster', 'alpha', {
      provisioningState: 'Upgrading',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ReconciliationBlocked',
          message:
            'Managed cluster "alpha" is in provisioning state "Upgrading"',
        },
      ],
    });
    expect(plan(busyCluster, action).cautions).toEqual([
      "AKS cluster alpha is busy (provisioning state 'Upgrading', ASO: ReconciliationBlocked): ASO sends this change only once AKS's current operation ends, so it may take longer; it keeps retrying.",
    ]);

    const busyPool = withStatus(
      world(),
      'ManagedClustersAgentPool',
      'alpha-user',
      { provisioningState: 'Scaling' },
    );
    expect(plan(busyPool, action).cautions).toEqual([
      "AKS agent pool user of AKS cluster alpha is busy (provisioning state 'Scaling'): ASO sends this change only once AKS's current operation ends, so it may take longer; it keeps retrying.",
    ]);
    // Another pool's operation is not this action's.
    expect(
      plan(busyPool, { action: 'scale', pool: 'system', replicas: 4 }).cautions,
    ).toBeUndefined();
  });
});
