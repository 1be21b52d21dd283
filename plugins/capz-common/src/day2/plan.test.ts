import { clusterOf, edit, world } from './__fixtures__/cluster';
import { planDay2Action, type Day2PlanResult } from './plan';
import { readDay2Cluster } from './snapshot';
import type { Day2Action } from './api';
import type { ObservedObject } from '../objects/types';

const plan = (
  objects: ObservedObject[],
  action: Day2Action,
  ctx: Parameters<typeof planDay2Action>[2] = {},
) => planDay2Action(readDay2Cluster(clusterOf(objects), objects), action, ctx);

const rules = (r: Day2PlanResult) => (r.ok ? [] : r.problems.map(p => p.rule));
const ok = (r: Day2PlanResult) => {
  if (!r.ok) throw new Error(r.problems.map(p => p.message).join('; '));
  return r;
};
/** A cluster on the deprecated AzureManagedControlPlane API with one pool, `pool1` (User). */
const LEGACY: ObservedObject[] = [
  {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: 'old', namespace: 'ns', uid: 'c' },
    spec: {
      controlPlaneRef: { kind: 'AzureManagedControlPlane', name: 'old' },
    },
  },
  {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'AzureManagedControlPlane',
    metadata: { name: 'old', namespace: 'ns' },
    spec: {
      version: 'v1.32.1',
      location: 'westeurope',
      resourceGroupName: 'old-rg',
    },
  },
  {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachinePool',
    metadata: { name: 'old-pool1', namespace: 'ns', resourceVersion: '7' },
    spec: {
      clusterName: 'old',
      replicas: 2,
      template: {
        spec: {
          version: 'v1.32.1',
          infrastructureRef: {
            kind: 'AzureManagedMachinePool',
            name: 'old-pool1',
          },
        },
      },
    },
  },
  {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'AzureManagedMachinePool',
    metadata: { name: 'old-pool1', namespace: 'ns', resourceVersion: '8' },
    spec: { name: 'pool1', mode: 'User', sku: 'Standard_D2s_v3' },
  },
];

const autoscaled = (objects: ObservedObject[], pool = 'alpha-user') =>
  edit(
    edit(objects, 'MachinePool', pool, o => {
      o.metadata!.annotations = {
        'cluster.x-k8s.io/replicas-managed-by': 'aks',
      };
    }),
    'AzureASOManagedMachinePool',
    pool,
    o => {
      Object.assign((o.spec!.resources as any[])[0].spec, {
        enableAutoScaling: true,
        minCount: 1,
        maxCount: 5,
      });
    },
  );

describe('reading a cluster', () => {
  it('finds the pools by their Azure names with mode, version, replicas and the AKS cluster in Azure', () => {
    const objects = world();
    const c = readDay2Cluster(clusterOf(objects), objects);
    expect(c.api).toBe('aso');
    expect(c.version).toBe('v1.33.2');
    expect(c.location).toBe('westeurope');
    expect(c.resourceGroup).toBe('alpha');
    expect(c.subscriptionId).toBe('00000000-0000-0000-0000-000000000001');
    expect(c.credentialSecret).toBe('aso-credential');
    expect(c.pools.map(p => [p.name, p.mode, p.replicas, p.version])).toEqual([
      ['system', 'System', 3, 'v1.33.2'],
      ['user', 'User', 2, 'v1.33.2'],
    ]);
  });
});

