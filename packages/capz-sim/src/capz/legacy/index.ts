/**
 * CAPZ's legacy AzureManagedControlPlane / AzureManagedMachinePool / AzureManagedCluster controllers, as far as
 * migration needs them (docs/capz-aso-facts.md#legacy-api):
 *  - the ASO objects they create (docs/capz-aso-facts.md#legacy-aso-objects, docs/capz-aso-facts.md#legacy-names):
 *    ResourceGroup (name: normalised spec.resourceGroupName) and ManagedCluster (name: normalised control plane name,
 *    owner: the group) controller-owned by the AzureManagedControlPlane, one ManagedClustersAgentPool per
 *    AzureManagedMachinePool (azureName spec.name, owner: the ManagedCluster) controller-owned by it; every one
 *    labelled `cluster.x-k8s.io/cluster-name` and annotated `credential-from: <cluster>-aso-secret`; reconcile-policy
 *    `skip` on first create, then `manage` when "was managed" (always for clusters and pools; for the group only with
 *    CAPZ's owned tag);
 *  - `<cluster>-aso-secret`, labelled `<cluster>: owned` and controller-owned by the control plane
 *    (docs/capz-aso-facts.md#legacy-aso-objects);
 *  - the specs as CAPZ's spec builders write them: ResourceGroup `location` and `tags` = CAPZ's own tags
 *    (`sigs.k8s.io_cluster-api-provider-azure_cluster_<cluster>: owned`, `..._role: common`, `Name`) plus the control
 *    plane's `additionalTags`, on create only (azure/services/groups/spec.go `Parameters`, `infrav1.Build`); the
 *    ManagedCluster's `tags` the same way (azure/services/managedclusters/spec.go); each agent pool from its
 *    AzureManagedMachinePool (azure/scope/managedmachinepool.go `buildAgentPoolSpec`, azure/services/agentpools/
 *    spec.go `Parameters`): `nodeLabels` = spec.nodeLabels, `nodeTaints` = spec.taints as `key=value:Effect`,
 *    `tags` = spec.additionalTags, `availabilityZones`, `maxPods`, `osDiskSizeGB`, `osType`, `enableAutoScaling`
 *    always written (true with spec.scaling's minSize/maxSize), count from the MachinePool;
 *  - agentPoolProfiles sent only for the first create, then stripped from the ManagedCluster spec
 *    (docs/capz-aso-facts.md#legacy-agent-pool-profiles, docs/migration-procedure.md#step-6-2);
 *  - block-move on normal reconcile; pause copies the policy to the pre-pause annotation, sets skip, then removes
 *    block-move; unpause restores it. The AzureManagedCluster never gets block-move
 *    (docs/capz-aso-facts.md#legacy-pause);
 *  - v1beta1-style conditions (with severity) on the control plane and pools (docs/capz-aso-facts.md#legacy-api);
 *  - what the real managers were seen to write for CAPZ's `aks` template (docs/real-controllers.md#findings, findings
 *    10–14): the VNet and subnet, one CAPZ service at a time, CAPZ's eight control plane conditions, providerIDs from
 *    the VMSS VMs, the webhooks' defaults, the Secrets, the last-applied-tags annotation and the spec fields (each
 *    with its upstream lines where it is written).
 * Simulated: the credential Secret's values come from the simulator's identity settings instead of an
 * AzureClusterIdentity (whose CRD is not installed here).
 */
export { LegacyControllers } from './controllers.ts';
export type { LegacyIdentity } from './context.ts';
export { LEGACY_DELETE_REQUEUE_MS } from './lifecycle.ts';
export {
  AGENT_POOL_MODE_LABEL,
  LAST_APPLIED_TAGS,
  OWNED_TAG,
  capzTags,
  normalize,
  subnetArmId,
} from './names.ts';
export { legacyPoolFields } from './poolFields.ts';
export { controlPlaneDefaults } from './webhookDefaults.ts';
