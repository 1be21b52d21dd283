/*
 * The owners' notifications of a Kubernetes version leaving AKS support (src/notify/endOfSupport.ts): one row per
 * (cluster, minor version, support status, its last day) once it is due, so that each is told once (whichever replica
 * runs the scan, across restarts), and a cluster that reaches the next stage is told again.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_end_of_support_notices', table => {
    table.comment(
      'CAPI Clusters whose Kubernetes version leaves AKS support, and whether their owners were told',
    );
    table.string('management_cluster', 253).notNullable();
    table.string('cluster_uid', 64).notNullable();
    table.string('minor', 16).notNullable().comment('The minor version: 1.33');
    table
      .string('status', 32)
      .notNullable()
      .comment('community, lts, platform or out-of-support');
    table
      .string('until_day', 10)
      .notNullable()
      .comment('The last day of that status, YYYY-MM-DD (empty: not dated)');
    table.string('namespace', 253).notNullable();
    table.string('name', 253).notNullable();
    table
      .timestamp('due_at', { useTz: true })
      .notNullable()
      .comment('When a scan first found it to tell');
    table
      .timestamp('notified_at', { useTz: true })
      .nullable()
      .comment('When its owners were told (null: not yet)');
    table.primary([
      'management_cluster',
      'cluster_uid',
      'minor',
      'status',
      'until_day',
    ]);
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_end_of_support_notices');
};
