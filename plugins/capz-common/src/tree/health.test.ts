import {
  asoManagedHealth,
  asoObjectHealth,
  clusterHealth,
  compareHealth,
  familyOf,
  HEALTH_ORDER,
  isClusterPaused,
  legacyManagedHealth,
  machinePoolHealth,
  objectHealth,
  resolveResources,
  verdictsChangeAt,
  worse,
} from './health';
import {
  asoManagedCluster,
  asoReady,
  failReady,
  find,
  legacyCluster,
  markNotReady,
  NOW,
  setCapiCondition,
  T_READY,
} from './__fixtures__/clusters';
import type { Health } from './types';

const opts = { now: NOW };

describe('worse and compareHealth', () => {
  it('orders healthy < paused < progressing < deleting < unknown < degraded < failed', () => {
    expect(HEALTH_ORDER).toEqual([
      'healthy',
      'paused',
      'progressing',
      'deleting',
      'unknown',
      'degraded',
      'failed',
    ]);
    for (let i = 0; i < HEALTH_ORDER.length; i++) {
      for (let j = 0; j < HEALTH_ORDER.length; j++) {
        const [a, b] = [HEALTH_ORDER[i], HEALTH_ORDER[j]];
        expect(worse(a, b)).toBe(HEALTH_ORDER[Math.max(i, j)]);
        expect(Math.sign(compareHealth(a, b))).toBe(Math.sign(i - j));
      }
    }
  });

  it('is usable as a reducer', () => {
    const all: Health[] = ['healthy', 'progressing', 'degraded', 'paused'];
    expect(all.reduce(worse)).toBe('degraded');
    expect((['healthy', 'paused'] as Health[]).reduce(worse)).toBe('paused');
  });
});

