/**
 * The cluster tree and health model shared by the backend (which builds trees from its watch cache) and the
 * frontend (which renders them). Pure data: no I/O, no clocks except where a caller passes one in.
 */
import type { ConditionView, Severity } from '../objects/types';

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
