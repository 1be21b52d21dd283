import {
  createExternalRouteRef,
  createRouteRef,
  createSubRouteRef,
} from '@backstage/frontend-plugin-api';

/** The clusters page, `/capz`. */
export const rootRouteRef = createRouteRef();

/** One cluster's page, below the clusters page. */
export const clusterRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/clusters/:managementCluster/:namespace/:name',
});

/** The adoption wizard. */
export const adoptRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/adopt',
});

/** The migration wizard of one AzureManagedControlPlane cluster. */
export const migrateRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/clusters/:managementCluster/:namespace/:name/migrate',
});

/** The v1alpha1 to v1beta1 apiVersion upgrade of one AzureASOManagedControlPlane cluster. */
export const upgradeRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/clusters/:managementCluster/:namespace/:name/upgrade',
});

/** Every job across the management clusters. */
export const jobsRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/jobs',
});

/** One job's progress page; everything on it comes from GET /jobs/:id, so a reload shows the same. */
export const jobRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/jobs/:id',
});

/** Every fleet run the user may read, newest first, live; from GET /fleet-runs. */
export const fleetRunsRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/fleet-runs',
});

/** A fleet run's page: its stages and clusters, live, with its commands; all of it from GET /fleet-runs/:id. */
export const fleetRunRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/fleet-runs/:id',
});

/**
 * A scaffolder template's page, for "New AKS cluster" (the `new-aks-cluster` template of the scaffolder module). Bound
 * by default to the scaffolder's `selectedTemplate` route; without the scaffolder the button is not shown.
 */
export const createClusterRouteRef = createExternalRouteRef({
  params: ['namespace', 'templateName'],
  defaultTarget: 'scaffolder.selectedTemplate',
});

/** The template "New AKS cluster" opens. */
export const NEW_CLUSTER_TEMPLATE = {
  namespace: 'default',
  templateName: 'new-aks-cluster',
};
