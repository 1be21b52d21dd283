import { ApiException, CustomObjectsApi } from '@kubernetes/client-node';
import { adminKubeConfig } from '../src/client.ts';
import { testCluster } from '../src/testing.ts';

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

/** Polls until `check` returns a value, or fails after `timeoutMs` naming what it waited for. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, delay));
  }
}

export const CAPZ = { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta1' };
export const CAPI = { group: 'cluster.x-k8s.io', version: 'v1beta2' };
