/*
 * The condition history (docs/architecture.md#flow-history): every observed condition transition and every Event about
 * a watched object, so that a cluster's timeline outlives Kubernetes' one-hour Event TTL and the single
 * lastTransitionTime a condition keeps.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_condition_transitions', table => {
    table.comment(
      'Observed changes of the conditions of watched Kubernetes objects',
    );
    table.bigIncrements('id').primary();
    table
      .string('transition_key', 64)
      .notNullable()
      .unique()
      .comment(
        'sha256 of state_key and the previous transition_key of the condition: re-observing a state is a no-op',
      );
    table
      .string('state_key', 64)
      .notNullable()
      .comment(
        'sha256 of management cluster, object uid, condition type, state and the condition own time',
      );
    table.string('management_cluster', 253).notNullable();
    table.string('namespace', 253).notNullable();
    table
      .string('cluster_name', 253)
      .nullable()
      .comment('The CAPI Cluster the object belongs to, if known');
    table.string('object_uid', 64).notNullable();
    table.string('kind', 253).notNullable();
    table.string('name', 253).notNullable();
    table.string('condition_type', 316).notNullable();
    table.string('status', 16).notNullable();
    table.string('reason', 1024).nullable();
    table.string('severity', 16).nullable();
    table.text('message').nullable();
    table.timestamp('transition_time', { useTz: true }).notNullable();
    table.timestamp('first_seen', { useTz: true }).notNullable();
    table
      .timestamp('occurred_at', { useTz: true })
      .notNullable()
      .comment(
        'Orders the timeline: first_seen for changes seen live, the condition time for states found on start',
      );
    table.index(
      ['management_cluster', 'namespace', 'cluster_name', 'occurred_at'],
      'capz_condition_transitions_cluster_time_idx',
    );
    table.index(
      ['object_uid', 'condition_type'],
      'capz_condition_transitions_object_idx',
    );
    table.index(['occurred_at'], 'capz_condition_transitions_time_idx');
  });

  await knex.schema.createTable('capz_events', table => {
    table.comment(
      'Kubernetes Events about watched objects (matched by involvedObject.uid)',
    );
    table.bigIncrements('id').primary();
    table.string('event_uid', 64).notNullable().unique();
    table.string('management_cluster', 253).notNullable();
    table.string('namespace', 253).notNullable();
    table.string('cluster_name', 253).nullable();
    table.string('involved_uid', 64).notNullable();
    table.string('involved_kind', 253).notNullable();
    table.string('involved_name', 253).notNullable();
    table.string('type', 64).notNullable();
    table.string('reason', 1024).nullable();
    table.text('message').nullable();
    table.integer('count').notNullable().defaultTo(1);
    table.timestamp('first_timestamp', { useTz: true }).notNullable();
    table.timestamp('last_timestamp', { useTz: true }).notNullable();
    table.string('source', 253).nullable();
    table.index(
      ['management_cluster', 'namespace', 'cluster_name', 'last_timestamp'],
      'capz_events_cluster_time_idx',
    );
    table.index(['last_timestamp'], 'capz_events_time_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_events');
  await knex.schema.dropTable('capz_condition_transitions');
};
