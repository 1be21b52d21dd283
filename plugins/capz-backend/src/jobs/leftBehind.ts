import {
  RECONCILE_POLICY_ANNOTATION as RECONCILE_POLICY,
  type Job,
  type ObjectRef,
  type StepPlan,
} from '@capz-backstage/plugin-capz-common';

/** What each finished step leaves on the cluster, in the words a platform engineer needs when a job stops there. */
const CONSEQUENCES: Record<string, (job: Job) => string> = {
  pause: () =>
    'The old Cluster is paused (spec.paused=true): CAPZ and CAPI do not reconcile it, the AKS cluster keeps running.',
  disarm: () =>
    'The old ASO objects are disarmed (reconcile-policy skip): deleting them can no longer delete anything in Azure. ' +
    'ASO puts its finalizer back on them, which is harmless under skip (it only drops it on delete).',
  'create-namespace': job =>
    `The target namespace ${
      (job.params as { targetNamespace?: string }).targetNamespace
    } exists.`,
  'copy-credential-secret': () =>
    'The ASO credential Secret was copied into the target namespace (no owner references).',
  'adopt-resource-group': job =>
    `An ASO ResourceGroup pointing at the existing resource group exists in ${targetNs(
      job,
    )}.`,
  'adopt-managed-cluster': job =>
    `An adopted ManagedCluster and the Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane CAPZ made for it exist in ${targetNs(
      job,
    )}: ` + 'CAPZ now manages the AKS cluster through them.',
  'adopt-agent-pools': job =>
    `Adopted agent pools with their MachinePools exist in ${targetNs(job)}.`,
  'suspend-gitops': () =>
    'The Flux Kustomization that applies the cluster is suspended by the job.',
  'delete-old': () =>
    'The old CAPI/CAPZ objects were (partly) deleted with their finalizers removed; Azure is unaffected.',
  'update-references': () => 'The Cluster references point at v1beta1.',
  'rewrite-managed-fields': () =>
    'The objects no longer record v1alpha1 writers.',
  'propose-to-git': job => {
    const p = job.result?.gitProposal;
    if (!p) return 'The repository already held the new manifests.';
    return `The new manifests are proposed to ${p.url} on branch ${p.branch}${
      p.pullRequest
        ? ` (pull request #${p.pullRequest.number}, ${p.pullRequest.url})`
        : ''
    }.`;
  },
  'wait-merge': () =>
    "Flux's source holds the merged manifests of the new cluster.",
  'resume-gitops': () =>
    'The Kustomization is resumed and Flux has applied the merge.',
  'wait-flux-apply': () => 'Flux has applied the merge.',
};

/** A Kustomization the job suspended and did not resume: what it means, and when it is safe to resume it. */
function suspendedKustomization(
  job: Job & { plan?: StepPlan[] },
  done: string[],
): string | undefined {
  const resumed = job.result?.gitopsResumed;
  if (resumed)
    return `Flux's Kustomization ${
      resumed.kustomization
    }, which this job had suspended, ${
      resumed.found
        ? 'was found running when the job was cancelled (resumed by an earlier attempt of the cancel, or by someone else)'
        : 'was resumed when it was cancelled'
    }: ${
      resumed.why === 'merged'
        ? 'the repository already held the merged change, so Flux applies the new manifests.'
        : "none of the job's own steps had started, so Flux applies the old manifests to the old objects as before."
    }`;
  if (!done.includes('suspend-gitops') || done.includes('resume-gitops'))
    return undefined;
  const step = job.plan?.find(s => s.id === 'suspend-gitops');
  const k = step?.actions[0];
  if (!k || k.action !== 'merge-patch') return undefined;
  const name = `${k.ref.name} -n ${k.ref.namespace}`;
  const resume = `\`flux resume kustomization ${name}\``;
  if (!done.includes('delete-old'))
    return `Flux's Kustomization ${k.ref.namespace}/${k.ref.name} is suspended by this job: Flux applies nothing from it, for this cluster or any other it applies. The old objects are all still there, so once the old Cluster is back as it was (see below) resuming it (${resume}) is safe: Flux applies the old manifests to the old objects.`;
  return `Flux's Kustomization ${k.ref.namespace}/${k.ref.name} is suspended by this job and must stay so until the repository holds the new manifests: resumed now, Flux would re-create the old cluster's objects the job deleted (two managers of one AKS cluster). Resume this job, which proposes the change, waits for its merge and resumes the Kustomization; or make the change in Git yourself, merge it, and only then run ${resume}.`;
}

/**
 * The steps that create ASO objects able to change or delete Azure resources: from their start, words must warn. A
 * migration's new ResourceGroup keeps the old one's policy, which may be manage; an adoption's is always skip.
 */
const MANAGING_STEPS: Record<string, string[]> = {
  migrate: [
    'adopt-resource-group',
    'adopt-managed-cluster',
    'adopt-agent-pools',
  ],
  adopt: ['adopt-managed-cluster', 'adopt-agent-pools'],
};

function targetNs(job: Job): string {
  const p = job.params as { targetNamespace?: string; namespace?: string };
  return p.targetNamespace ?? p.namespace ?? job.target.namespace;
}

