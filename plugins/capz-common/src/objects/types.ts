/**
 * A Kubernetes object as the plugins see it: plain JSON from the API server or a watch cache, and its normalised
 * conditions. The tree, the jobs and the day-2 actions all read objects through these.
 */

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

/** Condition severity, as ASO and CAPI v1beta1-style conditions carry it. @public */
export type Severity = 'Info' | 'Warning' | 'Error';
