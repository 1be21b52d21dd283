import { clusterOf, edit, world } from '../day2/__fixtures__/cluster';
import { readDay2Cluster } from '../day2/snapshot';
import type { ObservedObject } from '../objects/types';
import {
  fleetMigrationNamespace,
  fleetRunPreview,
  fleetRunSpecProblems,
  planFleetCluster,
  planFleetMigration,
  type FleetClusterFacts,
  type FleetUpgradeTarget,
} from './plan';

const place = {
  managementCluster: 'local',
  namespace: 'team-a',
  name: 'alpha',
};
const OFFERED = ['v1.33.2', 'v1.34.1', 'v1.34.3', 'v1.35.0'];
const NEXT: FleetUpgradeTarget = { kind: 'next-minor' };

const plan = (
  objects: ObservedObject[],
  o: {
    target?: FleetUpgradeTarget;
    facts?: FleetClusterFacts;
    offered?: string[];
    offeredError?: string;
    throughGit?: boolean;
  } = {},
) =>
  planFleetCluster(
    place,
    readDay2Cluster(clusterOf(objects), objects),
    o.facts ?? { health: 'healthy' },
    o.target ?? NEXT,
    {
      ...(o.offeredError
        ? { offeredVersionsError: o.offeredError }
        : { offeredVersions: o.offered ?? OFFERED }),
      ...(o.throughGit ? { throughGit: true } : {}),
    },
  );

/** The pool's MachinePool runs `version`. */
const poolAt = (objects: ObservedObject[], pool: string, version: string) =>
  edit(objects, 'MachinePool', `alpha-${pool}`, o => {
    (o.spec as any).template.spec.version = version;
  });

