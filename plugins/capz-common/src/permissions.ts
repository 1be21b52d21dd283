import { createPermission } from '@backstage/plugin-permission-common';

/** Reading cluster trees, YAML and timelines. @public */
export const capzClusterReadPermission = createPermission({
  name: 'capz.cluster.read',
  attributes: { action: 'read' },
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

/** @public */
export const capzPermissions = [
  capzClusterReadPermission,
  capzClusterAdoptPermission,
  capzClusterMigratePermission,
];
