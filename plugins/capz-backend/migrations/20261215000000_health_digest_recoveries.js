/*
 * A health digest's partial recoveries (src/notify/healthEpisodes.ts): how many of its clusters its notification last
 * said are no longer unhealthy and when, so that a check tells each new count once, whichever replica runs it, and
 * at most every 15 minutes.
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
    table
      .timestamp('updated_at', { useTz: true })
      .nullable()
      .comment(
        'When its notification was last updated with a partial recovery (told at most every 15 minutes)',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('capz_health_digests', table => {
    table.dropColumn('recovered');
    table.dropColumn('updated_at');
  });
};