describe("planFleetCluster: a cluster's part of a fleet upgrade, planned as the single-cluster upgrade", () => {
  it('next minor: the newest patch AKS offers in the region, the control plane and then every pool', () => {
    const p = plan(world());
    expect(p).toMatchObject({
      ...place,
      outcome: 'upgrade',
      from: 'v1.33.2',
      to: 'v1.34.3',
      problems: [],
    });
    expect(p.steps.map(s => [s.target, s.version])).toEqual([
      ['controlPlane', 'v1.34.3'],
      [{ pools: ['system', 'user'] }, 'v1.34.3'],
    ]);
    // The same changes as the single-cluster upgrade's preview.
    expect(p.steps[0].changes).toEqual([
      expect.objectContaining({
        kind: 'AzureASOManagedControlPlane',
        fields: [
          expect.objectContaining({
            path: 'spec.version',
            before: 'v1.33.2',
            after: 'v1.34.3',
          }),
        ],
      }),
    ]);
    expect(p.steps[1].changes.map(c => c.kind)).toEqual([
      'MachinePool',
      'MachinePool',
    ]);
  });

  it('one version: only the pools behind it when the control plane runs it; nothing when all do', () => {
    const behind = plan(
      poolAt(world({ version: 'v1.34.3' }), 'user', 'v1.33.2'),
      {
        target: { kind: 'version', version: '1.34.3' },
      },
    );
    expect(behind.outcome).toBe('upgrade');
    expect(behind.steps.map(s => s.target)).toEqual([{ pools: ['user'] }]);
    const current = plan(world({ version: 'v1.34.3' }), {
      target: { kind: 'version', version: 'v1.34.3' },
    });
    expect(current).toMatchObject({
      outcome: 'current',
      steps: [],
      problems: [],
    });
  });

  it('refuses, in words, what the single-cluster upgrade refuses and what a run must not start on', () => {
    const problems = (p: ReturnType<typeof plan>) => {
      expect(p.outcome).toBe('refused');
      expect(p.steps).toEqual([]);
      return p.problems;
    };
    expect(
      problems(
        plan(world(), {
          facts: {
            health: 'degraded',
            reason: 'ManagedCluster alpha: ReconciliationBlocked',
          },
        }),
      ),
    ).toEqual([
      'it is degraded (ManagedCluster alpha: ReconciliationBlocked): a run upgrades healthy clusters only, so that its health gate judges the upgrade and not what was there before',
    ]);
    expect(
      problems(
        plan(world(), {
          facts: {
            health: 'healthy',
            conflicts: [
              {
                message: 'AKS upgrades this cluster on its own.',
                fix: 'Choose one owner.',
              },
            ],
          },
        }),
      ),
    ).toEqual(['AKS upgrades this cluster on its own. Choose one owner.']);
    expect(
      problems(plan(world(), { offeredError: 'ARM answered 403' })),
    ).toEqual([
      'the versions AKS offers in westeurope are not known: ARM answered 403',
    ]);
    expect(
      problems(plan(world(), { offered: ['v1.33.2', 'v1.33.5'] })),
    ).toEqual([
      'AKS offers no 1.34 version in westeurope (it offers v1.33.2, v1.33.5)',
    ]);
    expect(
      problems(
        plan(world(), { target: { kind: 'version', version: 'v1.35.0' } }),
      ),
    ).toEqual([
      'v1.35.0 skips a minor version: from v1.33.2 the control plane can only move to 1.33 or 1.34 (AKS does not skip minor versions)',
    ]);
    expect(
      problems(
        plan(world(), { target: { kind: 'version', version: 'v1.34.2' } }),
      ),
    ).toEqual([
      'AKS does not offer v1.34.2 in westeurope; from v1.33.2 it offers v1.34.3, v1.34.1',
    ]);
    expect(
      problems(
        plan(world({ version: 'v1.35.0' }), {
          target: { kind: 'version', version: 'v1.34.3' },
        }),
      ),
    ).toEqual([
      'it runs v1.35.0, newer than the target v1.34.3: AKS cannot downgrade Kubernetes',
    ]);
  });

  it('refuses a control plane that would leave a pool further behind than AKS allows', () => {
    const p = plan(poolAt(world(), 'user', 'v1.30.4'));
    expect(p.outcome).toBe('refused');
    expect(p.problems).toEqual([
      'pool user runs v1.30.4, 4 minor versions behind v1.34.3: more than AKS allows between a control plane and its pools; upgrade the pool first (one minor at a time), then run this cluster',
    ]);
  });

  it("refuses a cluster whose objects Flux applies, with the single-cluster upgrade's blocker", () => {
    const objects = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      o.metadata!.labels = {
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      };
    });
    const p = plan(objects);
    expect(p.outcome).toBe('refused');
    expect(p.problems).toEqual([
      expect.stringContaining("Flux's Kustomization flux-system/clusters"),
    ]);
  });

  it('plans a step whose objects a Flux Kustomization applies as a pull request when the backend proposes to Git; live steps stay live', () => {
    const objects = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      o.metadata!.labels = {
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      };
    });
    const p = plan(objects, { throughGit: true });
    expect(p.outcome).toBe('upgrade');
    expect(p.steps.map(s => [s.target, s.throughGit])).toEqual([
      [
        'controlPlane',
        "Flux's Kustomization flux-system/clusters applies AzureASOManagedControlPlane alpha",
      ],
      // The pools' objects are not Flux's here: written live, as the single-cluster upgrade writes them.
      [{ pools: ['system', 'user'] }, undefined],
    ]);
  });

  it('refuses a step another GitOps controller applies even when the backend proposes to Git (only Flux Kustomizations are written to Git)', () => {
    const objects = edit(world(), 'AzureASOManagedControlPlane', 'alpha', o => {
      o.metadata!.annotations = {
        'argocd.argoproj.io/tracking-id': `clusters:infrastructure.cluster.x-k8s.io/AzureASOManagedControlPlane:${
          o.metadata!.namespace
        }/alpha`,
      };
    });
    const p = plan(objects, { throughGit: true });
    expect(p.outcome).toBe('refused');
    expect(p.problems.join(' ')).toContain('Argo CD');
  });
});

describe("fleetRunSpecProblems: a run that cannot run, in the request's words", () => {
  const c = (name: string) => ({
    managementCluster: 'local',
    namespace: 'team-a',
    name,
  });
  it('names each problem', () => {
    expect(
      fleetRunSpecProblems({
        target: { kind: 'version', version: 'latest' },
        concurrency: 0,
        stages: [
          { name: 'dev', clusters: [c('a'), c('b')] },
          { name: 'dev', clusters: [c('b')] },
          { name: ' ', clusters: [] },
        ],
      }),
    ).toEqual([
      'stages[1].name: "dev" names two stages',
      'stages[1].clusters: local/team-a/b is already in stage "dev": a cluster is upgraded once per run',
      'stages[2].name: a stage needs a name',
      'stages[2].clusters: stage " " has no cluster',
      'concurrency: at least 1 cluster at a time',
      'target.version: "latest" is not a version like v1.34.2',
    ]);
    expect(fleetRunSpecProblems({ target: NEXT, stages: [] })).toEqual([
      'stages: a run needs at least one stage',
    ]);
    expect(
      fleetRunSpecProblems({
        target: NEXT,
        stages: [{ name: 'dev', clusters: [c('a')] }],
      }),
    ).toEqual([]);
  });
});

