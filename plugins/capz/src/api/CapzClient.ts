import { DiscoveryApi, FetchApi } from '@backstage/frontend-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  ClustersResponse,
  ManagementClustersResponse,
  ObjectYamlResponse,
  TimelineResponse,
} from '@internal/plugin-capz-common';
import { CapzApi, ClusterRef, ClusterTreeResponse } from './CapzApi';

const clusterPath = (ref: ClusterRef) =>
  `/clusters/${encodeURIComponent(ref.managementCluster)}/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}`;

/** Calls the capz backend through Backstage's fetch API, which adds the user's token. */
export class CapzClient implements CapzApi {
  constructor(private readonly deps: { discoveryApi: DiscoveryApi; fetchApi: FetchApi }) {}

  private async get<T>(path: string, query?: Record<string, string | undefined>): Promise<T> {
    const base = await this.deps.discoveryApi.getBaseUrl('capz');
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, v);
    const qs = params.toString();
    const res = await this.deps.fetchApi.fetch(`${base}${path}${qs ? `?${qs}` : ''}`);
    // ResponseError parses Backstage's error JSON ({ error: { name, message }, response: { statusCode } }).
    if (!res.ok) throw await ResponseError.fromResponse(res);
    return (await res.json()) as T;
  }

  listManagementClusters(): Promise<ManagementClustersResponse> {
    return this.get('/management-clusters');
  }

  listClusters(): Promise<ClustersResponse> {
    return this.get('/clusters');
  }

  getClusterTree(ref: ClusterRef, options?: { group?: number }): Promise<ClusterTreeResponse> {
    return this.get(`${clusterPath(ref)}/tree`, {
      group: options?.group === undefined ? undefined : String(options.group),
    });
  }

  getTimeline(ref: ClusterRef, query: { from: Date; to: Date; uid?: string }): Promise<TimelineResponse> {
    return this.get(`${clusterPath(ref)}/timeline`, {
      from: query.from.toISOString(),
      to: query.to.toISOString(),
      uid: query.uid,
    });
  }

  getObjectYaml(ref: ClusterRef, uid: string): Promise<ObjectYamlResponse> {
    return this.get(`${clusterPath(ref)}/objects/${encodeURIComponent(uid)}`);
  }
}
