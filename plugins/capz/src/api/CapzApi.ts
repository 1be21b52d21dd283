import { createApiRef } from '@backstage/frontend-plugin-api';
import { ManagementClustersResponse } from '@internal/plugin-capz-common';

/** The CAPZ backend's HTTP API, as the frontend uses it. @public */
export interface CapzApi {
  listManagementClusters(): Promise<ManagementClustersResponse>;
}

/** @public */
export const capzApiRef = createApiRef<CapzApi>({ id: 'plugin.capz.api' });