describe('fleetRunPreview', () => {
  it("keeps the stages' order and counts each outcome", () => {
    const spec = {
      target: NEXT,
      stages: [
        { name: 'dev', clusters: [place] },
        { name: 'prod', clusters: [{ ...place, name: 'beta' }] },
      ],
    };
    const preview = fleetRunPreview(spec, p =>
      p.name === 'alpha'
        ? plan(world())
        : {
            ...p,
            outcome: 'refused',
            steps: [],
            problems: ['no such cluster'],
          },
    );
    expect(preview.concurrency).toBe(1);
    expect(
      preview.stages.map(s => [
        s.name,
        s.clusters.map(x => [x.name, x.outcome]),
      ]),
    ).toEqual([
      ['dev', [['alpha', 'upgrade']]],
      ['prod', [['beta', 'refused']]],
    ]);
    expect(preview.counts).toEqual({ upgrade: 1, current: 0, refused: 1 });
  });
});

describe('a migration wave', () => {
  const at = (name: string, namespace = 'team-legacy') => ({
    managementCluster: 'local',
    namespace,
    name,
  });
  const request = (name: string) => ({
    type: 'migrate' as const,
    params: { ...at(name), targetNamespace: `team-legacy-${name}` },
  });

  it('names one target namespace per cluster and refuses a spec that sends two clusters into one', () => {
    expect(fleetMigrationNamespace({ kind: 'migrate' }, at('data-lake'))).toBe(
      'team-legacy-data-lake',
    );
    expect(
      fleetRunSpecProblems({
        target: { kind: 'migrate' },
        stages: [{ name: 'legacy', clusters: [at('a'), at('b')] }],
      }),
    ).toEqual([]);
    expect(
      fleetRunSpecProblems({
        target: { kind: 'migrate', targetNamespace: 'migrated' },
        stages: [{ name: 'legacy', clusters: [at('a'), at('b')] }],
      }),
    ).toEqual([
      'target.targetNamespace: local/team-legacy/a and local/team-legacy/b would both migrate into namespace migrated; each migration creates its own (use {name} in it)',
    ]);
    // A name that is not a namespace never reaches the API server: a 400 before the preview reads anything.
    expect(
      fleetRunSpecProblems({
        target: { kind: 'migrate', targetNamespace: '../{name}' },
        stages: [{ name: 'legacy', clusters: [at('a')] }],
      }),
    ).toEqual([
      expect.stringMatching(
        /^target\.targetNamespace: for local\/team-legacy\/a: /,
      ),
    ]);
  });

  it('plans a legacy cluster as its migration job, refuses it with the failed checks, and leaves an ASO cluster as it is', () => {
    const pass = {
      id: 'x',
      title: 'Healthy',
      status: 'pass' as const,
      message: 'ok',
    };
    const ok = planFleetMigration(at('a'), 'legacy', request('a'), {
      preflight: [
        pass,
        {
          id: 'w',
          title: 'Everything is adopted',
          status: 'warn',
          message: 'a subnet stays unmanaged',
          fix: 'Add it later.',
        },
      ],
      plan: [{ title: 'Pause the old objects' }, { title: 'Adopt' }] as never,
    });
    expect(ok).toMatchObject({
      outcome: 'upgrade',
      steps: [
        {
          kind: 'job',
          request: request('a'),
          title: 'migrate to the ASO API in namespace team-legacy-a',
          plan: ['Pause the old objects', 'Adopt'],
          warnings: [
            'Everything is adopted: a subnet stays unmanaged Add it later.',
          ],
        },
      ],
    });
    const refused = planFleetMigration(at('b'), 'legacy', request('b'), {
      preflight: [
        pass,
        {
          id: 't',
          title: 'The target namespace is new',
          status: 'fail',
          message: 'Namespace team-legacy-b already exists.',
          fix: 'Choose a namespace that does not exist yet.',
        },
      ],
      plan: [],
    });
    expect(refused).toMatchObject({
      outcome: 'refused',
      steps: [],
      problems: [
        'The target namespace is new: Namespace team-legacy-b already exists. Choose a namespace that does not exist yet.',
      ],
    });
    expect(
      planFleetMigration(at('c'), 'aso', request('c'), undefined),
    ).toMatchObject({ outcome: 'current', steps: [] });
  });
});

describe("a stage's groups", () => {
  it("carry each cluster's group from the spec to its plan", () => {
    const at = (name: string) => ({
      managementCluster: 'local',
      namespace: 'team-a',
      name,
    });
    const preview = fleetRunPreview(
      {
        target: { kind: 'next-minor' },
        stages: [
          { name: 'prod', clusters: [{ ...at('a'), group: 'eu' }, at('b')] },
        ],
      },
      p => ({ ...p, outcome: 'current', steps: [], problems: [] }),
    );
    expect(preview.stages[0].clusters).toEqual([
      { ...at('a'), group: 'eu', outcome: 'current', steps: [], problems: [] },
      { ...at('b'), outcome: 'current', steps: [], problems: [] },
    ]);
  });
});
