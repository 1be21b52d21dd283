/*
 * A health digest's first severity (src/notify/healthEpisodes.ts): its partial updates say the severity of its
 * clusters still unhealthy, and this one when a check cannot know theirs (a management cluster's cache not synced).
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.alterTable('capz_health_digests', table => {
    table
      .string('severity', 16)
      .notNullable()
      .defaultTo('normal')
      .comment(
        'The severity it was told at (high: one of its clusters failed; normal for a digest told before this column)',
      );
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('capz_health_digests', table => {
    table.dropColumn('severity');
  });
};
