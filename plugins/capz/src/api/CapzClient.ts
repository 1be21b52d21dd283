import { DiscoveryApi, FetchApi } from '@backstage/frontend-plugin-api';
import { ResponseError } from '@backstage/errors';
import { ManagementClustersResponse } from '@internal/plugin-capz-common';
import { CapzApi } from './CapzApi';

/** Calls the capz backend through Backstage's fetch API, which adds the user's token. */
export class CapzClient implements CapzApi {
  constructor(private readonly deps: { discoveryApi: DiscoveryApi; fetchApi: FetchApi }) {}

  private async get<T>(path: string): Promise<T> {
    const base = await this.deps.discoveryApi.getBaseUrl('capz');
    const res = await this.deps.fetchApi.fetch(`${base}${path}`);
    if (!res.ok) throw await ResponseError.fromResponse(res);
    return (await res.json()) as T;
  }

  listManagementClusters(): Promise<ManagementClustersResponse> {
    return this.get('/management-clusters');
  }
}
