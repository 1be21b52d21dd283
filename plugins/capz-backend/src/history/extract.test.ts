import { ObservedObject } from '@capz-backstage/plugin-capz-common';
import { conditionTransitions, eventOf } from './extract';

const T0 = '2026-11-20T10:00:00Z';
const T1 = '2026-11-20T10:05:00Z';
const seen = new Date('2026-11-20T10:06:30.123Z');
const SEEN = '2026-11-20T10:06:30.123Z';

const resourceGroup = (ready: Record<string, unknown>): ObservedObject => ({
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  metadata: { name: 'rg', namespace: 'team-a', uid: 'rg-uid', generation: 2 },
  status: { conditions: [{ type: 'Ready', observedGeneration: 2, ...ready }] },
});

describe('conditionTransitions', () => {
  it('reads ASO conditions with severity, and records every current one on first sight', () => {
    const rg = resourceGroup({
      status: 'False',
      reason: 'SecretNotFound',
      severity: 'Warning',
      message: 'no secret',
      lastTransitionTime: T0,
    });
    expect(conditionTransitions(undefined, rg, seen)).toEqual([
      {
        objectUid: 'rg-uid',
        kind: 'ResourceGroup',
        name: 'rg',
        conditionType: 'Ready',
        status: 'False',
        reason: 'SecretNotFound',
        severity: 'Warning',
        message: 'no secret',
        transitionTime: '2026-11-20T10:00:00.000Z',
        firstSeen: SEEN,
        occurredAt: '2026-11-20T10:00:00.000Z',
        exactTime: true,
      },
    ]);
  });

  it('records a status change seen live with its condition time, ordered by when it was seen; ASO severity "" is none', () => {
    const before = resourceGroup({
      status: 'False',
      reason: 'Reconciling',
      severity: 'Info',
      lastTransitionTime: T0,
    });
    const after = resourceGroup({
      status: 'True',
      reason: 'Succeeded',
      severity: '',
      lastTransitionTime: T1,
    });
    const [t] = conditionTransitions(before, after, seen);
    expect(t).toMatchObject({
      status: 'True',
      reason: 'Succeeded',
      transitionTime: '2026-11-20T10:05:00.000Z',
      occurredAt: SEEN,
    });
    expect(t.severity).toBeUndefined();
  });

  it('orders a reason-only change by when it was seen: Kubernetes keeps lastTransitionTime then', () => {
    const before = resourceGroup({
      status: 'False',
      reason: 'WaitingForOwner',
      severity: 'Warning',
      lastTransitionTime: T0,
    });
    const after = resourceGroup({
      status: 'False',
      reason: 'Reconciling',
      severity: 'Info',
      lastTransitionTime: T0,
    });
    expect(conditionTransitions(before, after, seen)).toMatchObject([
      {
        reason: 'Reconciling',
        severity: 'Info',
        transitionTime: '2026-11-20T10:00:00.000Z',
        occurredAt: SEEN,
      },
    ]);
  });

  it('records nothing when no condition changed, whatever else did', () => {
    const before = resourceGroup({
      status: 'True',
      reason: 'Succeeded',
      lastTransitionTime: T0,
    });
    const after = {
      ...before,
      metadata: { ...before.metadata, generation: 3 },
      spec: { location: 'westeurope' },
    };
    expect(conditionTransitions(before, after, seen)).toEqual([]);
  });

  it('records a condition that flipped and came back between two observations (its time moved)', () => {
    const before = resourceGroup({
      status: 'True',
      reason: 'Succeeded',
      lastTransitionTime: T0,
    });
    const after = resourceGroup({
      status: 'True',
      reason: 'Succeeded',
      lastTransitionTime: T1,
    });
    expect(conditionTransitions(before, after, seen)).toMatchObject([
      { status: 'True', transitionTime: '2026-11-20T10:05:00.000Z' },
    ]);
  });

  it('reads CAPI v1beta2 conditions (metav1: reason and message, no severity), only the changed ones', () => {
    const cluster = (available: string, reason: string): ObservedObject => ({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: 'c', namespace: 'team-a', uid: 'c-uid' },
      status: {
        conditions: [
          {
            type: 'Available',
            status: available,
            reason,
            message: available === 'True' ? '' : '* WorkersAvailable: 0 of 1',
            lastTransitionTime: available === 'True' ? T1 : T0,
            observedGeneration: 1,
          },
          {
            type: 'InfrastructureReady',
            status: 'True',
            reason: 'Ready',
            message: '',
            lastTransitionTime: T0,
          },
        ],
      },
    });
    const transitions = conditionTransitions(
      cluster('False', 'NotAvailable'),
      cluster('True', 'Available'),
      seen,
    );
    expect(transitions).toEqual([
      expect.objectContaining({
        kind: 'Cluster',
        conditionType: 'Available',
        status: 'True',
        reason: 'Available',
        transitionTime: '2026-11-20T10:05:00.000Z',
      }),
    ]);
    expect(transitions[0].message).toBeUndefined();
  });

  it('prefers status.v1beta2.conditions over the v1beta1 ones for a CAPI object read at v1beta1', () => {
    const cluster: ObservedObject = {
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      metadata: { name: 'c', namespace: 'team-a', uid: 'c-uid' },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            severity: 'Warning',
            reason: 'Old',
            lastTransitionTime: T0,
          },
          {
            type: 'ControlPlaneInitialized',
            status: 'True',
            lastTransitionTime: T0,
          },
        ],
        v1beta2: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Ready',
              lastTransitionTime: T1,
            },
          ],
        },
      },
    };
    expect(
      conditionTransitions(undefined, cluster, seen).map(t => [
        t.conditionType,
        t.status,
        t.reason,
      ]),
    ).toEqual([
      ['Ready', 'True', 'Ready'],
      ['ControlPlaneInitialized', 'True', undefined],
    ]);
  });

  it('reads legacy v1beta1-style conditions (AzureManagedControlPlane) with severity', () => {
    const amcp = (ready: Record<string, unknown>): ObservedObject => ({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureManagedControlPlane',
      metadata: { name: 'legacy', namespace: 'team-a', uid: 'amcp-uid' },
      status: { ready: false, conditions: [{ type: 'Ready', ...ready }] },
    });
    const before = amcp({ status: 'True', lastTransitionTime: T0 });
    const after = amcp({
      status: 'False',
      severity: 'Error',
      reason: 'Failed',
      message: 'boom',
      lastTransitionTime: T1,
    });
    expect(conditionTransitions(before, after, seen)).toMatchObject([
      {
        kind: 'AzureManagedControlPlane',
        conditionType: 'Ready',
        status: 'False',
        severity: 'Error',
        reason: 'Failed',
        message: 'boom',
      },
    ]);
  });

  describe('AzureASOManaged* (no status.conditions): a synthetic Ready from status.ready', () => {
    const cp = (
      status: Record<string, unknown> | undefined,
      statusWrite = T0,
    ): ObservedObject => ({
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'AzureASOManagedControlPlane',
      metadata: {
        name: 'cp',
        namespace: 'team-a',
        uid: 'cp-uid',
        managedFields: [
          {
            manager: 'capz-manager',
            operation: 'Apply',
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
            time: '2026-11-20T09:00:00Z',
          } as any,
          {
            manager: 'capz-manager',
            operation: 'Update',
            subresource: 'status',
            time: statusWrite,
          } as any,
        ],
      },
      ...(status ? { status } : {}),
    });
    const notReady = {
      ready: false,
      initialized: false,
      resources: [
        {
          resource: {
            group: 'containerservice.azure.com',
            version: 'v1api20240901',
            kind: 'ManagedCluster',
            name: 'cp',
          },
          ready: false,
        },
        {
          resource: {
            group: 'resources.azure.com',
            kind: 'ResourceGroup',
            name: 'rg',
          },
          ready: true,
        },
      ],
    };

    it('records nothing before CAPZ writes a status', () => {
      expect(conditionTransitions(undefined, cp(undefined), seen)).toEqual([]);
    });

    it('records NotReady naming the resources not ready yet, then Ready at the time of the status write', () => {
      const first = conditionTransitions(undefined, cp(notReady), seen);
      expect(first).toEqual([
        expect.objectContaining({
          kind: 'AzureASOManagedControlPlane',
          conditionType: 'Ready',
          status: 'False',
          reason: 'NotReady',
          message: 'Waiting for ManagedCluster/cp to be ready',
          transitionTime: '2026-11-20T10:00:00.000Z',
          exactTime: false,
        }),
      ]);
      const ready = {
        ...notReady,
        ready: true,
        initialized: true,
        resources: notReady.resources.map(r => ({ ...r, ready: true })),
      };
      expect(conditionTransitions(cp(notReady), cp(ready, T1), seen)).toEqual([
        expect.objectContaining({
          status: 'True',
          reason: 'Ready',
          transitionTime: '2026-11-20T10:05:00.000Z',
        }),
      ]);
    });

    it('records nothing when only other status fields (and the status write time) changed', () => {
      expect(
        conditionTransitions(
          cp({ ...notReady, ready: true }),
          cp({ ...notReady, ready: true, replicas: 3 }, T1),
          seen,
        ),
      ).toEqual([]);
    });
  });
});

