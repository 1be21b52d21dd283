import type { LoggerService } from '@backstage/backend-plugin-api';
import type { KubeObject, ObjectRef } from '@capz-backstage/plugin-capz-common';
import type { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { ManagementClusterConfig } from '../config/managementClusters';
import {
  ClientNode,
  kubeConfigFor,
  loadClientNode,
} from '../cluster/kubeConfig';
import {
  httpStatusOf,
  NoAnswer,
  whyNoAnswer,
  objectApiWithTimeout,
  withRequestTimeout,
} from '../cluster/unreachable';

/**
 * What the job engine does on a management cluster: live reads and idempotent writes. Jobs never read the watch
 * cache for a decision: every precondition is checked against the API server at the moment it matters.
 */
export interface ClusterClient {
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** Every object of a kind in every namespace, read live (the sole-manager check; never the watch cache). */
  list(apiVersion: string, kind: string): Promise<KubeObject[]>;
  /** Creates; `exists` (with the live object) when an object of that name is already there. */
  create(
    obj: KubeObject,
  ): Promise<{ outcome: 'created' | 'exists'; object: KubeObject }>;
  /** RFC 7386 merge patch at `ref.apiVersion`; undefined when the object does not exist. */
  mergePatch(
    ref: ObjectRef,
    patch: Record<string, unknown>,
  ): Promise<KubeObject | undefined>;
  /** Background propagation, no wait; `absent` when it was already gone. */
  delete(ref: ObjectRef): Promise<'deleted' | 'absent'>;
  /** SelfSubjectAccessReview for the backend's own identity. */
  canI(access: {
    verb: string;
    group: string;
    resource: string;
    namespace?: string;
  }): Promise<boolean>;
}

/**
 * The API server's answer to a request, with its status code and message (e.g. a CRD validation failure); or no
 * answer at all (`noAnswer`: refused, timed out, cut off, or "unavailable, retry"; see cluster/unreachable.ts).
 */
export class KubeRequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly noAnswer?: NoAnswer,
  ) {
    super(message);
    this.name = 'KubeRequestError';
  }
}

const FIELD_MANAGER = 'capz-backstage';

const statusOf = httpStatusOf;

function messageOf(e: unknown): string {
  const body = (e as { body?: unknown })?.body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body);
      if (parsed?.message) return String(parsed.message);
    } catch {
      return body;
    }
  }
  if (body && typeof body === 'object' && 'message' in body)
    return String((body as { message: unknown }).message);
  return e instanceof Error ? e.message : String(e);
}

function wrap(e: unknown, what: string): never {
  const status = statusOf(e);
  const none = whyNoAnswer(e);
  throw new KubeRequestError(
    status ?? 0,
    // fetch's own message is only "fetch failed": say that the API server did not answer, and why.
    none && !status
      ? `${what}: the API server did not answer (${none.reason})`
      : `${what}: ${status ? `HTTP ${status} ` : ''}${messageOf(e)}`,
    none,
  );
}

const describe = (ref: ObjectRef) =>
  `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
const header = (ref: ObjectRef) => ({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  metadata: {
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
  },
});

/** {@link ClusterClient} over `@kubernetes/client-node`'s generic object API (discovery maps kinds to resources). */
export class KubeClusterClient implements ClusterClient {
  static async create(
    cluster: ManagementClusterConfig,
    logger?: LoggerService,
  ): Promise<KubeClusterClient> {
    const k8s = await loadClientNode();
    const kc = await kubeConfigFor(cluster, k8s, logger);
    return new KubeClusterClient(k8s, kc);
  }

  private readonly objects: KubernetesObjectApi;

  constructor(
    private readonly k8s: ClientNode,
    private readonly kc: KubeConfig,
  ) {
    // Every request with a deadline: a frozen API server would hold one on a kept-alive connection for 300 s.
    this.objects = objectApiWithTimeout(k8s, kc);
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    try {
      return (await this.objects.read(
        header(ref) as never,
      )) as unknown as KubeObject;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      return wrap(e, `reading ${describe(ref)}`);
    }
  }

  async list(apiVersion: string, kind: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    let continueToken: string | undefined;
    try {
      do {
        const page = await this.objects.list(
          apiVersion,
          kind,
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          500,
          continueToken,
        );
        out.push(...(page.items as unknown as KubeObject[]));
        continueToken = page.metadata?._continue || undefined;
      } while (continueToken);
    } catch (e) {
      // A kind the API server does not serve (an old ASO without this version) holds no object that could manage.
      if (statusOf(e) === 404) return out;
      return wrap(e, `listing ${kind} (${apiVersion}) in every namespace`);
    }
    return out;
  }

  async create(
    obj: KubeObject,
  ): Promise<{ outcome: 'created' | 'exists'; object: KubeObject }> {
    const ref: ObjectRef = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
    };
    try {
      const created = await this.objects.create(
        obj as never,
        undefined,
        undefined,
        FIELD_MANAGER,
      );
      return { outcome: 'created', object: created as unknown as KubeObject };
    } catch (e) {
      if (statusOf(e) !== 409) return wrap(e, `creating ${describe(ref)}`);
      const live = await this.get(ref);
      if (!live) return wrap(e, `creating ${describe(ref)}`);
      return { outcome: 'exists', object: live };
    }
  }

  async mergePatch(
    ref: ObjectRef,
    patch: Record<string, unknown>,
  ): Promise<KubeObject | undefined> {
    try {
      const body = {
        ...patch,
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { ...(patch.metadata as object), ...header(ref).metadata },
      };
      return (await this.objects.patch(
        body as never,
        undefined,
        undefined,
        FIELD_MANAGER,
        undefined,
        this.k8s.PatchStrategy.MergePatch,
      )) as unknown as KubeObject;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      return wrap(e, `patching ${describe(ref)}`);
    }
  }

  async delete(ref: ObjectRef): Promise<'deleted' | 'absent'> {
    try {
      await this.objects.delete(
        header(ref) as never,
        undefined,
        undefined,
        undefined,
        undefined,
        'Background',
      );
      return 'deleted';
    } catch (e) {
      if (statusOf(e) === 404) return 'absent';
      return wrap(e, `deleting ${describe(ref)}`);
    }
  }

  async canI(a: {
    verb: string;
    group: string;
    resource: string;
    namespace?: string;
  }): Promise<boolean> {
    const api = this.kc.makeApiClient(this.k8s.AuthorizationV1Api);
    try {
      const review = await api.createSelfSubjectAccessReview(
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: { ...a } },
          },
        },
        withRequestTimeout(this.k8s),
      );
      return review.status?.allowed === true;
    } catch (e) {
      return wrap(e, `asking whether the backend may ${a.verb} ${a.resource}`);
    }
  }
}
