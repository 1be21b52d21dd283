/**
 * One owner per AKS cluster: the Azure resources an adoption or a migration will manage, as the keys of
 * its exclusive claims in the database (JobStore, table capz_job_claims). Azure compares names case-insensitively,
 * so the keys are lower-cased. Upgrade jobs take no claim: they manage nothing new.
 */
import {
  RESOURCE_ID_ANNOTATION,
  type AzureClusterKey,
  type JobRequest,
  type ObservedObject,
  type PlannedCondition,
  type StepPlan,
} from '@capz-backstage/plugin-capz-common';
import type { WatchCache } from '../cluster/WatchCache';
import { parseArmId } from '../azure/mapping';

/** `aks:<sub>/<rg>/<name>` and `rg:<sub>/<rg>`, lower-cased (kept equal to the migration 20261122000000_job_claims). */
export function azureClaimKeys(a: AzureClusterKey): string[] {
  const sub = a.subscriptionId.toLowerCase();
  const rg = a.resourceGroup.toLowerCase();
  return [`aks:${sub}/${rg}/${a.name.toLowerCase()}`, `rg:${sub}/${rg}`];
}

/** A claim key in words: `AKS cluster <sub>/<rg>/<name>` or `resource group <sub>/<rg>`. */
export function describeClaimKey(key: string): string {
  if (key.startsWith('aks:')) return `AKS cluster ${key.slice(4)}`;
  if (key.startsWith('rg:')) return `resource group ${key.slice(3)}`;
  return key;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const azureNameOf = (o: ObservedObject) =>
  str(o.spec?.azureName) ?? o.metadata?.name ?? '';

/**
 * The AKS cluster a migration will adopt, from the old objects in the watch cache, as planMigration finds them: the
 * ManagedCluster the AzureManagedControlPlane controls (its azureName), the ResourceGroup its owner names (its
 * azureName), the subscription of the control plane (else the ManagedCluster's ARM id). Undefined when not found.
 */
export function migrationAzureKey(
  objects: ObservedObject[],
  clusterName: string,
): AzureClusterKey | undefined {
  const cluster = objects.find(
    o => o.kind === 'Cluster' && o.metadata?.name === clusterName,
  );
  const cpName = str(
    (cluster?.spec?.controlPlaneRef as { name?: unknown } | undefined)?.name,
  );
  if (!cpName) return undefined;
  const amcp = objects.find(
    o => o.kind === 'AzureManagedControlPlane' && o.metadata?.name === cpName,
  );
  const mc = objects.find(
    o =>
      o.kind === 'ManagedCluster' &&
      (o.metadata?.ownerReferences ?? []).some(
        r => r.kind === 'AzureManagedControlPlane' && r.name === cpName,
      ),
  );
  if (!mc) return undefined;
  const rgName = str((mc.spec?.owner as { name?: unknown } | undefined)?.name);
  const rg = rgName
    ? objects.find(
        o => o.kind === 'ResourceGroup' && o.metadata?.name === rgName,
      )
    : undefined;
  const armId = parseArmId(
    mc.metadata?.annotations?.[RESOURCE_ID_ANNOTATION] ?? str(mc.status?.id),
  );
  const subscriptionId =
    str(amcp?.spec?.subscriptionID) ?? armId?.subscriptionId;
  const resourceGroup = rg ? azureNameOf(rg) : armId?.resourceGroup;
  if (!subscriptionId || !resourceGroup) return undefined;
  return { subscriptionId, resourceGroup, name: azureNameOf(mc) };
}

const MIGRATION_KINDS = [
  'Cluster',
  'AzureManagedControlPlane',
  'ManagedCluster',
  'ResourceGroup',
];

/**
 * The Azure cluster a job request will manage, known before any preflight: adoption names it in its params; a
 * migration's is read from the watch cache (the router's cheap early check; the planner's answer is what is stored).
 */
export function requestAzureKey(
  request: JobRequest,
  cache: Pick<WatchCache, 'list'>,
): AzureClusterKey | undefined {
  if (request.type === 'adopt') {
    const p = request.params;
    return {
      subscriptionId: p.subscriptionId,
      resourceGroup: p.resourceGroup,
      name: p.clusterName,
    };
  }
  if (request.type === 'migrate') {
    const p = request.params;
    const objects = MIGRATION_KINDS.flatMap(kind =>
      cache
        .list(p.managementCluster, kind, p.namespace)
        .map(
          o => ({ ...o, kind: o.kind ?? kind } as unknown as ObservedObject),
        ),
    );
    return migrationAzureKey(objects, p.name);
  }
  return undefined;
}

/**
 * The Azure cluster a previewed job will manage, as its planner found it: what its plan's one-owner check
 * (`sole-manager`) looks for; else adoption's params, or a migration's facts (`subscriptionId`, `resourceGroup`,
 * `managedCluster`: the old objects' Azure names). Undefined for upgrades, and for a migration without a plan.
 */
export function previewAzureKey(
  request: JobRequest,
  preview: { plan: StepPlan[]; facts?: Record<string, string> },
): AzureClusterKey | undefined {
  if (request.type === 'upgrade-api-version') return undefined;
  for (const step of preview.plan) {
    const c = step.preconditions.find(
      (x): x is Extract<PlannedCondition, { type: 'sole-manager' }> =>
        x.type === 'sole-manager',
    );
    if (c) return c.azure;
  }
  if (request.type === 'adopt')
    return requestAzureKey(request, { list: () => [] });
  if (request.type === 'migrate') {
    const f = preview.facts ?? {};
    if (!f.subscriptionId || !f.resourceGroup || !f.managedCluster)
      return undefined;
    return {
      subscriptionId: f.subscriptionId,
      resourceGroup: f.resourceGroup,
      name: f.managedCluster,
    };
  }
  return undefined;
}
