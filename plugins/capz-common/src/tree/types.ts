/**
 * The cluster tree and health model shared by the backend (which builds trees from its watch cache) and the
 * frontend (which renders them). Pure data: no I/O, no clocks except where a caller passes one in.
 */

/**
 * How an object, or a whole cluster, is doing. Ordered from good to bad by {@link worse}:
 * healthy, paused, progressing, deleting, unknown, degraded, failed.
 *
 * - `healthy`: ready, and the controller has seen the latest spec.
 * - `paused`: reconciliation is switched off on purpose (`Cluster.spec.paused`, `cluster.x-k8s.io/paused`).
 * - `progressing`: changing normally (creating, updating, waiting for a dependency that is itself fine).
 * - `deleting`: `metadata.deletionTimestamp` is set.
 * - `unknown`: the object or its status cannot be found or read.
 * - `degraded`: a problem the controller keeps retrying (ASO severity `Warning`).
 * - `failed`: the controller gave up until the spec changes (ASO severity `Error`).
 * @public
 */
export type Health =
  | 'healthy'
  | 'progressing'
  | 'degraded'
  | 'failed'
  | 'paused'
  | 'deleting'
  | 'unknown';

/** Condition severity, as ASO and CAPI v1beta1-style conditions carry it. @public */
export type Severity = 'Info' | 'Warning' | 'Error';

/** One condition of an object, normalised from ASO, CAPI v1beta1-style or metav1 conditions. @public */
export interface ConditionView {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  severity?: Severity;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** Which object a node's verdict comes from, when it is not the node itself. @public */
export interface NodeRef {
  id: string;
  kind: string;
  name: string;
}

/** A health verdict with its explanation. @public */
export interface HealthResult {
  health: Health;
  /** Machine-readable reason (an ASO/CAPI reason, or one of this module's own, e.g. `NotFound`). */
  reason?: string;
  message?: string;
  severity?: Severity;
  /** ISO time the current health started: the lastTransitionTime of the deciding condition, when known. */
  since?: string;
  /** The object whose condition decided this verdict, when it is another one (e.g. the ManagedCluster behind an
   * AzureASOManagedControlPlane, or the deepest failing object for a cluster's rollup). */
  source?: NodeRef;
}

/**
 * One node of a cluster tree: an object, a virtual node (`Workers`), a referenced object that is missing, or a
 * group of similar siblings.
 * @public
 */
export interface TreeNode {
  /** The object's uid when known, otherwise a stable synthetic id (`obj:…`, `missing:…`, `workers:…`, `group:…`). */
  id: string;
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
  uid?: string;
  health: Health;
  reason?: string;
  message?: string;
  severity?: Severity;
  /** ISO time the current health started: lastTransitionTime of the deciding condition. */
  since?: string;
  /** The node whose condition decided this node's health, when it is not this node (rollups, CAPZ objects). */
  source?: NodeRef;
  conditions: ConditionView[];
  /** What a person wants to see at a glance: versions, location, replicas, provisioningState, policies. */
  facts: Record<string, string | number | boolean>;
  children: TreeNode[];
  /** Set on group nodes only: the merged siblings. */
  group?: { kind: string; count: number; names: string[] };
}

/** An owner reference as read from the API server. @public */
export interface OwnerReferenceView {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

/** One `metadata.managedFields` entry: which manager wrote the object, at which API version. @public */
export interface ManagedFieldsEntryView {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}

/**
 * A Kubernetes object as plain JSON, as read from the API server or a watch cache. Every field is optional: the
 * health and tree functions never throw on a partial object.
 * @public
 */
export interface ObservedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    /** The API server's version of the object: a write guarded by it fails (409) when the object changed since. */
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReferenceView[];
    managedFields?: ManagedFieldsEntryView[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** Options shared by the health and tree functions. @public */
export interface HealthOptions {
  /**
   * "Now", for the one time-dependent rule: an object without any status or Ready condition is `progressing`
   * (reason `NotReconciledYet`) while it is younger than `newObjectGraceSeconds`, and `unknown` after that.
   * Defaults to the current time.
   */
  now?: Date | string | number;
  /** Defaults to 300 seconds. */
  newObjectGraceSeconds?: number;
}
