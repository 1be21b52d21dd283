/**
 * Long scans in small steps: a scan over 10,000 clusters writes its rows a few dozen at a time, one transaction each,
 * and lets the event loop serve the page views and pushes between two (docs/scale.md#end-of-support-notices-at-scale).
 */
import type { Knex } from 'knex';

/** Lets the event loop serve what waits (page views, pushes) between two batches of a long scan. */
export const yieldToEventLoop = () =>
  new Promise<void>(resolve => setImmediate(resolve));

/** Runs `fn` over `items` in slices of `size`, one after the other, yielding the event loop between two. */
export async function inSlices<T>(
  items: readonly T[],
  size: number,
  fn: (slice: readonly T[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await yieldToEventLoop();
    await fn(items.slice(i, i + size));
  }
}

/**
 * Runs `write` on each item, `size` items to a transaction (on SQLite a statement outside one is its own commit), the
 * event loop yielded between two. Returns the items `write` said true for (a row it claimed or deleted), in order;
 * `afterEach`, when given, gets those of each transaction once it has committed (to tell them before the next).
 */
export async function inTransactions<T>(
  db: Knex,
  items: readonly T[],
  size: number,
  write: (trx: Knex.Transaction, item: T) => Promise<boolean | void>,
  afterEach?: (kept: readonly T[]) => Promise<void>,
): Promise<T[]> {
  const all: T[] = [];
  await inSlices(items, size, async slice => {
    const kept: T[] = [];
    await db.transaction(async trx => {
      for (const item of slice) if (await write(trx, item)) kept.push(item);
    });
    all.push(...kept);
    await afterEach?.(kept);
  });
  return all;
}
