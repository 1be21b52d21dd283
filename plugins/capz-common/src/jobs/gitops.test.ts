/** The jobs' GitOps check: a cluster any of whose objects Flux or Argo CD applies fails the preflight, naming it. */
import type { ObservedObject } from '../objects/types';
import * as adoption from './__fixtures__/adoption';
import * as migration from './__fixtures__/migration';
import * as upgrade from './__fixtures__/upgrade';
import { planAdoption } from './adoption';
import { planMigration } from './migration';
import { planApiVersionUpgrade } from './upgrade';
import type { JobPlanResult } from './types';

const FLUX = {
  'kustomize.toolkit.fluxcd.io/name': 'clusters',
  'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
};
const label = (o: ObservedObject, labels: Record<string, string>) => {
  o.metadata = { ...o.metadata, labels: { ...o.metadata?.labels, ...labels } };
};
const check = (r: JobPlanResult) => r.preflight.find(c => c.id === 'gitops');

describe('the GitOps check of the jobs', () => {
  it('migration: passes on an unmarked cluster, fails naming the Kustomization of one of its pools', () => {
    expect(
      check(planMigration(migration.params, migration.snapshot())),
    ).toMatchObject({
      status: 'pass',
    });
    const snap = migration.snapshot();
    label(snap.objects.find(o => o.kind === 'MachinePool')!, FLUX);
    const r = planMigration(migration.params, snap);
    expect(check(r)).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^Flux's Kustomization flux-system\/clusters applies MachinePool team-legacy\/.* of cluster team-legacy\/legacy-1: the job's writes would be put back/,
      ),
    });
    expect(r.preflight.every(c => c.status === 'pass')).toBe(false);
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
});
