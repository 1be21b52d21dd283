import { createRouteRef, createSubRouteRef } from '@backstage/frontend-plugin-api';

/** The clusters page, `/capz`. */
export const rootRouteRef = createRouteRef();

/** One cluster's page, below the clusters page. */
export const clusterRouteRef = createSubRouteRef({
  parent: rootRouteRef,
  path: '/clusters/:managementCluster/:namespace/:name',
});
