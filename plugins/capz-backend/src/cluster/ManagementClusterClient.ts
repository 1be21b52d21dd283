import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  CAPZ_FIELD_MANAGER,
  type KubeObject,
  type ObjectRef,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { ClientNode, kubeConfigFor, loadClientNode } from './kubeConfig';
import {
  httpStatusOf,
  NoAnswer,
  whyNoAnswer,
  objectApiWithTimeout,
  withRequestTimeout,
} from './unreachable';

/**
 * The API server's answer to a request that did not succeed: its status code and message (e.g. a CRD validation
 * failure, 403, 404, 409); or no answer at all (`noAnswer`: refused, timed out, cut off, or "unavailable, retry":
 * cluster/unreachable.ts; statusCode 0 unless it answered 429/502-504). The one error of every live request to a
 * management cluster; its `statusCode` is also what Backstage's error middleware answers with.
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

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export const describeRef = (t: {
  kind: string;
  namespace?: string;
  name: string;
}) => `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;

const statusOf = (e: unknown): number => httpStatusOf(e) ?? 0;

/** The API server's own message (its Status body), not client-node's "HTTP-Code: 422 Message: ..." wrapper. */
function messageOf(e: unknown): string {
  const body = (e as { body?: unknown })?.body;
  if (typeof body === 'string') {
    try {
      return String(JSON.parse(body)?.message ?? body);
    } catch {
      return body;
    }
  }
  if (body && typeof body === 'object' && 'message' in body)
    return String((body as { message: unknown }).message);
  return e instanceof Error ? e.message : String(e);
}

function fail(e: unknown, what: string): never {
  const status = statusOf(e);
  const none = whyNoAnswer(e);
  throw new KubeRequestError(
    status,
    // fetch's own message is only "fetch failed": say that the API server did not answer, and why.
    none && !status
      ? `${what}: the API server did not answer (${none.reason})`
      : `${what}: ${messageOf(e)}`,
    none,
  );
}

const header = (t: ObjectRef) => ({
  apiVersion: t.apiVersion,
  kind: t.kind,
  metadata: {
    name: t.name,
    ...(t.namespace ? { namespace: t.namespace } : {}),
  },
});

/** What a SelfSubjectAccessReview asks. */
export interface AccessQuestion {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
}

/**
 * Live reads and writes on one management cluster, with its credentials, through `@kubernetes/client-node`'s generic
 * object API (discovery maps kinds to resources). Every request has a deadline (cluster/unreachable.ts) and every
 * failure is a {@link KubeRequestError} that names what was being done; only a read of an object that does not exist
 * is an answer (undefined). Writes are under {@link CAPZ_FIELD_MANAGER} and each can be a `dryRun=All`. What each
 * consumer makes of an answer (a 404 on delete is "already gone" for a job, an error for a day-2 action) is its view's
 * (cluster/clientViews.ts): consumers get a view, never this client.
 */
export class ManagementClusterClient {
  static async create(
    cluster: ManagementClusterConfig,
    logger?: LoggerService,
    load: () => Promise<ClientNode> = loadClientNode,
  ): Promise<ManagementClusterClient> {
    const k8s = await load();
    return new ManagementClusterClient(
      k8s,
      await kubeConfigFor(cluster, k8s, logger),
    );
  }

  private readonly objects: KubernetesObjectApi;

  constructor(
    private readonly k8s: ClientNode,
    private readonly kc: KubeConfig,
  ) {
    // Every request with a deadline: a frozen API server would hold one on a kept-alive connection for 300 s.
    this.objects = objectApiWithTimeout(k8s, kc);
  }

  /** The object, or undefined when it does not exist (404). */
  async get(t: ObjectRef): Promise<ObservedObject | undefined> {
    try {
      return (await this.objects.read(
        header(t) as never,
      )) as unknown as ObservedObject;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      return fail(e, `reading ${describeRef(t)}`);
    }
  }

  /**
   * Every object of a kind in a namespace, or in every namespace without one, in pages of 500; each item carries its
   * `apiVersion` and `kind` (a list's items come without them). A kind the API server does not serve is a 404.
   */
  async list(t: Omit<ObjectRef, 'name'>): Promise<ObservedObject[]> {
    const out: ObservedObject[] = [];
    let continueToken: string | undefined;
    try {
      do {
        const page = await this.objects.list(
          t.apiVersion,
          t.kind,
          t.namespace,
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          500,
          continueToken,
        );
        for (const o of page.items as unknown as ObservedObject[])
          out.push({ ...o, apiVersion: t.apiVersion, kind: t.kind });
        continueToken = page.metadata?._continue || undefined;
      } while (continueToken);
    } catch (e) {
      return fail(
        e,
        `listing ${t.kind} (${t.apiVersion}) in ${
          t.namespace ?? 'every namespace'
        }`,
      );
    }
    return out;
  }

