/**
 * The v1alpha1 to v1beta1 upgrade of an AzureASOManaged cluster (docs/migration-procedure.md#v1alpha1-to-v1beta1):
 * the CRDs are already upgraded (clusterctl upgrade), so what remains is what still says v1alpha1:
 * - the CAPI objects' references (read at cluster.x-k8s.io/v1beta1, where refs carry an apiVersion): patched;
 * - the field managers that wrote the CAPZ objects at v1alpha1 (`metadata.managedFields`): the entries are moved
 *   to v1beta1. The two versions have the same schema ("v1alpha1 and v1beta1 are equivalent",
 *   docs/capz-aso-facts.md#aso-managed-v1beta1), so the fields each manager owns do not change, only the version they
 *   are recorded at;
 * - the manifests kept elsewhere (kubectl, GitOps): listed for the user to change (`result.manifestsToChange`).
 * Pure: no I/O.
 */
import type { JobPlanResult, UpgradeApiVersionJobParams } from '../types';
import { upgradePreflight, type UpgradeSnapshot } from './preflight';
import { manifestsToChange, upgradeSteps } from './steps';

export {
  requiredUpgradeAccess,
  upgradePreflight,
  type UpgradePreflight,
  type UpgradeSnapshot,
} from './preflight';
export { manifestsToChange, upgradeSteps, type UpgradeFindings } from './steps';

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
  const { checks, planned } = upgradePreflight(params, snap);
  return {
    type: 'upgrade-api-version',
    target,
    preflight: checks,
    plan: planned ? upgradeSteps(params, planned) : [],
    ...(planned
      ? {
          result: {
            cluster: target,
            manifestsToChange: manifestsToChange(ns, planned),
          },
        }
      : {}),
  };
}