describe('asoObjectHealth', () => {
  const mc = () =>
    find(
      asoManagedCluster({ name: 'search-prod' }).objects,
      'ManagedCluster',
      'search-prod',
    );

  it('Ready True at the current generation is healthy, since its lastTransitionTime', () => {
    expect(asoObjectHealth(mc(), opts)).toEqual({
      health: 'healthy',
      reason: 'Succeeded',
      since: T_READY,
    });
  });

  it('Ready True for an older generation is progressing (CAPZ readyStatus)', () => {
    const o = mc();
    o.metadata.generation = 3;
    o.status.conditions = [asoReady(2)];
    expect(asoObjectHealth(o, opts)).toEqual({
      health: 'progressing',
      reason: 'GenerationNotObserved',
      message:
        'ASO has not processed generation 3 yet (Ready is for generation 2)',
    });
  });

  it('a missing observedGeneration counts as stale, as in CAPZ', () => {
    const o = mc();
    o.status.conditions = [
      { type: 'Ready', status: 'True', lastTransitionTime: T_READY },
    ];
    expect(asoObjectHealth(o, opts).health).toBe('progressing');
  });

  it.each([
    ['Reconciling', 'Info', 'progressing'],
    ['ReconciliationPostponed', 'Info', 'progressing'],
    ['ReconciliationBlocked', 'Warning', 'degraded'],
    ['AzureResourceNotFound', 'Warning', 'degraded'],
    ['SecretNotFound', 'Warning', 'degraded'],
    ['InvalidParameter', 'Error', 'failed'],
    ['ReconciliationFailedPermanently', 'Error', 'failed'],
    ['SomethingNew', 'Info', 'progressing'],
  ] as const)(
    'Ready False %s (%s) is %s, with reason, message, severity and since',
    (reason, severity, health) => {
      const o = failReady(
        mc(),
        reason,
        severity,
        `because ${reason}`,
        '2026-11-21T11:11:11Z',
      );
      expect(asoObjectHealth(o, opts)).toEqual({
        health,
        reason,
        message: `because ${reason}`,
        severity,
        since: '2026-11-21T11:11:11Z',
      });
    },
  );

  it('WaitingForOwner is progressing while the owner exists, degraded when it does not', () => {
    const o = failReady(
      mc(),
      'WaitingForOwner',
      'Warning',
      'Owner "team-a/search-prod" of kind ResourceGroup is not ready',
    );
    expect(asoObjectHealth(o, { ...opts, ownerFound: true }).health).toBe(
      'progressing',
    );
    expect(asoObjectHealth(o, opts).health).toBe('progressing');
    expect(asoObjectHealth(o, { ...opts, ownerFound: false })).toMatchObject({
      health: 'degraded',
      reason: 'WaitingForOwner',
      severity: 'Warning',
    });
  });

  it('an Error for an older generation is progressing: ASO retries once the spec changed', () => {
    const o = failReady(mc(), 'InvalidParameter', 'Error', 'bad vmSize');
    o.metadata.generation = 2;
    o.status.conditions[0].observedGeneration = 1;
    expect(asoObjectHealth(o, opts)).toEqual({
      health: 'progressing',
      reason: 'GenerationNotObserved',
      message:
        'ASO has not processed generation 2 yet; generation 1 failed with InvalidParameter: bad vmSize',
      severity: 'Info',
    });
  });

  it('without a severity: Unknown is progressing, False is degraded', () => {
    const o = mc();
    o.status.conditions = [
      { type: 'Ready', status: 'Unknown', observedGeneration: 1 },
    ];
    expect(asoObjectHealth(o, opts).health).toBe('progressing');
    o.status.conditions = [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Whatever',
        observedGeneration: 1,
      },
    ];
    expect(asoObjectHealth(o, opts).health).toBe('degraded');
  });

  it('no Ready condition: progressing while new, unknown after the grace period', () => {
    const o = mc();
    o.status = {};
    o.metadata.creationTimestamp = '2026-11-21T11:58:00Z';
    expect(asoObjectHealth(o, opts)).toEqual({
      health: 'progressing',
      reason: 'NotReconciledYet',
      message: 'ManagedCluster search-prod has no Ready condition yet',
      since: '2026-11-21T11:58:00Z',
    });
    expect(
      asoObjectHealth(o, { now: NOW, newObjectGraceSeconds: 60 }),
    ).toMatchObject({ health: 'unknown', reason: 'NotReconciled' });
    o.metadata.creationTimestamp = '2026-11-20T09:00:00Z';
    expect(asoObjectHealth(o, opts)).toEqual({
      health: 'unknown',
      reason: 'NotReconciled',
      message:
        'ManagedCluster search-prod has no Ready condition: is its controller running?',
    });
    delete o.metadata.creationTimestamp;
    expect(asoObjectHealth(o, opts).health).toBe('unknown');
  });

  it('accepts now as a Date or epoch milliseconds', () => {
    const o = mc();
    o.status = {};
    o.metadata.creationTimestamp = '2026-11-21T11:58:00Z';
    expect(asoObjectHealth(o, { now: new Date(NOW) }).health).toBe(
      'progressing',
    );
    expect(asoObjectHealth(o, { now: Date.parse(NOW) }).health).toBe(
      'progressing',
    );
  });

  it('deleting is deleting since the deletionTimestamp; a stuck deletion says why', () => {
    const o = mc();
    o.metadata.deletionTimestamp = '2026-11-21T11:30:00Z';
    expect(asoObjectHealth(o, opts)).toEqual({
      health: 'deleting',
      reason: 'Deleting',
      since: '2026-11-21T11:30:00Z',
    });
    failReady(o, 'SecretNotFound', 'Warning', 'credential secret not found');
    expect(asoObjectHealth(o, opts)).toEqual({
      health: 'deleting',
      reason: 'SecretNotFound',
      message: 'credential secret not found',
      severity: 'Warning',
      since: '2026-11-21T11:30:00Z',
    });
    failReady(o, 'Deleting', 'Info', 'deleting');
    expect(asoObjectHealth(o, opts).reason).toBe('Deleting');
  });

  it('never throws on partial objects', () => {
    expect(asoObjectHealth({}, opts).health).toBe('unknown');
    expect(
      asoObjectHealth({ status: { conditions: 'nope' } } as any, opts).health,
    ).toBe('unknown');
    expect(
      asoObjectHealth(
        {
          status: {
            conditions: [
              null,
              3,
              { status: 'True' },
              { type: 'Ready', status: 'Weird' },
            ],
          },
        } as any,
        opts,
      ).health,
    ).toBe('progressing');
  });
});