describe('scale', () => {
  it('applies spec.replicas on the MachinePool, guarded by its resourceVersion', () => {
    const objects = world();
    const r = ok(plan(objects, { action: 'scale', pool: 'user', replicas: 5 }));
    expect(r.writes).toEqual([
      {
        type: 'apply',
        create: false,
        object: {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'MachinePool',
          metadata: {
            name: 'alpha-user',
            namespace: 'team-a',
            resourceVersion: expect.any(String),
          },
          spec: { replicas: 5 },
        },
      },
    ]);
    expect(r.changes[0].fields).toEqual([
      { path: 'spec.replicas', before: 2, after: 5 },
    ]);
  });

  it('changes nothing when the count is already there (idempotent)', () => {
    const r = ok(plan(world(), { action: 'scale', pool: 'user', replicas: 2 }));
    expect(r.writes).toEqual([]);
    expect(r.changes).toEqual([]);
  });

  it('refuses a pool whose count AKS owns, naming who owns it and what to do instead', () => {
    const r = plan(autoscaled(world()), {
      action: 'scale',
      pool: 'user',
      replicas: 4,
    });
    expect(rules(r)).toEqual(['replicas-managed-by']);
    expect(!r.ok && r.problems[0].message).toMatch(
      /managed by "aks" \(annotation cluster\.x-k8s\.io\/replicas-managed-by on MachinePool team-a\/alpha-user\); change the autoscaler's minimum and maximum/,
    );
  });

  it('keeps a System pool at 1 node or more; a User pool may go to 0', () => {
    expect(
      rules(plan(world(), { action: 'scale', pool: 'system', replicas: 0 })),
    ).toEqual(['system-pool-min']);
    expect(
      plan(world(), { action: 'scale', pool: 'user', replicas: 0 }).ok,
    ).toBe(true);
  });

  it("refuses counts that are not whole numbers within AKS's limit, and unknown pools", () => {
    expect(
      rules(plan(world(), { action: 'scale', pool: 'user', replicas: 1.5 })),
    ).toEqual(['replicas-range']);
    expect(
      rules(plan(world(), { action: 'scale', pool: 'user', replicas: 1001 })),
    ).toEqual(['replicas-range']);
    expect(
      rules(plan(world(), { action: 'scale', pool: 'gpu', replicas: 1 })),
    ).toEqual(['pool-exists']);
  });

  it('names a count pinned in spec.resources with the one-line fix', () => {
    const objects = edit(
      world(),
      'AzureASOManagedMachinePool',
      'alpha-user',
      o => {
        (o.spec!.resources as any[])[0].spec.count = 2;
      },
    );
    const r = plan(objects, { action: 'scale', pool: 'user', replicas: 4 });
    expect(rules(r)).toEqual(['pinned-count']);
    expect(!r.ok && r.problems[0].message).toContain(
      `kubectl -n team-a patch azureasomanagedmachinepool alpha-user --type json -p '[{"op":"remove","path":"/spec/resources/0/spec/count"}]'`,
    );
  });

  it('refuses every action on a cluster being deleted, as a conflict', () => {
    const objects = edit(world(), 'Cluster', 'alpha', o => {
      o.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
    });
    const r = plan(objects, { action: 'scale', pool: 'user', replicas: 3 });
    expect(!r.ok && r.problems[0]).toMatchObject({
      rule: 'cluster-deleting',
      kind: 'conflict',
    });
  });

  it('warns that a paused cluster only acts on it once resumed', () => {
    const r = ok(
      plan(world({ paused: true }), {
        action: 'scale',
        pool: 'user',
        replicas: 3,
      }),
    );
    expect(r.warnings.join(' ')).toMatch(/is paused/);
  });
});

