/**
 * The steps of the v1alpha1 to v1beta1 upgrade (see ./index.ts), and the manifests kept elsewhere that they cannot
 * change. Pure: no I/O.
 */
import type { ObservedObject } from '../../objects/types';
import { describeRef, nameOf, when } from '../helpers';
import type {
  ManifestToChange,
  ObjectRef,
  PlannedAction,
  PlannedCondition,
  StepPlan,
  UpgradeApiVersionJobParams,
} from '../types';
import {
  CAPI_V1BETA1,
  CHANGE,
  entriesOf,
  LAST_APPLIED,
  V1ALPHA1,
  V1BETA1,
  writtenAtAlpha,
} from './versions';

/** What the preflight found that still says v1alpha1: what the steps and the manifests to change are built from. */
export interface UpgradeFindings {
  /** The Cluster, read at cluster.x-k8s.io/v1beta2. */
  cluster: ObservedObject;
  /** The Cluster read at cluster.x-k8s.io/v1beta1, when served. */
  clusterAtV1beta1?: ObservedObject;
  /** The Cluster's references that still say v1alpha1. */
  staleClusterRefs: Array<'infrastructureRef' | 'controlPlaneRef'>;
  /** The MachinePools whose infrastructureRef still says v1alpha1. */
  stalePools: ObservedObject[];
  /** The cluster's AzureASOManaged* objects. */
  capz: ObservedObject[];
  /** Those with a field manager that wrote them at v1alpha1. */
  rewrite: ObservedObject[];
  /** Those last applied by kubectl at v1alpha1. */
  lastApplied: ObservedObject[];
}

/** The steps of the upgrade: only those with something to change, `update-references` then `rewrite-managed-fields`. */
export function upgradeSteps(
  params: UpgradeApiVersionJobParams,
  { staleClusterRefs, stalePools, rewrite }: UpgradeFindings,
): StepPlan[] {
  const ns = params.namespace;
  const plan: StepPlan[] = [];
  if (staleClusterRefs.length || stalePools.length)
    plan.push(referencesStep(params, staleClusterRefs, stalePools));
  if (rewrite.length) plan.push(managedFieldsStep(ns, rewrite));
  return plan;
}

/** The manifests kept elsewhere (kubectl, GitOps) that still say v1alpha1: one per object and manager. */
export function manifestsToChange(
  ns: string,
  { cluster, clusterAtV1beta1: v1b1, capz, lastApplied }: UpgradeFindings,
): ManifestToChange[] {
  const manifests: ManifestToChange[] = [];
  const seen = new Set<string>();
  const add = (o: ObservedObject, manager: string, change: string) => {
    const key = `${o.kind}/${nameOf(o)}/${manager}`;
    if (seen.has(key)) return;
    seen.add(key);
    manifests.push({
      kind: o.kind ?? '',
      namespace: ns,
      name: nameOf(o),
      manager,
      change,
    });
  };
  for (const o of capz)
    for (const e of entriesOf(o).filter(writtenAtAlpha))
      add(
        o,
        typeof e.manager === 'string' ? e.manager : '(unnamed manager)',
        CHANGE,
      );
  for (const o of lastApplied) add(o, 'kubectl-client-side-apply', CHANGE);
  const clusterLastApplied =
    cluster.metadata?.annotations?.[LAST_APPLIED] ??
    v1b1?.metadata?.annotations?.[LAST_APPLIED];
  if (clusterLastApplied?.includes(V1ALPHA1)) {
    add(
      cluster,
      'kubectl-client-side-apply',
      `spec.infrastructureRef / spec.controlPlaneRef ${CHANGE}`,
    );
  }
  return manifests;
}

