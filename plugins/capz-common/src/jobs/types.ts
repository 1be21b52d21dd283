/**
 * The job vocabulary shared by the backend's job engine and the frontend's wizard (docs/architecture.md#flow-jobs).
 *
 * A job is a list of steps. Each step is pure data, built from the live cluster by the planners in this folder:
 * what must hold before it acts (preconditions), what it does (actions), and what must hold afterwards (waits).
 * The backend interprets exactly this data, so the dry-run plan the user sees IS what runs.
 */
import type { ClusterPlace } from '../api';
import type { KubeObject } from '../manifests/aksAsoCluster';

/** @public */
export type JobType = 'adopt' | 'migrate' | 'upgrade-api-version';

/**
 * queued: accepted, no replica runs it yet. running: a replica holds its lease. paused: stopped at a step boundary
 * by a user, resumable. succeeded / failed / cancelled: final (a failed job can be retried, which resumes it).
 * @public
 */
export type JobState =
  | 'queued'
  | 'running'
  | 'paused'
  | 'succeeded'
  | 'failed'
  | 'cancelled';

/** @public */
export type StepState =
  | 'pending'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'skipped';

/** A namespaced or cluster-scoped object, named as `kubectl` would. @public */
export interface ObjectRef {
  /** group/version, or `v1` for core */
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * A fact about the live management cluster (or Azure) that a step checks before it acts, or waits for afterwards.
 * `orAbsent`: also holds when the object does not exist (a resumed job may already have deleted it).
 * @public
 */
export type LiveCondition =
  | { type: 'exists'; ref: ObjectRef }
  | { type: 'absent'; ref: ObjectRef }
  /** ASO objects: `status.conditions[type=Ready].status == True`. */
  | { type: 'ready'; ref: ObjectRef }
  /** A `status.conditions[]` entry, e.g. the CAPI Cluster's `Available`. */
  | {
      type: 'condition';
      ref: ObjectRef;
      condition: string;
      status: 'True' | 'False';
    }
  | {
      type: 'annotation';
      ref: ObjectRef;
      annotation: string;
      value: string | null;
      orAbsent?: boolean;
    }
  | {
      type: 'label';
      ref: ObjectRef;
      label: string;
      value: string | null;
      orAbsent?: boolean;
    }
  /** A field by path, e.g. ['spec','paused'] = true, ['status','ready'] = true, ['metadata','ownerReferences'] = null. */
  | {
      type: 'field';
      ref: ObjectRef;
      path: string[];
      value: unknown;
      orAbsent?: boolean;
    }
  | { type: 'no-finalizers'; ref: ObjectRef; orAbsent?: boolean }
  /** A controller ownerReference of this kind and name (any API version of the group). */
  | {
      type: 'controlled-by';
      ref: ObjectRef;
      ownerKind: string;
      ownerName: string;
    }
  /** The AKS cluster (and, if given, these agent pools) exist in Azure, read through ARM with the job's credential. */
  | {
      type: 'azure-cluster-exists';
      subscriptionId: string;
      resourceGroup: string;
      name: string;
      agentPools?: string[];
      credential: ObjectRef;
    }
  /** The backend's identity may do this (SelfSubjectAccessReview). */
  | {
      type: 'allowed';
      verb: string;
      group: string;
      resource: string;
      namespace?: string;
    }
  /** No `metadata.managedFields` entry outside the status subresource was written at this apiVersion. */
  | { type: 'not-written-at'; ref: ObjectRef; apiVersion: string }
  /**
   * The object is absent, or exists carrying this job's {@link JOB_ANNOTATION}: the state the job's own create leaves
   * behind, so that a step resumed after a crash between its create and its record accepts its own object.
   */
  | { type: 'absent-or-ours'; ref: ObjectRef }
  /**
   * One owner per AKS cluster: read live on every configured management cluster, no ASO ManagedCluster (any namespace)
   * points at this AKS cluster, and no ASO ResourceGroup on reconcile-policy `manage` (which would delete the group
   * with the cluster in it) points at its resource group, except the objects in `except` (the ones a migration moves
   * away from) and objects carrying this job's {@link JOB_ANNOTATION}.
   */
  | { type: 'sole-manager'; azure: AzureClusterKey; except: ObjectRef[] }
  /**
   * A field by path is anything but this value (absent included), e.g. a Kustomization's spec.suspend is not true;
   * `orOurs`: also holds when the object carries this job's {@link JOB_ANNOTATION} (the job's own write, resumed).
   */
  | {
      type: 'field-not';
      ref: ObjectRef;
      path: string[];
      value: unknown;
      orOurs?: boolean;
    }
  /**
   * What Flux's source of a Kustomization holds now (its GitRepository's `status.artifact.revision`), built as the
   * Kustomization builds it: every `present` object written there, no `absent` one (docs/flux-facts.md#flux-status).
   */
  | {
      type: 'flux-source-holds';
      kustomization: FluxKustomizationRef;
      present: ObjectRef[];
      absent: ObjectRef[];
    }
  /**
   * The Kustomization is not suspended, has seen its current generation, is Ready, and last applied the revision its
   * source holds now (docs/flux-facts.md#flux-status).
   */
  | { type: 'flux-applied'; kustomization: FluxKustomizationRef }
  /** The object's metadata.generation is the one the job's `record-generations` noted: nothing changed its spec since. */
  | { type: 'generation-unchanged'; ref: ObjectRef };

/** A Flux Kustomization (kustomize.toolkit.fluxcd.io). @public */
export interface FluxKustomizationRef {
  namespace: string;
  name: string;
  /** The namespace of the GitRepository its `spec.sourceRef` names (Flux's default: the Kustomization's own), when known. */
  sourceNamespace?: string;
}

/** An AKS cluster as Azure names it; compared case-insensitively, as ARM does. @public */
export interface AzureClusterKey {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
}

/** @public */
export type PlannedCondition = LiveCondition & {
  /** Human words for it, shown in the plan and in errors ("ManagedCluster data-lake is Ready"). */
  description: string;
};

/**
 * What a step does. Every action is idempotent:
 * - create: AlreadyExists is fine only if the live object carries this job's `capz.io/job` annotation;
 *   otherwise the step fails without touching it (someone else's object is never reused or overwritten).
 * - merge-patch: RFC 7386, applied as is, at `ref.apiVersion`; with `ifExists`, NotFound is fine.
 * - delete: background propagation, no wait (`kubectl delete --wait=false`); NotFound is fine.
 * - copy-secret: reads the Secret at run time and creates it at `to` with metadata reduced to name and namespace
 *   (no ownerReferences, labels or annotations); values are never stored in the job or shown.
 * @public
 */
export type PlannedAction =
  | {
      action: 'create';
      ref: ObjectRef;
      object: KubeObject;
      description: string;
    }
  | {
      action: 'merge-patch';
      ref: ObjectRef;
      patch: Record<string, unknown>;
      description: string;
      ifExists?: boolean;
    }
  | { action: 'delete'; ref: ObjectRef; description: string }
  | {
      action: 'copy-secret';
      from: ObjectRef;
      to: ObjectRef;
      description: string;
    }
  /**
   * Sets an annotation on one embedded resource of a CAPZ object's `spec.resources` (found by kind and name), so that
   * CAPZ writes it whenever it (re)creates that ASO object. Read, changed and written back as a merge patch carrying
   * the read resourceVersion (a concurrent write makes it read again); a no-op when the value is already there.
   */
  | {
      action: 'set-embedded-annotation';
      ref: ObjectRef;
      resource: { kind: string; name: string };
      annotation: string;
      value: string;
      description: string;
    }
  /**
   * Proposes to the Git repository a Flux Kustomization applies from (its GitRepository, at the revision its source
   * holds now): the documents of `remove` removed, the one of `replace` replaced by the live `add` objects as Git
   * should hold them (`manifestForGit`), or, with nothing to remove, those added beside `beside`'s
   * (`planManifestAdd`), as a branch and its pull request where the host has one. A branch of the same
   * name already there is the proposal made before. Nothing is written when the source already holds the change.
   */
  | {
      action: 'propose-git-change';
      kustomization: FluxKustomizationRef;
      remove: ObjectRef[];
      /** The document the new manifests take the place of (a migration); absent when nothing is removed. */
      replace?: ObjectRef;
      /** Nothing removed (an adoption): the new manifests go beside this Cluster's, in the same layout. */
      beside?: ObjectRef;
      add: ObjectRef[];
      branch: string;
      title: string;
      description: string;
    }
  /** Notes each object's metadata.generation in the job's result, for a later `generation-unchanged`. */
  | { action: 'record-generations'; refs: ObjectRef[]; description: string };

/** One step of a job, exactly as it will run. @public */
export interface StepPlan {
  /** Stable within the job type, e.g. `pause`, `wait-block-move`, `disarm`, `adopt-managed-cluster`. */
  id: string;
  title: string;
  /**
   * Why this step exists, citing the documented procedure as `docs/<page>.md#<anchor>` (the wizard links these when
   * `capz.docsBaseUrl` is configured and leaves them out otherwise).
   */
  description: string;
  /** Checked on the live cluster before acting; if one does not hold, the step fails and changes nothing. */
  preconditions: PlannedCondition[];
  actions: PlannedAction[];
  /** Must all hold after the actions; waited for (event-driven, re-checked on every change) up to the timeout. */
  waitFor: PlannedCondition[];
  timeoutSeconds: number;
  /**
   * What this step established that must still hold while the job goes on (e.g. the old Cluster stays paused, the
   * old ASO objects stay on `skip`). A job that resumes re-checks the invariants of every finished step on the live
   * cluster first and refuses to go on, naming what moved, if one no longer holds.
   */
  invariants?: PlannedCondition[];
  /**
   * The step (by id) after whose success the invariants no longer need to hold, e.g. a Kustomization the job suspends
   * and later resumes.
   */
  invariantsUntil?: string;
}

/** @public */
export type PreflightStatus = 'pass' | 'warn' | 'fail';

/** One check shown before a job starts. Any `fail` refuses the job (HTTP 422) and nothing changes. @public */
export interface PreflightCheck {
  id: string;
  title: string;
  status: PreflightStatus;
  message: string;
  /**
   * What the user can do about a warn or fail, in sentences; a command to run is quoted in backticks, as Markdown
   * quotes code, which the wizard shows folded with a Copy button.
   */
  fix?: string;
}

/** POST /jobs and /jobs/preview body for adoption. @public */
export interface AdoptJobParams {
  managementCluster: string;
  /** Where the ASO and CAPI objects are created; created by the job if it does not exist. */
  namespace: string;
  /** The ASO credential Secret in `namespace` (the `credential-from` of every object). */
  credentialSecret: string;
  subscriptionId: string;
  resourceGroup: string;
  /** The AKS cluster's Azure name; also the name of the CAPI Cluster (adoption inherits names). */
  clusterName: string;
}

/** POST /jobs and /jobs/preview body for migration from AzureManagedControlPlane. @public */
export interface MigrateJobParams {
  managementCluster: string;
  namespace: string;
  /** The CAPI Cluster to migrate. */
  name: string;
  /** A namespace that must not exist yet (adoption silently reuses same-named objects). */
  targetNamespace: string;
}

/** POST /jobs and /jobs/preview body for the v1alpha1 to v1beta1 upgrade. @public */
export interface UpgradeApiVersionJobParams {
  managementCluster: string;
  namespace: string;
  name: string;
}

/** @public */
export type JobRequest =
  | { type: 'adopt'; params: AdoptJobParams }
  | { type: 'migrate'; params: MigrateJobParams }
  | { type: 'upgrade-api-version'; params: UpgradeApiVersionJobParams };

/**
 * The cluster a job works on (for adoption: the cluster it creates).
 * @public
 * @deprecated use ClusterPlace
 */
export type JobTarget = ClusterPlace;

/** @public */
export interface JobStepStatus {
  id: string;
  title: string;
  state: StepState;
  /** How many times a replica started this step (more than 1 after a crash or a retry). */
  attempts: number;
  startedAt?: string;
  finishedAt?: string;
  /** What the step is doing or waiting for now, or why it failed. */
  message?: string;
}

/** @public */
export interface JobLogLine {
  at: string;
  level: 'info' | 'warn' | 'error';
  step?: string;
  message: string;
}

/** A manifest the user keeps elsewhere (Git, GitOps) that still says v1alpha1: they must change it. @public */
export interface ManifestToChange {
  kind: string;
  namespace: string;
  name: string;
  /** The field manager that last wrote it at v1alpha1, e.g. `kubectl-client-side-apply`, `argocd-controller`. */
  manager: string;
  /** What to change, e.g. "apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1 to v1beta1". */
  change: string;
}

/** The pull request a job in Git mode proposed, and what it noted around it. @public */
export interface JobGitProposal {
  /** The repository (no credentials), its branch the change goes into, and the change's own branch and commit. */
  url: string;
  base: string;
  branch: string;
  commit: string;
  /** Absent on a plain Git server (a branch only). */
  pullRequest?: { number: number; url: string };
  /** The files the change rewrites or removes, with their diffs, as proposed. */
  files: Array<{ path: string; diff: string }>;
}

/** @public */
export interface JobResult {
  /** The cluster to open when the job is done (for migration: in the target namespace). */
  cluster?: ClusterPlace;
  manifestsToChange?: ManifestToChange[];
  /** Set by a job in Git mode once it proposed its change. */
  gitProposal?: JobGitProposal;
  /** `Kind/namespace/name` → metadata.generation, noted by a `record-generations` action. */
  generations?: Record<string, number>;
  /**
   * `Kind/namespace/name` → sha256 (hex) of the object as Git holds it (`manifestForGit`), noted with its generation:
   * a later generation whose Git-held fields are unchanged was bumped by a controller (e.g. CAPI's
   * `spec.providerIDList`), not by Flux's apply.
   */
  gitDigests?: Record<string, string>;
  /** Set when a cancel resumed the Kustomization the job had suspended (gitopsResumeOnCancel says when that is safe). */
  gitopsResumed?: {
    /** `namespace/name` */
    kustomization: string;
    why: 'untouched' | 'merged';
    at: string;
    /** The cancel found it running already: resumed by an earlier attempt of the cancel (interrupted before its record) or by someone else. */
    found?: boolean;
  };
}

/** @public */
export interface Job {
  id: string;
  type: JobType;
  /** The cluster it works on (for adoption: the cluster it creates). One active job per cluster. */
  target: ClusterPlace;
  /** The request's params (never secret values). */
  params: AdoptJobParams | MigrateJobParams | UpgradeApiVersionJobParams;
  /** Backstage user entity ref of whoever asked. */
  createdBy: string;
  state: JobState;
  /** Set while a user's pause or cancel waits for the running step to reach a boundary. */
  requested?: 'pause' | 'cancel';
  currentStep?: string;
  steps: JobStepStatus[];
  createdAt: string;
  updatedAt: string;
  finishedAt?: string;
  /** Why it failed. */
  error?: string;
  /** For a cancelled or failed job: what it left on the cluster, in words, and what is safe to do now. */
  leftBehind?: string;
  result?: JobResult;
}

/** GET /jobs/:id: the job with its plan and the newest log lines. @public */
export interface JobDetails extends Job {
  plan: StepPlan[];
  /** Oldest first; the last 500 lines. */
  log: JobLogLine[];
}

/** POST /jobs/preview response. @public */
export interface JobPreview {
  type: JobType;
  target: ClusterPlace;
  preflight: PreflightCheck[];
  /** Empty when a preflight check failed in a way that makes planning impossible. */
  plan: StepPlan[];
}

/** A job's preview plus what the planner found, for the wizard. @public */
export type JobPlanResult = JobPreview & {
  result?: JobResult;
  /** What the plan is built from, in words: e.g. `newCluster`, `credentialSecret`, `resourceGroup`. */
  facts?: Record<string, string>;
};

/** GET /jobs?managementCluster&namespace&name&active @public */
export interface JobsResponse {
  items: Job[];
}

/** An AKS cluster the chosen credential can see (GET /azure/clusters). @public */
export interface DiscoveredAksCluster {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  kubernetesVersion?: string;
  dnsPrefix?: string;
  provisioningState?: string;
  /** Local accounts disabled: adoption writes `userCredentials` under `<name>-user-kubeconfig`. */
  entraOnly: boolean;
  /** ARM's tags of the cluster; written back as they are, so that ASO's PUT does not replace them. */
  tags?: Record<string, string>;
  agentPools: Array<{
    name: string;
    mode: 'System' | 'User';
    vmSize: string;
    count: number;
    enableAutoScaling?: boolean;
    minCount?: number;
    maxCount?: number;
    /** The remaining pool fields ARM reports, written back as they are (ARM replaces them on PUT). */
    osType?: string;
    osSKU?: string;
    orchestratorVersion?: string;
    availabilityZones?: string[];
    maxPods?: number;
    osDiskSizeGB?: number;
    nodeLabels?: Record<string, string>;
    nodeTaints?: string[];
    tags?: Record<string, string>;
  }>;
  /** ARM's `identity.type` (SystemAssigned, UserAssigned, None), when known: adoption writes SystemAssigned. */
  identityType?: string;
  /** ARM's `aadProfile`, when set: adoption writes it back as is so that its PUT does not change it. */
  aadProfile?: {
    managed?: boolean;
    enableAzureRBAC?: boolean;
    adminGroupObjectIDs?: string[];
    tenantID?: string;
  };
  /** Set when an ASO ManagedCluster on any configured management cluster already points at it. */
  managedBy?: {
    namespace: string;
    name: string;
    cluster?: string;
    /** Set when it is another management cluster. */ managementCluster?: string;
  };
}

/** GET /azure/clusters?managementCluster&namespace&credentialSecret @public */
export interface DiscoveredAksClustersResponse {
  subscriptionId: string;
  items: DiscoveredAksCluster[];
}

/** GET /credential-secrets?managementCluster&namespace: names only, never values. @public */
export interface CredentialSecretsResponse {
  items: Array<{
    namespace: string;
    name: string;
    subscriptionId?: string;
    authMode?: string;
  }>;
}

/** The signals channel for job progress: `{ jobId, state, currentStep }`; clients re-read the job over HTTP. @public */
export const CAPZ_JOBS_SIGNAL_CHANNEL = 'capz:jobs';

/** @public */
export interface CapzJobSignal {
  jobId: string;
  state: JobState;
  currentStep?: string;
}

/**
 * The value planners write into {@link JOB_ANNOTATION} on every object they create. The backend replaces it with
 * the job's id when it stores the plan (every occurrence of this literal string in the plan), so a resumed job
 * recognises its own objects.
 * @public
 */
export const JOB_ID_PLACEHOLDER = '$' + '{JOB_ID}';

/** One permission a job needs on the management cluster. @public */
export interface AccessRequirement {
  verb: string;
  /** API group; '' for the core group. */
  group: string;
  /** Plural resource name, e.g. `managedclusters`. */
  resource: string;
  /** Absent for cluster-scoped resources (namespaces). */
  namespace?: string;
  /** The steps that need it, for the refusal message and the RBAC file's comments. */
  why: string;
}

/** The backend's answer to an {@link AccessRequirement} (a SelfSubjectAccessReview). @public */
export interface AccessAnswer {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  allowed: boolean;
}
