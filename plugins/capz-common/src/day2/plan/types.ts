/** What a day-2 plan is made of: the writes it asks for, the problems that refuse it, what it needs to know. */
import type { KubeObject } from '../../manifests/aksAsoCluster';
import type { AppliedByTool } from '../../objects/appliedBy';
import type { ObjectChange } from '../api';

/** An object addressed by kind and name. @public */
export interface Day2Target {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * One write of a plan. `apply`: server-side apply under the product's field manager with `force` (the user chose
 * these values, seeing what they replace), guarded by `metadata.resourceVersion` when the object exists, so that a
 * change since the plan was made is a 409 rather than overwritten (the backend then plans again from a new read).
 * @public
 */
export type Day2Write =
  | { type: 'apply'; object: KubeObject; create: boolean }
  /** Guarded by the object's uid (the one planned from, not a namesake made since); its status may move meanwhile. */
  | { type: 'delete'; target: Day2Target; uid?: string }
  /** A JSON merge patch: only to remove a field another manager may own (`null`), which an apply cannot. */
  | {
      type: 'merge';
      target: Day2Target;
      patch: Record<string, unknown>;
      resourceVersion?: string;
    };

/** Why an action is refused: `input` (400: the request breaks a rule) or `conflict` (409: the cluster's state). @public */
export interface Day2Problem {
  rule: string;
  kind: 'input' | 'conflict';
  message: string;
}

/** What the planner answers. @public */
export type Day2PlanResult =
  | { ok: false; problems: Day2Problem[] }
  | {
      ok: true;
      writes: Day2Write[];
      changes: ObjectChange[];
      warnings: string[];
      /** What is good to know and asks for no care (e.g. the pools stay on their version): informational, unlike warnings. */
      notes?: string[];
      /**
       * Who applies the objects the writes change (Flux, Argo CD, Helm), and why a confirm is refused: a write to an
       * object a GitOps controller applies would be put back (or the object re-created) at its next run.
       */
      appliedBy?: Day2AppliedBy[];
      blockers?: string[];
      /** What Azure does, in Azure's words (agent pools, VMs, versions): `day2AzureEffects`. */
      effects?: string[];
      /**
       * What the live state says about carrying it out now (AKS busy with another operation): `day2LiveCautions`.
       * Read from status, so not part of the plan's digest.
       */
      cautions?: string[];
    };

/** One object a plan would change and who applies it (capz-common `appliedBy`). @public */
export interface Day2AppliedBy {
  kind: string;
  namespace: string;
  name: string;
  /** In words: "Flux's Kustomization flux-system/clusters". */
  appliedBy: string;
  tool: AppliedByTool;
  /** Its controller puts a live change back: the write is refused. */
  blocks: boolean;
}

/** What the planner needs beyond the cluster's objects. @public */
export interface Day2PlanContext {
  /**
   * The Kubernetes versions AKS offers in the cluster's region (ARM), for upgrades; undefined when they cannot be
   * read, and then an upgrade is refused (a version the region does not offer would fail only in Azure).
   */
  offeredVersions?: readonly string[];
  /** Why the offered versions are unknown, for the refusal. */
  offeredVersionsError?: string;
  /** Object names already taken in the namespace (read live), for a new pool. */
  takenNames?: readonly string[];
}

/** `rule: message`, as the 400/409 answers word a problem. @public */
export const formatDay2Problems = (problems: readonly Day2Problem[]) =>
  problems.map(p => `${p.rule}: ${p.message}`).join('; ');
