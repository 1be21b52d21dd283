import { LoggerService } from '@backstage/backend-plugin-api';
import type { KubeConfig } from '@kubernetes/client-node';
import { EventEmitter } from 'node:events';
import type { ClientNode } from './kubeConfig';
import { whyNoAnswer } from './unreachable';
import { WatchedKind } from './watchedKinds';

/**
 * A Kubernetes object as plain JSON, with `metadata.managedFields` reduced to who wrote it at which apiVersion
 * (without a conversion webhook that is the only trace of an object written at v1alpha1); the field sets
 * (`fieldsV1`), often most of the bytes, are dropped.
 */
export interface CachedObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export type ChangeType = 'add' | 'update' | 'delete';
export interface CacheChange {
  managementCluster: string;
  kind: string;
  type: ChangeType;
  object: CachedObject;
}

export interface KindWatchStatus {
  /** The API version being watched, or undefined when the server serves none of the wanted ones. */
  version?: string;
  synced: boolean;
  restarts: number;
  lastEventAt?: string;
  error?: string;
}

interface Informer {
  start(): Promise<void>;
  stop(): Promise<void>;
  on(verb: string, cb: (arg: any) => void): void;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Objects per page of a first list (client-go's reflector pages by 500 too). */
export const LIST_PAGE = 500;

/**
 * One copy of each text that thousands of cached objects repeat (API versions, kinds, namespaces, owners' kinds,
 * finalizers, field managers): JSON.parse gives every object its own copy of each value. Only these low-cardinality
 * fields go through it, and it stops growing at POOL_LIMIT texts.
 */
const POOL_LIMIT = 50_000;
const pool = new Map<string, string>();
const intern = <T>(s: T): T => {
  if (typeof s !== 'string') return s;
  const known = pool.get(s);
  if (known !== undefined) return known as T;
  if (pool.size < POOL_LIMIT) pool.set(s, s);
  return s;
};
/** Interns a field when it holds a string (an absent field stays absent). */
const internField = (o: any, key: string) => {
  if (o && typeof o[key] === 'string') o[key] = intern(o[key]);
};

/**
 * The keys whose string values, anywhere in a spec or status, come from a small set (condition types, statuses,
 * reasons and severities; kinds, API versions and groups of references; VM sizes, OS and node image versions,
 * regions, Kubernetes versions, modes, states), each parsed into its own copy: one copy each took the bench's
 * objects from 1,666 to 1,434 bytes of heap apiece (10,000 clusters' worth, 138,600 objects). Values over 128
 * characters are left alone.
 */
const LOW_CARDINALITY_KEYS = new Set([
  'type',
  'status',
  'reason',
  'severity',
  'kind',
  'apiVersion',
  'apiGroup',
  'mode',
  'vmSize',
  'osType',
  'osSKU',
  'location',
  'version',
  'provisioningState',
  'code',
  'nodeImageVersion',
  'orchestratorVersion',
  'currentOrchestratorVersion',
  'kubernetesVersion',
  'currentKubernetesVersion',
]);
const internValues = (v: any, key: string): any => {
  if (typeof v === 'string')
    return v.length <= 128 && LOW_CARDINALITY_KEYS.has(key) ? intern(v) : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = internValues(v[i], key);
  } else if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = internValues(v[k], k);
  }
  return v;
};

/**
 * Shrinks an object in place before anything stores it (client-node's informer keeps the very object it hands to
 * the callbacks, so one stripped copy serves both caches): `managedFields` keeps who wrote it at which apiVersion
 * (the API detection reads that), not the field sets; kubectl's last-applied annotation keeps its key with an empty
 * value (the YAML view shows it redacted either way; the upgrade job reads the CAPZ objects whole from the API server).
 */
const strip = (o: any): CachedObject => {
  const metadata = o.metadata ?? (o.metadata = {});
  internField(o, 'apiVersion');
  internField(o, 'kind');
  internField(metadata, 'namespace');
  if (Array.isArray(metadata.finalizers))
    metadata.finalizers = metadata.finalizers.map(intern);
  if (Array.isArray(metadata.ownerReferences))
    for (const ref of metadata.ownerReferences) {
      internField(ref, 'apiVersion');
      internField(ref, 'kind');
    }
  if (Array.isArray(metadata.managedFields)) {
    metadata.managedFields = metadata.managedFields.map(
      ({ manager, operation, apiVersion, subresource, time }: any) => ({
        manager: intern(manager),
        operation: intern(operation),
        apiVersion: intern(apiVersion),
        subresource: intern(subresource),
        time,
      }),
    );
  }
  internValues(o.spec, '');
  internValues(o.status, '');
  const annotations = metadata.annotations;
  if (annotations && typeof annotations[LAST_APPLIED] === 'string')
    annotations[LAST_APPLIED] = '';
  return o as CachedObject;
};