describe('resolveResources', () => {
  it('merges spec.resources and status.resources by group, kind and name, and resolves them in the namespace', () => {
    const { objects } = asoManagedCluster({ name: 'c1' });
    const cp = find(objects, 'AzureASOManagedControlPlane', 'c1');
    cp.status.resources.push({
      resource: {
        group: 'network.azure.com',
        version: 'v1api20201101',
        kind: 'VirtualNetwork',
        name: 'vnet',
      },
      ready: false,
    });
    cp.status.resources[0].resource.version = 'v1api20250801'; // versions are ignored
    const otherNs = {
      ...find(objects, 'ManagedCluster', 'c1'),
      metadata: { name: 'c1', namespace: 'elsewhere' },
    };
    const resolved = resolveResources(cp, [otherNs, ...objects]);
    expect(
      resolved.map(r => [
        r.ref.kind,
        r.ref.name,
        r.readyInStatus,
        r.watched,
        r.object?.metadata?.namespace,
      ]),
    ).toEqual([
      ['ManagedCluster', 'c1', true, true, 'team-a'],
      // Watched since the legacy control plane's VNet is (docs/real-controllers.md finding 10): not found here.
      ['VirtualNetwork', 'vnet', false, true, undefined],
    ]);
  });

  it('ignores malformed entries', () => {
    expect(
      resolveResources(
        {
          spec: { resources: [null, {}, { kind: 'X' }] },
          status: { resources: [{ resource: {} }, 7] },
        } as any,
        [],
      ),
    ).toEqual([]);
  });
});