describe('eventOf', () => {
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: 'rg.1',
      namespace: 'team-a',
      uid: 'ev-uid',
      creationTimestamp: T0,
    },
    involvedObject: {
      kind: 'ResourceGroup',
      name: 'rg',
      namespace: 'team-a',
      uid: 'rg-uid',
    },
    type: 'Warning',
    reason: 'SecretNotFound',
    message: 'no secret',
    count: 3,
    firstTimestamp: T0,
    lastTimestamp: T1,
    source: { component: 'aso-controller' },
  };

  it('keeps the involved object, counts, times and the source component', () => {
    expect(eventOf(event, seen)).toEqual({
      eventUid: 'ev-uid',
      namespace: 'team-a',
      objectUid: 'rg-uid',
      kind: 'ResourceGroup',
      name: 'rg',
      type: 'Warning',
      reason: 'SecretNotFound',
      message: 'no secret',
      count: 3,
      firstTimestamp: '2026-11-20T10:00:00.000Z',
      lastTimestamp: '2026-11-20T10:05:00.000Z',
      source: 'aso-controller',
    });
  });

  it('prefers reportingController and falls back to eventTime and series (events.k8s.io writers)', () => {
    const modern = {
      ...event,
      firstTimestamp: null,
      lastTimestamp: null,
      count: undefined,
      eventTime: '2026-11-20T10:01:00.000000Z',
      series: { count: 7, lastObservedTime: '2026-11-20T10:04:00.000000Z' },
      reportingController: 'capz-controller-manager',
    };
    expect(eventOf(modern, seen)).toMatchObject({
      count: 7,
      firstTimestamp: '2026-11-20T10:01:00.000Z',
      lastTimestamp: '2026-11-20T10:04:00.000Z',
      source: 'capz-controller-manager',
    });
  });

  it('ignores Events without an involved object uid', () => {
    expect(
      eventOf(
        { ...event, involvedObject: { kind: 'ResourceGroup', name: 'rg' } },
        seen,
      ),
    ).toBeUndefined();
  });
});
