import {
  clusterSortKey,
  compareClusterKeys,
  type ClusterSummary,
  type KeyedCluster,
} from '@capz-backstage/plugin-capz-common';

type Direction = 'ascending' | 'descending';

/** Past this share of changed clusters a kept order is sorted again rather than merged. */
const RESORT_SHARE = 0.25;

/**
 * The clusters in each sort order a view asked for, kept between requests: a change re-sorts only the clusters it
 * changed and merges them into each kept order (linear), so a page of a view is a walk of a ready order instead of a
 * sort of the whole fleet per request. Keys and comparison are capz-common's, so the order is the page's own.
 */
export class ClusterOrders {
  private readonly summaries = new Map<string, ClusterSummary>();
  private readonly orders = new Map<string, KeyedCluster[]>();

  /** How many clusters it holds. */
  get size(): number {
    return this.summaries.size;
  }

  /** Brings the orders up to date: `changed` holds each cluster new or changed (id → summary), `gone` those removed. */
  update(
    changed: ReadonlyMap<string, ClusterSummary>,
    gone: readonly string[],
  ): void {
    if (!changed.size && !gone.length) return;
    for (const id of gone) this.summaries.delete(id);
    for (const [id, summary] of changed) this.summaries.set(id, summary);
    const moved = new Set([...gone, ...changed.keys()]);
    for (const [key, order] of this.orders) {
      if (moved.size > order.length * RESORT_SHARE) {
        this.orders.delete(key);
        continue;
      }
      const [column, direction] = key.split(' ') as [string, Direction];
      const kept = order.filter(x => !moved.has(x.id));
      const fresh = this.keyed([...changed.keys()], column, direction);
      this.orders.set(key, merge(kept, fresh, compareClusterKeys(direction)));
    }
  }

  /** Every cluster held, sorted by `column` in `direction` (see capz-common's sortClusters). */
  order(column: string, direction: Direction): readonly KeyedCluster[] {
    const key = `${column} ${direction}`;
    let order = this.orders.get(key);
    if (!order) {
      order = this.keyed([...this.summaries.keys()], column, direction);
      this.orders.set(key, order);
    }
    return order;
  }

  private keyed(ids: string[], column: string, direction: Direction) {
    const key = clusterSortKey(column);
    const keyed = ids.map(id => {
      const r = this.summaries.get(id)!;
      return { r, k: key(r), id };
    });
    return keyed.sort(compareClusterKeys(direction));
  }
}

/** Two sorted lists as one. */
function merge<T>(a: T[], b: T[], compare: (x: T, y: T) => number): T[] {
  if (!b.length) return a;
  const out: T[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length)
    out[k++] = compare(a[i], b[j]) <= 0 ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