  /** Creates (POST); an object of that name already there is a 409. */
  async create(obj: KubeObject): Promise<ObservedObject> {
    try {
      return (await this.objects.create(
        obj as never,
        undefined,
        undefined,
        CAPZ_FIELD_MANAGER,
      )) as unknown as ObservedObject;
    } catch (e) {
      return fail(
        e,
        `creating ${describeRef({ ...obj.metadata, kind: obj.kind })}`,
      );
    }
  }

  /**
   * Server-side apply; `metadata.resourceVersion` in `obj` is a precondition. `force` takes the fields it sets from
   * other managers (a day-2 action owns what it sets); without it a field another manager owns is a 409.
   */
  async apply(
    obj: KubeObject,
    o: { dryRun: boolean; force: boolean },
  ): Promise<ObservedObject> {
    try {
      return (await this.objects.patch(
        obj as never,
        undefined,
        o.dryRun ? 'All' : undefined,
        CAPZ_FIELD_MANAGER,
        o.force,
        this.k8s.PatchStrategy.ServerSideApply,
      )) as unknown as ObservedObject;
    } catch (e) {
      return fail(
        e,
        `${o.dryRun ? 'validating' : 'applying'} ${describeRef({
          ...obj.metadata,
          kind: obj.kind,
        })}`,
      );
    }
  }

  /**
   * RFC 7386 merge patch at `t.apiVersion`; `resourceVersion` (or `metadata.resourceVersion` in the patch) is a
   * precondition. An object that does not exist is a 404.
   */
  async mergePatch(
    t: ObjectRef,
    patch: Record<string, unknown>,
    o: { dryRun?: boolean; resourceVersion?: string } = {},
  ): Promise<ObservedObject> {
    const body = {
      ...patch,
      apiVersion: t.apiVersion,
      kind: t.kind,
      metadata: {
        ...(patch.metadata as object | undefined),
        ...header(t).metadata,
        ...(o.resourceVersion ? { resourceVersion: o.resourceVersion } : {}),
      },
    };
    try {
      return (await this.objects.patch(
        body as never,
        undefined,
        o.dryRun ? 'All' : undefined,
        CAPZ_FIELD_MANAGER,
        undefined,
        this.k8s.PatchStrategy.MergePatch,
      )) as unknown as ObservedObject;
    } catch (e) {
      return fail(
        e,
        `${o.dryRun ? 'validating a patch of' : 'patching'} ${describeRef(t)}`,
      );
    }
  }

  /**
   * Delete with background propagation, as kubectl does, without waiting; `uid` is a precondition. An object that
   * does not exist is a 404. Every option goes in the body's DeleteOptions: the API server reads the query parameters
   * only when a DELETE has no body, so `?dryRun=All` beside a body with preconditions deleted for real
   * (docs/capz-aso-facts.md#delete-options-body).
   */
  async delete(
    t: ObjectRef,
    o: { dryRun?: boolean; uid?: string } = {},
  ): Promise<void> {
    try {
      await this.objects.delete(
        header(t) as never,
        undefined,
        o.dryRun ? 'All' : undefined,
        undefined,
        undefined,
        'Background',
        {
          propagationPolicy: 'Background',
          ...(o.dryRun ? { dryRun: ['All'] } : {}),
          ...(o.uid ? { preconditions: { uid: o.uid } } : {}),
        },
      );
    } catch (e) {
      fail(
        e,
        `${o.dryRun ? 'validating the delete of' : 'deleting'} ${describeRef(
          t,
        )}`,
      );
    }
  }

  /** SelfSubjectAccessReview: whether the backend's own identity may do this. */
  async canI(a: AccessQuestion): Promise<boolean> {
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
      return fail(e, `asking whether the backend may ${a.verb} ${a.resource}`);
    }
  }
}

/** The client of a management cluster by name (rejects for a name that is not configured). */
export type ManagementClusterClients = (
  managementCluster: string,
) => Promise<ManagementClusterClient>;

/**
 * One {@link ManagementClusterClient} per configured management cluster, made on first use and kept: plugin.ts makes
 * this once and hands each consumer its view of it.
 */
export function managementClusterClients(
  managementClusters: ManagementClusterConfig[],
  logger?: LoggerService,
  load: () => Promise<ClientNode> = loadClientNode,
): ManagementClusterClients {
  const clients = new Map<string, Promise<ManagementClusterClient>>();
  return async name => {
    const c = managementClusters.find(m => m.name === name);
    if (!c) throw new Error(`No management cluster named "${name}"`);
    let client = clients.get(name);
    if (!client) {
      client = ManagementClusterClient.create(c, logger, load);
      clients.set(name, client);
    }
    return client;
  };
}
