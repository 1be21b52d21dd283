import type { AksAsoClusterParams } from './manifests/aksAsoCluster';

/**
 * The field manager every object the product creates is applied under (server-side apply), so a later apply by the
 * product (or `kubectl apply --server-side --field-manager capz-backstage`) owns the same fields.
 * @public
 */
export const CAPZ_FIELD_MANAGER = 'capz-backstage';

/** POST /clusters: a new ASO-managed AKS cluster, rendered and applied by the backend. @public */
export interface CreateClusterRequest extends AksAsoClusterParams {
  managementCluster: string;
  /** Server-side apply with `dryRun=All`: the API server validates every object and nothing is written. */
  dryRun?: boolean;
}

/** The answer to POST /clusters (200 for a dry run, 201 when created). @public */
export interface CreateClusterResponse {
  dryRun: boolean;
  managementCluster: string;
  namespace: string;
  name: string;
  /** The cluster's page in the app, relative to its base URL. */
  path: string;
  /** Every object applied (or validated, in a dry run), in order. */
  objects: Array<{
    apiVersion: string;
    kind: string;
    namespace: string;
    name: string;
    uid?: string;
  }>;
  /**
   * What was not checked and why, e.g. the Kubernetes version against the versions AKS offers in the region when ARM
   * cannot be asked (docs/capz-aso-facts.md#create-offered-version); absent when every check ran.
   */
  warnings?: string[];
}

/** The cluster page's path in the app (the `capz` frontend plugin's route). @public */
export const clusterPagePath = (c: {
  managementCluster: string;
  namespace: string;
  name: string;
}) =>
  `/capz/clusters/${encodeURIComponent(
    c.managementCluster,
  )}/${encodeURIComponent(c.namespace)}/${encodeURIComponent(c.name)}`;
