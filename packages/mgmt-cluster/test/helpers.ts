import { ApiException, CustomObjectsApi } from '@kubernetes/client-node';
import { adminKubeConfig } from '../src/client.ts';
import { testCluster, until } from '../src/testing.ts';

/** client-node's generic custom-objects client for the run's cluster, as the plugin will use it. */
export function customObjects(): CustomObjectsApi {
  return adminKubeConfig(testCluster()).makeApiClient(CustomObjectsApi);
}

/** The API server's Status message of a failed call. */
export function statusOf(e: unknown): { code: number; message: string } {
  if (!(e instanceof ApiException)) throw e;
  const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
  return { code: e.code, message: body.message };
}

/** The shared condition wait, under the name these tests use. */
export const eventually = until;

export const CAPZ = {
  group: 'infrastructure.cluster.x-k8s.io',
  version: 'v1beta1',
};
export const CAPI = { group: 'cluster.x-k8s.io', version: 'v1beta2' };
