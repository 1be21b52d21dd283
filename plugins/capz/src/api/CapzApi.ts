import { createApiRef } from '@backstage/frontend-plugin-api';
import {
  ClusterPageQuery,
  ClusterPlace,
  ClusterSummary,
  ClustersResponse,
  ClusterKubeconfig,
  ConnectInfo,
  CreateClusterRequest,
  CreateClusterResponse,
  CredentialSecretsResponse,
  Day2Action,
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
  TreeNode,
  UpgradeOptions,
} from '@capz-backstage/plugin-capz-common';

/**
 * Names one CAPI Cluster: the management cluster it lives on, its namespace and its name.
 * @public
 * @deprecated use ClusterPlace from plugin-capz-common
 */
export type ClusterRef = ClusterPlace;

/** GET /clusters/:mc/:ns/:name/tree @public */
export interface ClusterTreeResponse {
  summary: ClusterSummary;
  tree: TreeNode;
}

/** GET /pickers/namespaces: from config when the management cluster is limited to some, else live. @public */
export interface NamespacesResponse {
  managementCluster: string;
  source: 'config' | 'live' | 'watch-cache';
  items: Array<{ name: string }>;
}

/** A view of GET /clusters: capz-common's page query, and whether to answer the facets too. @public */
export type ClustersQuery = ClusterPageQuery & {
  facets?: boolean;
  /** The day (`YYYY-MM-DD`) `attention` is judged for (the server's without it). */
  today?: string;
};

/** The CAPZ backend's HTTP API, as the frontend uses it. @public */
export interface CapzApi {
  listManagementClusters(): Promise<ManagementClustersResponse>;
  /**
   * Every cluster (no query), or one page of a view computed on the server: the filters, a sort, `offset` and
   * `limit`, and with `facets` what the page shows of every cluster (counts, filter options).
   */
  listClusters(query?: ClustersQuery): Promise<ClustersResponse>;
  /** `group`: merge runs of at least this many similar siblings (0 = never). The backend defaults to 3. */
  getClusterTree(
    ref: ClusterPlace,
    options?: { group?: number },
  ): Promise<ClusterTreeResponse>;
  getTimeline(
    ref: ClusterPlace,
    query: { from: Date; to: Date; uid?: string },
  ): Promise<TimelineResponse>;
  /** One object of the cluster's tree as YAML; the backend has already redacted secret values. */
  getObjectYaml(ref: ClusterPlace, uid: string): Promise<ObjectYamlResponse>;

  /** Preflight checks and the exact plan of a job, changing nothing. */
  previewJob(request: JobRequest): Promise<JobPreview>;
  /** POST /fleet-runs/preview: an upgrade of many clusters in stages, planned; nothing changed. */
  previewFleetRun(spec: FleetRunSpec): Promise<FleetRunPreview>;
  /** POST /fleet-runs: starts the run the preview showed (403 when not allowed, 409 when nothing would upgrade). */
  startFleetRun(
    spec: FleetRunSpec,
    options: FleetRunOptions,
  ): Promise<FleetRunRecord>;
  /** GET /fleet-runs: the newest runs first, those the user may read every cluster of. */
  listFleetRuns(): Promise<{ items: FleetRunRecord[] }>;
  getFleetRun(id: string): Promise<FleetRunRecord>;
  /** 409 in words when the run cannot take the command now. */
  commandFleetRun(
    id: string,
    command: FleetRunCommand,
  ): Promise<FleetRunRecord>;
  /** Starts a job; rejects with a ResponseError (409 active job, 422 preflight failed, 403). */
  startJob(request: JobRequest): Promise<JobDetails>;
  /** Newest first. */
  listJobs(
    query?: Partial<ClusterPlace> & { active?: boolean },
  ): Promise<JobsResponse>;
  getJob(id: string): Promise<JobDetails>;
  /** 409 when the job's state does not allow it. */
  controlJob(id: string, action: JobControl): Promise<JobDetails>;
  /** Names of ASO credential Secrets in a namespace (never values). */
  /** `name`: also look for a Secret of this name (the backend never lists Secrets, it checks names). */
  listCredentialSecrets(query: {
    managementCluster: string;
    namespace: string;
    name?: string;
  }): Promise<CredentialSecretsResponse>;
  /** The management cluster's namespaces the caller may read (GET /pickers/namespaces, as the template's picker). */
  listNamespaces(query: {
    managementCluster: string;
  }): Promise<NamespacesResponse>;
  /** AKS clusters the credential can see in Azure. */
  discoverAksClusters(query: {
    managementCluster: string;
    namespace: string;
    credentialSecret: string;
  }): Promise<DiscoveredAksClustersResponse>;

  /**
   * POST /clusters: a new AKS cluster. With `dryRun: true` the backend runs every check and the API server validates
   * every object (dryRun=All), writing nothing: the New AKS cluster form's last check. 400 names the field, 403, 409.
   */
  createCluster(request: CreateClusterRequest): Promise<CreateClusterResponse>;

  /** What a day-2 action would write (dryRun=All), changing nothing; 400 names the broken rule, 403, 409. */
  previewClusterAction(
    ref: ClusterPlace,
    action: Day2Action,
  ): Promise<Day2Plan>;
  /** Applies a day-2 action; same errors as the preview. */
  applyClusterAction(ref: ClusterPlace, action: Day2Action): Promise<Day2Plan>;
  /** The versions AKS offers the cluster next (never free text). */
  getUpgradeOptions(ref: ClusterPlace): Promise<UpgradeOptions>;
  /** What deleting the cluster deletes and keeps in Azure. */
  getDeletePreview(ref: ClusterPlace): Promise<DeletePreview>;
  /**
   * Deletes the cluster; `confirmName` must equal its name (400 otherwise). For a cluster Flux applies, proposes the
   * preview's Git change instead (`planDigest`: the preview's; the answer's `preview.git.proposed` names it).
   */
  deleteCluster(
    ref: ClusterPlace,
    confirmName: string,
    planDigest?: string,
  ): Promise<DeleteClusterResponse>;
  /** Commands to reach the workload cluster, never a secret. */
  getConnectInfo(ref: ClusterPlace): Promise<ConnectInfo>;
  /** A kubeconfig for the workload cluster (capz.cluster.connect): kubelogin for Entra ID clusters, no secret. */
  getKubeconfig(ref: ClusterPlace): Promise<ClusterKubeconfig>;
}

/** What a user can do to a job. @public */
export type JobControl = 'pause' | 'resume' | 'cancel';

/** @public */
export const capzApiRef = createApiRef<CapzApi>({ id: 'plugin.capz.api' });