describe('autoscale', () => {
  it("turns AKS's autoscaler on in the embedded agent pool, the whole atomic list applied", () => {
    const r = ok(
      plan(world(), {
        action: 'autoscale',
        pool: 'user',
        enabled: true,
        minCount: 1,
        maxCount: 4,
      }),
    );
    expect(r.writes).toHaveLength(1);
    const w = r.writes[0] as any;
    expect(w.object.kind).toBe('AzureASOManagedMachinePool');
    expect(w.object.spec.resources[0].spec).toMatchObject({
      azureName: 'user',
      vmSize: 'Standard_D4s_v3',
      enableAutoScaling: true,
      minCount: 1,
      maxCount: 4,
    });
    expect(r.changes[0].fields).toEqual([
      { path: 'spec.resources[0].spec.enableAutoScaling', after: true },
      { path: 'spec.resources[0].spec.minCount', after: 1 },
      { path: 'spec.resources[0].spec.maxCount', after: 4 },
    ]);
  });

  it('needs min <= count <= max, and names the bound the count breaks', () => {
    const r = plan(world(), {
      action: 'autoscale',
      pool: 'user',
      enabled: true,
      minCount: 3,
      maxCount: 5,
    });
    expect(rules(r)).toEqual(['count-within-bounds']);
    expect(!r.ok && r.problems[0].message).toMatch(
      /has 2 nodes, outside 3 to 5/,
    );
    expect(
      rules(
        plan(world(), {
          action: 'autoscale',
          pool: 'user',
          enabled: true,
          minCount: 3,
          maxCount: 2,
        }),
      ),
    ).toEqual(['autoscaler-max']);
    expect(
      rules(
        plan(world(), {
          action: 'autoscale',
          pool: 'system',
          enabled: true,
          minCount: 0,
          maxCount: 3,
        }),
      ),
    ).toEqual(['autoscaler-min']);
  });

  it("turns it off by removing the bounds; the pool keeps AKS's count", () => {
    const r = ok(
      plan(autoscaled(world()), {
        action: 'autoscale',
        pool: 'user',
        enabled: false,
      }),
    );
    const spec = (r.writes[0] as any).object.spec.resources[0].spec;
    expect(spec.enableAutoScaling).toBe(false);
    expect(spec).not.toHaveProperty('minCount');
    expect(spec).not.toHaveProperty('maxCount');
    expect(r.notes?.join(' ')).toMatch(/keeps the node count AKS last set/);
  });

  it('refuses to turn it on while another controller owns the count', () => {
    const objects = edit(world(), 'MachinePool', 'alpha-user', o => {
      o.metadata!.annotations = {
        'cluster.x-k8s.io/replicas-managed-by': 'karpenter',
      };
    });
    expect(
      rules(
        plan(objects, {
          action: 'autoscale',
          pool: 'user',
          enabled: true,
          minCount: 1,
          maxCount: 3,
        }),
      ),
    ).toEqual(['replicas-managed-by']);
  });

  it('writes AzureManagedMachinePool.spec.scaling on the legacy API, and removes it with a merge patch', () => {
    const legacy = LEGACY;
    const on = ok(
      plan(legacy, {
        action: 'autoscale',
        pool: 'pool1',
        enabled: true,
        minCount: 1,
        maxCount: 3,
      }),
    );
    expect((on.writes[0] as any).object.spec).toEqual({
      scaling: { minSize: 1, maxSize: 3 },
    });
    const withScaling = edit(
      legacy,
      'AzureManagedMachinePool',
      'old-pool1',
      o => {
        o.spec!.scaling = { minSize: 1, maxSize: 3 };
      },
    );
    const off = ok(
      plan(withScaling, { action: 'autoscale', pool: 'pool1', enabled: false }),
    );
    expect(off.writes).toEqual([
      {
        type: 'merge',
        target: {
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          kind: 'AzureManagedMachinePool',
          namespace: 'ns',
          name: 'old-pool1',
        },
        patch: { spec: { scaling: null } },
        resourceVersion: '8',
      },
    ]);
  });
});

