/** The jobs' GitOps check: a cluster any of whose objects Flux or Argo CD applies fails the preflight, naming it. */
import type { ObservedObject } from '../objects/types';
import * as adoption from './__fixtures__/adoption';
import * as migration from './__fixtures__/migration';
import * as upgrade from './__fixtures__/upgrade';
import { planAdoption } from './adoption';
import { planMigration } from './migration';
import { planApiVersionUpgrade } from './upgrade';
import type { JobPlanResult } from './types';
import { evaluateObjectCondition } from './conditions';
import { gitopsResumeOnCancel } from './gitMode';
import type { JobStepStatus } from './types';

const FLUX = {
  'kustomize.toolkit.fluxcd.io/name': 'clusters',
  'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
};
const label = (o: ObservedObject, labels: Record<string, string>) => {
  o.metadata = { ...o.metadata, labels: { ...o.metadata?.labels, ...labels } };
};
const check = (r: JobPlanResult) => r.preflight.find(c => c.id === 'gitops');

describe('the GitOps check of the jobs', () => {
  it('migration: passes on an unmarked cluster; with Flux applying its Cluster and a pool it runs through Git, warning first', () => {
    const plain = planMigration(migration.params, migration.snapshot());
    expect(check(plain)).toMatchObject({ status: 'pass' });
    expect(plain.plan.map(s => s.id)).not.toContain('suspend-gitops');

    const snap = migration.snapshot();
    const cluster = snap.objects.find(o => o.kind === 'Cluster')!;
    const pool = snap.objects.find(o => o.kind === 'MachinePool')!;
    label(cluster, FLUX);
    label(pool, FLUX);
    const r = planMigration(migration.params, snap);
    expect(check(r)).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(
        /^Flux's Kustomization flux-system\/clusters applies 2 objects of cluster team-legacy\/legacy-1 \(Cluster legacy-1, MachinePool .*\)\. The job runs through Git: it suspends the Kustomization/,
      ),
    });
    const ids = r.plan.map(s => s.id);
    // Suspended before the first write, resumed only after the merge, checked last.
    expect(ids[0]).toBe('suspend-gitops');
    expect(ids[1]).toBe('pause');
    expect(ids.slice(-4)).toEqual([
      'propose-to-git',
      'wait-merge',
      'resume-gitops',
      'verify-gitops',
    ]);
    expect(ids.indexOf('propose-to-git')).toBeGreaterThan(
      ids.indexOf('verify'),
    );
    const suspend = r.plan[0];
    expect(suspend.actions).toEqual([
      expect.objectContaining({
        action: 'merge-patch',
        ref: {
          apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
          kind: 'Kustomization',
          namespace: 'flux-system',
          name: 'clusters',
        },
        patch: {
          metadata: { annotations: { 'capz.io/job': '${JOB_ID}' } },
          spec: { suspend: true },
        },
      }),
    ]);
    expect(suspend.invariantsUntil).toBe('resume-gitops');
    const propose = r.plan
      .find(s => s.id === 'propose-to-git')!
      .actions.find(a => a.action === 'propose-git-change');
    if (propose?.action !== 'propose-git-change')
      throw new Error('no proposal');
    // Exactly the applied objects leave Git; the Cluster's document is replaced by the new cluster's objects.
    expect(propose.remove.map(x => `${x.kind}/${x.name}`)).toEqual([
      'Cluster/legacy-1',
      `MachinePool/${pool.metadata!.name}`,
    ]);
    expect(propose.replace).toMatchObject({
      kind: 'Cluster',
      name: 'legacy-1',
    });
    const to = migration.params.targetNamespace;
    expect(propose.add.map(x => `${x.kind}/${x.namespace}`)).toEqual(
      expect.arrayContaining([
        `Cluster/${to}`,
        `AzureASOManagedControlPlane/${to}`,
        `AzureASOManagedCluster/${to}`,
        `MachinePool/${to}`,
        `AzureASOManagedMachinePool/${to}`,
      ]),
    );
    expect(propose.branch).toContain('${JOB_ID}');
    const resume = r.plan.find(s => s.id === 'resume-gitops')!;
    expect(resume.actions.map(a => a.action)).toEqual([
      'record-generations',
      'merge-patch',
    ]);
    expect(r.plan.find(s => s.id === 'wait-merge')!.waitFor).toEqual([
      expect.objectContaining({
        type: 'flux-source-holds',
        kustomization: { namespace: 'flux-system', name: 'clusters' },
      }),
    ]);
  });

  it("asks for the GitRepository's grant in the namespace the Kustomization's sourceRef names", () => {
    const allowedIn = (r: JobPlanResult) =>
      r.plan[0].preconditions
        .filter(c => c.type === 'allowed')
        .map(c => c.type === 'allowed' && `${c.resource}@${c.namespace}`);
    const snap = migration.snapshot();
    label(snap.objects.find(o => o.kind === 'Cluster')!, FLUX);
    // Unknown to the cache: Flux's default, the Kustomization's own namespace.
    expect(allowedIn(planMigration(migration.params, snap))).toEqual([
      'kustomizations@flux-system',
      'kustomizations@flux-system',
      'gitrepositories@flux-system',
    ]);
    const kustomization = (sourceNamespace?: string): ObservedObject => ({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'clusters', namespace: 'flux-system' },
      spec: {
        sourceRef: {
          kind: 'GitRepository',
          name: 'platform',
          ...(sourceNamespace ? { namespace: sourceNamespace } : {}),
        },
      },
    });
    const r = planMigration(migration.params, {
      ...snap,
      kustomizations: [kustomization('git-sources')],
    });
    expect(allowedIn(r)).toEqual([
      'kustomizations@flux-system',
      'kustomizations@flux-system',
      'gitrepositories@git-sources',
    ]);
    expect(r.plan[0].preconditions).toContainEqual(
      expect.objectContaining({
        description:
          'the backend may get gitrepositories.source.toolkit.fluxcd.io in git-sources (rbac/gitops.yaml)',
      }),
    );
    // A sourceRef without a namespace is the Kustomization's own.
    expect(
      allowedIn(
        planMigration(migration.params, {
          ...snap,
          kustomizations: [kustomization()],
        }),
      ),
    ).toContain('gitrepositories@flux-system');
  });

  it("suspend-gitops resumed after a kill between its patch and its record accepts the job's own suspension only", () => {
    const snap = migration.snapshot();
    label(snap.objects.find(o => o.kind === 'Cluster')!, FLUX);
    const suspend = planMigration(migration.params, snap).plan[0];
    const guard = suspend.preconditions.find(c => c.type === 'field-not')!;
    const patch = suspend.actions[0];
    if (patch.action !== 'merge-patch') throw new Error('no patch');
    // What the patch leaves, with the placeholder as the backend replaces it.
    const k = (annotations: Record<string, string>): ObservedObject => ({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'clusters', namespace: 'flux-system', annotations },
      spec: { suspend: true },
    });
    expect((patch.patch.metadata as any).annotations['capz.io/job']).toBe(
      '${JOB_ID}',
    );
    expect(
      evaluateObjectCondition(guard, k({ 'capz.io/job': 'job-1' }), 'job-1')
        .holds,
    ).toBe(true);
    expect(
      evaluateObjectCondition(guard, k({ 'capz.io/job': 'job-2' }), 'job-1')
        .holds,
    ).toBe(false);
    expect(evaluateObjectCondition(guard, k({}), 'job-1').holds).toBe(false);
  });

  it('a cancel resumes the suspended Kustomization only while Git and the cluster agree: before the first own step, or after the merge', () => {
    const snap = migration.snapshot();
    label(snap.objects.find(o => o.kind === 'Cluster')!, FLUX);
    const plan = planMigration(migration.params, snap).plan;
    const steps = (
      states: Record<string, Partial<JobStepStatus>>,
    ): JobStepStatus[] =>
      plan.map(s => ({
        id: s.id,
        title: s.title,
        state: 'pending',
        attempts: 0,
        ...states[s.id],
      }));
    const done = { state: 'succeeded', attempts: 1 } as const;
    const at = (states: Record<string, Partial<JobStepStatus>>) =>
      gitopsResumeOnCancel({ plan, steps: steps(states) });
    const k = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: 'clusters',
    };

    // Nothing suspended yet; or suspended (or patched by an interrupted attempt) and nothing else started.
    expect(at({})).toBeUndefined();
    expect(at({ 'suspend-gitops': done })).toEqual({
      kustomization: k,
      why: 'untouched',
    });
    expect(at({ 'suspend-gitops': { state: 'pending', attempts: 1 } })).toEqual(
      { kustomization: k, why: 'untouched' },
    );
    // From the pause to the merge, Git holds the old manifests while the cluster moved on: it stays suspended.
    expect(
      at({
        'suspend-gitops': done,
        pause: { state: 'pending', attempts: 1 },
      }),
    ).toBeUndefined();
    const migrated = Object.fromEntries(
      plan
        .filter(
          s => !['wait-merge', 'resume-gitops', 'verify-gitops'].includes(s.id),
        )
        .map(s => [s.id, done]),
    );
    expect(at(migrated)).toBeUndefined();
    expect(
      at({ ...migrated, 'wait-merge': { state: 'running', attempts: 1 } }),
    ).toBeUndefined();
    expect(at({ ...migrated, 'wait-merge': done })).toEqual({
      kustomization: k,
      why: 'merged',
    });
    // Resumed by the job itself: nothing to give back.
    expect(
      at({ ...migrated, 'wait-merge': done, 'resume-gitops': done }),
    ).toBeUndefined();
    // A job that never worked through Git.
    const plain = planMigration(migration.params, migration.snapshot()).plan;
    expect(
      gitopsResumeOnCancel({
        plan: plain,
        steps: plain.map(s => ({
          id: s.id,
          title: s.title,
          state: 'succeeded',
          attempts: 1,
        })),
      }),
    ).toBeUndefined();
  });

  it('migration: refused when Argo CD applies an object, or two Kustomizations share the cluster', () => {
    const argo = migration.snapshot();
    const cl = argo.objects.find(o => o.kind === 'Cluster')!;
    cl.metadata = {
      ...cl.metadata,
      annotations: {
        'argocd.argoproj.io/tracking-id': `fleet:cluster.x-k8s.io/Cluster:${cl.metadata?.namespace}/${cl.metadata?.name}`,
      },
    };
    const a = planMigration(migration.params, argo);
    expect(check(a)).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^Argo CD's Application fleet applies Cluster /,
      ),
    });

    const two = migration.snapshot();
    label(two.objects.find(o => o.kind === 'Cluster')!, FLUX);
    label(two.objects.find(o => o.kind === 'MachinePool')!, {
      ...FLUX,
      'kustomize.toolkit.fluxcd.io/name': 'pools',
    });
    expect(check(planMigration(migration.params, two))).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(
        'applied by 2 Flux Kustomizations (flux-system/clusters, flux-system/pools)',
      ),
    });
  });

  it('upgrade: fails naming the Argo CD Application of its Cluster', () => {
    expect(
      check(planApiVersionUpgrade(upgrade.params, upgrade.snapshot())),
    ).toMatchObject({
      status: 'pass',
    });
    const snap = upgrade.snapshot();
    const cluster =
      snap.cluster ?? snap.objects.find(o => o.kind === 'Cluster')!;
    cluster.metadata = {
      ...cluster.metadata,
      annotations: {
        'argocd.argoproj.io/tracking-id': `fleet:cluster.x-k8s.io/Cluster:${cluster.metadata?.namespace}/${cluster.metadata?.name}`,
      },
    };
    expect(check(planApiVersionUpgrade(upgrade.params, snap))).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^Argo CD's Application fleet applies Cluster /,
      ),
    });
  });

  it('adoption: fails when Flux applies the ResourceGroup it reuses; warns on a plain Helm release', () => {
    expect(
      check(planAdoption(adoption.params, adoption.snapshot())),
    ).toMatchObject({
      status: 'pass',
    });
    const rg = (
      labels: Record<string, string>,
      annotations = {},
    ): ObservedObject => ({
      apiVersion: 'resources.azure.com/v1api20200601',
      kind: 'ResourceGroup',
      metadata: { name: 'rg-adopt', namespace: 'adopt', labels, annotations },
      spec: { azureName: 'RG_Adopt', location: 'westeurope' },
    });
    expect(
      check(
        planAdoption(
          adoption.params,
          adoption.snapshot({ objects: [rg(FLUX)] }),
        ),
      ),
    ).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^Flux's Kustomization flux-system\/clusters applies ResourceGroup adopt\/rg-adopt/,
      ),
    });
    expect(
      check(
        planAdoption(
          adoption.params,
          adoption.snapshot({
            objects: [
              rg(
                { 'app.kubernetes.io/managed-by': 'Helm' },
                { 'meta.helm.sh/release-name': 'rgs' },
              ),
            ],
          }),
        ),
      ),
    ).toMatchObject({ status: 'warn' });
  });

  describe('adoption into a namespace whose clusters Git holds', () => {
    const sibling = (
      name: string,
      labels: Record<string, string> = FLUX,
      annotations: Record<string, string> = {},
    ): ObservedObject => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name, namespace: 'adopt', labels, annotations },
      spec: {},
    });
    const nsCheck = (r: JobPlanResult) =>
      r.preflight.find(c => c.id === 'gitops-namespace');

    it('proposes the adopted objects beside the first cluster the Kustomization applies, after the adoption, suspending nothing', () => {
      const r = planAdoption(
        adoption.params,
        adoption.snapshot({
          objects: [sibling('zeta'), sibling('alpha'), sibling('manual', {})],
          kustomizations: [
            {
              apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
              kind: 'Kustomization',
              metadata: { name: 'clusters', namespace: 'flux-system' },
              spec: {
                sourceRef: {
                  kind: 'GitRepository',
                  name: 'fleet',
                  namespace: 'git',
                },
              },
            },
          ],
        }),
      );
      expect(nsCheck(r)).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(
          /^Flux's Kustomization flux-system\/clusters applies 2 clusters of namespace adopt \(alpha, zeta\)\. After the adoption the job proposes the new cluster's objects to the repository it applies from, beside Cluster alpha,/,
        ),
      });
      // The job's own checks stay green: the GitOps check of the objects it reuses passes.
      expect(check(r)).toMatchObject({ status: 'pass' });
      const ids = r.plan.map(s => s.id);
      expect(ids).not.toContain('suspend-gitops');
      expect(ids.slice(-4)).toEqual([
        'propose-to-git',
        'wait-merge',
        'wait-flux-apply',
        'verify-gitops',
      ]);
      expect(ids.indexOf('propose-to-git')).toBeGreaterThan(
        ids.indexOf('adopt-agent-pools'),
      );
      const propose = r.plan.find(s => s.id === 'propose-to-git')!;
      expect(propose.actions.map(a => a.action)).toEqual([
        'propose-git-change',
        'record-generations',
      ]);
      const change = propose.actions[0];
      if (change.action !== 'propose-git-change')
        throw new Error('no proposal');
      expect(change.remove).toEqual([]);
      expect(change.replace).toBeUndefined();
      expect(change.beside).toMatchObject({
        kind: 'Cluster',
        namespace: 'adopt',
        name: 'alpha',
      });
      expect(change.add.map(x => `${x.kind}/${x.name}`)).toEqual([
        'Cluster/aks-adopt',
        'AzureASOManagedCluster/aks-adopt',
        'AzureASOManagedControlPlane/aks-adopt',
        'MachinePool/aks-adopt-system',
        'AzureASOManagedMachinePool/aks-adopt-system',
        'MachinePool/aks-adopt-apps',
        'AzureASOManagedMachinePool/aks-adopt-apps',
      ]);
      expect(change.branch).toBe('capz/adopt-adopt-aks-adopt-${JOB_ID}');
      // Reads only, asked where each lives: no patch of the Kustomization.
      expect(
        propose.preconditions
          .filter(c => c.type === 'allowed')
          .map(
            c =>
              c.type === 'allowed' && `${c.verb} ${c.resource}@${c.namespace}`,
          ),
      ).toEqual(['get kustomizations@flux-system', 'get gitrepositories@git']);
      expect(r.plan.find(s => s.id === 'wait-merge')!.waitFor).toEqual([
        expect.objectContaining({ type: 'flux-source-holds', absent: [] }),
      ]);
      const verify = r.plan.find(s => s.id === 'verify-gitops')!;
      expect(verify.waitFor.filter(c => c.type === 'absent')).toEqual([]);
      expect(
        verify.waitFor.filter(c => c.type === 'generation-unchanged'),
      ).toHaveLength(7);
    });

    it('adopts live with no Git steps when no cluster of the namespace is applied from Git', () => {
      const r = planAdoption(
        adoption.params,
        adoption.snapshot({ objects: [sibling('manual', {})] }),
      );
      expect(nsCheck(r)).toBeUndefined();
      expect(r.plan.map(s => s.id)).not.toContain('propose-to-git');
    });

    it('warns, and leaves Git to the user, when Argo CD or two Kustomizations apply the clusters', () => {
      const argo = planAdoption(
        adoption.params,
        adoption.snapshot({
          objects: [
            sibling(
              'alpha',
              {},
              {
                'argocd.argoproj.io/tracking-id':
                  'fleet:cluster.x-k8s.io/Cluster:adopt/alpha',
              },
            ),
          ],
        }),
      );
      expect(nsCheck(argo)).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(
          /^Argo CD's Application fleet applies Cluster alpha of namespace adopt: the job does not propose the adopted cluster to Git/,
        ),
      });
      expect(argo.plan.map(s => s.id)).not.toContain('propose-to-git');
      const two = planAdoption(
        adoption.params,
        adoption.snapshot({
          objects: [
            sibling('alpha'),
            sibling('beta', {
              ...FLUX,
              'kustomize.toolkit.fluxcd.io/name': 'more',
            }),
          ],
        }),
      );
      expect(nsCheck(two)).toMatchObject({
        status: 'warn',
        message: expect.stringMatching(
          /^The clusters of namespace adopt are applied by 2 Flux Kustomizations \(flux-system\/clusters, flux-system\/more\): the job does not propose/,
        ),
      });
      expect(two.plan.map(s => s.id)).not.toContain('propose-to-git');
    });
  });
});
