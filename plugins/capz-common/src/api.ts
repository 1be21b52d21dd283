import type { Health } from './tree/types';
import type { ClusterLifecycleFacts } from './lifecycle/attention';

/** How the backend authenticates to a management cluster. @public */
export type ManagementClusterAuthMethod =
  | 'serviceAccountToken'
  | 'kubeconfig'
  | 'azure';

/** A configured management cluster as the HTTP API shows it: never with secrets. @public */
export interface ManagementClusterInfo {
  name: string;
  title?: string;
  url?: string;
  authMethod: ManagementClusterAuthMethod;
}

/** Whether the backend reaches a management cluster, as of its last check. @public */
export interface ManagementClusterStatus {
  state: 'unknown' | 'connected' | 'unreachable';
  /** The API server's gitVersion when connected. */
  version?: string;
  /** Why it is unreachable. */
  message?: string;
  checkedAt?: string;
}

/** Whether the watch cache of a management cluster has listed every kind it watches. @public */
export interface ManagementClusterWatchStatus {
  synced: boolean;
  error?: string;
  kinds: Record<
    string,
    {
      version?: string;
      synced: boolean;
      restarts: number;
      lastEventAt?: string;
      error?: string;
    }
  >;
}

/** GET /management-clusters @public */
export interface ManagementClustersResponse {
  items: Array<
    ManagementClusterInfo & {
      status: ManagementClusterStatus;
      watch?: ManagementClusterWatchStatus;
    }
  >;
}

/**
 * Which API describes a cluster: the ASO-managed API at v1beta1, the same still referenced as v1alpha1,
 * or the deprecated AzureManaged* API (a migration candidate).
 * @public
 */
export type ClusterApi = 'aso-v1beta1' | 'aso-v1alpha1' | 'azure-managed';

/**
 * A cluster's MachinePools by the worst health of each one's subtree: `ready` (healthy), `updating` (progressing:
 * scaling, upgrading, reconciling), `paused` (the cluster or the pool is paused; its nodes keep running), and the rest
 * not ready. `updating` and `paused` are left out when 0. `replicas` sums their current replicas. @public
 */
export interface PoolCounts {
  total: number;
  ready: number;
  updating?: number;
  paused?: number;
  replicas: number;
}

/** One CAPI Cluster in the clusters list. Filled from the watch cache. @public */
export interface ClusterSummary {
  managementCluster: string;
  namespace: string;
  name: string;
  /** The CAPI Cluster's uid: what live-update signals name (see {@link CapzChangeSignal}). */
  uid: string;
  api: ClusterApi;
  /** Catalog owner from the cluster's `capz.io/owner` annotation, if any. */
  owner?: string;
  /** The rollup of the cluster's whole tree, MachinePools included (unlike CAPI's own Available). */
  health?: Health;
  /** Why, prefixed with the deciding object: `ManagedCluster search-prod: ReconciliationBlocked`. */
  reason?: string;
  message?: string;
  /** With the leading "v", e.g. v1.33.2. */
  kubernetesVersion?: string;
  /** Azure region. */
  location?: string;
  /** MachinePools: how many, how many are in each state, and their current replicas in total ({@link PoolCounts}). */
  pools?: PoolCounts;
  /** True on the deprecated AzureManaged* API: the cluster should be migrated to AzureASOManagedControlPlane. */
  migrationCandidate?: boolean;
  /**
   * Set when this cluster's AKS cluster is also managed from elsewhere: the OTHER places (namespaces or management
   * clusters) whose ASO ManagedClusters point at the same AKS cluster (ARM id from `status.id`, else resource group
   * and name) and reconcile it (reconcile-policy not `skip`). Two owners PUT the same cluster, and deleting either
   * deletes it under the other: keep one.
   */
  managedFrom?: ManagedFromPlace[];
  /**
   * The workload cluster's API server, from AKS's user kubeconfig (read once per FQDN by the backend; public data
   * only: URL and CA), once known. The catalog module turns it into `kubernetes.io/api-server` and
   * `kubernetes.io/api-server-certificate-authority`.
   */
  apiServer?: {
    url: string;
    /** Base64 PEM, as a kubeconfig's `certificate-authority-data`. */
    certificateAuthorityData?: string;
  };
  /** AKS-managed Entra ID (`aadProfile.managed` on its ManagedCluster): users sign in with Entra ID tokens. */
  entraId?: boolean;
  /**
   * Who applies the cluster's objects from outside, in words ("Flux's Kustomization flux-system/clusters"), when
   * any of them carries Flux's, Argo CD's or Helm's marks (docs/flux-facts.md#applied-by-rule): live writes to
   * those objects are refused.
   */
  appliedBy?: string;
  /**
   * Where the cluster is applied from when Flux applies it from Git, and whether Flux is in sync with that source
   * ({@link ClusterGitSource}). Absent when no Flux Kustomization applies its objects, or when the watch cache holds
   * no such Kustomization (no Flux on the management cluster, or its namespace not watched).
   */
  gitSource?: ClusterGitSource;
  /**
   * What the watch cache says of its version's lifecycle, undated: long-term support on, the conflicts of a set
   * spec.version with AKS, pools outside AKS's skew. `clusterAttention` turns it, the version and the API into what
   * needs attention on a given day. Absent when there is nothing to say.
   */
  lifecycle?: ClusterLifecycleFacts;
}

