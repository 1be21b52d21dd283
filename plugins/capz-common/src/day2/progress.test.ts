import type { TreeNode } from '../tree/types';
import type { Day2Action, Day2Plan } from './api';
import { day2Progress } from './progress';

function node(
  over: Partial<TreeNode> & { kind: string; name: string },
): TreeNode {
  return {
    id: `${over.kind}/${over.name}`,
    health: 'healthy',
    conditions: [],
    facts: {},
    children: [],
    ...over,
  };
}

interface PoolState {
  /** MachinePool spec.replicas, status.replicas, status.readyReplicas; AKS's count. */
  spec: number;
  current?: number;
  ready: number;
  aks?: number;
  health?: TreeNode['health'];
  version?: string;
  aksVersion?: string;
}

/** Cluster `c`: control plane, pools `system` and any others given, as the backend's ungrouped tree shows them. */
function tree(
  pools: Record<string, PoolState>,
  o: {
    paused?: boolean;
    pausedCondition?: 'True' | 'False';
    health?: TreeNode['health'];
    cp?: { runs: string; asked: string; health?: TreeNode['health'] };
  } = {},
): TreeNode {
  return node({
    kind: 'Cluster',
    name: 'c',
    health: o.health ?? 'healthy',
    facts: { paused: o.paused ?? false },
    conditions: o.pausedCondition
      ? [{ type: 'Paused', status: o.pausedCondition }]
      : [],
    children: [
      node({
        kind: 'AzureASOManagedControlPlane',
        name: 'c',
        health: o.cp?.health ?? 'healthy',
        facts: {
          kubernetesVersion: o.cp?.runs ?? 'v1.33.2',
          desiredKubernetesVersion: o.cp?.asked ?? 'v1.33.2',
        },
      }),
      node({
        kind: 'Workers',
        name: 'Workers',
        children: Object.entries(pools).map(([name, p]) =>
          node({
            kind: 'MachinePool',
            name: `c-${name}`,
            health: p.health ?? 'healthy',
            facts: {
              replicas: p.spec,
              readyReplicas: p.ready,
              ...(p.current !== undefined
                ? { currentReplicas: p.current }
                : {}),
              kubernetesVersion: p.version ?? 'v1.33.2',
            },
            children: [
              node({
                kind: 'AzureASOManagedMachinePool',
                name: `c-${name}`,
                children: [
                  node({
                    kind: 'ManagedClustersAgentPool',
                    name: `c-${name}`,
                    facts: {
                      azureName: name,
                      ...(p.aks !== undefined ? { replicas: p.aks } : {}),
                      kubernetesVersion: p.aksVersion ?? '1.33.2',
                    },
                  }),
                ],
              }),
            ],
          }),
        ),
      }),
    ],
  });
}

const plan = (
  action: Day2Action,
  changes: Day2Plan['changes'] = [],
): Day2Plan => ({ action, changes, warnings: [], applied: true });

const mpChange = (name: string): Day2Plan['changes'][number] => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachinePool',
  namespace: 'ns',
  name: `c-${name}`,
  operation: 'update',
  fields: [],
});

