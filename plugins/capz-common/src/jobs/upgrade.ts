/**
 * The v1alpha1 to v1beta1 upgrade of an AzureASOManaged cluster (seed 001 "Migrating from v1alpha1 to v1beta1"):
 * the CRDs are already upgraded (clusterctl upgrade), so what remains is what still says v1alpha1:
 * - the CAPI objects' references (read at cluster.x-k8s.io/v1beta1, where refs carry an apiVersion): patched;
 * - the field managers that wrote the CAPZ objects at v1alpha1 (`metadata.managedFields`): the entries are moved
 *   to v1beta1. The two versions have the same schema ("v1alpha1 and v1beta1 are equivalent", seed 001), so the
 *   fields each manager owns do not change, only the version they are recorded at;
 * - the manifests kept elsewhere (kubectl, GitOps): listed for the user to change (`result.manifestsToChange`).
 * Pure: no I/O.
 */
import { kinds } from '../kinds';
import { detectClusterApi } from '../tree/summary';
import type { ObservedObject } from '../tree/types';
import {
  accessCheck,
  accessFor,
  CAPZ,
  CLUSTER_NAME_LABEL,
  describeRef,
  fail,
  isRecord,
  pass,
  when,
  type AccessAnswer,
  type AccessRequirement,
} from './common';
import type { JobPlanResult } from './migration';
import type {
  ManifestToChange,
  ObjectRef,
  PlannedAction,
  PlannedCondition,
  PreflightCheck,
  StepPlan,
  UpgradeApiVersionJobParams,
} from './types';

const V1ALPHA1 = `${CAPZ}/v1alpha1`;
const V1BETA1 = `${CAPZ}/v1beta1`;
const CAPI_V1BETA1 = `${kinds.Cluster.group}/v1beta1`;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const CHANGE = `apiVersion: ${V1ALPHA1} -> ${V1BETA1}`;
const ASO_MANAGED_KINDS = [
  'AzureASOManagedCluster',
  'AzureASOManagedControlPlane',
  'AzureASOManagedMachinePool',
];

/** What {@link planApiVersionUpgrade} needs to know. @public */
export interface UpgradeSnapshot {
  /** The CAPI Cluster, read at cluster.x-k8s.io/v1beta2. */
  cluster?: ObservedObject;
  /** The same Cluster read at cluster.x-k8s.io/v1beta1 where that is served: its refs carry an apiVersion. */
  clusterAtV1beta1?: ObservedObject;
  /** The cluster's MachinePools read at cluster.x-k8s.io/v1beta1, when available (their infrastructureRef). */
  machinePoolsAtV1beta1?: ObservedObject[];
  /** The namespace's objects; the AzureASOManaged* ones read whole from the API server (complete managedFields). */
  objects: ObservedObject[];
  /** The answers to {@link requiredUpgradeAccess}. */
  access: AccessAnswer[];
}

/** The permissions every step of the upgrade needs. @public */
export function requiredUpgradeAccess(
  params: UpgradeApiVersionJobParams,
): AccessRequirement[] {
  const ns = params.namespace;
  const CAPI = kinds.Cluster.group;
  return [
    ...accessFor(ns, CAPI, 'clusters', [
      ['get', 'update-references'],
      ['patch', 'update-references'],
    ]),
    ...accessFor(ns, CAPI, 'machinepools', [
      ['get', 'update-references'],
      ['patch', 'update-references'],
    ]),
    ...[
      'azureasomanagedclusters',
      'azureasomanagedcontrolplanes',
      'azureasomanagedmachinepools',
    ].flatMap(r =>
      accessFor(ns, CAPZ, r, [
        ['get', 'rewrite-managed-fields'],
        ['patch', 'rewrite-managed-fields'],
      ]),
    ),
  ];
}

const nameOf = (o: ObservedObject | undefined) => o?.metadata?.name ?? '';
const isAlphaRef = (r: unknown) => isRecord(r) && r.apiVersion === V1ALPHA1;
type Entry = Record<string, unknown>;
const entriesOf = (o: ObservedObject): Entry[] =>
  (o.metadata?.managedFields ?? []) as unknown as Entry[];
const writtenAtAlpha = (e: Entry) =>
  e.subresource !== 'status' && e.apiVersion === V1ALPHA1;

/** The cluster's AzureASOManaged* objects: its references, its MachinePools' references, and the labelled ones. */
function capzObjectsOf(
  cluster: ObservedObject,
  objects: readonly ObservedObject[],
): ObservedObject[] {
  const name = nameOf(cluster);
  const refs = [cluster.spec?.infrastructureRef, cluster.spec?.controlPlaneRef];
  for (const mp of objects) {
    if (mp.kind === 'MachinePool' && mp.spec?.clusterName === name) {
      refs.push(
        (
          mp.spec?.template as
            | { spec?: { infrastructureRef?: unknown } }
            | undefined
        )?.spec?.infrastructureRef,
      );
    }
  }
  const wanted = new Set(refs.filter(isRecord).map(r => `${r.kind}/${r.name}`));
  return objects.filter(
    o =>
      ASO_MANAGED_KINDS.includes(o.kind ?? '') &&
      (wanted.has(`${o.kind}/${nameOf(o)}`) ||
        o.metadata?.labels?.[CLUSTER_NAME_LABEL] === name),
  );
}

