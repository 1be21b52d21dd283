import { label, same } from '../../runtime/meta.ts';
import type { Obj } from '../../runtime/types.ts';
import { CLUSTER_NAME } from '../asoManaged.ts';

/**
 * What CAPZ's AzureManagedControlPlane defaulting webhook adds (CAPZ v1.26.0 internal/webhooks/
 * azuremanagedcontrolplane_webhook.go `Default` lines 64–79, internal/api/v1beta1/azuremanagedcontrolplane_default.go
 * lines 54–138): sku Free, resourceGroupName = the cluster, nodeResourceGroupName `MC_<rg>_<name>_<location>`, the
 * virtual network (name = the control plane's, 10.0.0.0/8, group = resourceGroupName) and its subnet (name = the
 * control plane's, 10.240.0.0/16; the overlay CIDRs with networkPluginMode overlay), oidcIssuerProfile and dnsPrefix.
 * Returns the spec fields to merge, or undefined when nothing is missing.
 */
export function controlPlaneDefaults(
  cp: Obj,
): Record<string, unknown> | undefined {
  const s = cp.spec ?? {};
  const overlay = s.networkPluginMode === 'overlay';
  const patch: Record<string, unknown> = {};
  if (!s.sku) patch.sku = { tier: 'Free' };
  const rg = s.resourceGroupName || label(cp, CLUSTER_NAME);
  if (!s.resourceGroupName && rg) patch.resourceGroupName = rg;
  if (!s.nodeResourceGroupName)
    patch.nodeResourceGroupName = `MC_${rg}_${cp.metadata.name}_${s.location}`;
  const vn = s.virtualNetwork ?? {};
  const vnet = {
    name: vn.name || cp.metadata.name,
    cidrBlock: vn.cidrBlock || (overlay ? '10.224.0.0/12' : '10.0.0.0/8'),
    resourceGroup: vn.resourceGroup || rg,
    subnet: {
      ...(vn.subnet ?? {}),
      name: vn.subnet?.name || cp.metadata.name,
      cidrBlock:
        vn.subnet?.cidrBlock || (overlay ? '10.224.0.0/16' : '10.240.0.0/16'),
    },
  };
  if (!same({ ...vn, subnet: { ...(vn.subnet ?? {}) } }, { ...vn, ...vnet }))
    patch.virtualNetwork = vnet;
  if (!s.oidcIssuerProfile) patch.oidcIssuerProfile = {};
  if (s.dnsPrefix === undefined) patch.dnsPrefix = cp.metadata.name;
  return Object.keys(patch).length ? patch : undefined;
}
