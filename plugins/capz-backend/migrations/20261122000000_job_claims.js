/*
 * One owner per AKS cluster: an adoption or migration holds an exclusive claim on each Azure resource it
 * will manage (the AKS cluster and its resource group, by subscription, group and name, lower-cased as Azure compares
 * them) for as long as the job is not final. The primary key makes the database decide between two jobs on any
 * namespaces, on any replicas. Rows are inserted with the job and deleted with its move to succeeded or cancelled.
 */

// @ts-check

const FINAL = ['succeeded', 'cancelled'];

/**
 * The keys of an Azure cluster (kept equal to azureClaimKeys in src/jobs/claims.ts).
 * @param {{subscriptionId: string, resourceGroup: string, name: string}} a
 */
const keysOf = a => {
  const sub = a.subscriptionId.toLowerCase();
  const rg = a.resourceGroup.toLowerCase();
  return [`aks:${sub}/${rg}/${a.name.toLowerCase()}`, `rg:${sub}/${rg}`];
};

/**
 * Where an unfinished job written before this migration points in Azure: adoption's params, or the Azure cluster a
 * migration's plan checks for (its `azure-cluster-exists` or `sole-manager` conditions).
 * @param {{type: string, params: string, plan: string}} row
 */
function azureOf(row) {
  const params = JSON.parse(row.params);
  if (row.type === 'adopt') {
    return {
      subscriptionId: params.subscriptionId,
      resourceGroup: params.resourceGroup,
      name: params.clusterName,
    };
  }
  if (row.type !== 'migrate') return undefined;
  for (const step of JSON.parse(row.plan)) {
    for (const c of [...(step.preconditions ?? []), ...(step.waitFor ?? [])]) {
      if (c.type === 'sole-manager') return c.azure;
      if (c.type === 'azure-cluster-exists')
        return {
          subscriptionId: c.subscriptionId,
          resourceGroup: c.resourceGroup,
          name: c.name,
        };
    }
  }
  return undefined;
}

/**
 * @param {import('knex').Knex} knex
 */
exports.up = async function up(knex) {
  await knex.schema.createTable('capz_job_claims', table => {
    table.comment(
      'Exclusive claims of unfinished adoption and migration jobs on the Azure resources they will manage',
    );
    table
      .string('claim_key', 800)
      .primary()
      .comment(
        'aks:<subscription>/<resource group>/<cluster> or rg:<subscription>/<resource group>, lower-cased',
      );
    table
      .string('job_id', 36)
      .notNullable()
      .references('id')
      .inTable('capz_jobs')
      .onDelete('CASCADE');
    table.bigInteger('created_at').notNullable();
    table.index(['job_id'], 'capz_job_claims_job_idx');
  });
  // Unfinished jobs of before get their claims, oldest first; a later job on the same Azure cluster (the double owner
  // this table prevents from now on) gets none and keeps running as it did.
  const rows = await knex('capz_jobs')
    .select('id', 'type', 'params', 'plan', 'created_at')
    .whereIn('type', ['adopt', 'migrate'])
    .whereNotIn('state', FINAL)
    .orderBy('created_at', 'asc');
  const now = Date.now();
  for (const row of rows) {
    const azure = azureOf(row);
    if (!azure?.subscriptionId || !azure.resourceGroup || !azure.name) continue;
    for (const key of keysOf(azure)) {
      await knex('capz_job_claims')
        .insert({ claim_key: key, job_id: row.id, created_at: now })
        .onConflict('claim_key')
        .ignore();
    }
  }
};

/**
 * @param {import('knex').Knex} knex
 */
exports.down = async function down(knex) {
  await knex.schema.dropTable('capz_job_claims');
};
