/** The legacy AzureManagedMachinePool controller: its defaults, its agent pool, and providerIDs from the VMSS VMs. */
import { listScaleSets, listScaleSetVms } from '../../arm/compute.ts';
import { AzureError } from '../../azure/errors.ts';
import { splitKey } from '../../runtime/controller.ts';
import { K } from '../../runtime/kinds.ts';
import {
  getCondition,
  isDeleting,
  label,
  same,
  setCondition,
} from '../../runtime/meta.ts';
import type { Condition, Obj } from '../../runtime/types.ts';
import { ensureAso, fromAso } from './asoService.ts';
import {
  clusterOf,
  isPaused,
  machinePoolOf,
  replicasOf,
  type LegacyContext,
  type LegacyReconcile,
} from './context.ts';
import { beginReconcile, deleteOwned, pause } from './lifecycle.ts';
import { AGENT_POOL_MODE_LABEL, AMMP_FINALIZER, normalize } from './names.ts';
import { legacyPoolFields } from './poolFields.ts';

export const reconcileMachinePool: LegacyReconcile = async (ctx, key) => {
  const { namespace, name } = splitKey(key);
  const ammp = ctx.cache.get('AzureManagedMachinePool', namespace, name);
  if (!ammp) return;
  // CAPZ's AzureManagedMachinePool defaulting webhook (CAPZ v1.26.0 internal/webhooks/
  // azuremanagedmachinepool_webhook.go `Default` lines 56–71): the agentpoolmode label = spec.mode, spec.name = the
  // object's name. This simulation runs no admission webhooks, so the controller defaults every pool before anything
  // else, whoever wrote it (seeds, tests, the demo's users), as the webhook would have on admission (finding 12).
  if (!isDeleting(ammp)) {
    const wantMode =
      ammp.spec?.mode !== undefined &&
      label(ammp, AGENT_POOL_MODE_LABEL) !== ammp.spec.mode;
    const wantName = !ammp.spec?.name;
    if (wantMode || wantName) {
      await ctx.kube.mergePatch(K.AzureManagedMachinePool, namespace, name, {
        ...(wantMode
          ? {
              metadata: {
                labels: { [AGENT_POOL_MODE_LABEL]: ammp.spec.mode },
              },
            }
          : {}),
        ...(wantName ? { spec: { name } } : {}),
      });
      return;
    }
  }
  const cluster = clusterOf(ctx, ammp);
  if (!cluster) return;
  if (isPaused(ammp, cluster))
    return pause(ctx, ammp, ['ManagedClustersAgentPool']);
  if (isDeleting(ammp)) {
    // CAPZ v1.26.0 controllers/azuremanagedmachinepool_controller.go `reconcileDelete`: "Cluster was deleted, skip
    // machine pool deletion and let AKS delete the whole cluster. So, remove the finalizer." The pool object then
    // goes by garbage collection once its ManagedCluster is gone (ASO made that its owner too).
    if (isDeleting(cluster)) return deleteOwned(ctx, ammp, AMMP_FINALIZER, []);
    return deleteOwned(ctx, ammp, AMMP_FINALIZER, [
      ['ManagedClustersAgentPool'],
    ]);
  }
  await beginReconcile(ctx, ammp, AMMP_FINALIZER, ['ManagedClustersAgentPool']);
  const clusterName = cluster.metadata.name;
  const cpName = cluster.spec?.controlPlaneRef?.name;
  const mc = cpName
    ? ctx.cache.get('ManagedCluster', namespace, normalize(cpName))
    : undefined;
  if (!mc) return; // the pool is created once the cluster's ManagedCluster exists
  const cp = cpName
    ? ctx.cache.get('AzureManagedControlPlane', namespace, cpName)
    : undefined;
  const { live: pool } = await ensureAso(
    ctx,
    'ManagedClustersAgentPool',
    ammp,
    clusterName,
    normalize(name),
    {
      azureName: ammp.spec.name ?? name,
      owner: { name: mc.metadata.name },
      ...legacyPoolFields(
        ammp,
        replicasOf(ctx, ammp),
        cp,
        machinePoolOf(ctx, ammp)?.spec?.template?.spec?.version,
      ),
    },
    true,
  );
  const ready = getCondition(pool, 'Ready');
  const cond = fromAso('AgentPoolsReady', pool, ready);
  // Once the agent pool is done, the VMSS VMs through ARM become spec.providerIDList (sorted) and their number
  // status.replicas (CAPZ v1.26.0 controllers/azuremanagedmachinepool_reconciler.go lines 130–172); no VMSS yet is a
  // transient error (line 150, retried in 20 s; compressed here as the rest of the simulated timing).
  const providerIDs =
    cond.status === 'True' && cp
      ? providerIds(ctx, cp, ammp.spec.name ?? name)
      : undefined;
  if (providerIDs && !same(ammp.spec.providerIDList ?? [], providerIDs)) {
    await ctx.kube.mergePatch(K.AzureManagedMachinePool, namespace, name, {
      spec: { providerIDList: providerIDs },
    });
  }
  let conditions = ammp.status?.conditions as Condition[] | undefined;
  conditions = setCondition(conditions, cond);
  conditions = setCondition(conditions, { ...cond, type: 'Ready' });
  const status = {
    ...(ammp.status ?? {}),
    conditions,
    ready: cond.status === 'True' && providerIDs !== undefined,
    replicas: providerIDs?.length ?? ammp.status?.replicas ?? 0,
  };
  if (!same(ammp.status, status))
    await ctx.kube.mergePatch(
      K.AzureManagedMachinePool,
      namespace,
      name,
      { status },
      'status',
    );
  if (cond.status === 'True' && !providerIDs) return { requeueAfterMs: 500 };
};

/**
 * The pool's VMSS VM ids as providerIDs, read as CAPZ reads them through ARM (the simulated ARM's compute routes,
 * src/arm/compute.ts): the first VMSS of the node resource group tagged `poolName` or `aks-managed-poolName` = the
 * pool, its VMs' ids prefixed `azure://` with the resource group lower-cased (cloud-provider-azure
 * `ConvertResourceGroupNameToLower`), sorted. Undefined when there is no such VMSS (or group) yet.
 */
export function providerIds(
  ctx: LegacyContext,
  cp: Obj,
  pool: string,
): string[] | undefined {
  const sub = cp.spec.subscriptionID;
  const nodeRg = cp.spec.nodeResourceGroupName;
  if (!sub || !nodeRg) return undefined;
  try {
    const match = listScaleSets(ctx.world, sub, nodeRg).value.find(
      ss =>
        (ss.tags as Record<string, string>).poolName === pool ||
        ss.tags['aks-managed-poolName'] === pool,
    );
    if (!match) return undefined;
    return listScaleSetVms(ctx.world, sub, nodeRg, match.name)
      .value.map(
        vm =>
          `azure://${vm.id.replace(
            /\/resourceGroups\/([^/]+)\//i,
            (_m, g: string) => `/resourceGroups/${g.toLowerCase()}/`,
          )}`,
      )
      .sort();
  } catch (e) {
    if (e instanceof AzureError) return undefined;
    throw e;
  }
}