/** A namespaced object of Flux's, by namespace and name. @public */
export interface FluxObjectRef {
  namespace: string;
  name: string;
}

/**
 * What a cluster applied from Git by a Flux Kustomization comes from, read from the watch cache (never from an API
 * server per page view): the Kustomization that applies its Cluster (else the first of its objects it applies), its
 * `spec.sourceRef` GitRepository's URL and branch, the path and revisions, and whether Flux is in sync.
 * Fields: docs/flux-facts.md#flux-source-ref (source, branch), docs/flux-facts.md#flux-status (Ready and revisions),
 * docs/flux-facts.md#flux-suspend (suspend).
 * @public
 */
export interface ClusterGitSource {
  /** The Kustomization that applies the cluster (its `kustomize.toolkit.fluxcd.io/namespace` and `/name` labels). */
  kustomization: FluxObjectRef;
  /** Its `spec.sourceRef`: the kind, and the namespace (the Kustomization's own unless the reference names one). */
  source?: FluxObjectRef & { kind: string };
  /**
   * True when the source is a GitRepository the watch cache holds. False for one it does not hold (deleted, or in a
   * namespace not watched) and for another kind of source (OCIRepository, Bucket): then `url`, `branch`, `ref` and
   * `sourceRevision` are absent.
   */
  sourceFound: boolean;
  /** The GitRepository's `spec.url`, without credentials. */
  url?: string;
  /** The branch the GitRepository follows: `spec.ref.branch`, `master` without one; absent when it follows `ref`. */
  branch?: string;
  /** What the GitRepository follows instead of a branch: a commit, a ref name, a semver range or a tag. */
  ref?: { type: 'commit' | 'name' | 'semver' | 'tag'; value: string };
  /** The Kustomization's `spec.path` as written (the repository's root when absent). */
  path?: string;
  /** The Kustomization's `status.lastAppliedRevision`: `<branch>@sha1:<commit>`. */
  lastAppliedRevision?: string;
  /** The GitRepository's `status.artifact.revision`: the revision the source holds now. */
  sourceRevision?: string;
  /** The Kustomization's `Ready` condition. */
  ready?: {
    status: 'True' | 'False' | 'Unknown';
    reason?: string;
    message?: string;
  };
  /** The Kustomization's `spec.suspend`: Flux applies nothing while it is set. */
  suspended: boolean;
  /** The Kustomization's `metadata.generation`: a new one for each change of its spec. */
  generation?: number;
  /** The Kustomization's `status.observedGeneration`: the generation Flux last reconciled. */
  observedGeneration?: number;
  /**
   * Flux is in sync: Ready is True, not suspended, the latest spec observed (observedGeneration = generation) and the
   * revision last applied is the one the GitRepository holds.
   */
  inSync: boolean;
}

/**
 * One CAPI Cluster, by where it lives: the management cluster, the namespace and the Cluster's name. The frontend's
 * API calls, the backend's routes and a job's target all name a cluster so. @public
 */
