import { evaluateObjectCondition } from '../conditions';
import { find, mergePatch, type Obj } from '../__fixtures__/snapshots';
import {
  ALPHA,
  BETA,
  failed,
  fields,
  params,
  snapshot,
} from '../__fixtures__/upgrade';
import { planApiVersionUpgrade } from '.';

describe('planApiVersionUpgrade', () => {
  it('updates the references at cluster.x-k8s.io/v1beta1, then moves the v1alpha1 field managers to v1beta1', () => {
    const snap = snapshot();
    const r = planApiVersionUpgrade(params, snap);
    expect(failed(r)).toEqual([]);
    expect(r.plan.map(s => s.id)).toEqual([
      'update-references',
      'rewrite-managed-fields',
    ]);
    const [refs, mf] = r.plan;
    expect(refs.actions).toEqual([
      expect.objectContaining({
        action: 'merge-patch',
        ref: {
          apiVersion: 'cluster.x-k8s.io/v1beta1',
          kind: 'Cluster',
          namespace: 'team-a',
          name: 'alpha-1',
        },
        patch: {
          spec: {
            infrastructureRef: { apiVersion: BETA },
            controlPlaneRef: { apiVersion: BETA },
          },
        },
      }),
    ]);
    expect(
      refs.waitFor.map(c => (c.type === 'field' ? c.path.join('.') : c.type)),
    ).toEqual([
      'spec.infrastructureRef.apiVersion',
      'spec.controlPlaneRef.apiVersion',
    ]);

    expect(
      mf.actions.map(a =>
        a.action === 'merge-patch'
          ? `${a.ref.apiVersion} ${a.ref.kind}/${a.ref.name}`
          : '',
      ),
    ).toEqual([
      `${BETA} AzureASOManagedCluster/alpha-1`,
      `${BETA} AzureASOManagedControlPlane/alpha-1`,
      `${BETA} AzureASOManagedMachinePool/alpha-1-system`,
      `${BETA} AzureASOManagedMachinePool/alpha-1-apps`,
    ]);
    const patch = (mf.actions[0] as any).patch;
    expect(patch.metadata.managedFields).toEqual([
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: BETA,
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: fields,
      },
      {
        manager: 'capz-manager',
        operation: 'Update',
        apiVersion: BETA,
        subresource: 'status',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': {} },
      },
      // Status entries are left as they are: they do not say how the object was written.
      {
        manager: 'capz-manager',
        operation: 'Apply',
        apiVersion: ALPHA,
        subresource: 'status',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': {} },
      },
    ]);
    // The wait does not hold before and holds after the patch.
    const infra = find(snap.objects, 'AzureASOManagedCluster', 'alpha-1');
    expect(evaluateObjectCondition(mf.waitFor[0], infra).holds).toBe(false);
    expect(
      evaluateObjectCondition(mf.waitFor[0], mergePatch(infra, patch) as Obj)
        .holds,
    ).toBe(true);
  });

  it('lists the manifests to change, one per object and manager', () => {
    const r = planApiVersionUpgrade(params, snapshot());
    expect(r.result?.manifestsToChange).toEqual([
      {
        kind: 'AzureASOManagedCluster',
        namespace: 'team-a',
        name: 'alpha-1',
        manager: 'kubectl-client-side-apply',
        change: `apiVersion: ${ALPHA} -> ${BETA}`,
      },
      {
        kind: 'AzureASOManagedControlPlane',
        namespace: 'team-a',
        name: 'alpha-1',
        manager: 'kubectl-client-side-apply',
        change: `apiVersion: ${ALPHA} -> ${BETA}`,
      },
      {
        kind: 'AzureASOManagedMachinePool',
        namespace: 'team-a',
        name: 'alpha-1-system',
        manager: 'kubectl-client-side-apply',
        change: `apiVersion: ${ALPHA} -> ${BETA}`,
      },
      {
        kind: 'AzureASOManagedMachinePool',
        namespace: 'team-a',
        name: 'alpha-1-apps',
        manager: 'kubectl-client-side-apply',
        change: `apiVersion: ${ALPHA} -> ${BETA}`,
      },
    ]);
  });

  it('names GitOps managers too, and a manifest known only from last-applied-configuration', () => {
    const snap = snapshot();
    const mp = find(snap.objects, 'AzureASOManagedMachinePool', 'alpha-1-apps');
    (mp.metadata.managedFields as any[]).push({
      manager: 'argocd-controller',
      operation: 'Apply',
      apiVersion: ALPHA,
      fieldsType: 'FieldsV1',
      fieldsV1: fields,
    });
    for (const o of snap.objects)
      if (
        o.kind !== 'AzureASOManagedMachinePool' ||
        o.metadata.name !== 'alpha-1-apps'
      )
        if (o.kind!.startsWith('AzureASOManaged'))
          o.metadata.managedFields = [];
    const r = planApiVersionUpgrade(params, {
      ...snap,
      clusterAtV1beta1: undefined,
    });
    expect(
      r.result?.manifestsToChange?.map(m => `${m.kind}/${m.name} ${m.manager}`),
    ).toEqual([
      'AzureASOManagedMachinePool/alpha-1-apps kubectl-client-side-apply',
      'AzureASOManagedMachinePool/alpha-1-apps argocd-controller',
      'AzureASOManagedControlPlane/alpha-1 kubectl-client-side-apply',
    ]);
    expect(r.plan.map(s => s.id)).toEqual(['rewrite-managed-fields']);
    expect(r.plan[0].actions).toHaveLength(1);
  });

  it('patches MachinePool references read at v1beta1', () => {
    const snap = snapshot();
    const mp = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'MachinePool',
      metadata: { name: 'alpha-1-apps' },
      spec: {
        clusterName: 'alpha-1',
        template: {
          spec: {
            infrastructureRef: {
              apiVersion: ALPHA,
              kind: 'AzureASOManagedMachinePool',
              name: 'alpha-1-apps',
            },
          },
        },
      },
    };
    const r = planApiVersionUpgrade(params, {
      ...snap,
      machinePoolsAtV1beta1: [mp],
    });
    expect(r.plan[0].actions[1]).toMatchObject({
      ref: {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'MachinePool',
        name: 'alpha-1-apps',
      },
      patch: {
        spec: {
          template: { spec: { infrastructureRef: { apiVersion: BETA } } },
        },
      },
    });
  });
});
