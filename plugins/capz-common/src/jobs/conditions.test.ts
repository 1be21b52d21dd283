import { evaluateObjectCondition } from './conditions';
import type { LiveCondition, ObjectRef } from './types';
import type { ObservedObject } from '../objects/types';

const mcRef: ObjectRef = {
  apiVersion: 'containerservice.azure.com/v1api20240901',
  kind: 'ManagedCluster',
  namespace: 'team-x',
  name: 'foo',
};
const mc = (
  over: Partial<ObservedObject> & { finalizers?: string[] } = {},
): ObservedObject => {
  const { finalizers, ...rest } = over;
  return {
    apiVersion: mcRef.apiVersion,
    kind: 'ManagedCluster',
    ...rest,
    metadata: {
      name: 'foo',
      namespace: 'team-x',
      generation: 2,
      ...(finalizers ? { finalizers } : {}),
      ...rest.metadata,
    } as ObservedObject['metadata'],
  };
};
const ev = (c: LiveCondition, o: ObservedObject | undefined) =>
  evaluateObjectCondition(c, o);

describe('evaluateObjectCondition', () => {
  it('exists and absent', () => {
    expect(ev({ type: 'exists', ref: mcRef }, mc())).toEqual({
      holds: true,
      observed: 'ManagedCluster team-x/foo: present',
    });
    expect(ev({ type: 'exists', ref: mcRef }, undefined)).toEqual({
      holds: false,
      observed: 'ManagedCluster team-x/foo: absent',
    });
    expect(ev({ type: 'absent', ref: mcRef }, undefined).holds).toBe(true);
    const deleting = mc({
      metadata: { deletionTimestamp: '2026-11-21T11:00:00Z' },
      finalizers: ['serviceoperator.azure.com/finalizer'],
    });
    expect(ev({ type: 'absent', ref: mcRef }, deleting)).toEqual({
      holds: false,
      observed:
        'ManagedCluster team-x/foo: still present (being deleted since 2026-11-21T11:00:00Z, finalizers: serviceoperator.azure.com/finalizer)',
    });
  });

  it('ready: True at the current generation; says the reason otherwise', () => {
    const ready = (status: string, og = 2, extra = {}) =>
      mc({
        status: {
          conditions: [
            { type: 'Ready', status, observedGeneration: og, ...extra },
          ],
        },
      });
    expect(ev({ type: 'ready', ref: mcRef }, ready('True')).holds).toBe(true);
    expect(
      ev(
        { type: 'ready', ref: mcRef },
        ready('False', 2, {
          reason: 'ReconciliationBlocked',
          message: 'credential not found',
        }),
      ),
    ).toEqual({
      holds: false,
      observed:
        'ManagedCluster team-x/foo: Ready=False (ReconciliationBlocked: credential not found)',
    });
    expect(ev({ type: 'ready', ref: mcRef }, ready('True', 1))).toEqual({
      holds: false,
      observed:
        'ManagedCluster team-x/foo: Ready=True but for generation 1, not the current 2',
    });
    expect(ev({ type: 'ready', ref: mcRef }, mc()).observed).toBe(
      'ManagedCluster team-x/foo: no Ready condition yet',
    );
    expect(ev({ type: 'ready', ref: mcRef }, undefined)).toEqual({
      holds: false,
      observed: 'ManagedCluster team-x/foo: absent',
    });
  });

  it('condition: a named condition and status (v1beta2 Available)', () => {
    const cluster = {
      kind: 'Cluster',
      metadata: { name: 'c' },
      status: {
        conditions: [
          { type: 'Available', status: 'False', reason: 'NotAvailable' },
        ],
      },
    };
    const ref = {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      namespace: 'ns',
      name: 'c',
    };
    expect(
      ev(
        { type: 'condition', ref, condition: 'Available', status: 'True' },
        cluster,
      ),
    ).toEqual({
      holds: false,
      observed: 'Cluster ns/c: Available=False (NotAvailable)',
    });
    expect(
      ev(
        { type: 'condition', ref, condition: 'Available', status: 'False' },
        cluster,
      ).holds,
    ).toBe(true);
  });

  it('annotation and label, null meaning unset, orAbsent', () => {
    const o = mc({
      metadata: {
        annotations: { 'clusterctl.cluster.x-k8s.io/block-move': 'true' },
        labels: { 'cluster.x-k8s.io/cluster-name': 'foo' },
      },
    });
    expect(
      ev(
        {
          type: 'annotation',
          ref: mcRef,
          annotation: 'clusterctl.cluster.x-k8s.io/block-move',
          value: null,
        },
        o,
      ),
    ).toEqual({
      holds: false,
      observed:
        'ManagedCluster team-x/foo: annotation clusterctl.cluster.x-k8s.io/block-move=true',
    });
    expect(
      ev(
        {
          type: 'annotation',
          ref: mcRef,
          annotation: 'clusterctl.cluster.x-k8s.io/block-move',
          value: null,
        },
        mc(),
      ).holds,
    ).toBe(true);
    expect(
      ev(
        {
          type: 'annotation',
          ref: mcRef,
          annotation: 'serviceoperator.azure.com/reconcile-policy',
          value: 'skip',
        },
        mc(),
      ).observed,
    ).toBe(
      'ManagedCluster team-x/foo: no annotation serviceoperator.azure.com/reconcile-policy',
    );
    expect(
      ev(
        { type: 'annotation', ref: mcRef, annotation: 'a', value: 'skip' },
        undefined,
      ).holds,
    ).toBe(false);
    expect(
      ev(
        {
          type: 'annotation',
          ref: mcRef,
          annotation: 'a',
          value: 'skip',
          orAbsent: true,
        },
        undefined,
      ).holds,
    ).toBe(true);
    expect(
      ev(
        {
          type: 'label',
          ref: mcRef,
          label: 'cluster.x-k8s.io/cluster-name',
          value: 'foo',
        },
        o,
      ).holds,
    ).toBe(true);
    expect(
      ev(
        {
          type: 'label',
          ref: mcRef,
          label: 'cluster.x-k8s.io/cluster-name',
          value: 'bar',
        },
        o,
      ).holds,
    ).toBe(false);
  });

  it('field: deep equality; null matches unset', () => {
    const o = mc({
      spec: { paused: true, owner: { name: 'rg' } },
      status: { ready: false },
    });
    expect(
      ev(
        { type: 'field', ref: mcRef, path: ['spec', 'paused'], value: true },
        o,
      ),
    ).toEqual({
      holds: true,
      observed: 'ManagedCluster team-x/foo: spec.paused=true',
    });
    expect(
      ev(
        {
          type: 'field',
          ref: mcRef,
          path: ['spec', 'owner'],
          value: { name: 'rg' },
        },
        o,
      ).holds,
    ).toBe(true);
    expect(
      ev(
        { type: 'field', ref: mcRef, path: ['status', 'ready'], value: true },
        o,
      ).observed,
    ).toBe('ManagedCluster team-x/foo: status.ready=false');
    expect(
      ev(
        {
          type: 'field',
          ref: mcRef,
          path: ['metadata', 'ownerReferences'],
          value: null,
        },
        o,
      ),
    ).toEqual({
      holds: true,
      observed: 'ManagedCluster team-x/foo: metadata.ownerReferences=unset',
    });
    expect(
      ev(
        {
          type: 'field',
          ref: mcRef,
          path: ['spec', 'paused'],
          value: true,
          orAbsent: true,
        },
        undefined,
      ).holds,
    ).toBe(true);
  });

  it('no-finalizers', () => {
    expect(
      ev(
        { type: 'no-finalizers', ref: mcRef },
        mc({ finalizers: ['serviceoperator.azure.com/finalizer'] }),
      ),
    ).toEqual({
      holds: false,
      observed:
        'ManagedCluster team-x/foo: finalizers serviceoperator.azure.com/finalizer',
    });
    expect(
      ev({ type: 'no-finalizers', ref: mcRef }, mc({ finalizers: [] })).holds,
    ).toBe(true);
    expect(
      ev({ type: 'no-finalizers', ref: mcRef, orAbsent: true }, undefined)
        .holds,
    ).toBe(true);
    expect(ev({ type: 'no-finalizers', ref: mcRef }, undefined).holds).toBe(
      false,
    );
  });

  it('controlled-by: a controller reference of that kind and name, any CAPZ version', () => {
    const c: LiveCondition = {
      type: 'controlled-by',
      ref: mcRef,
      ownerKind: 'AzureASOManagedControlPlane',
      ownerName: 'foo',
    };
    const owned = (apiVersion: string, controller: boolean, name = 'foo') =>
      mc({
        metadata: {
          ownerReferences: [
            {
              apiVersion,
              kind: 'AzureASOManagedControlPlane',
              name,
              controller,
            },
          ],
        },
      });
    expect(
      ev(c, owned('infrastructure.cluster.x-k8s.io/v1alpha1', true)).holds,
    ).toBe(true);
    expect(
      ev(c, owned('infrastructure.cluster.x-k8s.io/v1beta1', true)),
    ).toEqual({
      holds: true,
      observed:
        'ManagedCluster team-x/foo: controlled by AzureASOManagedControlPlane foo (infrastructure.cluster.x-k8s.io/v1beta1)',
    });
    expect(
      ev(c, owned('infrastructure.cluster.x-k8s.io/v1beta1', false)).observed,
    ).toBe('ManagedCluster team-x/foo: no controller owner reference');
    expect(
      ev(c, owned('infrastructure.cluster.x-k8s.io/v1beta1', true, 'bar'))
        .holds,
    ).toBe(false);
    expect(ev(c, owned('example.com/v1', true)).holds).toBe(false);
  });

  it('not-written-at: only non-status entries count', () => {
    const c: LiveCondition = {
      type: 'not-written-at',
      ref: mcRef,
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
    };
    const with_ = (entries: any[]) =>
      mc({ metadata: { managedFields: entries } });
    expect(
      ev(
        c,
        with_([
          {
            manager: 'capz-manager',
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
            subresource: 'status',
          },
        ]),
      ).holds,
    ).toBe(true);
    expect(
      ev(
        c,
        with_([
          {
            manager: 'argocd-controller',
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha1',
            operation: 'Apply',
          },
        ]),
      ),
    ).toEqual({
      holds: false,
      observed:
        'ManagedCluster team-x/foo: written at infrastructure.cluster.x-k8s.io/v1alpha1 by argocd-controller',
    });
    expect(
      ev(
        c,
        with_([
          {
            manager: 'kubectl',
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          },
        ]),
      ).holds,
    ).toBe(true);
  });

  it('refuses the conditions the backend evaluates itself', () => {
    expect(() =>
      ev(
        { type: 'allowed', verb: 'get', group: '', resource: 'secrets' },
        undefined,
      ),
    ).toThrow(/backend evaluates/);
    expect(() =>
      ev(
        {
          type: 'azure-cluster-exists',
          subscriptionId: 's',
          resourceGroup: 'rg',
          name: 'n',
          credential: { apiVersion: 'v1', kind: 'Secret', name: 'x' },
        },
        undefined,
      ),
    ).toThrow(/azure-cluster-exists is not about one Kubernetes object/);
  });
});
