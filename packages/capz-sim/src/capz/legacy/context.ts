/** What the legacy controllers share: their clients, settings and state, and the lookups every one of them makes. */
import type { AzureWorld } from '../../azure/model.ts';
import type { Cache } from '../../runtime/cache.ts';
import type { Key, Result } from '../../runtime/controller.ts';
import type { Kube } from '../../runtime/kube.ts';
import { ann, label } from '../../runtime/meta.ts';
import type { Obj } from '../../runtime/types.ts';
import { CLUSTER_NAME, PAUSED } from '../asoManaged.ts';

export interface LegacyIdentity {
  tenantId: string;
  clientId: string;
  /**
   * With a secret, `<cluster>-aso-secret` is the service-principal form CAPZ writes for a ServicePrincipal
   * AzureClusterIdentity (AZURE_CLIENT_SECRET); without, the workload-identity form (AUTH_MODE)
   * (docs/capz-aso-facts.md#aso-credential-keys).
   */
  clientSecret?: string;
}

export interface LegacyContext {
  kube: Kube;
  cache: Cache;
  identity: LegacyIdentity;
  world: AzureWorld;
  /** Per owner uid: no new look at its deletion before this time (see LEGACY_DELETE_REQUEUE_MS). */
  deleteNotBefore: Map<string, number>;
}

/** One legacy controller's reconcile of the object `key` names. */
export type LegacyReconcile = (
  ctx: LegacyContext,
  key: Key,
) => Promise<Result | void>;

export function clusterOf(ctx: LegacyContext, o: Obj): Obj | undefined {
  const name = label(o, CLUSTER_NAME);
  return name
    ? ctx.cache.get('Cluster', o.metadata.namespace, name)
    : undefined;
}

export function isPaused(o: Obj, cluster: Obj): boolean {
  return Boolean(cluster.spec?.paused) || ann(o, PAUSED) !== undefined;
}

export function machinePoolOf(ctx: LegacyContext, ammp: Obj): Obj | undefined {
  return ctx.cache
    .list('MachinePool', ammp.metadata.namespace)
    .find(
      m =>
        m.spec?.template?.spec?.infrastructureRef?.name === ammp.metadata.name,
    );
}

export function replicasOf(ctx: LegacyContext, ammp: Obj): number | undefined {
  return machinePoolOf(ctx, ammp)?.spec?.replicas;
}