describe('day2Progress: done is the state asked for, observed', () => {
  const scale = plan({ action: 'scale', pool: 'system', replicas: 2 }, [
    mpChange('system'),
  ]);

  it('a scale 1 → 2 is not done on the tree from before the write (1 of 1 ready, healthy)', () => {
    const p = day2Progress(
      scale,
      tree({ system: { spec: 1, ready: 1, aks: 1 } }),
    );
    expect(p).toEqual({
      done: false,
      items: [
        {
          text: 'pool system: 1 of 2 nodes ready (the cluster still asks for 1)',
          done: false,
        },
      ],
    });
  });

  it('nor once the write is seen but not observed (generation) or the nodes are not ready', () => {
    expect(
      day2Progress(
        scale,
        tree({ system: { spec: 2, ready: 2, aks: 2, health: 'progressing' } }),
      ).done,
    ).toBe(false);
    expect(
      day2Progress(scale, tree({ system: { spec: 2, ready: 1, aks: 2 } }))
        .items[0],
    ).toEqual({ text: 'pool system: 1 of 2 nodes ready', done: false });
    // CAPI has both nodes, AKS still reports 1.
    expect(
      day2Progress(scale, tree({ system: { spec: 2, ready: 2, aks: 1 } })).done,
    ).toBe(false);
    expect(
      day2Progress(
        scale,
        tree({ system: { spec: 2, current: 3, ready: 2, aks: 2 } }),
      ).done,
    ).toBe(false);
  });

  it('is done with the new count asked, ready, reported by AKS and healthy', () => {
    expect(
      day2Progress(
        scale,
        tree({ system: { spec: 2, current: 2, ready: 2, aks: 2 } }),
      ),
    ).toEqual({
      done: true,
      items: [{ text: 'pool system: 2 of 2 nodes ready (done)', done: true }],
    });
  });

  it('counts one node in the singular', () => {
    const toOne = plan({ action: 'scale', pool: 'system', replicas: 1 }, [
      mpChange('system'),
    ]);
    expect(
      day2Progress(
        toOne,
        tree({ system: { spec: 1, current: 1, ready: 1, aks: 1 } }),
      ).items,
    ).toEqual([{ text: 'pool system: 1 of 1 node ready (done)', done: true }]);
  });

  it('a resume is not done while the Cluster is still Progressing, nor before CAPI reports it', () => {
    const resume = plan({ action: 'resume' });
    expect(
      day2Progress(resume, tree({}, { paused: true, pausedCondition: 'True' })),
    ).toEqual({
      done: false,
      items: [{ text: 'waiting for the resume', done: false }],
    });
    expect(
      day2Progress(resume, tree({}, { pausedCondition: 'True' })).done,
    ).toBe(false);
    expect(
      day2Progress(
        resume,
        tree({}, { pausedCondition: 'False', health: 'progressing' }),
      ).items,
    ).toEqual([
      {
        text: 'reconciliation resumed; the cluster is progressing',
        done: false,
      },
    ]);
    expect(
      day2Progress(resume, tree({}, { pausedCondition: 'False' })).done,
    ).toBe(true);
  });

  it('a pause is done once CAPI reports it paused', () => {
    const pause = plan({ action: 'pause' });
    expect(
      day2Progress(pause, tree({}, { paused: true, pausedCondition: 'False' }))
        .done,
    ).toBe(false);
    expect(
      day2Progress(
        pause,
        tree({}, { paused: true, pausedCondition: 'True', health: 'paused' }),
      ),
    ).toEqual({
      done: true,
      items: [{ text: 'reconciliation paused (done)', done: true }],
    });
  });

  it('a pause of a degraded cluster is done once CAPI reports it paused: its degraded descendant keeps it degraded', () => {
    // The rollup leaves a degraded object under a paused Cluster degraded (tree/rollup.ts), so the Cluster's health
    // is no sign of the pause; the panel read "in progress" beside "reconciliation paused (done)".
    const pause = plan({ action: 'pause' }, [
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        namespace: 'ns',
        name: 'c',
        operation: 'update',
        fields: [{ path: 'spec.paused', before: false, after: true }],
      },
    ]);
    expect(
      day2Progress(
        pause,
        tree({}, { paused: true, pausedCondition: 'True', health: 'degraded' }),
      ),
    ).toEqual({
      done: true,
      items: [{ text: 'reconciliation paused (done)', done: true }],
    });
  });

  it('a control plane upgrade is done once it runs the version, not when it is only asked for', () => {
    const up = plan({
      action: 'upgrade',
      version: 'v1.34.1',
      target: 'controlPlane',
    });
    expect(
      day2Progress(up, tree({}, { cp: { runs: 'v1.33.2', asked: 'v1.34.1' } }))
        .items,
    ).toEqual([
      { text: 'control plane: v1.33.2 → v1.34.1', done: false, asked: true },
    ]);
    // Not asked for yet (a change proposed to Git, not merged): the line says so.
    expect(
      day2Progress(up, tree({}, { cp: { runs: 'v1.33.2', asked: 'v1.33.2' } }))
        .items,
    ).toEqual([
      { text: 'control plane: v1.33.2 → v1.34.1', done: false, asked: false },
    ]);
    expect(
      day2Progress(
        up,
        tree(
          {},
          { cp: { runs: 'v1.34.1', asked: 'v1.34.1', health: 'progressing' } },
        ),
      ).done,
    ).toBe(false);
    expect(
      day2Progress(up, tree({}, { cp: { runs: 'v1.34.1', asked: 'v1.34.1' } }))
        .done,
    ).toBe(true);
  });

  it("a pool upgrade is done once AKS reports the pool's version", () => {
    const up = plan({
      action: 'upgrade',
      version: 'v1.34.1',
      target: { pools: ['system'] },
    });
    const asked = { spec: 1, ready: 1, version: 'v1.34.1' };
    expect(day2Progress(up, tree({ system: asked })).items).toEqual([
      { text: 'pool system: 1.33.2 → v1.34.1', done: false, asked: true },
    ]);
    expect(
      day2Progress(up, tree({ system: { ...asked, version: 'v1.33.2' } }))
        .items,
    ).toEqual([
      { text: 'pool system: 1.33.2 → v1.34.1', done: false, asked: false },
    ]);
    expect(
      day2Progress(up, tree({ system: { ...asked, aksVersion: '1.34.1' } }))
        .done,
    ).toBe(true);
  });

  it('a removal is done once the pool is gone from the tree', () => {
    const rm = plan({ action: 'removePool', pool: 'batch' }, [
      { ...mpChange('batch'), operation: 'delete' },
    ]);
    expect(
      day2Progress(
        rm,
        tree({ system: { spec: 1, ready: 1 }, batch: { spec: 1, ready: 1 } }),
      ).done,
    ).toBe(false);
    expect(day2Progress(rm, tree({ system: { spec: 1, ready: 1 } }))).toEqual({
      done: true,
      items: [{ text: 'pool batch: removed (done)', done: true }],
    });
  });
});
