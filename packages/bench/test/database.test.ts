import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  databaseInWords,
  databaseLines,
  usePostgres,
} from '../src/database.ts';

/** The `backend.database` block a backend's config gets, parsed as Backstage reads it. */
const block = () =>
  parse(['backend:', ...databaseLines()].join('\n')).backend.database;

describe('the backends database', () => {
  it('is in-memory SQLite until --postgres, then PostgreSQL with databases of its own per backend start', () => {
    assert.deepEqual(block(), {
      client: 'better-sqlite3',
      connection: ':memory:',
    });
    assert.equal(databaseInWords(), 'in-memory SQLite');

    usePostgres('postgresql://postgres:secret@127.0.0.1:5499');
    const first = block();
    const second = block();
    const runPrefix = `capz_bench_${process.pid}_`;
    assert.deepEqual(first, {
      client: 'pg',
      connection: 'postgresql://postgres:secret@127.0.0.1:5499',
      prefix: `${runPrefix}0_`,
    });
    assert.equal(second.prefix, `${runPrefix}1_`);
    // The report names the server and the databases, never the password.
    assert.equal(
      databaseInWords(),
      `PostgreSQL (127.0.0.1:5499, databases ${runPrefix}*)`,
    );
  });
});
