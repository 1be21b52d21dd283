/**
 * The benchmark backends' database: in-memory SQLite by default, or with `--postgres <connection string>` PostgreSQL,
 * as a production deployment runs (Backstage's SQLite is for development). Each backend start gets databases of its
 * own (Backstage names them `<prefix><plugin id>`, one per plugin), so no start sees an earlier one's catalog; the
 * run drops them at its end.
 */
import { createRequire } from 'node:module';
import { log } from './util.ts';

/** What this module asks of node-postgres (`pg`, which ships no types). */
interface PgClient {
  connect(): Promise<void>;
  query(
    sql: string,
    values?: unknown[],
  ): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)('pg') as {
  Client: new (options: { connectionString: string }) => PgClient;
};

let postgres: { url: string; runPrefix: string; starts: number } | undefined;

/** From now on, backends are configured with PostgreSQL at `url` (a role that may create databases). */
export function usePostgres(url: string): void {
  postgres = { url, runPrefix: `capz_bench_${process.pid}_`, starts: 0 };
}

/** What the backends' config says under `backend.database` (indented for it), a fresh prefix per call on PostgreSQL. */
export function databaseLines(): string[] {
  if (!postgres)
    return [
      '  database:',
      '    client: better-sqlite3',
      "    connection: ':memory:'",
    ];
  const prefix = `${postgres.runPrefix}${postgres.starts++}_`;
  return [
    '  database:',
    '    client: pg',
    `    connection: ${JSON.stringify(postgres.url)}`,
    `    prefix: ${prefix}`,
  ];
}

/** The database the backends use, in words, for the report. */
export function databaseInWords(): string {
  return postgres
    ? `PostgreSQL (${new URL(postgres.url).host}, databases ${
        postgres.runPrefix
      }*)`
    : 'in-memory SQLite';
}

/** Drops the databases this run's backends made (call once they have stopped). */
export async function dropBenchDatabases(): Promise<void> {
  if (!postgres) return;
  const client = new Client({ connectionString: postgres.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [postgres.runPrefix],
    );
    for (const { datname } of rows)
      await client.query(
        `DROP DATABASE IF EXISTS "${String(datname)}" WITH (FORCE)`,
      );
    log(
      `dropped the run's ${rows.length} PostgreSQL databases (${postgres.runPrefix}*)`,
    );
  } finally {
    await client.end();
  }
}
