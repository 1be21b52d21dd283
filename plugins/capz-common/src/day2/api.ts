/**
 * The day-2 API of one cluster: the actions, their plans (what each writes, field by field), the delete
 * preview (what Azure deletes and keeps), the upgrade options and the connect commands. Shared by the backend (which
 * serves them under `/clusters/{managementCluster}/{namespace}/{name}`) and the frontend (which renders them).
 */

/** A pool's mode in AKS. @public */
export type Day2PoolMode = 'System' | 'User';

/** What an upgrade moves: the control plane, or some node pools (by pool name, i.e. the agent pool's azureName). @public */
export type Day2UpgradeTarget = 'controlPlane' | { pools: string[] };

/**
 * One day-2 action, as the user asks for it. A pool is named by its agent pool name in Azure (`azureName`, what the
 * cluster page shows), e.g. `pool0`; the backend finds its MachinePool and infrastructure object.
 * @public
 */
export type Day2Action =
  /** Set a pool's node count (MachinePool `spec.replicas`); refused on a pool whose count the autoscaler owns. */
  (
    | { action: 'scale'; pool: string; replicas: number }
    /** Turn AKS's cluster autoscaler on (with bounds) or off for a pool. */
    | {
        action: 'autoscale';
        pool: string;
        enabled: boolean;
        minCount?: number;
        maxCount?: number;
      }
    /** Move the control plane, or pools, to `version` (with the leading v, e.g. v1.34.1). */
    | { action: 'upgrade'; version: string; target: Day2UpgradeTarget }
    /** Add a node pool: a MachinePool and its infrastructure pool object, with the template's rules. */
    | {
        action: 'addPool';
        pool: {
          name: string;
          mode: Day2PoolMode;
          osType: 'Linux' | 'Windows';
          vmSize: string;
          replicas: number;
        };
      }
    /** Remove a node pool (never the last System pool). */
    | { action: 'removePool'; pool: string }
    /** `Cluster.spec.paused: true`: CAPI and CAPZ stop reconciling, CAPZ sets ASO's reconcile-policy skip. */
    | { action: 'pause' }
    /** `Cluster.spec.paused` removed. */
    | { action: 'resume' }
  ) & {
    /**
     * On a confirm (`POST .../actions`): the {@link Day2Plan.planDigest} of the preview the user saw. The backend
     * writes that plan, or answers 409 when the cluster changed since. Ignored by the preview.
     */
    planDigest?: string;
  };

/** The action's name. @public */
export type Day2ActionName = Day2Action['action'];

/** One field an action changes; `before`/`after` absent means the field is absent (before a create, after a removal). @public */
export interface FieldChange {
  /** Dotted path in the object, with list items by index or name: `spec.replicas`, `spec.resources[0].spec.minCount`. */
  path: string;
  before?: unknown;
  after?: unknown;
}

/** One object an action creates, updates or deletes, and its field changes. @public */
export interface ObjectChange {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  operation: 'create' | 'update' | 'delete';
  fields: FieldChange[];
}

/**
 * What an action writes (`POST .../actions/preview`: validated by the API server with `dryRun=All`, `applied: false`)
 * or wrote (`POST .../actions`: `applied: true`). An action that changes nothing has no changes (idempotent).
 * @public
 */
export interface Day2Plan {
  action: Day2Action;
  changes: ObjectChange[];
  /** What the user should know before confirming (e.g. which Azure agent pool a removal deletes). */
  warnings: string[];
  /** What is good to know and asks for no care (e.g. the agent pool AKS creates): shown as information, not a warning. */
  notes?: string[];
  /** What Azure does, in Azure's words: "AKS agent pool system of AKS cluster x: 1 → 2 VMs (AKS adds 1 VM …)". */
  effects?: string[];
  /** What the live state says about carrying it out now (AKS busy with another operation), read from status. */
  cautions?: string[];
  applied: boolean;
  /**
   * The objects the action changes that Flux, Argo CD or Helm applies, each with who applies it. Empty or absent
   * when none is.
   */
  appliedBy?: Array<{
    kind: string;
    namespace: string;
    name: string;
    appliedBy: string;
    blocks: boolean;
  }>;
  /**
   * Why the confirm will be refused (409), in words: e.g. a GitOps controller applies an object the action changes
   * and would put the change back. A preview with blockers shows them instead of a Confirm.
   */
  blockers?: string[];
  /**
   * sha256 (hex) of the plan's canonical form (`day2PlanBasis`): the changes, the warnings and the
   * resourceVersion of every object the plan was made from. A confirm sends the preview's back.
   */
  planDigest?: string;
  /**
   * The plan as a change of the Git repository Flux applies its objects from, when one applies them: the files and
   * their diffs, or why it cannot be proposed. A confirm of a `proposable` change pushes a branch and opens its pull
   * request (`proposed`); nothing is written to the cluster.
   */
  git?: Day2GitChange;
}

/** A day-2 plan proposed to Git instead of written live. @public */
export interface Day2GitChange {
  /** The whole plan is in `files`: the confirm proposes it. */
  proposable: boolean;
  /** Why it cannot be proposed, in words (then the `blockers` stand). */
  reason?: string;
  /** Where the change goes: the repository (no credentials), its branch and path, and the revision Flux applied. */
  source?: {
    kustomization: { namespace: string; name: string };
    gitRepository: { namespace: string; name: string };
    url: string;
    branch: string;
    path: string;
    revision: string;
  };
  /** The files changed, each as `diff -u`. */
  files: Array<{ path: string; diff: string }>;
  /** Changes not written literally in the repository: make them by hand (each in words). */
  byHand: string[];
  /** What the reader should know about the change. */
  notes: string[];
  /** After a confirm: the branch pushed, its commit, and its pull request where the host has one. */
  proposed?: {
    branch: string;
    commit: string;
    pullRequest?: { number: number; url: string };
  };
}