export interface ClusterPlace {
  managementCluster: string;
  namespace: string;
  name: string;
}

/** An ASO ManagedCluster, named by where it is: management cluster, namespace, name. @public */
export interface ManagedFromPlace {
  managementCluster: string;
  namespace: string;
  /** The ManagedCluster's name. */
  name: string;
  /** The CAPI Cluster it belongs to, when known (its cluster-name label or controlling control plane). */
  cluster?: string;
}

/**
 * What the clusters page shows of every cluster a caller may read, whatever the view's filters: the counts of its
 * at-a-glance buttons, the filters' options, and the clusters managed from more than one place. @public
 */
export interface ClusterFacets {
  /** Every cluster the caller may read. */
  total: number;
  /** How many have each health (none counted as `unknown`). */
  health: Partial<Record<Health, number>>;
  /** How many need attention now, and how many only soon. */
  attention: { now: number; soon: number };
  managementClusters: string[];
  namespaces: string[];
  locations: string[];
  /** The clusters whose AKS cluster is managed from more than one place (`managedFrom`). */
  managedFrom: ClusterSummary[];
}

/** GET /clusters @public */
export interface ClustersResponse {
  items: ClusterSummary[];
  /**
   * Management clusters whose watch cache is doing its first list (after a backend start): their clusters are not all
   * in `items` yet. Absent when none is.
   */
  listing?: string[];
  /** With a view's query: how many clusters the view keeps in all, and where its page starts. */
  total?: number;
  offset?: number;
  /** With `facets=true`: what the page shows of every cluster the caller may read (see ClusterFacets). */
  facets?: ClusterFacets;
}

/**
 * One observed change of one condition of one object, as the condition history keeps it.
 * `transitionTime` is the condition's own lastTransitionTime (the observation time when it has none);
 * `firstSeen` is when the backend first observed this state.
 * @public
 */
export interface ConditionTransition {
  objectUid: string;
  kind: string;
  name: string;
  conditionType: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  severity?: string;
  message?: string;
  transitionTime: string;
  firstSeen: string;
}

/** A Kubernetes Event about one object of a cluster (matched by involvedObject.uid), as the history keeps it. @public */
export interface TimelineEvent {
  objectUid: string;
  kind: string;
  name: string;
  type: 'Normal' | 'Warning' | string;
  reason?: string;
  message?: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  /** The controller that reported it. */
  source?: string;
}

/** The removal of a watched object from its management cluster, as the condition history saw it. @public */
export interface ObjectDeletion {
  objectUid: string;
  kind: string;
  name: string;
  /** When the backend saw the object go (its watch's delete). */
  deletedAt: string;
}

/** GET /clusters/:managementCluster/:namespace/:name/timeline?from&to&uid @public */
export interface TimelineResponse {
  from: string;
  to: string;
  /**
   * The state each condition was in at `from`: per object and condition, the last transition that occurred before
   * `from` (none for objects seen deleted before `from`). Oldest first.
   */
  initial: ConditionTransition[];
  /** Oldest first. */
  transitions: ConditionTransition[];
  /** The objects seen deleted in the range, oldest first. */
  deletions: ObjectDeletion[];
  /** Oldest first (by lastTimestamp). */
  events: TimelineEvent[];
  /** True when more rows matched than the response carries (narrow the range to see them). */
  truncated: boolean;
}

/** GET /clusters/:managementCluster/:namespace/:name/objects/:uid: one object of the cluster's tree as YAML. @public */
export interface ObjectYamlResponse {
  kind: string;
  name: string;
  namespace?: string;
  /** The object as YAML, managedFields dropped, secret values redacted. */
  yaml: string;
}

/** The Backstage signals channel on which the backend announces changes. @public */
export const CAPZ_SIGNAL_CHANNEL = 'capz:changes';

/**
 * What the backend pushes on {@link CAPZ_SIGNAL_CHANNEL}. Only opaque uids: signals are broadcast, and a client
 * re-reads what changed through the permission-checked HTTP API.
 * @public
 */
export interface CapzChangeSignal {
  /** uids of the CAPI Clusters whose tree, health or timeline changed. */
  clusterUids: string[];
  /** True when a management cluster's connection or watch status changed. */
  managementClusters?: boolean;
}