describe('asoManagedHealth', () => {
  const fixture = () =>
    asoManagedCluster({
      name: 'c1',
      pools: [{ name: 'system', mode: 'System', count: 2 }],
    });

  it('ready with ready ASO objects is healthy, since the last of them became ready', () => {
    const { objects } = fixture();
    const cp = find(objects, 'AzureASOManagedControlPlane', 'c1');
    find(objects, 'ManagedCluster', 'c1').status.conditions = [
      asoReady(1, '2026-11-20T10:05:00Z'),
    ];
    expect(asoManagedHealth(cp, objects, opts)).toEqual({
      health: 'healthy',
      since: '2026-11-20T10:05:00Z',
    });
  });

  it('not ready: the embedded ASO object says why, and is named as the source', () => {
    const { objects } = fixture();
    const cp = markNotReady(find(objects, 'AzureASOManagedControlPlane', 'c1'));
    const mc = failReady(
      find(objects, 'ManagedCluster', 'c1'),
      'ReconciliationBlocked',
      'Warning',
      'cluster is Updating',
      '2026-11-21T11:00:00Z',
    );
    expect(asoManagedHealth(cp, objects, opts)).toEqual({
      health: 'degraded',
      reason: 'ReconciliationBlocked',
      message: 'cluster is Updating',
      severity: 'Warning',
      since: '2026-11-21T11:00:00Z',
      source: { id: mc.metadata.uid, kind: 'ManagedCluster', name: 'c1' },
    });
  });

  it('still ready in status but an ASO object failed since: the ASO object wins (CAPZ has not caught up)', () => {
    const { objects } = fixture();
    const amp = find(objects, 'AzureASOManagedMachinePool', 'c1-system');
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'c1-system'),
      'OperationNotAllowed',
      'Error',
      'quota',
    );
    expect(asoManagedHealth(amp, objects, opts)).toMatchObject({
      health: 'failed',
      reason: 'OperationNotAllowed',
      source: { kind: 'ManagedClustersAgentPool' },
    });
  });

  it('the worst of several embedded objects decides', () => {
    const { objects } = fixture();
    const infra = find(objects, 'AzureASOManagedCluster', 'c1');
    infra.spec.resources.push({
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedCluster',
      metadata: { name: 'c1' },
    });
    failReady(
      find(objects, 'ResourceGroup', 'c1'),
      'Reconciling',
      'Info',
      'creating',
    );
    failReady(
      find(objects, 'ManagedCluster', 'c1'),
      'InvalidParameter',
      'Error',
      'bad',
    );
    expect(asoManagedHealth(infra, objects, opts)).toMatchObject({
      health: 'failed',
      reason: 'InvalidParameter',
    });
  });

  it('a missing embedded object is unknown NotFound; an unwatched kind reports what CAPZ says', () => {
    const { objects } = fixture();
    const cp = markNotReady(find(objects, 'AzureASOManagedControlPlane', 'c1'));
    const without = objects.filter(o => o.kind !== 'ManagedCluster');
    expect(asoManagedHealth(cp, without, opts)).toEqual({
      health: 'unknown',
      reason: 'NotFound',
      message: 'ManagedCluster c1 was not found',
      source: {
        id: `missing:${cp.metadata.uid}:ManagedCluster:c1`,
        kind: 'ManagedCluster',
        name: 'c1',
      },
    });
    const infra = find(objects, 'AzureASOManagedCluster', 'c1');
    infra.status.resources.push({
      resource: {
        group: 'network.azure.com',
        version: 'v1',
        kind: 'NatGateway',
        name: 'nat',
      },
      ready: true,
    });
    expect(asoManagedHealth(infra, objects, opts).health).toBe('healthy');
    infra.status.resources[1].ready = false;
    expect(asoManagedHealth(infra, objects, opts)).toMatchObject({
      health: 'unknown',
      reason: 'NotWatched',
    });
  });

  it('not ready while its ASO objects are ready: progressing NotReady; ready but not initialized: NotInitialized', () => {
    const { objects } = fixture();
    const cp = find(objects, 'AzureASOManagedControlPlane', 'c1');
    cp.status.ready = false;
    expect(asoManagedHealth(cp, objects, opts)).toMatchObject({
      health: 'progressing',
      reason: 'NotReady',
    });
    cp.status.ready = true;
    cp.status.initialized = false;
    expect(asoManagedHealth(cp, objects, opts)).toMatchObject({
      health: 'progressing',
      reason: 'NotInitialized',
    });
  });

  it('paused by annotation or by its Cluster; deleting wins over paused', () => {
    const { objects } = fixture();
    const cp = find(objects, 'AzureASOManagedControlPlane', 'c1');
    failReady(
      find(objects, 'ManagedCluster', 'c1'),
      'ReconciliationBlocked',
      'Warning',
      'busy',
    );
    expect(
      asoManagedHealth(cp, objects, { ...opts, clusterPaused: true }),
    ).toMatchObject({ health: 'paused', reason: 'Paused' });
    cp.metadata.annotations = {
      ...cp.metadata.annotations,
      'cluster.x-k8s.io/paused': '',
    };
    expect(asoManagedHealth(cp, objects, opts)).toMatchObject({
      health: 'paused',
    });
    cp.metadata.deletionTimestamp = '2026-11-21T11:50:00Z';
    expect(asoManagedHealth(cp, objects, opts)).toMatchObject({
      health: 'deleting',
      since: '2026-11-21T11:50:00Z',
    });
    expect(asoManagedHealth(cp, objects, opts).message).toMatch(
      /paused: deletion waits/,
    );
  });

  it('no status yet: progressing while new', () => {
    const cp = {
      kind: 'AzureASOManagedControlPlane',
      metadata: { name: 'x', creationTimestamp: '2026-11-21T11:59:00Z' },
      spec: {},
    };
    expect(asoManagedHealth(cp, [], opts)).toMatchObject({
      health: 'progressing',
      reason: 'NotReconciledYet',
    });
  });
});

