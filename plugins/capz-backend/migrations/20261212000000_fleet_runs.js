/*
 * Fleet runs (src/day2/fleetRuns.ts): one row per run, its whole state as capz-common's FleetRun (JSON), advanced by
 * one replica at a time (the scheduler's global task) and changed by users' commands; `version` orders the writes of
 * both (a write that read an older version writes nothing and is made again from the new row).
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_fleet_runs', table => {
    table.comment('Fleet upgrades run in stages across clusters');
    table.string('id', 36).primary();
    table.string('created_by', 255).notNullable();
    table.bigInteger('created_at').notNullable().comment('ms since the epoch');
    table.bigInteger('updated_at').notNullable().comment('ms since the epoch');
    table
      .string('state', 16)
      .notNullable()
      .comment(
        'The run state, copied out of `run` for the scan of active runs',
      );
    table.text('run').notNullable().comment("capz-common's FleetRun as JSON");
    table
      .integer('version')
      .notNullable()
      .comment(
        'Moves with every write: a write made from an older row is refused',
      );
    table.index(['state'], 'capz_fleet_runs_state_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_fleet_runs');
};
