/*
 * A fleet run's creator's policy decision (src/day2/fleetRuns.ts): ALLOW, or the conditions of a conditional decision,
 * as JSON. The run goes on without its user, so each write applies this decision again to the cluster as it is then
 * (its owner from the watch cache). NULL on runs created before it: their check at creation stands.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('capz_fleet_runs', table => {
    table
      .text('decision')
      .nullable()
      .comment(
        "The creator's policy decision on the run's permission, applied again before each write (JSON)",
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('capz_fleet_runs', table => {
    table.dropColumn('decision');
  });
};