function referencesStep(
  params: UpgradeApiVersionJobParams,
  clusterRefs: Array<'infrastructureRef' | 'controlPlaneRef'>,
  pools: ObservedObject[],
): StepPlan {
  const ns = params.namespace;
  const clusterRef: ObjectRef = {
    apiVersion: CAPI_V1BETA1,
    kind: 'Cluster',
    namespace: ns,
    name: params.name,
  };
  const actions: PlannedAction[] = [];
  const waitFor: PlannedCondition[] = [];
  if (clusterRefs.length) {
    actions.push({
      action: 'merge-patch',
      ref: clusterRef,
      patch: {
        spec: Object.fromEntries(
          clusterRefs.map(k => [k, { apiVersion: V1BETA1 }]),
        ),
      },
      description: `Set ${clusterRefs
        .map(k => `spec.${k}.apiVersion`)
        .join(' and ')} of Cluster ${params.name} to ${V1BETA1}`,
    });
    for (const k of clusterRefs)
      waitFor.push(
        when.field(
          clusterRef,
          ['spec', k, 'apiVersion'],
          V1BETA1,
          `${describeRef(clusterRef)} spec.${k} says ${V1BETA1}`,
        ),
      );
  }
  for (const mp of pools) {
    const r: ObjectRef = {
      apiVersion: CAPI_V1BETA1,
      kind: 'MachinePool',
      namespace: ns,
      name: nameOf(mp),
    };
    actions.push({
      action: 'merge-patch',
      ref: r,
      patch: {
        spec: {
          template: { spec: { infrastructureRef: { apiVersion: V1BETA1 } } },
        },
      },
      description: `Set spec.template.spec.infrastructureRef.apiVersion of MachinePool ${nameOf(
        mp,
      )} to ${V1BETA1}`,
    });
    waitFor.push(
      when.field(
        r,
        ['spec', 'template', 'spec', 'infrastructureRef', 'apiVersion'],
        V1BETA1,
        `${describeRef(r)} infrastructureRef says ${V1BETA1}`,
      ),
    );
  }
  return {
    id: 'update-references',
    title: 'Update the references',
    description: `Points the CAPI objects' references at ${V1BETA1} (docs/migration-procedure.md#upgrade-step-3), written at ${CAPI_V1BETA1}, the CAPI version whose references carry an apiVersion.`,
    preconditions: [],
    actions,
    waitFor,
    timeoutSeconds: 120,
  };
}

function managedFieldsStep(ns: string, objects: ObservedObject[]): StepPlan {
  const actions: PlannedAction[] = [];
  const waitFor: PlannedCondition[] = [];
  for (const o of objects) {
    const r: ObjectRef = {
      apiVersion: V1BETA1,
      kind: o.kind ?? '',
      namespace: ns,
      name: nameOf(o),
    };
    const entries = entriesOf(o);
    const managers = [
      ...new Set(
        entries
          .filter(writtenAtAlpha)
          .map(e => String(e.manager ?? '(unnamed manager)')),
      ),
    ];
    actions.push({
      action: 'merge-patch',
      ref: r,
      patch: {
        metadata: {
          managedFields: entries.map(e =>
            writtenAtAlpha(e) ? { ...e, apiVersion: V1BETA1 } : e,
          ),
        },
      },
      description: `Record the fields ${managers.join(', ')} own${
        managers.length === 1 ? 's' : ''
      } on ${o.kind} ${nameOf(
        o,
      )} at ${V1BETA1} instead of ${V1ALPHA1} (the full managedFields list, the other entries unchanged)`,
    });
    waitFor.push(when.notWrittenAt(r, V1ALPHA1));
  }
  return {
    id: 'rewrite-managed-fields',
    title: 'Move field ownership to v1beta1',
    description: `v1alpha1 and v1beta1 are equivalent schemas (docs/capz-aso-facts.md#aso-managed-v1beta1), so each field manager keeps the same fields; only the version they are recorded at changes, so that the objects no longer count as written at ${V1ALPHA1}.`,
    preconditions: [],
    actions,
    waitFor,
    timeoutSeconds: 120,
  };
}
