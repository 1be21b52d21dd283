import { storeDatabases } from '../testing/storeDatabases';
import { inSlices, inTransactions } from './batches';

describe('inSlices', () => {
  it('runs the slices in order and lets a timer queued meanwhile run between two', async () => {
    const events: string[] = [];
    await inSlices([1, 2, 3, 4, 5], 2, async slice => {
      events.push(slice.join(','));
      if (slice[0] === 1) setImmediate(() => events.push('other work'));
    });
    expect(events).toEqual(['1,2', 'other work', '3,4', '5']);
  });
});

const databases = storeDatabases();

describe.each(databases.eachSupportedId())('inTransactions on %p', id => {
  it('writes size items to a transaction, returns those kept in order, and hands each transaction its kept items after its commit', async () => {
    const db = await databases.init(id);
    await db.schema.createTable('batches_test', t => t.integer('n'));
    const kept: number[][] = [];
    const all = await inTransactions(
      db,
      [1, 2, 3, 4, 5],
      2,
      async (trx, n) => {
        await trx('batches_test').insert({ n });
        return n % 2 === 1;
      },
      async slice => {
        // Committed: seen outside the transaction.
        const rows = await db('batches_test').count({ c: '*' });
        kept.push([...slice, Number(rows[0].c)]);
      },
    );
    expect(all).toEqual([1, 3, 5]);
    expect(kept).toEqual([
      [1, 2],
      [3, 4],
      [5, 5],
    ]);
  });

  it('rolls back the transaction whose write fails (its rows too), keeping the ones committed before', async () => {
    const db = await databases.init(id);
    await db.schema.createTable('batches_test', t => t.integer('n'));
    await expect(
      inTransactions(db, [1, 2, 3], 2, async (trx, n) => {
        await trx('batches_test').insert({ n });
        if (n === 3) throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(
      (await db('batches_test').select('n').orderBy('n')).map(r => r.n),
    ).toEqual([1, 2]);
  });
});