describe('upgrade', () => {
  const offered = ['1.32.7', '1.33.2', '1.33.5', '1.34.1', '1.35.0'];
  const cp = (version: string) => ({
    action: 'upgrade' as const,
    version,
    target: 'controlPlane' as const,
  });

  it("moves the control plane's spec.version to a version the region offers, and says the pools stay", () => {
    const r = ok(plan(world(), cp('v1.34.1'), { offeredVersions: offered }));
    expect((r.writes[0] as any).object).toMatchObject({
      kind: 'AzureASOManagedControlPlane',
      spec: { version: 'v1.34.1' },
    });
    expect(r.changes[0].fields).toEqual([
      { path: 'spec.version', before: 'v1.33.2', after: 'v1.34.1' },
    ]);
    expect(r.warnings).toEqual([]);
    expect(r.notes?.join(' ')).toMatch(/pools \(system, user\) stay/);
  });

  it('refuses a downgrade, a skipped minor and a version the region does not offer', () => {
    expect(
      rules(plan(world(), cp('v1.32.7'), { offeredVersions: offered })),
    ).toEqual(['no-downgrade']);
    expect(
      rules(plan(world(), cp('v1.35.0'), { offeredVersions: offered })),
    ).toEqual(['no-skipped-minor']);
    const r = plan(world(), cp('v1.34.0'), { offeredVersions: offered });
    expect(rules(r)).toEqual(['offered-in-region']);
    expect(!r.ok && r.problems[0].message).toBe(
      'AKS does not offer v1.34.0 in westeurope; from v1.33.2 it offers v1.34.1, v1.33.5',
    );
  });

  it('refuses when the offered versions cannot be read, as a conflict naming why', () => {
    const r = plan(world(), cp('v1.34.1'), {
      offeredVersionsError: 'Azure discovery is not configured',
    });
    expect(!r.ok && r.problems[0]).toMatchObject({
      rule: 'offered-in-region',
      kind: 'conflict',
    });
    expect(!r.ok && r.problems[0].message).toMatch(
      /Azure discovery is not configured/,
    );
  });

  it('names a kubernetesVersion pinned in spec.resources, with the one-line fix, before anything is written', () => {
    const objects = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      (o.spec!.resources as any[])[0].spec.kubernetesVersion = '1.33.2';
    });
    const r = plan(objects, cp('v1.34.1'), { offeredVersions: offered });
    expect(rules(r)).toEqual(['pinned-version']);
    expect(!r.ok && r.problems[0].message).toContain(
      `kubectl -n team-a patch azureasomanagedcontrolplane alpha --type json -p '[{"op":"remove","path":"/spec/resources/0/spec/kubernetesVersion"}]'`,
    );
  });

  it('moves pools to the version the control plane runs, never beyond it, never down', () => {
    const upgraded = edit(
      world(),
      'AzureASOManagedControlPlane',
      'alpha',
      o => {
        o.spec!.version = 'v1.34.1';
        o.status = { version: 'v1.34.1' };
      },
    );
    const r = ok(
      plan(upgraded, {
        action: 'upgrade',
        version: 'v1.34.1',
        target: { pools: ['user'] },
      }),
    );
    expect(r.writes).toHaveLength(1);
    expect((r.writes[0] as any).object).toMatchObject({
      kind: 'MachinePool',
      metadata: { name: 'alpha-user' },
      spec: { template: { spec: { version: 'v1.34.1' } } },
    });
    expect(
      rules(
        plan(world(), {
          action: 'upgrade',
          version: 'v1.34.1',
          target: { pools: ['user'] },
        }),
      ),
    ).toEqual(['pool-not-newer-than-control-plane']);
    expect(
      rules(
        plan(world(), {
          action: 'upgrade',
          version: 'v1.33.1',
          target: { pools: ['user'] },
        }),
      ),
    ).toEqual(['no-downgrade']);
  });

  it('waits for the control plane: a pool may not pass what it runs while it still moves', () => {
    const moving = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      o.spec!.version = 'v1.34.1';
      o.status = { version: 'v1.33.2' };
    });
    expect(
      rules(
        plan(moving, {
          action: 'upgrade',
          version: 'v1.34.1',
          target: { pools: ['system'] },
        }),
      ),
    ).toEqual(['pool-not-newer-than-control-plane']);
    expect(
      rules(plan(moving, cp('v1.34.2'), { offeredVersions: ['1.34.2'] })),
    ).toEqual(['control-plane-upgrading']);
  });

  it('names an orchestratorVersion pinned on a pool', () => {
    const objects = edit(
      edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
        o.spec!.version = 'v1.34.1';
      }),
      'AzureASOManagedMachinePool',
      'alpha-user',
      o => {
        (o.spec!.resources as any[])[0].spec.orchestratorVersion = '1.33.2';
      },
    );
    expect(
      rules(
        plan(objects, {
          action: 'upgrade',
          version: 'v1.34.1',
          target: { pools: ['user'] },
        }),
      ),
    ).toEqual(['pinned-version']);
  });
});