describe('legacyManagedHealth', () => {
  const fixture = () => legacyCluster({ name: 'legacy1' });

  it('reads the v1beta1-style Ready condition with severity', () => {
    const { objects } = fixture();
    const amcp = find(objects, 'AzureManagedControlPlane', 'legacy1');
    expect(legacyManagedHealth(amcp, opts)).toEqual({
      health: 'healthy',
      since: T_READY,
    });
    failReady(amcp, 'ReconciliationBlocked', 'Warning', 'cluster busy');
    expect(legacyManagedHealth(amcp, opts)).toMatchObject({
      health: 'degraded',
      reason: 'ReconciliationBlocked',
      severity: 'Warning',
      message: 'cluster busy',
    });
    failReady(amcp, 'Failed', 'Error', 'nope');
    expect(legacyManagedHealth(amcp, opts).health).toBe('failed');
    failReady(amcp, 'Creating', 'Info', 'ManagedCluster is being created');
    expect(legacyManagedHealth(amcp, opts).health).toBe('progressing');
    failReady(amcp, 'WaitingForOwner', 'Warning', 'owner not ready');
    expect(legacyManagedHealth(amcp, opts).health).toBe('progressing');
  });

  it('Ready True while status.ready is false is progressing', () => {
    const amcp = find(fixture().objects, 'AzureManagedControlPlane', 'legacy1');
    amcp.status.ready = false;
    expect(legacyManagedHealth(amcp, opts)).toMatchObject({
      health: 'progressing',
      reason: 'NotReady',
    });
  });

  it('AzureManagedCluster has only status.ready', () => {
    const amc = find(fixture().objects, 'AzureManagedCluster', 'legacy1');
    expect(legacyManagedHealth(amc, opts)).toEqual({ health: 'healthy' });
    amc.status.ready = false;
    expect(legacyManagedHealth(amc, opts)).toMatchObject({
      health: 'progressing',
      reason: 'NotReady',
    });
  });

  it('errorReason on an AzureManagedMachinePool is failed', () => {
    const ammp = find(
      fixture().objects,
      'AzureManagedMachinePool',
      'legacy1-pool0',
    );
    ammp.status.errorReason = 'CreateError';
    ammp.status.errorMessage = 'failed to create agent pool';
    expect(legacyManagedHealth(ammp, opts)).toEqual({
      health: 'failed',
      reason: 'CreateError',
      message: 'failed to create agent pool',
      severity: 'Error',
    });
  });

  it('paused and deleting', () => {
    const ammp = find(
      fixture().objects,
      'AzureManagedMachinePool',
      'legacy1-pool0',
    );
    expect(
      legacyManagedHealth(ammp, { ...opts, clusterPaused: true }).health,
    ).toBe('paused');
    ammp.metadata.deletionTimestamp = '2026-11-21T11:00:00Z';
    expect(legacyManagedHealth(ammp, opts).health).toBe('deleting');
  });
});

describe('clusterHealth', () => {
  const cluster = () => asoManagedCluster({ name: 'c1' }).cluster;

  it('Available True is healthy since its lastTransitionTime', () => {
    expect(clusterHealth(cluster(), opts)).toEqual({
      health: 'healthy',
      reason: 'Available',
      since: T_READY,
    });
  });

  it('Available False is degraded once provisioned, progressing while provisioning', () => {
    const c = setCapiCondition(
      cluster(),
      'Available',
      'False',
      'NotAvailable',
      '* ControlPlaneAvailable: AzureASOManagedControlPlane is not initialized',
    );
    expect(clusterHealth(c, opts)).toMatchObject({
      health: 'degraded',
      reason: 'NotAvailable',
      message:
        '* ControlPlaneAvailable: AzureASOManagedControlPlane is not initialized',
    });
    c.status.phase = 'Provisioning';
    expect(clusterHealth(c, opts).health).toBe('progressing');
    c.status.phase = 'Pending';
    expect(clusterHealth(c, opts).health).toBe('progressing');
  });

  it('Available True for an older generation is progressing', () => {
    const c = cluster();
    c.metadata.generation = 2;
    expect(clusterHealth(c, opts)).toMatchObject({
      health: 'progressing',
      reason: 'GenerationNotObserved',
    });
  });

  it('spec.paused, the pause annotation or Paused=True is paused', () => {
    const c = cluster();
    c.spec.paused = true;
    expect(isClusterPaused(c)).toBe(true);
    expect(clusterHealth(c, opts)).toMatchObject({
      health: 'paused',
      reason: 'Paused',
    });
    setCapiCondition(c, 'Paused', 'True', 'Paused', '', '2026-11-21T09:00:00Z');
    expect(clusterHealth(c, opts).since).toBe('2026-11-21T09:00:00Z');
    const d = cluster();
    d.metadata.annotations = { 'cluster.x-k8s.io/paused': 'true' };
    expect(clusterHealth(d, opts).health).toBe('paused');
    const e = setCapiCondition(cluster(), 'Paused', 'True', 'Paused');
    expect(isClusterPaused(e)).toBe(true);
    expect(isClusterPaused(cluster())).toBe(false);
    expect(isClusterPaused(undefined)).toBe(false);
  });

  it('deleting wins, and says when a paused cluster will not go away', () => {
    const c = cluster();
    c.metadata.deletionTimestamp = '2026-11-21T11:00:00Z';
    expect(clusterHealth(c, opts)).toEqual({
      health: 'deleting',
      reason: 'Deleting',
      since: '2026-11-21T11:00:00Z',
    });
    c.spec.paused = true;
    expect(clusterHealth(c, opts).message).toBe(
      'Cluster c1 is being deleted, but reconciliation is paused: deletion waits',
    );
  });

  it('reads status.v1beta2.conditions of a Cluster read at v1beta1', () => {
    const c = cluster();
    c.apiVersion = 'cluster.x-k8s.io/v1beta1';
    c.status = {
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: T_READY },
      ],
      v1beta2: {
        conditions: [
          {
            type: 'Available',
            status: 'False',
            reason: 'NotAvailable',
            message: 'x',
            lastTransitionTime: T_READY,
          },
        ],
      },
      phase: 'Provisioned',
    };
    expect(clusterHealth(c, opts)).toMatchObject({
      health: 'degraded',
      reason: 'NotAvailable',
    });
  });

  it('falls back to a v1beta1 Ready condition, then to the phase', () => {
    const c = cluster();
    c.status = {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          severity: 'Warning',
          reason: 'InfrastructureNotReady',
        },
      ],
    };
    expect(clusterHealth(c, opts)).toMatchObject({
      health: 'degraded',
      reason: 'InfrastructureNotReady',
      severity: 'Warning',
    });
    c.status = { phase: 'Provisioned' };
    expect(clusterHealth(c, opts).health).toBe('healthy');
    c.status = { phase: 'Provisioning' };
    expect(clusterHealth(c, opts).health).toBe('progressing');
    c.status = { phase: 'Failed', failureMessage: 'boom' };
    expect(clusterHealth(c, opts)).toMatchObject({
      health: 'failed',
      message: 'boom',
    });
    c.status = {};
    expect(clusterHealth(c, opts).health).toBe('unknown');
  });
});

