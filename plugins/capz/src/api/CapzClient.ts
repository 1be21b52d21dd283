import { DiscoveryApi, FetchApi } from '@backstage/frontend-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  ClusterKubeconfig,
  type ClusterPlace,
  ClustersResponse,
  ConnectInfo,
  CreateClusterRequest,
  CreateClusterResponse,
  CredentialSecretsResponse,
  Day2Action,
  day2Paths,
  Day2Plan,
  DeleteClusterResponse,
  DeletePreview,
  DiscoveredAksClustersResponse,
  FleetRunCommand,
  FleetRunOptions,
  FleetRunPreview,
  FleetRunRecord,
  FleetRunSpec,
  JobDetails,
  JobPreview,
  JobRequest,
  JobsResponse,
  ManagementClustersResponse,
  ObjectYamlResponse,
  TimelineResponse,
  UpgradeOptions,
} from '@capz-backstage/plugin-capz-common';
import {
  CapzApi,
  ClustersQuery,
  ClusterTreeResponse,
  JobControl,
  NamespacesResponse,
} from './CapzApi';

const clusterPath = (ref: ClusterPlace) =>
  `/clusters/${encodeURIComponent(ref.managementCluster)}/${encodeURIComponent(
    ref.namespace,
  )}/${encodeURIComponent(ref.name)}`;

/**
 * A ResponseError for a failed request. The backend answers with Backstage's error body (`error`, `request`,
 * `response`); the jobs routes add `jobId` to a 409 a job causes and `preflight` to a 422, both kept on `body`.
 * ResponseError only keeps a JSON body that has both `error` and `response`: one with `error` alone (an older
 * backend, a proxy) gets the status added before parsing, keeping the message readable.
 */
async function responseError(res: Response): Promise<ResponseError> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = body as { error?: unknown; response?: unknown } | undefined;
  const fixed =
    parsed && typeof parsed === 'object' && parsed.error && !parsed.response
      ? JSON.stringify({ ...parsed, response: { statusCode: res.status } })
      : text;
  return ResponseError.fromResponse(
    new Response(fixed, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    }),
  );
}

/** Calls the capz backend through Backstage's fetch API, which adds the user's token. */
export class CapzClient implements CapzApi {
  constructor(
    private readonly deps: { discoveryApi: DiscoveryApi; fetchApi: FetchApi },
  ) {}

