/** The upgrade planner tests' parameters, snapshot and plan readers. */
import { requiredUpgradeAccess, type UpgradeSnapshot } from '../upgrade';
import type { JobPlanResult, UpgradeApiVersionJobParams } from '../types';
import { allow, asoManagedCluster, find, type Obj } from './snapshots';

export const ALPHA = 'infrastructure.cluster.x-k8s.io/v1alpha1';
export const BETA = 'infrastructure.cluster.x-k8s.io/v1beta1';
export const params: UpgradeApiVersionJobParams = {
  managementCluster: 'mgmt',
  namespace: 'team-a',
  name: 'alpha-1',
};
export const fields = { 'f:spec': { 'f:resources': {} } };

/** An ASO cluster whose CAPZ objects were applied at v1alpha1 (kubectl) and later read at v1beta1, as after clusterctl upgrade. */
export function snapshot(): UpgradeSnapshot & { objects: Obj[] } {
  const { cluster, objects } = asoManagedCluster({
    name: 'alpha-1',
    pools: [
      { name: 'system', mode: 'System', count: 2 },
      { name: 'apps', count: 1 },
    ],
  });
  for (const o of objects.filter(x => x.kind!.startsWith('AzureASOManaged'))) {
    o.metadata.managedFields = [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: ALPHA,
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
      {
        manager: 'capz-manager',
        operation: 'Apply',
        apiVersion: ALPHA,
        subresource: 'status',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': {} },
      },
    ] as any;
  }
  const cp = find(objects, 'AzureASOManagedControlPlane', 'alpha-1');
  cp.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'] =
    JSON.stringify({ apiVersion: ALPHA, kind: 'AzureASOManagedControlPlane' });
  const clusterAtV1beta1 = {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'Cluster',
    metadata: { name: 'alpha-1', namespace: 'team-a' },
    spec: {
      infrastructureRef: {
        apiVersion: ALPHA,
        kind: 'AzureASOManagedCluster',
        name: 'alpha-1',
      },
      controlPlaneRef: {
        apiVersion: ALPHA,
        kind: 'AzureASOManagedControlPlane',
        name: 'alpha-1',
      },
    },
  };
  return {
    cluster,
    clusterAtV1beta1,
    objects,
    access: allow(requiredUpgradeAccess(params)),
  };
}
export const failed = (r: JobPlanResult) =>
  r.preflight.filter(c => c.status === 'fail').map(c => c.id);
