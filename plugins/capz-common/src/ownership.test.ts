import { clusterOwnerRef, DEFAULT_CLUSTER_OWNER } from './ownership';

describe('clusterOwnerRef', () => {
  it('reads the owner annotation as the catalog reads spec.owner: a bare name is a group in the default namespace', () => {
    expect(clusterOwnerRef('team-payments')).toBe(
      'group:default/team-payments',
    );
    expect(clusterOwnerRef('User:Default/Alice')).toBe('user:default/alice');
    expect(clusterOwnerRef('group:payments/Team-A')).toBe(
      'group:payments/team-a',
    );
  });

  it('falls back to the default owner, the configured one first', () => {
    expect(clusterOwnerRef(undefined)).toBe(DEFAULT_CLUSTER_OWNER);
    expect(clusterOwnerRef('  ')).toBe(DEFAULT_CLUSTER_OWNER);
    expect(clusterOwnerRef(undefined, 'guests')).toBe('group:default/guests');
  });

  it('gives no owner for an annotation that is not an entity ref', () => {
    expect(clusterOwnerRef('group:')).toBeUndefined();
    expect(clusterOwnerRef('group:default/')).toBeUndefined();
    expect(clusterOwnerRef(':team-a')).toBeUndefined();
  });
});
