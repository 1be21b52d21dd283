/*
 * A health digest's partial recoveries (src/notify/healthEpisodes.ts): how many of its clusters its notification last
 * said are no longer unhealthy, so that a check tells each new count once, whichever replica runs it.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('capz_health_digests', table => {
    table
      .integer('recovered')
      .notNullable()
      .defaultTo(0)
      .comment(
        'How many of its clusters its notification last said are no longer unhealthy (0: none told yet)',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('capz_health_digests', table => {
    table.dropColumn('recovered');
  });
};