describe('node pools', () => {
  const add = (
    pool: Partial<Extract<Day2Action, { action: 'addPool' }>['pool']>,
  ) => ({
    action: 'addPool' as const,
    pool: {
      name: 'gpu',
      mode: 'User' as const,
      osType: 'Linux' as const,
      vmSize: 'Standard_D4s_v5',
      replicas: 1,
      ...pool,
    },
  });

  it('adds a MachinePool and an AzureASOManagedMachinePool the way the template writes them', () => {
    const r = ok(plan(world(), add({})));
    expect(
      r.writes.map(
        w =>
          w.type === 'apply' && [
            w.object.kind,
            w.object.metadata.name,
            w.create,
          ],
      ),
    ).toEqual([
      ['MachinePool', 'alpha-gpu', true],
      ['AzureASOManagedMachinePool', 'alpha-gpu', true],
    ]);
    const ap = (r.writes[1] as any).object.spec.resources[0] as any;
    expect(ap.spec).toMatchObject({
      azureName: 'gpu',
      mode: 'User',
      vmSize: 'Standard_D4s_v5',
      owner: { name: 'alpha' },
    });
    expect(
      ap.metadata.annotations['serviceoperator.azure.com/credential-from'],
    ).toBe('aso-credential');
    expect((r.writes[0] as any).object.spec.template.spec.version).toBe(
      'v1.33.2',
    );
  });

  it('adds the legacy pair (MachinePool and AzureManagedMachinePool) to an AzureManagedControlPlane cluster, with the same rules', () => {
    const legacy = LEGACY;
    const r = ok(plan(legacy, add({ name: 'batch', replicas: 2 })));
    expect(
      r.writes.map(w => (w.type === 'apply' ? w.object : undefined)),
    ).toEqual([
      {
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'MachinePool',
        metadata: { name: 'old-batch', namespace: 'ns' },
        spec: {
          clusterName: 'old',
          replicas: 2,
          template: {
            spec: {
              bootstrap: { dataSecretName: '' },
              clusterName: 'old',
              infrastructureRef: {
                apiGroup: 'infrastructure.cluster.x-k8s.io',
                kind: 'AzureManagedMachinePool',
                name: 'old-batch',
              },
              version: 'v1.32.1',
            },
          },
        },
      },
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'AzureManagedMachinePool',
        metadata: { name: 'old-batch', namespace: 'ns' },
        spec: {
          name: 'batch',
          mode: 'User',
          sku: 'Standard_D4s_v5',
        },
      },
    ]);
    expect(r.writes.every(w => w.type === 'apply' && w.create)).toBe(true);
    expect(r.changes.map(c => `${c.operation} ${c.kind}`)).toEqual([
      'create MachinePool',
      'create AzureManagedMachinePool',
    ]);
    expect(
      rules(plan(legacy, add({ name: 'winpool1', osType: 'Windows' }))),
    ).toEqual(['pool.name']);
    expect(rules(plan(legacy, add({ name: 'pool1' })))).toEqual(['name-taken']);
    expect(rules(plan(legacy, add({}), { takenNames: ['old-gpu'] }))).toEqual([
      'name-taken',
    ]);
  });

  it("applies the template's rules: name, Windows name length, System on Linux, a name already taken", () => {
    expect(rules(plan(world(), add({ name: 'GPU' })))).toEqual(['pool.name']);
    expect(
      rules(plan(world(), add({ name: 'winpool1', osType: 'Windows' }))),
    ).toEqual(['pool.name']);
    expect(
      rules(
        plan(world(), add({ name: 'win', osType: 'Windows', mode: 'System' })),
      ),
    ).toEqual(['pool.osType']);
    expect(rules(plan(world(), add({ name: 'user' })))).toEqual(['name-taken']);
    expect(
      rules(plan(world(), add({}), { takenNames: ['alpha-gpu'] })),
    ).toEqual(['name-taken']);
  });

  it('removes a pool by deleting its MachinePool, saying what Azure does with the agent pool', () => {
    const r = ok(plan(world(), { action: 'removePool', pool: 'user' }));
    expect(r.writes).toEqual([
      {
        type: 'delete',
        target: {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'MachinePool',
          namespace: 'team-a',
          name: 'alpha-user',
        },
        uid: 'uid-MachinePool-alpha-user',
      },
    ]);
    expect(r.warnings.join(' ')).toMatch(
      /agent pool user of AKS cluster alpha is deleted/,
    );
    const kept = ok(
      plan(world({ policies: { 'alpha-user': 'skip' } }), {
        action: 'removePool',
        pool: 'user',
      }),
    );
    expect(kept.warnings.join(' ')).toMatch(
      /agent pool user is kept .*reconcile-policy skip/,
    );
  });

  it('never removes the last System pool', () => {
    const r = plan(world(), { action: 'removePool', pool: 'system' });
    expect(rules(r)).toEqual(['last-system-pool']);
  });
});

describe('pause and resume', () => {
  it('set Cluster.spec.paused, and change nothing when already so', () => {
    const r = ok(plan(world(), { action: 'pause' }));
    expect((r.writes[0] as any).object).toMatchObject({
      kind: 'Cluster',
      spec: { paused: true },
    });
    expect(ok(plan(world(), { action: 'resume' })).writes).toEqual([]);
    expect(
      ok(plan(world({ paused: true }), { action: 'pause' })).writes,
    ).toEqual([]);
    const resume = ok(plan(world({ paused: true }), { action: 'resume' }));
    expect((resume.writes[0] as any).object.spec).toEqual({ paused: false });
  });
});

