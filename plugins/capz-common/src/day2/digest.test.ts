import type { ObservedObject } from '../objects/types';
import { clusterOf, edit, world } from './__fixtures__/cluster';
import {
  canonicalDay2PlanBasis,
  canonicalJson,
  day2ReadObjects,
  describeDay2Drift,
  valueAtChangePath,
  type Day2PlanBasis,
} from './digest';
import { planDay2Action } from './plan';
import { readDay2Cluster } from './snapshot';
import type { Day2Action } from './api';

const LIVE_KINDS = [
  'Cluster',
  'AzureASOManagedControlPlane',
  'MachinePool',
  'AzureASOManagedMachinePool',
];

/** The basis of a plan as the backend makes it: the plan, and the objects read live. */
function basis(
  objects: ObservedObject[],
  action: Day2Action,
  o: { resourceVersions?: boolean } = {},
): Day2PlanBasis {
  const c = readDay2Cluster(clusterOf(objects), objects);
  const r = planDay2Action(c, action);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return {
    action,
    changes: r.changes,
    warnings: r.warnings,
    read: day2ReadObjects(
      objects.filter(x => LIVE_KINDS.includes(x.kind ?? '')),
      'team-a',
      o,
    ),
  };
}

const scale: Day2Action = { action: 'scale', pool: 'user', replicas: 3 };
const setReplicas = (objects: ObservedObject[], n: number) =>
  edit(objects, 'MachinePool', 'alpha-user', mp => {
    mp.spec = { ...mp.spec, replicas: n };
    mp.metadata!.resourceVersion = '900';
  });
const statusWrite = (objects: ObservedObject[]) =>
  edit(objects, 'MachinePool', 'alpha-user', mp => {
    mp.status = { readyReplicas: 1, phase: 'ScalingUp' };
    mp.spec = { ...mp.spec, providerIDList: ['azure:///x'] };
    mp.metadata!.resourceVersion = '901';
  });

