import { apiRequest, type ClusterInfo } from '@internal/mgmt-cluster';
import { apiVersionOf, pathOf, type Kind } from './kinds.ts';
import type { Obj } from './types.ts';

/** An API error with the server's Status reason and message. */
export class KubeError extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

export const isNotFound = (e: unknown) =>
  e instanceof KubeError && e.status === 404;
export const isConflict = (e: unknown) =>
  e instanceof KubeError && e.status === 409;

type Conn = Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>;

/**
 * A small REST client on raw JSON, as the simulated controllers' writes must keep every field (client-node's typed
 * models drop unknown ones). Counts its requests so tests can see the simulator is silent in steady state.
 */
export class Kube {
  readonly conn: Conn;
  requests = 0;

  constructor(conn: Conn) {
    this.conn = conn;
  }

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T> {
    this.requests++;
    const res = await apiRequest(this.conn, method, path, body, contentType);
    const parsed = res.body ? JSON.parse(res.body) : undefined;
    if (res.status >= 400) {
      throw new KubeError(
        res.status,
        parsed?.reason ?? String(res.status),
        parsed?.message ?? res.body,
      );
    }
    return parsed as T;
  }

  async get(
    kind: Kind,
    ns: string | undefined,
    name: string,
  ): Promise<Obj | undefined> {
    try {
      return await this.call<Obj>('GET', pathOf(kind, ns, name));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async list(
    kind: Kind,
    ns?: string,
    labelSelector?: string,
  ): Promise<{ items: Obj[]; metadata: { resourceVersion: string } }> {
    const q = labelSelector
      ? `?labelSelector=${encodeURIComponent(labelSelector)}`
      : '';
    return this.call('GET', `${pathOf(kind, ns)}${q}`);
  }

  /** Creates at the version the object is written at (e.g. a v1alpha1 AzureASOManagedControlPlane). */
  create(kind: Kind, obj: Obj): Promise<Obj> {
    const apiVersion = obj.apiVersion ?? apiVersionOf(kind);
    const version = apiVersion.includes('/')
      ? apiVersion.split('/')[1]
      : apiVersion;
    return this.call(
      'POST',
      pathOf({ ...kind, version }, obj.metadata.namespace),
      { ...obj, apiVersion, kind: kind.kind },
    );
  }

  /** Creates, or returns undefined when the object already exists (the adopt controllers ignore AlreadyExists). */
  async createIfAbsent(kind: Kind, obj: Obj): Promise<Obj | undefined> {
    try {
      return await this.create(kind, obj);
    } catch (e) {
      if (isConflict(e)) return undefined;
      throw e;
    }
  }

  replace(kind: Kind, obj: Obj): Promise<Obj> {
    return this.call(
      'PUT',
      pathOf(kind, obj.metadata.namespace, obj.metadata.name),
      obj,
    );
  }

  replaceStatus(kind: Kind, obj: Obj): Promise<Obj> {
    return this.call(
      'PUT',
      pathOf(kind, obj.metadata.namespace, obj.metadata.name, 'status'),
      obj,
    );
  }

  mergePatch(
    kind: Kind,
    ns: string | undefined,
    name: string,
    patch: unknown,
    subresource?: 'status',
  ): Promise<Obj> {
    return this.call(
      'PATCH',
      pathOf(kind, ns, name, subresource),
      patch,
      'application/merge-patch+json',
    );
  }

  /** Server-side apply (JSON is valid YAML), as CAPZ applies embedded ASO objects: field manager, force ownership. */
  apply(kind: Kind, obj: Obj, fieldManager: string): Promise<Obj> {
    const q = `?fieldManager=${encodeURIComponent(fieldManager)}&force=true`;
    return this.call(
      'PATCH',
      `${pathOf(kind, obj.metadata.namespace, obj.metadata.name)}${q}`,
      obj,
      'application/apply-patch+yaml',
    );
  }

  async delete(
    kind: Kind,
    ns: string | undefined,
    name: string,
    propagationPolicy = 'Background',
  ): Promise<boolean> {
    try {
      await this.call('DELETE', pathOf(kind, ns, name), {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        propagationPolicy,
      });
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }
}