describe('GitOps: objects Flux, Argo CD or Helm apply', () => {
  const FLUX = {
    'kustomize.toolkit.fluxcd.io/name': 'clusters',
    'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
  };
  const labelled = (
    kind: string,
    name: string,
    metadata: {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    },
  ) =>
    edit(world(), kind, name, o => {
      o.metadata = {
        ...o.metadata,
        labels: { ...o.metadata?.labels, ...metadata.labels },
        annotations: { ...o.metadata?.annotations, ...metadata.annotations },
      };
    });

  it('blocks a scale of a MachinePool Flux applies, naming the Kustomization and what it would do', () => {
    const r = ok(
      plan(labelled('MachinePool', 'alpha-user', { labels: FLUX }), {
        action: 'scale',
        pool: 'user',
        replicas: 5,
      }),
    );
    expect(r.blockers).toEqual([
      "Flux's Kustomization flux-system/clusters applies MachinePool team-a/alpha-user: it would put spec.replicas back at its next reconcile; change it in Git.",
    ]);
    expect(r.appliedBy).toEqual([
      {
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'alpha-user',
        appliedBy: "Flux's Kustomization flux-system/clusters",
        tool: 'flux-kustomization',
        blocks: true,
      },
    ]);
    // Nothing Flux applies is changed: no blocker.
    const other = ok(
      plan(labelled('MachinePool', 'alpha-system', { labels: FLUX }), {
        action: 'scale',
        pool: 'user',
        replicas: 5,
      }),
    );
    expect(other.blockers).toBeUndefined();
    expect(other.appliedBy).toBeUndefined();
  });

  it('blocks a pool removal Argo CD would re-create, and a pause of a Cluster it applies', () => {
    const removed = ok(
      plan(
        labelled('MachinePool', 'alpha-user', {
          annotations: {
            'argocd.argoproj.io/tracking-id':
              'fleet:cluster.x-k8s.io/MachinePool:team-a/alpha-user',
          },
        }),
        { action: 'removePool', pool: 'user' },
      ),
    );
    expect(removed.blockers).toEqual([
      "Argo CD's Application fleet applies MachinePool team-a/alpha-user: it would create it again at its next sync (at once with self-heal); remove it from Git instead.",
    ]);
    const paused = ok(
      plan(labelled('Cluster', 'alpha', { labels: FLUX }), { action: 'pause' }),
    );
    expect(paused.blockers?.[0]).toMatch(
      /^Flux's Kustomization flux-system\/clusters applies Cluster team-a\/alpha: it would put spec.paused back/,
    );
  });

  it("still blocks a delete when the live object opts out of Flux (Git's copy is applied again)", () => {
    const optedOut = labelled('MachinePool', 'alpha-user', {
      labels: { ...FLUX, 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' },
    });
    expect(
      ok(plan(optedOut, { action: 'scale', pool: 'user', replicas: 5 }))
        .blockers,
    ).toBeUndefined();
    expect(
      ok(plan(optedOut, { action: 'removePool', pool: 'user' })).blockers,
    ).toHaveLength(1);
  });

  it('warns, not blocks, on an object a plain Helm release installed, and on new objects of a GitOps-applied cluster', () => {
    const helm = ok(
      plan(
        labelled('MachinePool', 'alpha-user', {
          labels: { 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: {
            'meta.helm.sh/release-name': 'alpha',
            'meta.helm.sh/release-namespace': 'team-a',
          },
        }),
        { action: 'scale', pool: 'user', replicas: 5 },
      ),
    );
    expect(helm.blockers).toBeUndefined();
    expect(helm.appliedBy?.[0]).toMatchObject({ tool: 'helm', blocks: false });
    expect(helm.warnings.join(' ')).toMatch(
      /^Helm release team-a\/alpha installed MachinePool team-a\/alpha-user: nothing puts a live change back/,
    );
    const added = ok(
      plan(labelled('Cluster', 'alpha', { labels: FLUX }), {
        action: 'addPool',
        pool: {
          name: 'gpu',
          mode: 'User',
          osType: 'Linux',
          vmSize: 'Standard_D4s_v5',
          replicas: 1,
        },
      }),
    );
    expect(added.blockers).toBeUndefined();
    expect(added.warnings.join(' ')).toMatch(
      /Flux's Kustomization flux-system\/clusters applies cluster alpha's Cluster alpha: the new objects are written live, not in Git/,
    );
  });
});
