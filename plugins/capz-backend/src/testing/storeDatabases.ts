/**
 * The databases the stores' tests run on: SQLite, and the PostgreSQL of the test run (scripts/test.sh starts a
 * throw-away server and names it in `BACKSTAGE_TEST_DATABASE_POSTGRES<major>_CONNECTION_STRING`).
 */
// Test-only: Backstage's test databases.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { TestDatabaseId, TestDatabases } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';

/** The PostgreSQL of the test run: its major version from that variable, Debian 12's 15 otherwise. */
export const postgresId = (Object.keys(process.env)
  .map(k =>
    /^BACKSTAGE_TEST_DATABASE_(POSTGRES)(\d+)_CONNECTION_STRING$/.exec(k),
  )
  .filter((m): m is RegExpExecArray => !!m)
  .map(m => `${m[1]}_${m[2]}`)[0] ?? 'POSTGRES_15') as TestDatabaseId;

/** SQLite and the run's PostgreSQL; call it at a test file's top level (it registers the hooks that stop them). */
export const storeDatabases = () =>
  TestDatabases.create({ ids: ['SQLITE_3', postgresId] });

/** A database of `databases` with the plugin's migrations run (the schema the stores and notices work on). */
export async function migratedDatabase(
  databases: TestDatabases,
  id: TestDatabaseId,
) {
  const knex = await databases.init(id);
  await knex.migrate.latest({
    directory: resolvePackagePath(
      '@capz-backstage/plugin-capz-backend',
      'migrations',
    ),
  });
  return knex;
}
