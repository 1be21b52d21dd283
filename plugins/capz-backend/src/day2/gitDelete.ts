/**
 * A cluster delete through Git, for a cluster a Flux Kustomization applies (docs/flux-facts.md#git-delete). CAPI's
 * book asks to delete the Cluster object alone and let CAPI delete the rest in its order; Flux's prune deletes every
 * object that leaves the files at once, infrastructure first and the Cluster last. So the change removes the
 * Cluster's manifest only, and marks the cluster's other manifests `kustomize.toolkit.fluxcd.io/reconcile: disabled`:
 * Flux then neither applies them again (once CAPI has deleted them) nor prunes them.
 */
import { createHash } from 'node:crypto';
import {
  appliedBy,
  describeAppliedBy,
  objectsDeletedWithCluster,
  type Day2GitChange,
  type Day2Plan,
  type DeletePreview,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import {
  gitView,
  type Day2GitOps,
  type ProposableGitChange,
} from './gitChange';

/** The annotation that makes kustomize-controller skip an object: neither applied nor pruned (docs/flux-facts.md#flux-annotations). */
export const FLUX_RECONCILE_ANNOTATION =
  'kustomize.toolkit.fluxcd.io/reconcile';
const RECONCILE_PATH = `metadata.annotations["${FLUX_RECONCILE_ANNOTATION}"]`;

/**
 * The delete as the changes of a plan (for gitChangeFor): the Cluster deleted, every other object deleted with it
 * that a Flux Kustomization applies marked reconcile-disabled. Undefined when no Flux Kustomization applies the
 * Cluster (the delete is not a Git change).
 */
export function gitDeletePlan(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): Pick<Day2Plan, 'changes' | 'appliedBy'> | undefined {
  const flux = objectsDeletedWithCluster(cluster, objects)
    .map(o => ({ o, a: appliedBy(o, { deleting: true }) }))
    .filter(x => x.a?.tool === 'flux-kustomization' && x.a.reconciles);
  if (!flux.some(x => x.o === cluster)) return undefined;
  const ref = (o: ObservedObject) => ({
    apiVersion: o.apiVersion ?? '',
    kind: o.kind ?? '',
    namespace: o.metadata?.namespace ?? '',
    name: o.metadata?.name ?? '',
  });
  return {
    changes: flux.map(({ o }) =>
      o === cluster
        ? { ...ref(o), operation: 'delete' as const, fields: [] }
        : {
            ...ref(o),
            operation: 'update' as const,
            fields: [
              {
                path: RECONCILE_PATH,
                before: o.metadata?.annotations?.[FLUX_RECONCILE_ANNOTATION],
                after: 'disabled',
              },
            ],
          },
    ),
    appliedBy: flux.map(({ o, a }) => ({
      ...ref(o),
      appliedBy: describeAppliedBy(a!),
      blocks: true,
    })),
  };
}

/** A cluster delete as a Git change: what the preview shows, and the change a confirm proposes (with its digest). */
export interface GitDelete {
  view: Day2GitChange;
  change?: ProposableGitChange;
  /** The digest a confirm carries back: the cluster, the commit the change is made from, and its files. */
  planDigest?: string;
}

/** The cluster delete through Git, or undefined when no Flux Kustomization applies the Cluster. */
export async function gitDeleteFor(o: {
  gitOps: Day2GitOps;
  managementCluster: string;
  cluster: ObservedObject;
  objects: readonly ObservedObject[];
}): Promise<GitDelete | undefined> {
  const plan = gitDeletePlan(o.cluster, o.objects);
  if (!plan) return undefined;
  const change = await o.gitOps.changeFor(o.managementCluster, plan);
  if (!change) return undefined;
  const { view, change: proposable } = gitView(plan, change);
  const name = `${o.cluster.metadata?.namespace}/${o.cluster.metadata?.name}`;
  if (proposable && !proposable.source.prune) {
    const k = proposable.source.kustomization;
    return {
      view: {
        ...view,
        proposable: false,
        reason: `The delete cannot be proposed to Git: Kustomization ${k.namespace}/${k.name} has prune: false, so Flux would keep the Cluster when its manifest goes (docs/flux-facts.md#flux-prune). Set prune: true on it, or remove the cluster from Git and take it out of Flux's hands by hand.`,
      },
    };
  }
  if (!proposable) return { view };
  const planDigest = createHash('sha256')
    .update(
      JSON.stringify([
        'delete',
        o.cluster.metadata?.uid,
        proposable.source.commit,
        proposable.files.map(f => [f.path, f.after]),
      ]),
    )
    .digest('hex');
  return {
    view: {
      ...view,
      notes: [
        ...view.notes,
        `After the merge, Flux deletes the Cluster ${name} (prune) and CAPI deletes the rest of the cluster in its order; the cluster's other manifests stay in Git marked ${FLUX_RECONCILE_ANNOTATION}: disabled, so Flux neither applies nor deletes them. Remove them once the cluster is gone.`,
      ],
    },
    change: proposable,
    planDigest,
  };
}

/** The pull request's description: what Azure deletes and keeps (the delete preview's), and what Flux does. */
export function gitDeleteBody(o: {
  preview: DeletePreview;
  change: ProposableGitChange;
  notes: string[];
  actor?: string;
}): string {
  const c = o.preview.cluster;
  const src = o.change.source;
  const list = (items: DeletePreview['deletes']) =>
    items.length
      ? items.map(
          i =>
            `- ${i.azureName} (${i.azureType}, ${i.object.kind} ${i.object.namespace}/${i.object.name}): ${i.reason}`,
        )
      : ['- nothing'];
  return [
    `Proposed from Backstage${
      o.actor ? ` by ${o.actor}` : ''
    }: delete cluster ${c.namespace}/${c.name} on management cluster ${
      c.managementCluster
    }.`,
    `Made from ${src.revision}, the revision Kustomization ${src.kustomization.namespace}/${src.kustomization.name} applied.`,
    '',
    'Deleted in Azure once merged:',
    ...list(o.preview.deletes),
    '',
    'Kept in Azure:',
    ...list(o.preview.keeps),
    ...(o.notes.length ? ['', ...o.notes.map(n => `Note: ${n}`)] : []),
  ].join('\n');
}
