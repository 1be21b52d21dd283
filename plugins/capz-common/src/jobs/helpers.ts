/**
 * Building blocks the planners share: object references and names, planned conditions with their words, the access
 * check, preflight results, reconcile policies and the adoption steps' waits. Internal to the jobs folder except
 * for what index.ts re-exports ({@link describeRef}).
 */
import { apiVersionOf, CAPZ_GROUP, kinds, type KindName } from '../kinds';
import { clusterAppliedBy, describeAppliedBy } from '../objects/appliedBy';
import type { ObservedObject } from '../objects/types';
import {
  CLUSTER_NAME_LABEL,
  JOB_ANNOTATION,
  PRE_PAUSE_RECONCILE_POLICY_ANNOTATION,
  RECONCILE_POLICY_ANNOTATION,
} from '../vocabulary';
import {
  JOB_ID_PLACEHOLDER,
  type AccessAnswer,
  type AccessRequirement,
  type AzureClusterKey,
  type ObjectRef,
  type PlannedAction,
  type PlannedCondition,
  type PreflightCheck,
  type StepPlan,
} from './types';

export const CAPZ = CAPZ_GROUP;

export const ref = (
  kind: KindName,
  namespace: string,
  name: string,
): ObjectRef => ({
  apiVersion: apiVersionOf(kinds[kind]),
  kind: kinds[kind].kind,
  namespace,
  name,
});

/** A reference to an observed object at the version it was read (the ASO kinds: whatever the cache holds). */
export const refTo = (
  o: ObservedObject,
  fallback: KindName,
  namespace?: string,
): ObjectRef => ({
  apiVersion: o.apiVersion ?? apiVersionOf(kinds[fallback]),
  kind: o.kind ?? kinds[fallback].kind,
  namespace: namespace ?? o.metadata?.namespace,
  name: o.metadata?.name ?? '',
});