describe('day-2 plan digest basis', () => {
  it('is the same text for the same inputs, whatever the key order or repeated reads', () => {
    const a = basis(world(), scale);
    const b = basis(world(), { replicas: 3, pool: 'user', action: 'scale' });
    expect(canonicalDay2PlanBasis(a)).toBe(canonicalDay2PlanBasis(b));
    expect(
      canonicalDay2PlanBasis({
        ...a,
        read: [...a.read].reverse().concat(a.read[0]),
      }),
    ).toBe(canonicalDay2PlanBasis(a));
    expect(canonicalJson({ b: 1, a: [2, { d: 1, c: undefined }] })).toBe(
      '{"a":[2,{"d":1}],"b":1}',
    );
  });

  it("leaves the confirm's own planDigest out", () => {
    const a = basis(world(), scale);
    expect(
      canonicalDay2PlanBasis({
        ...a,
        action: { ...scale, planDigest: 'f'.repeat(64) },
      }),
    ).toBe(canonicalDay2PlanBasis(a));
  });

  it('differs when a value another writer set changes the plan (2 → 1 replicas, then to 3)', () => {
    const before = basis(world(), scale);
    const after = basis(setReplicas(world(), 1), scale);
    expect(after.changes[0].fields).toEqual([
      { path: 'spec.replicas', before: 1, after: 3 },
    ]);
    expect(canonicalDay2PlanBasis(after)).not.toBe(
      canonicalDay2PlanBasis(before),
    );
  });

  it('differs when an object read changed its spec or an annotation a plan reads, even if the plan is the same', () => {
    const before = basis(world(), scale);
    const system = edit(world(), 'MachinePool', 'alpha-system', mp => {
      mp.metadata!.annotations = {
        'cluster.x-k8s.io/replicas-managed-by': 'someone',
      };
    });
    expect(canonicalDay2PlanBasis(basis(system, scale))).not.toBe(
      canonicalDay2PlanBasis(before),
    );
    const recreated = edit(world(), 'MachinePool', 'alpha-user', mp => {
      mp.metadata!.uid = 'another';
    });
    expect(canonicalDay2PlanBasis(basis(recreated, scale))).not.toBe(
      canonicalDay2PlanBasis(before),
    );
  });

  it("is the same when an autoscaled pool's replicas follow AKS (replicas-managed-by), between preview and confirm", () => {
    const autoscaled = (objects: ObservedObject[]) =>
      edit(objects, 'MachinePool', 'alpha-user', mp => {
        mp.metadata!.annotations = {
          ...mp.metadata!.annotations,
          'cluster.x-k8s.io/replicas-managed-by': 'aks',
        };
      });
    const widen: Day2Action = {
      action: 'autoscale',
      pool: 'user',
      enabled: true,
      minCount: 1,
      maxCount: 5,
    };
    const before = basis(autoscaled(world()), widen);
    const after = basis(autoscaled(setReplicas(world(), 3)), widen);
    expect(canonicalDay2PlanBasis(after)).toBe(canonicalDay2PlanBasis(before));
  });

  it("is the same when a controller's bookkeeping annotation comes and goes (CAPZ's block-move while it reconciles)", () => {
    const before = canonicalDay2PlanBasis(basis(world(), scale));
    for (const name of ['alpha-system', 'alpha-user'])
      expect(
        canonicalDay2PlanBasis(
          basis(
            edit(world(), 'MachinePool', name, mp => {
              mp.metadata!.annotations = {
                ...mp.metadata!.annotations,
                'clusterctl.cluster.x-k8s.io/block-move': 'true',
                'sigs.k8s.io/cluster-api-provider-azure-owned-aso-kinds':
                  'ManagedClustersAgentPool',
              };
            }),
            scale,
          ),
        ),
      ).toBe(before);
  });

  it('differs on a changed resourceVersion when resourceVersions are kept; not on a status write when they are not', () => {
    const strict = (objects: ObservedObject[]) =>
      canonicalDay2PlanBasis(basis(objects, scale, { resourceVersions: true }));
    expect(strict(statusWrite(world()))).not.toBe(strict(world()));
    expect(strict(world())).toBe(strict(world()));
    // What the service uses: a controller's status write (and its providerIDList) is not a change of plan.
    expect(canonicalDay2PlanBasis(basis(statusWrite(world()), scale))).toBe(
      canonicalDay2PlanBasis(basis(world(), scale)),
    );
  });
});

describe('describeDay2Drift', () => {
  const label = (kind: string, name: string) =>
    kind === 'MachinePool' ? `pool ${name.replace(/^alpha-/, '')}` : name;

  it("names the previewed field another writer moved, in the pool's words", () => {
    const preview = basis(world(), scale);
    const now = day2ReadObjects(
      setReplicas(world(), 1).filter(x => LIVE_KINDS.includes(x.kind ?? '')),
      'team-a',
    );
    expect(describeDay2Drift(preview, now, label)).toEqual([
      'pool user: 2 → 1 replicas',
    ]);
  });

  it('names other changes of the objects read, and objects gone or new', () => {
    const preview = basis(world(), scale);
    let objects = edit(world(), 'MachinePool', 'alpha-system', mp => {
      mp.spec = { ...mp.spec, replicas: 5 };
    });
    objects = objects.filter(
      o =>
        !(
          o.kind === 'AzureASOManagedMachinePool' &&
          o.metadata?.name === 'alpha-user'
        ),
    );
    objects.push({
      kind: 'MachinePool',
      metadata: { name: 'alpha-batch', namespace: 'team-a', uid: 'b' },
      spec: { replicas: 1 },
    });
    expect(
      describeDay2Drift(
        preview,
        day2ReadObjects(
          objects.filter(x => LIVE_KINDS.includes(x.kind ?? '')),
          'team-a',
        ),
        label,
      ),
    ).toEqual([
      'pool system spec.replicas: 3 → 5',
      'alpha-user is gone',
      'pool batch is new',
    ]);
  });

  it('finds values by change path, list items included', () => {
    const o = { spec: { resources: [{ spec: { minCount: 2 } }] } };
    expect(valueAtChangePath(o, 'spec.resources[0].spec.minCount')).toBe(2);
    expect(valueAtChangePath(o, 'spec.resources[1].spec.minCount')).toBe(
      undefined,
    );
  });
});
