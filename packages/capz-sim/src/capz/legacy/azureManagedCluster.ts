/** The legacy AzureManagedCluster controller: the control plane's endpoint, and ready once it has one. */
import { splitKey } from '../../runtime/controller.ts';
import { K } from '../../runtime/kinds.ts';
import { isDeleting, same } from '../../runtime/meta.ts';
import { clusterOf, isPaused, type LegacyReconcile } from './context.ts';

export const reconcileCluster: LegacyReconcile = async (ctx, key) => {
  const { namespace, name } = splitKey(key);
  const amc = ctx.cache.get('AzureManagedCluster', namespace, name);
  if (!amc) return;
  const cluster = clusterOf(ctx, amc);
  if (!cluster || isPaused(amc, cluster) || isDeleting(amc)) return;
  const cp = ctx.cache.get(
    'AzureManagedControlPlane',
    namespace,
    cluster.spec?.controlPlaneRef?.name ?? '',
  );
  const endpoint = cp?.spec?.controlPlaneEndpoint;
  if (endpoint?.host && !same(amc.spec?.controlPlaneEndpoint, endpoint)) {
    await ctx.kube.mergePatch(K.AzureManagedCluster, namespace, name, {
      spec: { controlPlaneEndpoint: endpoint },
    });
  }
  const ready = Boolean(endpoint?.host);
  if (amc.status?.ready !== ready)
    await ctx.kube.mergePatch(
      K.AzureManagedCluster,
      namespace,
      name,
      { status: { ready } },
      'status',
    );
};
