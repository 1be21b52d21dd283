import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  CAPZ_FIELD_MANAGER,
  type Day2Target,
  type KubeObject,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { ManagementClusterConfig } from '../config/managementClusters';
import {
  ClientNode,
  kubeConfigFor,
  loadClientNode,
} from '../cluster/kubeConfig';
import { ApplyError } from '../service/clusterCreate';

/** What the day-2 routes do on a management cluster: live reads and the plan's writes, each possibly a dry run. */
export interface Day2Client {
  get(t: Day2Target): Promise<ObservedObject | undefined>;
  /** Every object of a kind in a namespace (`apiVersion` and `kind` of `t`; its name is ignored). */
  list(t: Omit<Day2Target, 'name'>): Promise<ObservedObject[]>;
  /** Server-side apply under {@link CAPZ_FIELD_MANAGER} with force; `metadata.resourceVersion` in it is a precondition. */
  apply(obj: KubeObject, o: { dryRun: boolean }): Promise<ObservedObject>;
  /** JSON merge patch; `resourceVersion` is a precondition. */
  mergePatch(
    t: Day2Target,
    patch: Record<string, unknown>,
    o: { dryRun: boolean; resourceVersion?: string },
  ): Promise<ObservedObject>;
  /** Delete (background propagation, as kubectl); `uid` is a precondition. */
  delete(t: Day2Target, o: { dryRun: boolean; uid?: string }): Promise<void>;
}

const describe = (t: { kind: string; namespace?: string; name: string }) =>
  `${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}`;

function statusOf(e: unknown): number {
  const code =
    (e as { code?: unknown })?.code ??
    (e as { statusCode?: unknown })?.statusCode;
  return typeof code === 'number' ? code : 0;
}

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

/** {@link Day2Client} over `@kubernetes/client-node`'s generic object API, with the management cluster's credentials. */
export class KubeDay2Client implements Day2Client {
  static async create(
    cluster: ManagementClusterConfig,
    logger?: LoggerService,
    load: () => Promise<ClientNode> = loadClientNode,
  ) {
    const k8s = await load();
    return new KubeDay2Client(k8s, await kubeConfigFor(cluster, k8s, logger));
  }

  private readonly objects;

  constructor(
    private readonly k8s: ClientNode,
    kc: import('@kubernetes/client-node').KubeConfig,
  ) {
    this.objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  }

  private fail(e: unknown, what: string): never {
    throw new ApplyError(statusOf(e), `${what}: ${messageOf(e)}`);
  }

  private header(t: Day2Target) {
    return {
      apiVersion: t.apiVersion,
      kind: t.kind,
      metadata: { name: t.name, namespace: t.namespace },
    };
  }

  async get(t: Day2Target): Promise<ObservedObject | undefined> {
    try {
      return (await this.objects.read(
        this.header(t) as never,
      )) as unknown as ObservedObject;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      return this.fail(e, `reading ${describe(t)}`);
    }
  }

  async list(t: Omit<Day2Target, 'name'>): Promise<ObservedObject[]> {
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

  async apply(obj: KubeObject, o: { dryRun: boolean }) {
    try {
      return (await this.objects.patch(
        obj as never,
        undefined,
        o.dryRun ? 'All' : undefined,
        CAPZ_FIELD_MANAGER,
        true,
        this.k8s.PatchStrategy.ServerSideApply,
      )) as unknown as ObservedObject;
    } catch (e) {
      return this.fail(
        e,
        `${o.dryRun ? 'validating' : 'applying'} ${describe({
          kind: obj.kind,
          ...obj.metadata,
        })}`,
      );
    }
  }

  async mergePatch(
    t: Day2Target,
    patch: Record<string, unknown>,
    o: { dryRun: boolean; resourceVersion?: string },
  ) {
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
        `${o.dryRun ? 'validating a patch of' : 'patching'} ${describe(t)}`,
      );
    }
  }

  async delete(t: Day2Target, o: { dryRun: boolean; uid?: string }) {
    try {
      await this.objects.delete(
        this.header(t) as never,
        undefined,
        o.dryRun ? 'All' : undefined,
        undefined,
        undefined,
        'Background',
        o.uid ? { preconditions: { uid: o.uid } } : undefined,
      );
    } catch (e) {
      this.fail(
        e,
        `${o.dryRun ? 'validating the delete of' : 'deleting'} ${describe(t)}`,
      );
    }
  }
}