/** The apiVersion a `kubectl apply` last wrote, from the last-applied-configuration annotation. */
function lastAppliedApiVersion(o: ObservedObject): string | undefined {
  const raw = o.metadata?.annotations?.[LAST_APPLIED];
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as { apiVersion?: unknown };
    return typeof parsed.apiVersion === 'string'
      ? parsed.apiVersion
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The preflight and plan of the v1alpha1 to v1beta1 upgrade (see the module comment). Steps appear only when there
 * is something to change: `update-references`, then `rewrite-managed-fields`.
 * Assumes the API server accepts `metadata.managedFields` in a merge patch (it replaces the list).
 * @public
 */
export function planApiVersionUpgrade(
  params: UpgradeApiVersionJobParams,
  snap: UpgradeSnapshot,
): JobPlanResult {
  const ns = params.namespace;
  const target = {
    managementCluster: params.managementCluster,
    namespace: ns,
    name: params.name,
  };
  const preflight: PreflightCheck[] = [];
  const done = (
    plan: StepPlan[],
    manifestsToChange?: ManifestToChange[],
  ): JobPlanResult => ({
    type: 'upgrade-api-version',
    target,
    preflight: [
      ...preflight,
      accessCheck(requiredUpgradeAccess(params), snap.access),
    ],
    plan,
    ...(manifestsToChange
      ? { result: { cluster: target, manifestsToChange } }
      : {}),
  });

  const cluster =
    snap.cluster ??
    snap.objects.find(o => o.kind === 'Cluster' && nameOf(o) === params.name);
  if (!cluster) {
    preflight.push(
      fail(
        'cluster',
        'The cluster exists',
        `There is no Cluster ${ns}/${params.name}.`,
        'Check the namespace and name.',
      ),
    );
    return done([]);
  }
  preflight.push(
    pass(
      'cluster',
      'The cluster exists',
      `Cluster ${ns}/${params.name} exists.`,
    ),
  );

  const v1b1 = snap.clusterAtV1beta1;
  const staleClusterRefs = (
    ['infrastructureRef', 'controlPlaneRef'] as const
  ).filter(k => isAlphaRef(v1b1?.spec?.[k]));
  const stalePools = (snap.machinePoolsAtV1beta1 ?? []).filter(
    mp =>
      mp.spec?.clusterName === params.name &&
      isAlphaRef(
        (
          mp.spec?.template as
            | { spec?: { infrastructureRef?: unknown } }
            | undefined
        )?.spec?.infrastructureRef,
      ),
  );
  const api = detectClusterApi(cluster, snap.objects);
  const capz = capzObjectsOf(cluster, snap.objects);
  const rewrite = capz.filter(o => entriesOf(o).some(writtenAtAlpha));
  const lastApplied = capz.filter(o => lastAppliedApiVersion(o) === V1ALPHA1);
  if (api === 'azure-managed') {
    preflight.push(
      fail(
        'api',
        'The cluster is on the v1alpha1 AzureASOManaged API',
        `Cluster ${params.name} uses the legacy AzureManagedControlPlane API.`,
        'Migrate it to AzureASOManagedControlPlane instead.',
      ),
    );
    return done([]);
  }
  if (
    api !== 'aso-v1alpha1' &&
    !staleClusterRefs.length &&
    !stalePools.length &&
    !lastApplied.length
  ) {
    preflight.push(
      fail(
        'api',
        'The cluster is on the v1alpha1 AzureASOManaged API',
        `Nothing to upgrade: Cluster ${params.name} and its AzureASOManaged objects already use ${V1BETA1}.`,
        'Nothing to do.',
      ),
    );
    return done([]);
  }
  preflight.push(
    pass(
      'api',
      'The cluster is on the v1alpha1 AzureASOManaged API',
      `Cluster ${params.name} still uses ${V1ALPHA1} somewhere (references, field managers or applied manifests).`,
    ),
  );

  const readAtAlpha = capz.filter(o => o.apiVersion === V1ALPHA1);
  if (readAtAlpha.length) {
    preflight.push(
      fail(
        'v1beta1-served',
        `${V1BETA1} is served`,
        `${readAtAlpha
          .map(o => `${o.kind} ${nameOf(o)}`)
          .join(', ')} could only be read at ${V1ALPHA1}.`,
        'Upgrade CAPZ first (clusterctl upgrade; seed 001 "Migrating from v1alpha1 to v1beta1" step 1), then retry.',
      ),
    );
  }
  // Rewriting needs the entries whole: one without fieldsV1 would lose the fields its manager owns.
  const partial = rewrite.filter(o =>
    entriesOf(o).some(e => !isRecord(e.fieldsV1)),
  );
  if (partial.length) {
    preflight.push(
      fail(
        'managed-fields',
        'The field ownership is known',
        `The managedFields of ${partial
          .map(o => `${o.kind} ${nameOf(o)}`)
          .join(', ')} were read without fieldsV1.`,
        'Read the objects from the API server rather than the watch cache, then retry.',
      ),
    );
  }

  const plan: StepPlan[] = [];
  if (staleClusterRefs.length || stalePools.length)
    plan.push(referencesStep(params, staleClusterRefs, stalePools));
  if (rewrite.length) plan.push(managedFieldsStep(ns, rewrite));

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
  return done(plan, manifests);
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
    description: `Points the CAPI objects' references at ${V1BETA1} (seed 001 "Migrating from v1alpha1 to v1beta1" step 3), written at ${CAPI_V1BETA1}, the CAPI version whose references carry an apiVersion.`,
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
    description: `v1alpha1 and v1beta1 are equivalent schemas (seed 001), so each field manager keeps the same fields; only the version they are recorded at changes, so that the objects no longer count as written at ${V1ALPHA1}.`,
    preconditions: [],
    actions,
    waitFor,
    timeoutSeconds: 120,
  };
}
