import { buildClusterTree } from './buildTree';
import { HINTED_REASONS, hintFor, splitReason } from './hints';
import {
  asoManagedCluster,
  failReady,
  find,
  NOW,
} from './__fixtures__/clusters';

describe('splitReason', () => {
  it('splits at the last ": " (a name may hold one), and leaves a bare reason whole', () => {
    expect(splitReason('ManagedCluster prod: ReconciliationBlocked')).toEqual({
      object: 'ManagedCluster prod',
      reason: 'ReconciliationBlocked',
    });
    expect(splitReason('Cluster a: b: Failed ')).toEqual({
      object: 'Cluster a: b',
      reason: 'Failed',
    });
    expect(splitReason('Paused')).toEqual({ reason: 'Paused' });
  });
});

describe('hintFor', () => {
  const required = [
    'ReconciliationBlocked',
    'AzureResourceNotFound',
    'SecretNotFound',
    'WaitingForOwner',
    'Reconciling',
    'ReconciliationFailedPermanently',
    'SubscriptionMismatch',
    'ReferenceNotFound',
    'Failed',
    'InvalidParameter',
    'OperationNotAllowed',
    'BadRequest',
  ];

  it.each(required)(
    'explains %s with a title, an explanation and an action',
    reason => {
      const h = hintFor(reason);
      expect(h?.reason).toBe(reason);
      expect(h?.title.length).toBeGreaterThan(3);
      expect(h?.explanation.length).toBeGreaterThan(20);
      expect(h?.action.length).toBeGreaterThan(10);
    },
  );

  it('gives different reasons different hints', () => {
    const texts = HINTED_REASONS.map(r => hintFor(r)!.explanation);
    expect(new Set(texts).size).toBe(texts.length);
  });

  it('says what matters for the common ones', () => {
    expect(hintFor('ReconciliationBlocked')?.explanation).toMatch(
      /provisioningState/,
    );
    expect(hintFor('AzureResourceNotFound')?.explanation).toMatch(
      /reconcile-policy skip/,
    );
    expect(hintFor('SecretNotFound')?.explanation).toMatch(/credential-from/);
    expect(hintFor('SecretNotFound')?.action).toMatch(/aso-secret/);
    expect(hintFor('ReconciliationFailedPermanently')?.explanation).toMatch(
      /until the spec changes/,
    );
    expect(hintFor('Paused')?.explanation).toMatch(/skip/);
  });

  it('explains a Failed about the credential Secret, as real ASO words it, as the missing-credential case', () => {
    // ASO v2.18.0 as seen with CAPZ's aks-aso template (docs/real-controllers.md#findings, finding 6).
    const hint = hintFor(
      'Failed',
      'default/aso-credential does not exist (credential secret not found: Secret "aso-credential" not found)',
    );
    expect(hint?.reason).toBe('Failed');
    expect(hint?.explanation).toMatch(/credential-from/);
    expect(
      hintFor(
        'Failed',
        'global credential not configured, you must use either namespaced or per-resource credentials',
      )?.title,
    ).toBe(hintFor('SecretNotFound')?.title);
    // Other failures keep the generic one.
    expect(hintFor('Failed', 'something else went wrong')?.title).toBe(
      'Failed',
    );
  });

  it('accepts rollup reasons prefixed with the object', () => {
    expect(
      hintFor('ManagedCluster search-prod: ReconciliationBlocked'),
    ).toEqual(hintFor('ReconciliationBlocked'));
  });

  it('recognises "local accounts disabled" from the message of a BadRequest or Failed', () => {
    const local = hintFor(
      'BadRequest',
      'Getting static credential is not allowed because this cluster is set to disable local accounts.',
    );
    expect(local?.title).toBe('Local accounts are disabled');
    expect(local?.action).toMatch(/userCredentials/);
    expect(
      hintFor(
        'Failed',
        'extension failed to produce resources for export: failed listing admin credentials',
      )?.title,
    ).toBe('Local accounts are disabled');
    expect(hintFor('BadRequest', 'something else')?.title).toBe(
      'Azure rejected the request',
    );
    expect(hintFor('Failed')?.title).toBe('Failed');
  });

  it('returns undefined for what it does not know', () => {
    expect(hintFor(undefined)).toBeUndefined();
    expect(hintFor('')).toBeUndefined();
    expect(hintFor('NoSuchReason')).toBeUndefined();
    expect(hintFor('constructor')).toBeUndefined();
    expect(hintFor('toString')).toBeUndefined();
  });

  it('knows every reason the tree itself sets', () => {
    const { cluster, objects } = asoManagedCluster({
      name: 'c',
      pools: [{ name: 'a' }, { name: 'b' }],
    });
    cluster.spec.infrastructureRef = { kind: 'AzureCluster', name: 'c' };
    const mc = find(objects, 'ManagedCluster', 'c');
    mc.metadata.generation = 2;
    find(objects, 'AzureASOManagedMachinePool', 'c-a').status.ready = false;
    failReady(
      find(objects, 'ManagedClustersAgentPool', 'c-b'),
      'Reconciling',
      'Info',
      'x',
    );
    const stale = {
      ...find(objects, 'MachinePool', 'c-b'),
      status: {},
      metadata: {
        ...find(objects, 'MachinePool', 'c-b').metadata,
        creationTimestamp: '2020-01-01T00:00:00Z',
      },
    };
    const fresh = {
      ...stale,
      metadata: { ...stale.metadata, name: 'c-new', creationTimestamp: NOW },
    };
    const reasons = new Set<string>();
    const walk = (n: ReturnType<typeof buildClusterTree>) => {
      if (n.reason) reasons.add(n.reason.split(': ').pop()!);
      n.children.forEach(walk);
    };
    walk(
      buildClusterTree(
        cluster,
        [
          ...objects.filter(
            o => o.metadata.name !== 'c-b' || o.kind !== 'MachinePool',
          ),
          stale,
          fresh,
        ],
        { now: NOW },
      ),
    );
    cluster.spec.paused = true;
    cluster.metadata.deletionTimestamp = NOW;
    walk(buildClusterTree(cluster, [], { now: NOW }));
    delete cluster.metadata.deletionTimestamp;
    walk(buildClusterTree(cluster, objects, { now: NOW }));
    expect([...reasons].sort()).toEqual(
      expect.arrayContaining([
        'Deleting',
        'GenerationNotObserved',
        'NotFound',
        'NotReady',
        'NotReconciled',
        'NotReconciledYet',
        'NotWatched',
        'Paused',
      ]),
    );
    const own = [...reasons].filter(
      r => !['Available', 'Succeeded'].includes(r),
    );
    expect(own.map(r => [r, hintFor(r)?.reason])).toEqual(own.map(r => [r, r]));
  });
});
