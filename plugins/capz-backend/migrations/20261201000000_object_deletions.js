/*
 * The condition history's record of watched objects going away (docs/architecture.md#flow-history): the timeline
 * ends a deleted object's lanes when it went, and leaves it out of the state held at a later range's start.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_object_deletions', table => {
    table.comment(
      'Watched Kubernetes objects seen deleted (their watch delete)',
    );
    table.bigIncrements('id').primary();
    table.string('management_cluster', 253).notNullable();
    table.string('namespace', 253).notNullable();
    table
      .string('cluster_name', 253)
      .nullable()
      .comment('The CAPI Cluster the object belonged to, if known');
    table.string('object_uid', 64).notNullable();
    table.string('kind', 253).notNullable();
    table.string('name', 253).notNullable();
    table.timestamp('deleted_at', { useTz: true }).notNullable();
    // A uid is deleted once; another replica (or a replayed watch) seeing the same delete is a no-op.
    table.unique(['management_cluster', 'object_uid'], {
      indexName: 'capz_object_deletions_object_uq',
    });
    table.index(
      ['management_cluster', 'namespace', 'cluster_name', 'deleted_at'],
      'capz_object_deletions_cluster_time_idx',
    );
    table.index(['deleted_at'], 'capz_object_deletions_time_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_object_deletions');
};
