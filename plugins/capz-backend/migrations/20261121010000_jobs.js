/*
 * Adoption and migration jobs (docs/architecture.md#flow-jobs): durable rows run step by step by whichever backend
 * replica holds a job's lease. Times are epoch milliseconds (bigint) so that SQLite and PostgreSQL compare them the
 * same way.
 */

// @ts-check

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_jobs', table => {
    table.comment('Adoption, migration and apiVersion-upgrade jobs');
    table.string('id', 36).primary();
    table.string('type', 32).notNullable();
    table.string('management_cluster', 253).notNullable();
    table.string('namespace', 253).notNullable();
    table.string('name', 253).notNullable();
    table
      .string('active_key', 800)
      .nullable()
      .unique()
      .comment(
        'management cluster/namespace/name while the job is not final: one active job per cluster',
      );
    table
      .text('params')
      .notNullable()
      .comment('The request params as JSON (never secret values)');
    table
      .text('plan')
      .notNullable()
      .comment('The StepPlan[] as JSON: exactly what runs');
    table.text('steps').notNullable().comment('JobStepStatus[] as JSON');
    table.text('result').nullable();
    table.string('created_by', 255).notNullable();
    table.string('state', 16).notNullable();
    table
      .string('requested', 16)
      .nullable()
      .comment('pause or cancel, asked by a user, honoured at a step boundary');
    table.string('current_step', 64).nullable();
    table.text('error').nullable();
    table.text('left_behind').nullable();
    table
      .string('lease_owner', 64)
      .nullable()
      .comment('The replica running the job');
    table.bigInteger('lease_expires_at').nullable();
    table.bigInteger('created_at').notNullable();
    table.bigInteger('updated_at').notNullable();
    table.bigInteger('finished_at').nullable();
    table.index(
      ['management_cluster', 'namespace', 'name'],
      'capz_jobs_target_idx',
    );
    table.index(['state'], 'capz_jobs_state_idx');
  });
  await knex.schema.createTable('capz_job_log', table => {
    table.comment('What each job did, line by line');
    table.bigIncrements('id').primary();
    table
      .string('job_id', 36)
      .notNullable()
      .references('id')
      .inTable('capz_jobs')
      .onDelete('CASCADE');
    table.bigInteger('at').notNullable();
    table.string('level', 8).notNullable();
    table.string('step', 64).nullable();
    table.text('message').notNullable();
    table.index(['job_id', 'id'], 'capz_job_log_job_idx');
  });
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_job_log');
  await knex.schema.dropTable('capz_jobs');
};
