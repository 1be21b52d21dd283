/**
 * The preflight of the v1alpha1 to v1beta1 upgrade (see ./index.ts): whether there is anything to upgrade and
 * whether it can be, and what still says v1alpha1 (what the steps and the manifests to change are built from).
 * Pure: no I/O.
 */
import { kinds } from '../../kinds';
import { detectClusterApi } from '../../tree/summary';
import type { ObservedObject } from '../../objects/types';
import {
  accessCheck,
  accessFor,
  CAPZ,
  fail,
  gitOpsCheck,
  isRecord,
  nameOf,
  pass,
  clusterIn,
} from '../helpers';
import type {
  AccessAnswer,
  AccessRequirement,
  PreflightCheck,
  UpgradeApiVersionJobParams,
} from '../types';
import type { UpgradeFindings } from './steps';
import {
  ASO_MANAGED_KINDS,
  entriesOf,
  isAlphaRef,
  LAST_APPLIED,
  V1ALPHA1,
  V1BETA1,
  writtenAtAlpha,
} from './versions';
import { CLUSTER_NAME_LABEL } from '../../vocabulary';

/**
 * The title of the check of what still uses v1alpha1. It names what is checked, not what is hoped for: a failed
 * preflight reads "<title>: <message>", and "Nothing to upgrade: ... already use v1beta1" must not follow a title
 * saying the cluster is on v1alpha1.
 */
const API_CHECK = 'The AzureASOManaged API version the cluster uses';

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

/** What the preflight of the upgrade found. */
export interface UpgradePreflight {
  /** Every check, the access check last. */
  checks: PreflightCheck[];
  /** What still says v1alpha1; absent when there is nothing to plan (no cluster, a legacy one, nothing to upgrade). */
  planned?: UpgradeFindings;
}

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

/** The preflight checks of the upgrade, and what still says v1alpha1 when a plan can be built. */
export function upgradePreflight(
  params: UpgradeApiVersionJobParams,
  snap: UpgradeSnapshot,
): UpgradePreflight {
  const ns = params.namespace;
  const preflight: PreflightCheck[] = [];
  const done = (planned?: UpgradeFindings): UpgradePreflight => ({
    checks: [
      ...preflight,
      accessCheck(requiredUpgradeAccess(params), snap.access),
    ],
    ...(planned ? { planned } : {}),
  });

  const cluster = clusterIn(snap, params.name);
  if (!cluster) {
    preflight.push(
      fail(
        'cluster',
        'The cluster exists',
        `There is no Cluster ${ns}/${params.name}.`,
        'Check the namespace and name.',
      ),
    );
    return done();
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
        API_CHECK,
        `Cluster ${params.name} uses the legacy AzureManagedControlPlane API.`,
        'Migrate it to AzureASOManagedControlPlane instead.',
      ),
    );
    return done();
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
        API_CHECK,
        `Nothing to upgrade: Cluster ${params.name} and its AzureASOManaged objects already use ${V1BETA1}.`,
        'Nothing to do.',
      ),
    );
    return done();
  }
  preflight.push(
    pass(
      'api',
      API_CHECK,
      `Cluster ${params.name} still uses ${V1ALPHA1} somewhere (references, field managers or applied manifests).`,
    ),
  );

  preflight.push(
    gitOpsCheck(`cluster ${ns}/${params.name}`, [
      cluster,
      ...capz,
      ...snap.objects.filter(
        o =>
          o.kind === 'MachinePool' &&
          (o.spec?.clusterName === params.name ||
            o.metadata?.labels?.[CLUSTER_NAME_LABEL] === params.name),
      ),
    ]),
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
        'Upgrade CAPZ first (clusterctl upgrade; docs/migration-procedure.md#upgrade-step-1), then retry.',
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
  return done({
    cluster,
    clusterAtV1beta1: v1b1,
    staleClusterRefs,
    stalePools,
    capz,
    rewrite,
    lastApplied,
  });
}
