/*
 * The health episodes of a mass outage told as one notification per owner (src/notify/healthEpisodes.ts): the digest
 * an episode was told in, and the digest itself, whose notification is updated in place once its last cluster is no
 * longer unhealthy.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_health_digests', table => {
    table.comment(
      'Owners told of several unhealthy clusters in one notification, until each has recovered or is deleted',
    );
    table
      .string('scope', 128)
      .notNullable()
      .primary()
      .comment("The notification's scope (its in-place update has the same)");
    table
      .string('owner', 253)
      .notNullable()
      .comment('The entity ref the digest was addressed to');
    table.integer('size').notNullable().comment('How many clusters it named');
    table.timestamp('told_at', { useTz: true }).notNullable();
  });
  await knex.schema.alterTable('capz_health_episodes', table => {
    table
      .string('digest_scope', 128)
      .nullable()
      .comment('The digest the episode was told in (null: told on its own)');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.alterTable('capz_health_episodes', table => {
    table.dropColumn('digest_scope');
  });
  await knex.schema.dropTable('capz_health_digests');
};