describe('machinePoolHealth', () => {
  const mp = () =>
    find(asoManagedCluster({ name: 'c1' }).objects, 'MachinePool', 'c1-system');

  it('Available True is healthy', () => {
    expect(machinePoolHealth(mp(), opts)).toEqual({
      health: 'healthy',
      reason: 'Available',
      since: T_READY,
    });
  });

  it('Available False: progressing while provisioning or scaling, degraded when running', () => {
    const o = setCapiCondition(
      mp(),
      'Available',
      'False',
      'NotAvailable',
      '0 of 2 replicas are available',
    );
    o.status.phase = 'Running';
    expect(machinePoolHealth(o, opts)).toMatchObject({
      health: 'degraded',
      reason: 'NotAvailable',
      message: '0 of 2 replicas are available',
    });
    for (const phase of [
      'Provisioning',
      'ScalingUp',
      'ScalingDown',
      'Pending',
    ]) {
      o.status.phase = phase;
      expect(machinePoolHealth(o, opts).health).toBe('progressing');
    }
  });

  it('phase Failed is failed', () => {
    const o = mp();
    o.status.phase = 'Failed';
    o.status.deprecated = {
      v1beta1: { failureReason: 'InvalidConfiguration', failureMessage: 'bad' },
    };
    expect(machinePoolHealth(o, opts)).toEqual({
      health: 'failed',
      reason: 'InvalidConfiguration',
      message: 'bad',
      severity: 'Error',
    });
  });

  it('status.observedGeneration behind is progressing', () => {
    const o = mp();
    o.metadata.generation = 4;
    expect(machinePoolHealth(o, opts)).toMatchObject({
      health: 'progressing',
      reason: 'GenerationNotObserved',
    });
  });

  it('without conditions: InfrastructureReady, then readyReplicas against spec.replicas', () => {
    const o = mp();
    o.status.conditions = [
      {
        type: 'InfrastructureReady',
        status: 'False',
        reason: 'NotReady',
        message: 'AzureASOManagedMachinePool is not ready',
      },
    ];
    o.status.phase = 'Provisioning';
    expect(machinePoolHealth(o, opts)).toMatchObject({
      health: 'progressing',
      reason: 'NotReady',
    });
    o.status = { readyReplicas: 1, observedGeneration: 1 };
    expect(machinePoolHealth(o, opts)).toEqual({
      health: 'progressing',
      reason: 'WaitingForReplicas',
      message: '1 of 2 replicas are ready',
    });
    o.status.readyReplicas = 2;
    expect(machinePoolHealth(o, opts).health).toBe('healthy');
  });

  it('paused with its Cluster; deleting', () => {
    const o = mp();
    expect(
      machinePoolHealth(o, { ...opts, clusterPaused: true }),
    ).toMatchObject({ health: 'paused', message: 'The Cluster is paused' });
    o.metadata.deletionTimestamp = '2026-11-21T11:00:00Z';
    expect(machinePoolHealth(o, opts).health).toBe('deleting');
  });
});

