/**
 * What each consumer may do on a management cluster, as a narrow view of the one {@link ManagementClusterClient}:
 * the jobs, day-2 actions, cluster creation and the credential Secret reader each get only the requests they make,
 * with the answers mapped to what they mean to it. Every failure stays a {@link KubeRequestError}: an outage
 * (`noAnswer`), a conflict (409), forbidden (403), not found (404, where it is not an answer), or a refusal (400/422).
 */
import { InputError } from '@backstage/errors';
import {
  validateDnsLabel,
  validateDnsSubdomain,
  type Day2Target,
  type KubeObject,
  type ObjectRef,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import {
  type AccessQuestion,
  KubeRequestError,
  type ManagementClusterClient,
} from './ManagementClusterClient';

const answered = (e: unknown, status: number) =>
  e instanceof KubeRequestError && !e.noAnswer && e.statusCode === status;

/**
 * What the job engine does on a management cluster: live reads and idempotent writes. Jobs never read the watch
 * cache for a decision: every precondition is checked against the API server at the moment it matters. What is
 * already done is an answer, not a failure: a create finds the object there, a patch or delete finds it gone.
 */
export interface JobClient {
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
  canI(access: AccessQuestion): Promise<boolean>;
}

/** The jobs' view of a management cluster's client. */
export function jobClient(c: ManagementClusterClient): JobClient {
  return {
    get: async ref => (await c.get(ref)) as KubeObject | undefined,
    list: async (apiVersion, kind) => {
      try {
        return (await c.list({ apiVersion, kind })) as KubeObject[];
      } catch (e) {
        // A kind the API server does not serve (an old ASO without this version) holds no object that could manage.
        if (answered(e, 404)) return [];
        throw e;
      }
    },
    create: async obj => {
      try {
        return {
          outcome: 'created',
          object: (await c.create(obj)) as KubeObject,
        };
      } catch (e) {
        if (!answered(e, 409)) throw e;
        const live = await c.get({
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace: obj.metadata.namespace,
        });
        if (!live) throw e;
        return { outcome: 'exists', object: live as KubeObject };
      }
    },
    mergePatch: async (ref, patch) => {
      try {
        return (await c.mergePatch(ref, patch)) as KubeObject;
      } catch (e) {
        if (answered(e, 404)) return undefined;
        throw e;
      }
    },
    delete: async ref => {
      try {
        await c.delete(ref);
        return 'deleted';
      } catch (e) {
        if (answered(e, 404)) return 'absent';
        throw e;
      }
    },
    canI: access => c.canI(access),
  };
}

/** What the day-2 routes do on a management cluster: live reads and the plan's writes, each possibly a dry run. */
export interface Day2Client {
  get(t: Day2Target): Promise<ObservedObject | undefined>;
  /** Every object of a kind in a namespace (`apiVersion` and `kind` of `t`; its name is ignored). */
  list(t: Omit<Day2Target, 'name'>): Promise<ObservedObject[]>;
  /** Server-side apply under the product's field manager with force; `metadata.resourceVersion` in it is a precondition. */
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

/** The day-2 view: its writes take the fields they set (server-side apply with force); a 404 is the caller's. */
export function day2Client(c: ManagementClusterClient): Day2Client {
  return {
    get: t => c.get(t),
    list: t => c.list(t),
    apply: (obj, o) => c.apply(obj, { ...o, force: true }),
    mergePatch: (t, patch, o) => c.mergePatch(t, patch, o),
    delete: (t, o) => c.delete(t, o),
  };
}

/**
 * What reading a Flux-applied object's source does on a management cluster: live GETs of the Flux Kustomization
 * (`kustomize.toolkit.fluxcd.io/v1`), its GitRepository (`source.toolkit.fluxcd.io/v1`) and the objects a day-2 plan
 * changes; undefined when one does not exist (or its kind is not served: Flux not installed).
 */
export interface GitOpsSourceClient {
  get(t: Day2Target): Promise<ObservedObject | undefined>;
  kustomization(
    namespace: string,
    name: string,
  ): Promise<ObservedObject | undefined>;
  gitRepository(
    namespace: string,
    name: string,
  ): Promise<ObservedObject | undefined>;
}

/** The GitOps-source view: reads only. */
export function gitOpsSourceClient(
  c: ManagementClusterClient,
): GitOpsSourceClient {
  const read = async (t: ObjectRef) => {
    try {
      return await c.get(t);
    } catch (e) {
      // A kind the API server does not serve (no Flux CRDs): no such object.
      if (answered(e, 404)) return undefined;
      throw e;
    }
  };
  return {
    get: t => read(t),
    kustomization: (namespace, name) =>
      read({
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        namespace,
        name,
      }),
    gitRepository: (namespace, name) =>
      read({
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        namespace,
        name,
      }),
  };
}

/** What creating a cluster does on a management cluster: live reads (the names it will take) and server-side apply. */
export interface ClusterCreateClient {
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** Server-side apply under the product's field manager, without force; `dryRun` sends `dryRun=All`. */
  apply(obj: KubeObject, o: { dryRun: boolean }): Promise<KubeObject>;
}

/** The cluster-create view: server-side apply without force (a create takes no field from another manager). */
export function clusterCreateClient(
  c: ManagementClusterClient,
): ClusterCreateClient {
  return {
    get: async ref => (await c.get(ref)) as KubeObject | undefined,
    apply: async (obj, o) =>
      (await c.apply(obj, { ...o, force: false })) as KubeObject,
  };
}

/** A Secret's data, base64-decoded; undefined when it does not exist. */
export type SecretReader = (
  managementCluster: string,
  namespace: string,
  name: string,
) => Promise<Record<string, string> | undefined>;

/**
 * The one Secret lookup of the backend (Azure discovery's credential, the wizard's credential Secrets): one live GET
 * by name, never a list (that would hand the backend every value in the namespace). A name that is not a DNS
 * subdomain (or a namespace that is not a DNS label) is refused before any request: `GET .../secrets/.` is a LIST of
 * the namespace's Secrets and `.../secrets/..` reads the Namespace. The routes refuse such names at the edge already;
 * this holds for every caller.
 */
export function secretReader(
  clients: (
    managementCluster: string,
  ) => Promise<{ get(ref: ObjectRef): Promise<object | undefined> }>,
): SecretReader {
  return async (managementCluster, namespace, name) => {
    const problem =
      validateDnsLabel(namespace, 'Secret namespace') ??
      validateDnsSubdomain(name, 'Secret name');
    if (problem) throw new InputError(problem);
    const s = await (
      await clients(managementCluster)
    ).get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    if (!s) return undefined;
    const data = (s as { data?: Record<string, string> }).data ?? {};
    return Object.fromEntries(
      Object.entries(data).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString('utf8'),
      ]),
    );
  };
}
