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

/**
 * Day-2 actions on an existing cluster, each conditional on management cluster and namespace like
 * reading. Scaling a pool and its autoscaler (`scale`, `autoscale`). @public
 */
export const capzClusterScalePermission = createPermission({
  name: 'capz.cluster.scale',
  attributes: { action: 'update' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/** Kubernetes upgrades of the control plane and the pools (`upgrade`). @public */
export const capzClusterUpgradePermission = createPermission({
  name: 'capz.cluster.upgrade',
  attributes: { action: 'update' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/** Adding and removing node pools (`addPool`, `removePool`). @public */
export const capzClusterNodePoolPermission = createPermission({
  name: 'capz.cluster.nodepool',
  attributes: { action: 'update' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/** Pausing and resuming reconciliation (`pause`, `resume`: `Cluster.spec.paused`). @public */
export const capzClusterPausePermission = createPermission({
  name: 'capz.cluster.pause',
  attributes: { action: 'update' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/** Deleting a cluster (and, per its ASO objects' reconcile policies, its Azure resources). @public */
export const capzClusterDeletePermission = createPermission({
  name: 'capz.cluster.delete',
  attributes: { action: 'delete' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/**
 * Downloading a cluster's kubeconfig: access information, so its own permission, conditional on
 * management cluster and namespace like reading. The kubeconfig never carries a secret unless the operator allows
 * local-account credentials (`capz.connect.allowLocalAccountKubeconfig`). @public
 */
export const capzClusterConnectPermission = createPermission({
  name: 'capz.cluster.connect',
  attributes: { action: 'read' },
  resourceType: CAPZ_CLUSTER_RESOURCE_TYPE,
});

/**
 * Passing a fleet run's approval gate (the `approve` command of a run): the next stage then starts, on
 * clusters of many owners, so it is its own permission and not conditional on a cluster. @public
 */
export const capzFleetRunApprovePermission = createPermission({
  name: 'capz.fleet.run.approve',
  attributes: { action: 'update' },
});

/** The permissions of the cluster resource type, whose policies may answer with conditions. @public */
export const capzClusterResourcePermissions = [
  capzClusterReadPermission,
  capzClusterCreatePermission,
  capzClusterScalePermission,
  capzClusterUpgradePermission,
  capzClusterNodePoolPermission,
  capzClusterPausePermission,
  capzClusterDeletePermission,
  capzClusterConnectPermission,
];

/** @public */
export const capzPermissions = [
  capzClusterReadPermission,
  capzClusterCreatePermission,
  capzClusterAdoptPermission,
  capzClusterMigratePermission,
  capzClusterScalePermission,
  capzClusterUpgradePermission,
  capzClusterNodePoolPermission,
  capzClusterPausePermission,
  capzClusterDeletePermission,
  capzClusterConnectPermission,
  capzFleetRunApprovePermission,
];