/** The objects of one kind, indexed by uid, by namespace (page views read one namespace at a time) and by name. */
class KindStore {
  private readonly byUid = new Map<string, CachedObject>();
  private readonly byNamespace = new Map<string, Map<string, CachedObject>>();
  private readonly byName = new Map<string, CachedObject>();

  private static key(namespace: string | undefined, name: string): string {
    return `${namespace ?? ''}/${name}`;
  }

  set(object: CachedObject): void {
    const uid = object.metadata.uid;
    const previous = this.byUid.get(uid);
    if (
      previous &&
      (previous.metadata.namespace !== object.metadata.namespace ||
        previous.metadata.name !== object.metadata.name)
    )
      this.delete(uid);
    this.byUid.set(uid, object);
    const ns = object.metadata.namespace ?? '';
    let bucket = this.byNamespace.get(ns);
    if (!bucket) this.byNamespace.set(ns, (bucket = new Map()));
    bucket.set(uid, object);
    this.byName.set(
      KindStore.key(object.metadata.namespace, object.metadata.name),
      object,
    );
  }

  delete(uid: string): void {
    const previous = this.byUid.get(uid);
    if (!previous) return;
    this.byUid.delete(uid);
    const ns = previous.metadata.namespace ?? '';
    const bucket = this.byNamespace.get(ns);
    bucket?.delete(uid);
    if (bucket && bucket.size === 0) this.byNamespace.delete(ns);
    const key = KindStore.key(
      previous.metadata.namespace,
      previous.metadata.name,
    );
    if (this.byName.get(key) === previous) this.byName.delete(key);
  }

  get(namespace: string | undefined, name: string): CachedObject | undefined {
    return this.byName.get(KindStore.key(namespace, name));
  }

  /** The cached object with this uid if it is still at this resourceVersion. */
  unchanged(uid: unknown, resourceVersion: unknown): CachedObject | undefined {
    const cached = typeof uid === 'string' ? this.byUid.get(uid) : undefined;
    return cached &&
      resourceVersion !== undefined &&
      cached.metadata.resourceVersion === resourceVersion
      ? cached
      : undefined;
  }

  list(namespace?: string): CachedObject[] {
    if (namespace === undefined) return [...this.byUid.values()];
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  entries(): IterableIterator<[string, CachedObject]> {
    return this.byUid.entries();
  }

  get size(): number {
    return this.byUid.size;
  }
}

/**
 * List+watch of every watched kind on one management cluster, kept in memory. Built on client-node's informer,
 * which relists on 410 Gone and resumes after timeouts, but stops on any other error (client-node C2): those are
 * restarted here with capped exponential backoff, and reported per kind until the next successful list.
 */
export class ClusterWatch extends EventEmitter {
  private readonly objects = new Map<string, KindStore>();
  private readonly informers = new Map<string, Informer>();
  private readonly status = new Map<string, KindWatchStatus>();
  /** When each kind last had an event (a number: set on every event, turned into a date only when asked). */
  private readonly lastEventMs = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly kc: KubeConfig,
    private readonly k8s: ClientNode,
    private readonly kinds: WatchedKind[],
    private readonly logger: LoggerService,
    private readonly namespaces?: string[],
  ) {
    super();
    for (const k of kinds) {
      this.objects.set(k.name, new KindStore());
      this.status.set(k.name, { synced: false, restarts: 0 });
    }
  }

