import type { Cache } from './cache.ts';
import type { KindName } from './kinds.ts';
import type { Obj } from './types.ts';

/** `namespace/name` of the controller's primary object. */
export type Key = string;
export const keyOf = (o: {
  metadata: { namespace?: string; name: string };
}): Key => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
export const splitKey = (key: Key) => {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i) || undefined, name: key.slice(i + 1) };
};

export interface Result {
  /** Reconcile this key again after so long (a pending Azure operation, a wait on another object). */
  requeueAfterMs?: number;
}

export interface ControllerSpec {
  name: string;
  /** The primary kind: every event of it enqueues its own key. */
  kind: KindName;
  /** Other kinds whose events enqueue primary keys. */
  watches?: Array<{ kind: KindName; map: (obj: Obj) => Key[] }>;
  reconcile: (key: Key) => Promise<Result | void>;
  /**
   * controller-runtime's event filter on the primary kind (`WithEventFilter(predicate.Funcs{...})`): an update is
   * enqueued only when `update(old, now)` holds, a deletion only when `delete` is true. Creates always are.
   * Without it every event of the primary kind is enqueued.
   */
  predicate?: {
    update: (old: Obj | undefined, now: Obj) => boolean;
    delete: boolean;
  };
}

/**
 * A controller-runtime-like loop: a de-duplicating queue, one worker, retries with exponential backoff on errors,
 * delayed requeues. Reconcilers observe, compare, and act idempotently, so re-running one is always safe.
 */
export class Controller {
  readonly spec: ControllerSpec;
  private readonly queue = new Set<Key>();
  private readonly timers = new Map<Key, NodeJS.Timeout>();
  private readonly failures = new Map<Key, number>();
  private running = false;
  private stopped = false;
  private wake?: () => void;
  private readonly log: (msg: string) => void;

  constructor(spec: ControllerSpec, cache: Cache, log: (msg: string) => void) {
    this.spec = spec;
    this.log = log;
    const seen = new Map<Key, Obj>();
    cache.on(spec.kind, (type, obj) => {
      const key = keyOf(obj);
      const p = spec.predicate;
      if (p) {
        const old = seen.get(key);
        if (type === 'delete') seen.delete(key);
        else seen.set(key, obj);
        if (type === 'update' && !p.update(old, obj)) return;
        if (type === 'delete' && !p.delete) return;
      }
      this.enqueue(key);
    });
    for (const w of spec.watches ?? [])
      cache.on(w.kind, (_t, obj) => w.map(obj).forEach(k => this.enqueue(k)));
  }

  enqueue(key: Key): void {
    if (this.stopped) return;
    this.queue.add(key);
    this.wake?.();
  }

  enqueueAfter(key: Key, ms: number): void {
    if (this.stopped || this.timers.has(key)) return;
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.enqueue(key);
      }, ms),
    );
  }

  /** Enqueues every object of the primary kind (a resync, e.g. when Azure changed). */
  enqueueAll(cache: Cache): void {
    for (const o of cache.list(this.spec.kind)) this.enqueue(keyOf(o));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.wake?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const [key] = this.queue;
      if (key === undefined) {
        await new Promise<void>(r => (this.wake = r));
        this.wake = undefined;
        continue;
      }
      this.queue.delete(key);
      try {
        const result = await this.spec.reconcile(key);
        this.failures.delete(key);
        if (result?.requeueAfterMs !== undefined)
          this.enqueueAfter(key, result.requeueAfterMs);
      } catch (e) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const delay = Math.min(50 * 2 ** n, 5000);
        this.log(
          `${this.spec.name} ${key}: ${
            (e as Error).message
          } (retry in ${delay} ms)`,
        );
        this.enqueueAfter(key, delay);
      }
    }
  }
}