export const secretRef = (namespace: string, name: string): ObjectRef => ({
  apiVersion: 'v1',
  kind: 'Secret',
  namespace,
  name,
});
/** `ManagedCluster team-x/foo`, as kubectl would say it. @public */
export function describeRef(
  r: Pick<ObjectRef, 'kind' | 'namespace' | 'name'>,
): string {
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

/** Planned conditions, each with the words the plan shows. */
export const when = {
  exists: (
    r: ObjectRef,
    description = `${describeRef(r)} exists`,
  ): PlannedCondition => ({ type: 'exists', ref: r, description }),
  absent: (
    r: ObjectRef,
    description = `${describeRef(r)} is gone`,
  ): PlannedCondition => ({ type: 'absent', ref: r, description }),
  /** What a create leaves behind: a resumed step must accept its own object (a crash between create and record). */
  absentOrOurs: (
    r: ObjectRef,
    description = `${describeRef(
      r,
    )} does not exist yet, or was created by this job`,
  ): PlannedCondition => ({
    type: 'absent-or-ours',
    ref: r,
    description,
  }),
  ready: (
    r: ObjectRef,
    description = `${describeRef(r)} is Ready`,
  ): PlannedCondition => ({ type: 'ready', ref: r, description }),
  condition: (
    r: ObjectRef,
    condition: string,
    status: 'True' | 'False' = 'True',
  ): PlannedCondition => ({
    type: 'condition',
    ref: r,
    condition,
    status,
    description: `${describeRef(r)} has ${condition}=${status}`,
  }),
  annotation: (
    r: ObjectRef,
    annotation: string,
    value: string | null,
    orAbsent?: boolean,
  ): PlannedCondition => ({
    type: 'annotation',
    ref: r,
    annotation,
    value,
    ...(orAbsent ? { orAbsent } : {}),
    description:
      (value === null
        ? `${describeRef(r)} has no ${annotation} annotation`
        : `${describeRef(r)} has ${annotation}=${value}`) +
      (orAbsent ? ' (or is gone)' : ''),
  }),
  label: (
    r: ObjectRef,
    label: string,
    value: string | null,
  ): PlannedCondition => ({
    type: 'label',
    ref: r,
    label,
    value,
    description:
      value === null
        ? `${describeRef(r)} has no ${label} label`
        : `${describeRef(r)} is labelled ${label}=${value}`,
  }),
  field: (
    r: ObjectRef,
    path: string[],
    value: unknown,
    description: string,
    orAbsent?: boolean,
  ): PlannedCondition => ({
    type: 'field',
    ref: r,
    path,
    value,
    ...(orAbsent !== undefined ? { orAbsent } : {}),
    description,
  }),
  noFinalizers: (r: ObjectRef, orAbsent?: boolean): PlannedCondition => ({
    type: 'no-finalizers',
    ref: r,
    ...(orAbsent ? { orAbsent } : {}),
    description: `${describeRef(r)} has no finalizers${
      orAbsent ? ' (or is gone)' : ''
    }`,
  }),
  controlledBy: (
    r: ObjectRef,
    ownerKind: string,
    ownerName: string,
  ): PlannedCondition => ({
    type: 'controlled-by',
    ref: r,
    ownerKind,
    ownerName,
    description: `${describeRef(r)} is controlled by ${ownerKind} ${ownerName}`,
  }),
  notWrittenAt: (r: ObjectRef, apiVersion: string): PlannedCondition => ({
    type: 'not-written-at',
    ref: r,
    apiVersion,
    description: `no field manager of ${describeRef(
      r,
    )} writes it at ${apiVersion} any more`,
  }),
};

/** An `AccessRequirement` list for one namespace: verbs per resource. */
export function accessFor(
  namespace: string | undefined,
  group: string,
  resource: string,
  verbs: Array<[verb: string, why: string]>,
): AccessRequirement[] {
  return verbs.map(([verb, why]) => ({
    verb,
    group,
    resource,
    ...(namespace !== undefined ? { namespace } : {}),
    why,
  }));
}

const accessKey = (a: {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
}) => `${a.verb} ${a.group}/${a.resource} ${a.namespace ?? ''}`;

/** `create managedclusters.containerservice.azure.com in team-x-aso` */
export function describeAccess(a: {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
}): string {
  return `${a.verb} ${a.resource}${a.group ? `.${a.group}` : ''}${
    a.namespace ? ` in ${a.namespace}` : ' (cluster-wide)'
  }`;
}

/** The preflight check that every required permission was answered `allowed`; an unanswered one counts as missing. */
export function accessCheck(
  required: AccessRequirement[],
  answers: readonly AccessAnswer[],
): PreflightCheck {
  const allowed = new Set(answers.filter(a => a.allowed).map(accessKey));
  const missing = required.filter(r => !allowed.has(accessKey(r)));
  if (!missing.length) {
    return {
      id: 'access',
      title: 'The backend may do every step',
      status: 'pass',
      message: `All ${required.length} permissions are granted.`,
    };
  }
  return {
    id: 'access',
    title: 'The backend may do every step',
    status: 'fail',
    message: `The backend's identity lacks ${
      missing.length
    } permission(s): ${missing
      .map(m => `${describeAccess(m)} (for ${m.why})`)
      .join('; ')}.`,
    fix: "Apply plugins/capz-backend/rbac/jobs.yaml (ClusterRole capz-backstage-jobs) on the management cluster and bind it to the backend's identity.",
  };
}

export const pass = (
  id: string,
  title: string,
  message: string,
): PreflightCheck => ({ id, title, status: 'pass', message });
export const fail = (
  id: string,
  title: string,
  message: string,
  fix: string,
): PreflightCheck => ({ id, title, status: 'fail', message, fix });
export const warn = (
  id: string,
  title: string,
  message: string,
  fix?: string,
): PreflightCheck => ({
  id,
  title,
  status: 'warn',
  message,
  ...(fix ? { fix } : {}),
});

/** A deep copy of plain JSON. */
export const clone = <T>(v: T): T =>
  v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object's name; `''` when it has none (or there is no object). */
export const nameOf = (o: ObservedObject | undefined): string =>
  o?.metadata?.name ?? '';

/** The name Azure knows an ASO object by: its `spec.azureName`, else its own name. */
/** The job's Cluster: the one the snapshot was read for, else the one of that name among its objects. */
export const clusterIn = (
  snap: { cluster?: ObservedObject; objects: ObservedObject[] },
  name: string,
): ObservedObject | undefined =>
  snap.cluster ??
  snap.objects.find(o => o.kind === 'Cluster' && nameOf(o) === name);

export const azureNameOf = (o: ObservedObject): string =>
  typeof o.spec?.azureName === 'string' && o.spec.azureName
    ? o.spec.azureName
    : nameOf(o);

/** The group of an apiVersion (`''` for core). */
export const groupOfApiVersion = (apiVersion: string | undefined): string =>
  apiVersion && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';

/** ASO's reconcile policies (v2/pkg/common/annotations/reconcile_policy.go); anything else means `manage`. */
export type ReconcilePolicy = 'manage' | 'skip' | 'detach-on-delete';

/**
 * The reconcile policy an ASO object had before any job or pause touched it: the legacy controllers save it in
 * {@link PRE_PAUSE_RECONCILE_POLICY_ANNOTATION} when the Cluster is paused and restore it on unpause (docs/capz-aso-facts.md#legacy-pause);
 * otherwise the object's own annotation; ASO's default is `manage` (docs/capz-aso-facts.md#reconcile-policy).
 */
export function policyBeforeJob(o: ObservedObject): ReconcilePolicy {
  const a = o.metadata?.annotations ?? {};
  const v =
    a[PRE_PAUSE_RECONCILE_POLICY_ANNOTATION] ?? a[RECONCILE_POLICY_ANNOTATION];
  return v === 'skip' || v === 'detach-on-delete' ? v : 'manage';
}

/** The annotation that gives a new object `policy`: none for `manage` (ASO's default, as CAPZ writes it). */
export const policyAnnotation = (
  policy: ReconcilePolicy,
): Record<string, string> =>
  policy === 'manage' ? {} : { [RECONCILE_POLICY_ANNOTATION]: policy };

/** A new ASO object on `skip`, and the CAPZ object whose `spec.resources` must say so too. */
export interface PolicyPin {
  /** The CAPZ object (AzureASOManagedCluster, ...ControlPlane, ...MachinePool) that embeds the ASO object. */
  owner: ObjectRef;
  /** The live ASO object. */
  aso: ObjectRef;
}

/**
 * The step that pins `skip` into the CAPZ objects' `spec.resources`. CAPZ's adoption controllers embed only the ASO
 * objects' name and spec, annotations dropped (docs/capz-aso-facts.md#adopt-managed-cluster), and CAPZ re-applies
 * spec.resources whenever it (re)creates an object: a ResourceGroup deleted and recreated by CAPZ would come back
 * on `manage` and take the group with it when the cluster is deleted. `skip` is the one policy CAPZ accepts there
 * (docs/capz-aso-facts.md#aso-managed-pause: any other is a terminal Incompatible error on pause).
 */
export function pinPoliciesStep(pins: PolicyPin[]): StepPlan {
  return {
    id: 'pin-reconcile-policies',
    title: "Keep the reconcile policies in CAPZ's objects",
    description:
      'Sets serviceoperator.azure.com/reconcile-policy: skip on the embedded copies in spec.resources of the ASO objects on skip, because the adoption controllers drop annotations when they embed them and CAPZ would recreate them on manage (docs/capz-aso-facts.md#aso-managed-metadata, docs/capz-aso-facts.md#adopt-managed-cluster).',
    preconditions: [],
    actions: pins.map(
      (p): PlannedAction => ({
        action: 'set-embedded-annotation',
        ref: p.owner,
        resource: { kind: p.aso.kind, name: p.aso.name },
        annotation: RECONCILE_POLICY_ANNOTATION,
        value: 'skip',
        description: `Set ${RECONCILE_POLICY_ANNOTATION}: skip on ${
          p.aso.kind
        } ${p.aso.name} in ${describeRef(p.owner)} spec.resources`,
      }),
    ),
    waitFor: pins.map(p =>
      when.annotation(p.aso, RECONCILE_POLICY_ANNOTATION, 'skip'),
    ),
    timeoutSeconds: 120,
  };
}

/** One owner per AKS cluster, checked live right before a job's first write (see the `sole-manager` condition). */
export function soleManager(
  azure: AzureClusterKey,
  except: ObjectRef[],
): PlannedCondition {
  return {
    type: 'sole-manager',
    azure,
    except,
    description: `no ASO object on any management cluster${
      except.length ? ` (besides ${except.map(describeRef).join(', ')})` : ''
    } manages AKS cluster ${azure.resourceGroup}/${
      azure.name
    } or deletes its resource group`,
  };
}

export const jobAnnotations = (
  extra: Record<string, string> = {},
): Record<string, string> => ({
  ...extra,
  [JOB_ANNOTATION]: JOB_ID_PLACEHOLDER,
});

/**
 * What the adopt-managed-cluster step waits for, in adoption and migration alike
 * (docs/capz-aso-facts.md#adopt-managed-cluster, docs/capz-aso-facts.md#adopt-agent-pool): the ManagedCluster Ready,
 * CAPZ's Cluster, AzureASOManagedCluster and AzureASOManagedControlPlane made, that control plane owning the
 * ManagedCluster and labelled by CAPI (what the agent-pool adoption then requires,
 * docs/capz-aso-facts.md#adopt-agent-pool).
 */
export function managedClusterAdopted(
  mc: ObjectRef,
  namespace: string,
  name: string,
): PlannedCondition[] {
  const cp = ref('AzureASOManagedControlPlane', namespace, name);
  return [
    when.ready(mc),
    when.exists(ref('Cluster', namespace, name)),
    when.exists(ref('AzureASOManagedCluster', namespace, name)),
    when.exists(cp),
    when.controlledBy(mc, 'AzureASOManagedControlPlane', name),
    when.label(cp, CLUSTER_NAME_LABEL, name),
  ];
}

/** What the adopt-agent-pools step waits for, per pool object name (docs/capz-aso-facts.md#adopt-agent-pool). */
export function agentPoolAdopted(
  namespace: string,
  poolObjectName: string,
): PlannedCondition[] {
  const amp = ref('AzureASOManagedMachinePool', namespace, poolObjectName);
  return [
    when.exists(ref('MachinePool', namespace, poolObjectName)),
    when.exists(amp),
    when.field(amp, ['status', 'ready'], true, `${describeRef(amp)} is ready`),
  ];
}

/**
 * Whether a GitOps controller applies any of a cluster's objects (docs/flux-facts.md#applied-by-rule): a job that
 * moves, re-creates or rewrites them fights that controller, which puts its objects back at its next run (a
 * migration undone, two managers of one AKS cluster). A fail naming the applier; a warning for a plain Helm release.
 */
export function gitOpsCheck(
  what: string,
  objects: ReadonlyArray<ObservedObject | undefined>,
): PreflightCheck {
  const title = 'No GitOps controller applies the cluster';
  const found = clusterAppliedBy(
    objects.filter((o): o is ObservedObject => !!o),
  );
  if (!found)
    return pass(
      'gitops',
      title,
      `No object of ${what} carries Flux's, Argo CD's or Helm's marks.`,
    );
  const o = found.object;
  const who = describeAppliedBy(found.appliedBy);
  const which = `${o.kind} ${o.metadata?.namespace ?? ''}/${nameOf(o)}`;
  if (!found.appliedBy.reconciles)
    return warn(
      'gitops',
      title,
      `${who} installed ${which} of ${what}: nothing puts the job's changes back, but the next helm upgrade or rollback of the release may.`,
      "Change the release's chart or values to match what the job leaves, or take the objects out of the release.",
    );
  return fail(
    'gitops',
    title,
    `${who} applies ${which} of ${what}: the job's writes would be put back, and what it deletes created again, at its next run (two managers of one AKS cluster).`,
    `Take the cluster's objects out of ${who} first (remove them from Git with pruning off, so that the controller leaves them in place: docs/flux-facts.md#flux-prune), then retry; put what the job leaves in Git afterwards.`,
  );
}
