import type { Job, StepPlan } from '@internal/plugin-capz-common';

/** What each finished step leaves on the cluster, in the words a platform engineer needs when a job stops there. */
const CONSEQUENCES: Record<string, (job: Job) => string> = {
  pause: () =>
    'The old Cluster is paused (spec.paused=true): CAPZ and CAPI do not reconcile it, the AKS cluster keeps running. ' +
    'Unpausing it (spec.paused=false) returns it to normal.',
  disarm: () =>
    'The old ASO objects are disarmed (reconcile-policy skip, no finalizers): deleting them can no longer delete anything ' +
    'in Azure, and ASO does not reconcile them.',
  'create-namespace': job => `The target namespace ${(job.params as { targetNamespace?: string }).targetNamespace} exists.`,
  'copy-credential-secret': () => 'The ASO credential Secret was copied into the target namespace (no owner references).',
  'adopt-resource-group': job => `An ASO ResourceGroup pointing at the existing resource group exists in ${targetNs(job)}.`,
  'adopt-managed-cluster': job =>
    `An adopted ManagedCluster and the Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane CAPZ made for it exist in ${targetNs(job)}: ` +
    'CAPZ now manages the AKS cluster through them.',
  'adopt-agent-pools': job => `Adopted agent pools with their MachinePools exist in ${targetNs(job)}.`,
  'delete-old': () => 'The old CAPI/CAPZ objects were (partly) deleted with their finalizers removed; Azure is unaffected.',
  'update-references': () => 'The Cluster references point at v1beta1.',
  'rewrite-managed-fields': () => 'The objects no longer record v1alpha1 writers.',
};

function targetNs(job: Job): string {
  const p = job.params as { targetNamespace?: string; namespace?: string };
  return p.targetNamespace ?? p.namespace ?? job.target.namespace;
}

/**
 * What a cancelled or failed job left behind and what is safe now. Built from the steps that finished; the
 * warning about two owners comes first because it is the dangerous case (ground truth 2: adoption reuses objects).
 */
export function describeLeftBehind(job: Job & { plan?: StepPlan[] }): string {
  const done = job.steps.filter(s => s.state === 'succeeded').map(s => s.id);
  const partial = job.steps.find(s => s.state === 'running' || s.state === 'failed' || (s.state === 'pending' && s.attempts > 0));
  if (!done.length && !partial) return 'Nothing was changed on the cluster.';
  const lines = done.map(id => CONSEQUENCES[id]?.(job) ?? `Step ${id} finished.`);
  if (partial) lines.push(`Step "${partial.title}" was started and may be partly done; its actions are idempotent, so resuming repeats it safely.`);
  if (job.type === 'migrate' && done.includes('adopt-managed-cluster') && !done.includes('delete-old')) {
    lines.unshift(
      'Both the old (paused, disarmed) and the new objects describe the same AKS cluster. Do NOT unpause the old Cluster: ' +
        'two controllers would reconcile one AKS cluster. Finish by running the migration again (it resumes) or remove the new namespace\'s objects first.',
    );
  } else if (job.type === 'migrate' && done.includes('pause') && !done.includes('adopt-resource-group')) {
    lines.push('Nothing new was created; to return to where you started, unpause the old Cluster.');
  }
  lines.push('No Azure resource was deleted by this job.');
  return lines.join(' ');
}