/** An object of the cluster, by kind and place. @public */
export interface Day2ObjectRef {
  kind: string;
  namespace: string;
  name: string;
}

/** One Azure resource a cluster delete deletes or keeps, and why. @public */
export interface AzureImpact {
  /** ARM type, e.g. `Microsoft.ContainerService/managedClusters/agentPools`. */
  azureType: string;
  /** The resource's name in Azure (agent pools: the pool name). */
  azureName: string;
  /** Its ARM id, when the ASO object reports one (`status.id`). */
  armId?: string;
  /** The ASO object that represents it. */
  object: Day2ObjectRef;
  /** In words: the reconcile policy, the owner or containing group, or the object elsewhere that still manages it. */
  reason: string;
}

/** GET .../delete-preview: what deleting the cluster does in Azure, computed from the watch cache. @public */
export interface DeletePreview {
  cluster: {
    managementCluster: string;
    namespace: string;
    name: string;
    /** A paused cluster is not reconciled, not even its deletion: the delete is refused until it is resumed. */
    paused: boolean;
  };
  deletes: AzureImpact[];
  keeps: AzureImpact[];
  /** Why the delete cannot run now (empty when it can), e.g. the cluster is paused or already being deleted. */
  blockers: string[];
  /**
   * For a cluster a Flux Kustomization applies: the delete as a change of its repository (the Cluster's manifest
   * removed, the others marked `kustomize.toolkit.fluxcd.io/reconcile: disabled`: docs/flux-facts.md#git-delete),
   * which the confirm proposes as a pull request instead of deleting live.
   */
  git?: Day2GitChange;
  /** With `git` proposable: what the confirm carries back, so that it proposes exactly this change (else 409). */
  planDigest?: string;
}

/** `DELETE /clusters/{managementCluster}/{namespace}/{name}`: the user types the cluster name. @public */
export interface DeleteClusterRequest {
  confirmName: string;
  /** The preview's planDigest, for a delete proposed to Git. */
  planDigest?: string;
}

/** The 202 answer of a delete: the Cluster is being deleted; the preview it was checked against. @public */
export interface DeleteClusterResponse {
  accepted: true;
  preview: DeletePreview;
}

/** GET .../upgrades @public */
export interface UpgradeOptions {
  /** The control plane's version (desired, with the leading v). */
  controlPlane: string;
  /** Each pool's version (its MachinePool's `spec.template.spec.version`). */
  pools: Array<{ name: string; version: string }>;
  /**
   * The versions the control plane may move to next, offered by AKS in the cluster's region (ARM), newest first:
   * never a downgrade, never a skipped minor. Pools may move to the control plane's version.
   */
  available: string[];
  /** What must be fixed before any upgrade (e.g. a pinned kubernetesVersion in spec.resources, with the fix). */
  problems: string[];
}

/** GET .../connect: how to reach the workload cluster. Commands only, never a secret value. @public */
export interface ConnectInfo {
  commands: string[];
  notes: string[];
  /**
   * Whether this backend hands out the cluster's kubeconfig (`GET .../kubeconfig`), known before asking: AKS's user
   * credential of a cluster without Entra ID is a local account (a secret), refused unless the operator allows it.
   */
  kubeconfig?: { available: boolean; reason?: string };
}

/**
 * GET .../kubeconfig: a kubeconfig for the workload cluster, from AKS's `listClusterUserCredential` with
 * `format=exec`. For an Entra ID cluster it signs in through `kubelogin` and holds no secret; a kubeconfig with a
 * secret (local accounts) is only returned when the operator allows it (`capz.connect.allowLocalAccountKubeconfig`).
 * @public
 */
export interface ClusterKubeconfig {
  /** A file name for the download, `<cluster>.kubeconfig`. */
  fileName: string;
  /** The kubeconfig (YAML) as AKS returned it. */
  kubeconfig: string;
  /** The API server it points at. */
  server: string;
  /** How it signs in: `exec` (kubelogin, no secret inside) or `local-account` (a secret inside: operator-allowed). */
  auth: 'exec' | 'local-account';
}

/** The routes of one cluster's day-2 API, relative to the plugin's base URL. @public */
export const day2Paths = (c: {
  managementCluster: string;
  namespace: string;
  name: string;
}) => {
  const base = `/clusters/${encodeURIComponent(
    c.managementCluster,
  )}/${encodeURIComponent(c.namespace)}/${encodeURIComponent(c.name)}`;
  return {
    /** DELETE, body {@link DeleteClusterRequest} → 202 {@link DeleteClusterResponse}. */
    cluster: base,
    /** POST {@link Day2Action} → {@link Day2Plan} (applied: true). */
    actions: `${base}/actions`,
    /** POST {@link Day2Action} → {@link Day2Plan} (applied: false, dryRun=All). */
    preview: `${base}/actions/preview`,
    /** GET → {@link UpgradeOptions}. */
    upgrades: `${base}/upgrades`,
    /** GET → {@link DeletePreview}. */
    deletePreview: `${base}/delete-preview`,
    /** GET → {@link ConnectInfo}. */
    connect: `${base}/connect`,
    /** GET → {@link ClusterKubeconfig}. */
    kubeconfig: `${base}/kubeconfig`,
  };
};
