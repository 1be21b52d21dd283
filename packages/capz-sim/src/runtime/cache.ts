import {
  KubeConfig,
  makeInformer,
  type Informer,
  type ObjectCache,
} from '@kubernetes/client-node';
import { K, pathOf, type KindName } from './kinds.ts';
import type { Kube } from './kube.ts';
import type { Obj } from './types.ts';

export type EventType = 'add' | 'update' | 'delete';
type Handler = (type: EventType, obj: Obj) => void;

/**
 * List+watch caches for the kinds the simulated controllers use (client-node informers over raw JSON). Controllers
 * read from here, so a settled world makes no API requests; they write through `Kube`. A watch that fails for a
 * reason other than 410/timeout stops in client-node: it is restarted here after a short delay.
 */
export class Cache {
  private readonly informers = new Map<
    KindName,
    Informer<any> & ObjectCache<any>
  >();
  private readonly handlers = new Map<KindName, Handler[]>();
  private stopped = false;

  /** Only objects in namespaces this accepts are seen (cluster-scoped objects always are). */
  private readonly accept: (ns: string | undefined) => boolean;

  constructor(
    kube: Kube,
    kc: KubeConfig,
    kinds: KindName[],
    accept: (ns: string | undefined) => boolean = () => true,
  ) {
    this.accept = accept;
    for (const name of kinds) {
      const kind = K[name];
      const informer = makeInformer(
        kc,
        pathOf(kind),
        () => kube.list(kind) as any,
      );
      const dispatch = (type: EventType) => (obj: any) => {
        if (!this.accept((obj as Obj).metadata.namespace)) return;
        for (const h of this.handlers.get(name) ?? []) {
          try {
            h(type, obj as Obj);
          } catch (e) {
            process.stderr.write(
              `[capz-sim] handler for ${name} failed: ${(e as Error).stack}\n`,
            );
          }
        }
      };
      informer.on('add', dispatch('add'));
      informer.on('update', dispatch('update'));
      informer.on('delete', dispatch('delete'));
      informer.on('error', () => {
        if (!this.stopped)
          setTimeout(
            () => !this.stopped && informer.start().catch(() => undefined),
            500,
          );
      });
      this.informers.set(name, informer);
    }
  }

  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map(i => i.start()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map(i => i.stop()));
  }

  on(kind: KindName, handler: Handler): void {
    this.handlers.set(kind, [...(this.handlers.get(kind) ?? []), handler]);
  }

  get(kind: KindName, ns: string | undefined, name: string): Obj | undefined {
    if (!this.accept(ns)) return undefined;
    return this.informers.get(kind)?.get(name, ns) as Obj | undefined;
  }

  list(kind: KindName, ns?: string): Obj[] {
    return ((this.informers.get(kind)?.list(ns) ?? []) as Obj[]).filter(o =>
      this.accept(o.metadata.namespace),
    );
  }
}
