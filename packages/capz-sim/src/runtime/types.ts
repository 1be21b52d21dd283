/** A Kubernetes object as plain JSON (never through client-node's typed models, which drop unknown fields). */
export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: OwnerReference[];
    [k: string]: unknown;
  };
  spec?: any;
  status?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
  [k: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** ASO/CAPI-style condition (v1beta1 CAPI conditions add severity; metav1 ones add observedGeneration). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  severity?: 'Info' | 'Warning' | 'Error' | '';
  observedGeneration?: number;
  lastTransitionTime: string;
}
