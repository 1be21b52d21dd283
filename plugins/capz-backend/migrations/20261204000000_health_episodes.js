/*
 * The owners' notifications of unhealthy clusters (src/notify/healthEpisodes.ts): one row per cluster while it is
 * unhealthy, so that an episode is told once (whichever replica runs the check, across restarts) and its end is told
 * in the same notification.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_health_episodes', table => {
    table.comment(
      'CAPI Clusters seen unhealthy, and whether their owners were told',
    );
    table.string('management_cluster', 253).notNullable();
    table.string('cluster_uid', 64).notNullable();
    table.string('namespace', 253).notNullable();
    table.string('name', 253).notNullable();
    table
      .timestamp('started_at', { useTz: true })
      .notNullable()
      .comment('When a check first saw the cluster unhealthy');
    table
      .timestamp('notified_at', { useTz: true })
      .nullable()
      .comment('When its owners were told (null: not yet)');
    table.primary(['management_cluster', 'cluster_uid']);
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_health_episodes');
};