const resourceOf = (r: ObjectRef) =>
  `${r.kind.toLowerCase()}.${r.apiVersion.split('/')[0]}/${r.name}`;

/** The ASO objects the job's plan creates (ResourceGroup, ManagedCluster, agent pools), in plan order. */
function createdAsoObjects(plan: StepPlan[] | undefined): ObjectRef[] {
  return (plan ?? []).flatMap(s =>
    s.actions.flatMap(a =>
      a.action === 'create' &&
      a.ref.apiVersion.split('/')[0].endsWith('.azure.com')
        ? [a.ref]
        : [],
    ),
  );
}

/**
 * The exact commands that make the job's new ASO objects harmless before anyone deletes them: under skip ASO never
 * deletes in Azure (generic_reconciler.go delete: AllowsDelete() is false for skip), and the check shows each policy.
 */
function makeSafeCommands(objects: ObjectRef[]): string {
  const ns = objects[0]?.namespace ?? '';
  const args = objects.map(resourceOf).join(' ');
  return (
    `\`kubectl annotate --overwrite -n ${ns} ${args} ${RECONCILE_POLICY}=skip\` (kubectl says NotFound for those the job had not created yet: ` +
    'fine), then check that every row says skip: ' +
    `\`kubectl get -n ${ns} ${args} -o custom-columns=NAME:.metadata.name,POLICY:.metadata.annotations.serviceoperator\\.azure\\.com/reconcile-policy\``
  );
}

const started = (s: Job['steps'][number] | undefined) =>
  !!s && (s.state !== 'pending' || s.attempts > 0);

/**
 * What a cancelled or failed job left behind and what is safe now, in words that are safe to follow literally: from
 * the moment a step that creates Azure-managing objects has started, the first thing said is how to make those
 * objects safe (or to resume), because deleting them as they are would delete the AKS cluster in Azure.
 */
export function describeLeftBehind(job: Job & { plan?: StepPlan[] }): string {
  const step = (id: string) => job.steps.find(s => s.id === id);
  const done = job.steps.filter(s => s.state === 'succeeded').map(s => s.id);
  const partial = job.steps.find(
    s =>
      s.state === 'running' ||
      s.state === 'failed' ||
      (s.state === 'pending' && s.attempts > 0),
  );
  if (!done.length && !partial) return 'Nothing was changed on the cluster.';
  const lines = done.map(
    id => CONSEQUENCES[id]?.(job) ?? `Step ${id} finished.`,
  );
  if (partial)
    lines.push(
      `Step "${partial.title}" was started and may be partly done; its actions are idempotent, so resuming repeats it safely.`,
    );

  const managing = (MANAGING_STEPS[job.type] ?? []).some(id =>
    started(step(id)),
  );
  const aso = createdAsoObjects(job.plan);
  const ns = targetNs(job);
  if (job.type === 'migrate' && !done.includes('delete-old')) {
    if (managing) {
      const old = `${job.target.namespace}/${job.target.name}`;
      lines.unshift(
        `DANGER: ASO objects in ${ns} may already manage the same AKS cluster as the old ones, and deleting them as they are ` +
          `(or the new Cluster, or namespace ${ns}) deletes the AKS cluster in Azure. Safe ways on: resume this job, which finishes the ` +
          `migration; or, to go back to the old cluster, first make the new objects safe: ${makeSafeCommands(
            aso,
          )}; then delete namespace ${ns}, ` +
          `and only once it is gone unpause the old Cluster ${old}. Do NOT unpause the old Cluster while the new objects exist: two controllers would reconcile one AKS cluster.`,
      );
    } else if (started(step('pause'))) {
      lines.push(
        `Nothing manages the AKS cluster from ${ns}. To return to where you started, unpause the old Cluster ` +
          `(\`kubectl patch cluster ${job.target.name} -n ${job.target.namespace} --type merge -p '{"spec":{"paused":false}}'\`): ` +
          "CAPZ then restores the old ASO objects' own reconcile policies from their pre-pause annotation. " +
          `Namespace ${ns} and the copied Secret in it (if any) hold no ASO object and can be deleted.`,
      );
    }
  } else if (job.type === 'adopt' && managing) {
    const cluster = job.target.name;
    lines.unshift(
      `DANGER: ASO objects in ${ns} may already manage the AKS cluster (reconcile-policy manage): deleting them as they are, the Cluster CAPZ ` +
        `made for them, or namespace ${ns} deletes the AKS cluster in Azure. Safe ways on: resume this job, which finishes the adoption; or, ` +
        `to undo it, first make the objects safe: ${makeSafeCommands(
          aso,
        )}; then, if there is one, delete the Cluster CAPZ made for them and wait ` +
        `until it is gone (\`kubectl delete cluster -n ${ns} ${cluster} --ignore-not-found --wait=true\`): it must go first, because CAPZ recreates ` +
        `deleted ASO objects from its own copies, without the skip annotation; only then delete what is left of them ` +
        `(\`kubectl delete -n ${ns} ${aso
          .map(resourceOf)
          .join(' ')} --ignore-not-found\`).`,
    );
  }
  const suspended = suspendedKustomization(job, done);
  if (suspended) lines.unshift(suspended);
  lines.push('No Azure resource was deleted by this job.');
  return lines.join(' ');
}
