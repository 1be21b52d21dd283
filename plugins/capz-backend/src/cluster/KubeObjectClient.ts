import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  CAPZ_FIELD_MANAGER,
  type KubeObject,
  type ObjectRef,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { ClientNode, kubeConfigFor, loadClientNode } from './kubeConfig';
import {
  httpStatusOf,
  NoAnswer,
  whyNoAnswer,
  objectApiWithTimeout,
} from './unreachable';

/**
 * The API server's refusal of a request (status and its message, e.g. a CRD validation failure), or no answer at all
 * (`noAnswer`: refused, timed out, cut off, or "unavailable, retry"; statusCode 0 unless it answered 429/502-504).
 */
export class ApplyError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly noAnswer?: NoAnswer,
  ) {
    super(message);
    this.name = 'ApplyError';
  }
}

export const describeTarget = (t: {
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

/**
 * Live reads and writes on one management cluster through `@kubernetes/client-node`'s generic object API, with the
 * management cluster's credentials; every failure becomes an {@link ApplyError} that names what was being done.
 * Writes are server-side apply under {@link CAPZ_FIELD_MANAGER} (`force` as the caller chooses: creating a cluster
 * never takes fields from another manager, a day-2 action owns the fields it sets), and each can be a `dryRun=All`.
 */
export class KubeObjectClient {
  static async create(
    cluster: ManagementClusterConfig,
    logger?: LoggerService,
    load: () => Promise<ClientNode> = loadClientNode,
  ) {
    const k8s = await load();
    return new KubeObjectClient(k8s, await kubeConfigFor(cluster, k8s, logger));
  }

  private readonly objects;

  constructor(private readonly k8s: ClientNode, kc: KubeConfig) {
    // Every request with a deadline: a frozen API server would hold one on a kept-alive connection for 300 s.
    this.objects = objectApiWithTimeout(k8s, kc);
  }

  private fail(e: unknown, what: string): never {
    const none = whyNoAnswer(e);
    // fetch's own message is only "fetch failed": say that the API server did not answer, and why.
    throw new ApplyError(
      statusOf(e),
      none && !statusOf(e)
        ? `${what}: the API server did not answer (${none.reason})`
        : `${what}: ${messageOf(e)}`,
      none,
    );
  }

  private header(t: ObjectRef) {
    return {
      apiVersion: t.apiVersion,
      kind: t.kind,
      metadata: { name: t.name, namespace: t.namespace },
    };
  }

  async get(t: ObjectRef): Promise<ObservedObject | undefined> {
    try {
      return (await this.objects.read(
        this.header(t) as never,
      )) as unknown as ObservedObject;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      return this.fail(e, `reading ${describeTarget(t)}`);
    }
  }

  /** Every object of a kind in a namespace (`apiVersion` and `kind` of `t`). */
  async list(t: Omit<ObjectRef, 'name'>): Promise<ObservedObject[]> {
    try {
      const r = await this.objects.list(t.apiVersion, t.kind, t.namespace);
      return (r.items as unknown as ObservedObject[]).map(o => ({
        ...o,
        apiVersion: t.apiVersion,
        kind: t.kind,
      }));
    } catch (e) {
      return this.fail(e, `listing ${t.kind} in ${t.namespace}`);
    }
  }

  /** Server-side apply; `metadata.resourceVersion` in `obj` is a precondition. */
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
      return this.fail(
        e,
        `${o.dryRun ? 'validating' : 'applying'} ${describeTarget({
          ...obj.metadata,
          kind: obj.kind,
        })}`,
      );
    }
  }

  /** JSON merge patch; `resourceVersion` is a precondition. */
  async mergePatch(
    t: ObjectRef,
    patch: Record<string, unknown>,
    o: { dryRun: boolean; resourceVersion?: string },
  ): Promise<ObservedObject> {
    const body = {
      ...this.header(t),
      ...patch,
      metadata: {
        ...this.header(t).metadata,
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
      return this.fail(
        e,
        `${o.dryRun ? 'validating a patch of' : 'patching'} ${describeTarget(
          t,
        )}`,
      );
    }
  }

  /**
   * Delete with background propagation, as kubectl does; `uid` is a precondition. Every option goes in the body's
   * DeleteOptions: the API server reads the query parameters only when a DELETE has no body, so `?dryRun=All` beside
   * a body with preconditions deleted for real (docs/capz-aso-facts.md#delete-options-body).
   */
  async delete(
    t: ObjectRef,
    o: { dryRun: boolean; uid?: string },
  ): Promise<void> {
    try {
      await this.objects.delete(
        this.header(t) as never,
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
      this.fail(
        e,
        `${o.dryRun ? 'validating the delete of' : 'deleting'} ${describeTarget(
          t,
        )}`,
      );
    }
  }
}
