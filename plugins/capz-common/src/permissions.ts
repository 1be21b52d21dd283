import { createPermission } from '@backstage/plugin-permission-common';

/**
 * The resource type of CAPZ clusters: policies can limit access by management cluster and namespace with the
 * rules the backend registers (`IS_IN_MANAGEMENT_CLUSTER`, `IS_IN_NAMESPACE`).
 * @public
 */
export const CAPZ_CLUSTER_RESOURCE_TYPE = 'capz-cluster';

/** Reading cluster trees, YAML and timelines; conditional on management cluster and namespace. @public */
export const capzClusterReadPermission = createPermission({
  name: 'capz.cluster.read',
  attributes: { action: 'read' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/** Adopting an existing AKS cluster into CAPZ. @public */
export const capzClusterAdoptPermission = createPermission({
  name: 'capz.cluster.adopt',
  attributes: { action: 'create' },
});

/** Migrating a cluster (AzureManagedControlPlane to ASO-managed, or v1alpha1 to v1beta1). @public */
export const capzClusterMigratePermission = createPermission({
  name: 'capz.cluster.migrate',
  attributes: { action: 'update' },
});

/**
 * Creating a new cluster's objects on a management cluster (the scaffolder's `capz:cluster:create`, for the user who
 * runs the template); conditional on management cluster and namespace like reading. @public
 */
export const capzClusterCreatePermission = createPermission({
  name: 'capz.cluster.create',
  attributes: { action: 'create' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/** @public */
export const capzPermissions = [
  capzClusterReadPermission,
  capzClusterCreatePermission,
  capzClusterAdoptPermission,
  capzClusterMigratePermission,
];
