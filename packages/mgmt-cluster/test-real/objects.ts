/**
 * Objects on a management cluster as the lane's flow tests read and write them: one namespace, raw API requests
 * (the lane's own CRDs and kinds, no typed client), and the condition helpers they print and assert with.
 */
import assert from 'node:assert/strict';
import { apiRequest, type ClusterInfo } from '../src/cluster.ts';

export type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  spec?: any;
  status?: any;
};

/** `/apis/<group>/<version>/namespaces/<ns>/<plural>` (CAPI/CAPZ/ASO plurals: kind + s; AzureClusterIdentity → ies). */
export const collection = (
  apiVersion: string,
  kind: string,
  namespace: string,
) =>
  `${
    apiVersion.includes('/') ? '/apis' : '/api'
  }/${apiVersion}/namespaces/${namespace}/${kind
    .toLowerCase()
    .replace(/y$/, 'ie')}s`;

/** create (201, or 409 when it exists), get (undefined when absent) and list in namespace `ns` of `cluster()`. */
export function objectsIn(cluster: () => ClusterInfo, ns: string) {
  return {
    async create(o: Obj): Promise<void> {
      const r = await apiRequest(
        cluster(),
        'POST',
        collection(o.apiVersion, o.kind, ns),
        o,
      );
      assert.ok(
        r.status === 201 || r.status === 409,
        `create ${o.kind}/${o.metadata.name}: ${r.status} ${r.body}`,
      );
    },
    async get(
      apiVersion: string,
      kind: string,
      name: string,
    ): Promise<Obj | undefined> {
      const r = await apiRequest(
        cluster(),
        'GET',
        `${collection(apiVersion, kind, ns)}/${name}`,
      );
      if (r.status === 404) return undefined;
      assert.equal(r.status, 200, r.body);
      return JSON.parse(r.body) as Obj;
    },
    /** A JSON merge patch (`kubectl patch --type merge`); undefined when the object is absent. */
    async patch(
      apiVersion: string,
      kind: string,
      name: string,
      body: unknown,
    ): Promise<Obj | undefined> {
      const r = await apiRequest(
        cluster(),
        'PATCH',
        `${collection(apiVersion, kind, ns)}/${name}`,
        body,
        'application/merge-patch+json',
      );
      if (r.status === 404) return undefined;
      assert.equal(r.status, 200, `patch ${kind}/${name}: ${r.body}`);
      return JSON.parse(r.body) as Obj;
    },
    /** `kubectl delete --wait=false`: 200 or 202 (accepted, finalizers pending), or 404 when already gone. */
    async remove(
      apiVersion: string,
      kind: string,
      name: string,
    ): Promise<void> {
      const r = await apiRequest(
        cluster(),
        'DELETE',
        `${collection(apiVersion, kind, ns)}/${name}`,
      );
      assert.ok(
        [200, 202, 404].includes(r.status),
        `delete ${kind}/${name}: ${r.status} ${r.body}`,
      );
    },
    async list(apiVersion: string, kind: string): Promise<Obj[]> {
      const r = await apiRequest(
        cluster(),
        'GET',
        collection(apiVersion, kind, ns),
      );
      assert.equal(r.status, 200, r.body);
      return (JSON.parse(r.body) as { items: Obj[] }).items;
    },
  };
}

export const condition = (o: Obj | undefined, type: string) =>
  (o?.status?.conditions ?? []).find((c: any) => c.type === type);

export const conditionText = (o: Obj | undefined) =>
  (o?.status?.conditions ?? [])
    .map((c: any) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`)
    .join(' ');