  /** Starts every kind; resolves once each has listed or failed (failures keep retrying in the background). */
  async start(): Promise<void> {
    await Promise.all(this.kinds.map(k => this.startKind(k)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await Promise.all(
      [...this.informers.values()].map(i => i.stop().catch(() => undefined)),
    );
  }

  /** How many objects the cache holds, every kind together. */
  size(): number {
    let n = 0;
    for (const store of this.objects.values()) n += store.size;
    return n;
  }

  list(kind: string, namespace?: string): CachedObject[] {
    return this.objects.get(kind)?.list(namespace) ?? [];
  }

  /** One object by namespace and name, without copying a list. */
  get(
    kind: string,
    namespace: string | undefined,
    name: string,
  ): CachedObject | undefined {
    return this.objects.get(kind)?.get(namespace, name);
  }

  kindStatus(): Record<string, KindWatchStatus> {
    return Object.fromEntries(
      [...this.status.entries()].map(([k, s]) => {
        const at = this.lastEventMs.get(k);
        return [
          k,
          at === undefined
            ? { ...s }
            : { ...s, lastEventAt: new Date(at).toISOString() },
        ];
      }),
    );
  }

  /** Synced when every kind the server serves has listed. */
  synced(): boolean {
    return [...this.status.values()].every(
      s => s.synced || (s.version === undefined && !s.error),
    );
  }

  private async servedVersion(kind: WatchedKind): Promise<string | undefined> {
    if (!kind.group) return kind.versions[0];
    const api = this.kc.makeApiClient(this.k8s.CustomObjectsApi);
    for (const version of kind.versions) {
      try {
        await api.listClusterCustomObject({
          group: kind.group,
          version,
          plural: kind.plural,
          limit: 1,
        });
        return version;
      } catch (e: any) {
        if (e?.code !== 404) throw e;
      }
    }
    return undefined;
  }

  private path(kind: WatchedKind, version: string, namespace?: string): string {
    const base = kind.group
      ? `/apis/${kind.group}/${version}`
      : `/api/${version}`;
    return `${base}${namespace ? `/namespaces/${namespace}` : ''}/${
      kind.plural
    }`;
  }

  /**
   * A kind's list, read in pages of LIST_PAGE (as client-go's reflector does) and returned whole, with the
   * resourceVersion its watch resumes from: every page of one list is served at the same resourceVersion. Pages keep
   * each answer's text small (a kind's 10 MB answer is held as one string while it is parsed), and the API server
   * served the 14 kinds' lists in parallel faster in pages (the bench: 0.72-0.74 against 1.49-1.56 s).
   *
   * In a list again (a relist after 410 Gone: every ~5 minutes for a quiet kind the API server reads from etcd,
   * docs/scale.md#quiet-watches) an item still at the resourceVersion the cache holds is replaced by the cached object
   * as its page arrives: client-node keeps its own copy of an unchanged object anyway (dist/cache.js
   * `addOrUpdateObject`, `isSameVersion`), so the parsed copy was garbage, but held until the last page, long enough to
   * be promoted to the old generation: at 10,000 clusters 40,000 objects each time, collected by a major GC.
   */
  private listFn(kind: WatchedKind, version: string, namespace?: string) {
    const store = this.objects.get(kind.name)!;
    const cachedIfUnchanged = (item: any) =>
      store.unchanged(item?.metadata?.uid, item?.metadata?.resourceVersion) ??
      item;
    const custom = this.kc.makeApiClient(this.k8s.CustomObjectsApi);
    const core = this.kc.makeApiClient(this.k8s.CoreV1Api);
    const page = async (_continue?: string): Promise<any> => {
      const paging = { limit: LIST_PAGE, _continue };
      if (!kind.group)
        return namespace
          ? core.listNamespacedEvent({ namespace, ...paging })
          : core.listEventForAllNamespaces(paging);
      return namespace
        ? custom.listNamespacedCustomObject({
            group: kind.group,
            version,
            namespace,
            plural: kind.plural,
            ...paging,
          })
        : custom.listClusterCustomObject({
            group: kind.group,
            version,
            plural: kind.plural,
            ...paging,
          });
    };
    return async (): Promise<any> => {
      let list = await page();
      const items: unknown[] = (list.items ?? []).map(cachedIfUnchanged);
      // Typed (core) lists name it `_continue`, custom objects' plain JSON `continue`.
      const next = (l: any): string | undefined =>
        l.metadata?._continue || l.metadata?.continue || undefined;
      for (let token = next(list); token; token = next(list)) {
        list = await page(token);
        for (const item of list.items ?? [])
          items.push(cachedIfUnchanged(item));
      }
      return { ...list, items };
    };
  }

  private async startKind(kind: WatchedKind, attempt = 0): Promise<void> {
    if (this.stopped) return;
    const status = this.status.get(kind.name)!;
    try {
      const version = await this.servedVersion(kind);
      status.version = version;
      if (!version) {
        status.synced = false;
        return; // not installed on this cluster: nothing to watch
      }
      const scopes = this.namespaces?.length ? this.namespaces : [undefined];
      // A list that failed is reported through fail() and still resolves: then the kind is not synced.
      const failures = status.restarts;
      await Promise.all(
        scopes.map(ns => this.startInformer(kind, version, ns, attempt)),
      );
      if (status.restarts !== failures) return;
      status.synced = true;
      status.error = undefined;
    } catch (e) {
      this.fail(kind, e as Error, attempt);
    }
  }

  private async startInformer(
    kind: WatchedKind,
    version: string,
    namespace: string | undefined,
    attempt: number,
  ) {
    const id = `${kind.name}/${namespace ?? '*'}`;
    await this.informers
      .get(id)
      ?.stop()
      .catch(() => undefined);
    // The kind counts as listed once its list is applied, not once its watch is open as well (the watch resumes
    // from the list's resourceVersion, so nothing is missed meanwhile). client-node applies the items right after
    // listFn resolves, in the same microtask chain: the next macrotask sees them all.
    let listed!: () => void;
    const listApplied = new Promise<void>(r => (listed = r));
    // Whether this informer's list answered: set when it resolves, before client-node applies its items.
    let gotList = false;
    const list = this.listFn(kind, version, namespace);
    const informer = this.k8s.makeInformer(
      this.kc,
      this.path(kind, version, namespace),
      async () => {
        const result = await list();
        gotList = true;
        setImmediate(listed);
        return result;
      },
    ) as Informer;
    const store = this.objects.get(kind.name)!;
    const apply = (type: ChangeType) => (obj: any) => {
      const object = strip(obj);
      if (type !== 'delete') {
        // After a 410 re-list client-node matches objects by namespace/name (client-node 2.0.1 dist/cache.js): an
        // object deleted and created again under its name while the watch was cut arrives as an update with a new
        // uid. The old object is gone: it is dropped, and said so, before the new one is kept.
        const stale = store.get(
          object.metadata.namespace,
          object.metadata.name,
        );
        if (stale && stale.metadata.uid !== object.metadata.uid) {
          store.delete(stale.metadata.uid);
          this.emit('change', {
            managementCluster: this.name,
            kind: kind.name,
            type: 'delete',
            object: stale,
          } satisfies CacheChange);
        }
      }
      // Events are written with the kind's version; Events use the core kind name.
      if (type === 'delete') store.delete(object.metadata.uid);
      else store.set(object);
      this.lastEventMs.set(kind.name, Date.now());
      const change: CacheChange = {
        managementCluster: this.name,
        kind: kind.name,
        type,
        object,
      };
      this.emit('change', change);
    };
    informer.on('add', apply('add'));
    informer.on('update', apply('update'));
    informer.on('delete', apply('delete'));
    const restart = () =>
      this.startInformer(kind, version, namespace, attempt + 1);
    informer.on('error', (err: Error) =>
      this.fail(kind, err, attempt, restart),
    );
    this.informers.set(id, informer);
    // A failure opening the watch after the list was applied is reported like any later watch failure.
    let listedFirst = false;
    const started = informer.start().catch(e => {
      if (!listedFirst) throw e;
      this.fail(kind, e as Error, attempt, restart);
    });
    await Promise.race([started, listApplied]);
    listedFirst = true;
    // A list that failed (the API server away: client-node's start() then resolves after reporting the error, which
    // fail() retries) says nothing about what exists: keep the objects as last seen until a list answers.
    if (!gotList) return;
    // A new informer only reports what exists now: drop what vanished while the previous one was down.
    const present = new Set(
      ((informer as any).list?.(namespace) ?? []).map(
        (o: any) => o.metadata?.uid,
      ),
    );
    for (const [uid, object] of [...store.entries()]) {
      if (
        (namespace === undefined || object.metadata.namespace === namespace) &&
        !present.has(uid)
      ) {
        store.delete(uid);
        this.emit('change', {
          managementCluster: this.name,
          kind: kind.name,
          type: 'delete',
          object,
        } satisfies CacheChange);
      }
    }
  }

  private fail(
    kind: WatchedKind,
    err: Error,
    attempt: number,
    restart?: () => Promise<void>,
  ): void {
    if (this.stopped) return;
    const status = this.status.get(kind.name)!;
    status.synced = false;
    // fetch's own message is only "fetch failed": say why the API server did not answer.
    const why = whyNoAnswer(err)?.reason;
    const message = err.message?.split('\n')[0] ?? String(err);
    status.error =
      why && !message.includes(why) ? `${message}: ${why}` : message;
    status.restarts++;
    const delay =
      Math.min(1000 * 2 ** attempt, 30_000) * (0.8 + Math.random() * 0.4);
    this.logger.warn(
      `management cluster ${this.name}: watch of ${kind.name} failed (${
        status.error
      }); retrying in ${Math.round(delay)} ms`,
    );
    const t = setTimeout(() => {
      this.timers.delete(t);
      const again = restart ?? (() => this.startKind(kind, attempt + 1));
      // startKind and an informer's failed relist report through fail() and still resolve: only a retry that did not
      // fail again may mark the kind synced (else a cluster that keeps failing shows as synced between retries).
      const failures = status.restarts;
      again()
        .then(() => {
          if (status.restarts !== failures) return;
          status.synced = true;
          status.error = undefined;
        })
        .catch(e => this.fail(kind, e, attempt + 1, restart));
    }, delay);
    this.timers.add(t);
  }
}