describe('objectHealth and familyOf', () => {
  it('dispatches by kind', () => {
    const { cluster, objects } = asoManagedCluster({ name: 'c1' });
    const legacy = legacyCluster({ name: 'l1' }).objects;
    const all = [...objects, ...legacy];
    expect(all.map(o => `${o.kind}:${familyOf(o)}`)).toEqual(
      expect.arrayContaining([
        'Cluster:cluster',
        'MachinePool:machinePool',
        'AzureASOManagedControlPlane:asoManaged',
        'AzureManagedControlPlane:legacyManaged',
        'ManagedClustersAgentPool:aso',
        'ResourceGroup:aso',
      ]),
    );
    expect(familyOf({ kind: 'ConfigMap' })).toBe('other');
    expect(familyOf({ kind: 'constructor' })).toBe('other');
    expect(familyOf({ kind: 'toString' })).toBe('other');
    for (const o of all)
      expect(objectHealth(o, all, opts).health).toBe('healthy');
    expect(objectHealth(cluster, all, opts)).toEqual(
      clusterHealth(cluster, opts),
    );
  });

  it('uses the objects to tell whether an ASO owner exists', () => {
    const { objects } = asoManagedCluster({ name: 'c1' });
    const ap = failReady(
      find(objects, 'ManagedClustersAgentPool', 'c1-system'),
      'WaitingForOwner',
      'Warning',
      'owner missing',
    );
    expect(objectHealth(ap, objects, opts).health).toBe('progressing');
    expect(
      objectHealth(
        ap,
        objects.filter(o => o.kind !== 'ManagedCluster'),
        opts,
      ).health,
    ).toBe('degraded');
  });

  it('reads unknown kinds with a Ready condition like ASO objects', () => {
    expect(
      objectHealth(
        {
          kind: 'VirtualNetwork',
          metadata: { name: 'v', generation: 1 },
          status: { conditions: [asoReady()] },
        },
        [],
        opts,
      ).health,
    ).toBe('healthy');
    expect(
      objectHealth(
        { kind: 'VirtualNetwork', metadata: { name: 'v' } },
        [],
        opts,
      ).health,
    ).toBe('unknown');
  });
});

describe('verdictsChangeAt', () => {
  const created = (iso: string) => ({
    kind: 'ManagedCluster',
    metadata: { name: iso, creationTimestamp: iso },
  });
  const now = '2026-01-01T00:10:00Z';

  it('is when the first new object leaves its grace period, the moment its verdict turns from progressing to unknown', () => {
    const young = created('2026-01-01T00:08:00Z');
    const younger = created('2026-01-01T00:09:00Z');
    const at = verdictsChangeAt(
      [younger, young, created('2025-12-31T00:00:00Z')],
      { now },
    );
    expect(at).toBe(Date.parse('2026-01-01T00:13:00Z'));
    const before = { now: at! - 1 };
    const after = { now: at! };
    expect(objectHealth(young, [], before).health).toBe('progressing');
    expect(objectHealth(young, [], after).health).toBe('unknown');
  });

  it('is undefined when every object is past its grace period or has no creation time', () => {
    expect(
      verdictsChangeAt(
        [created('2026-01-01T00:04:59Z'), { metadata: { name: 'x' } }],
        { now },
      ),
    ).toBeUndefined();
    expect(
      verdictsChangeAt([created('2026-01-01T00:09:00Z')], {
        now,
        newObjectGraceSeconds: 30,
      }),
    ).toBeUndefined();
  });
});
