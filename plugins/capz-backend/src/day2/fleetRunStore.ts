/**
 * The fleet runs in the plugin's database (SQLite or PostgreSQL): one row per run holding capz-common's FleetRun.
 * Every write names the version it was made from, so that the scheduler's advance and a user's command never undo
 * each other: the loser reads the row again and decides again.
 */
import { NotFoundError } from '@backstage/errors';
import type {
  FleetRun,
  FleetRunRecord,
} from '@capz-backstage/plugin-capz-common';
import type { PolicyDecision } from '@backstage/plugin-permission-common';
import type { Knex } from 'knex';

const TABLE = 'capz_fleet_runs';

interface Row {
  id: string;
  created_by: string;
  created_at: string | number;
  updated_at: string | number;
  state: string;
  run: string;
  version: number | string;
  decision?: string | null;
}

/**
 * A run as stored: the record the routes answer, the version its next write must name, and its creator's policy
 * decision on the run's permission (absent on runs created before it was kept).
 */
export type StoredFleetRun = FleetRunRecord & {
  version: number;
  decision?: PolicyDecision;
};

const ACTIVE: ReadonlyArray<FleetRun['state']> = [
  'running',
  'paused',
  'stopping',
];

const toRun = (r: Row): StoredFleetRun => ({
  id: r.id,
  createdBy: r.created_by,
  createdAt: new Date(Number(r.created_at)).toISOString(),
  updatedAt: new Date(Number(r.updated_at)).toISOString(),
  version: Number(r.version),
  run: JSON.parse(r.run) as FleetRun,
  ...(r.decision ? { decision: JSON.parse(r.decision) as PolicyDecision } : {}),
});

export class FleetRunStore {
  constructor(private readonly db: Knex) {}

  async insert(
    id: string,
    createdBy: string,
    run: FleetRun,
    now = Date.now(),
    decision?: PolicyDecision,
  ): Promise<StoredFleetRun> {
    await this.db<Row>(TABLE).insert({
      id,
      created_by: createdBy,
      created_at: now,
      updated_at: now,
      state: run.state,
      run: JSON.stringify(run),
      version: 1,
      decision: decision ? JSON.stringify(decision) : null,
    });
    return this.get(id);
  }

  async get(id: string): Promise<StoredFleetRun> {
    const row = await this.db<Row>(TABLE).where({ id }).first();
    if (!row) throw new NotFoundError(`No fleet run ${id}`);
    return toRun(row);
  }

  /** The newest runs first. */
  async list(limit = 100): Promise<StoredFleetRun[]> {
    const rows = await this.db<Row>(TABLE)
      .orderBy('created_at', 'desc')
      .limit(limit);
    return rows.map(toRun);
  }

  /** The runs the scheduler advances (not ended). */
  async active(): Promise<StoredFleetRun[]> {
    const rows = await this.db<Row>(TABLE).whereIn('state', ACTIVE);
    return rows.map(toRun);
  }

  /** Writes `run` over the row if it is still at `version`; false when someone wrote it since. */
  async save(
    id: string,
    version: number,
    run: FleetRun,
    now = Date.now(),
  ): Promise<boolean> {
    const changed = await this.db<Row>(TABLE)
      .where({ id, version })
      .update({
        run: JSON.stringify(run),
        state: run.state,
        updated_at: now,
        version: version + 1,
      });
    return changed === 1;
  }
}