  private async get<T>(
    path: string,
    query?: Record<string, string | undefined>,
  ): Promise<T> {
    const base = await this.deps.discoveryApi.getBaseUrl('capz');
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined) params.set(k, v);
    const qs = params.toString();
    const res = await this.deps.fetchApi.fetch(
      `${base}${path}${qs ? `?${qs}` : ''}`,
    );
    // ResponseError parses Backstage's error JSON ({ error: { name, message }, response: { statusCode } }).
    if (!res.ok) throw await responseError(res);
    return (await res.json()) as T;
  }

  private async post<T>(
    path: string,
    body?: unknown,
    method: 'POST' | 'DELETE' = 'POST',
  ): Promise<T> {
    const base = await this.deps.discoveryApi.getBaseUrl('capz');
    const res = await this.deps.fetchApi.fetch(`${base}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    if (!res.ok) throw await responseError(res);
    return (await res.json()) as T;
  }

  listManagementClusters(): Promise<ManagementClustersResponse> {
    return this.get('/management-clusters');
  }

  listClusters(query?: ClustersQuery): Promise<ClustersResponse> {
    return this.get(
      '/clusters',
      query &&
        Object.fromEntries(
          Object.entries(query).map(([k, v]) => [
            k,
            v === undefined || v === '' ? undefined : String(v),
          ]),
        ),
    );
  }

  getClusterTree(
    ref: ClusterPlace,
    options?: { group?: number },
  ): Promise<ClusterTreeResponse> {
    return this.get(`${clusterPath(ref)}/tree`, {
      group: options?.group === undefined ? undefined : String(options.group),
    });
  }

  getTimeline(
    ref: ClusterPlace,
    query: { from: Date; to: Date; uid?: string },
  ): Promise<TimelineResponse> {
    return this.get(`${clusterPath(ref)}/timeline`, {
      from: query.from.toISOString(),
      to: query.to.toISOString(),
      uid: query.uid,
    });
  }

  getObjectYaml(ref: ClusterPlace, uid: string): Promise<ObjectYamlResponse> {
    return this.get(`${clusterPath(ref)}/objects/${encodeURIComponent(uid)}`);
  }

  previewFleetRun(spec: FleetRunSpec): Promise<FleetRunPreview> {
    return this.post('/fleet-runs/preview', spec);
  }

  startFleetRun(
    spec: FleetRunSpec,
    options: FleetRunOptions,
  ): Promise<FleetRunRecord> {
    return this.post('/fleet-runs', { spec, options });
  }

  listFleetRuns(): Promise<{ items: FleetRunRecord[] }> {
    return this.get('/fleet-runs');
  }

  getFleetRun(id: string): Promise<FleetRunRecord> {
    return this.get(`/fleet-runs/${encodeURIComponent(id)}`);
  }

  commandFleetRun(
    id: string,
    command: FleetRunCommand,
  ): Promise<FleetRunRecord> {
    return this.post(`/fleet-runs/${encodeURIComponent(id)}/commands`, command);
  }

  previewJob(request: JobRequest): Promise<JobPreview> {
    return this.post('/jobs/preview', request);
  }

  startJob(request: JobRequest): Promise<JobDetails> {
    return this.post('/jobs', request);
  }

  listJobs(
    query: Partial<ClusterPlace> & { active?: boolean } = {},
  ): Promise<JobsResponse> {
    return this.get('/jobs', {
      managementCluster: query.managementCluster,
      namespace: query.namespace,
      name: query.name,
      active: query.active === undefined ? undefined : String(query.active),
    });
  }

  getJob(id: string): Promise<JobDetails> {
    return this.get(`/jobs/${encodeURIComponent(id)}`);
  }

  controlJob(id: string, action: JobControl): Promise<JobDetails> {
    return this.post(`/jobs/${encodeURIComponent(id)}/${action}`);
  }

  listCredentialSecrets(query: {
    managementCluster: string;
    namespace: string;
    name?: string;
  }): Promise<CredentialSecretsResponse> {
    return this.get('/credential-secrets', query);
  }

  listNamespaces(query: {
    managementCluster: string;
  }): Promise<NamespacesResponse> {
    return this.get('/pickers/namespaces', query);
  }

  discoverAksClusters(query: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
  }): Promise<DiscoveredAksClustersResponse> {
    return this.get('/azure/clusters', query);
  }

  createCluster(request: CreateClusterRequest): Promise<CreateClusterResponse> {
    return this.post('/clusters', request);
  }

  previewClusterAction(
    ref: ClusterPlace,
    action: Day2Action,
  ): Promise<Day2Plan> {
    return this.post(day2Paths(ref).preview, action);
  }

  applyClusterAction(ref: ClusterPlace, action: Day2Action): Promise<Day2Plan> {
    return this.post(day2Paths(ref).actions, action);
  }

  getUpgradeOptions(ref: ClusterPlace): Promise<UpgradeOptions> {
    return this.get(day2Paths(ref).upgrades);
  }

  getDeletePreview(ref: ClusterPlace): Promise<DeletePreview> {
    return this.get(day2Paths(ref).deletePreview);
  }

  deleteCluster(
    ref: ClusterPlace,
    confirmName: string,
    planDigest?: string,
  ): Promise<DeleteClusterResponse> {
    return this.post(
      day2Paths(ref).cluster,
      { confirmName, ...(planDigest ? { planDigest } : {}) },
      'DELETE',
    );
  }

  getConnectInfo(ref: ClusterPlace): Promise<ConnectInfo> {
    return this.get(day2Paths(ref).connect);
  }

  getKubeconfig(ref: ClusterPlace): Promise<ClusterKubeconfig> {
    return this.get(day2Paths(ref).kubeconfig);
  }
}
