/**
 * Microsoft.Network virtual networks and subnets as ASO v2.18.0 writes them for CAPZ v1.26.0's legacy
 * AzureManagedControlPlane: `azure/services/virtualnetworks` and `azure/services/subnets` create
 * network.azure.com `v1api20201101` VirtualNetwork / VirtualNetworksSubnet (api-version 2020-11-01), and CAPZ reads
 * back the VNet's `status.id`/`tags`/`addressSpace` and each subnet's `status.id` (the agent pools' `vnetSubnetID`).
 * Synchronous here: the PUT answers the resource with `provisioningState: Succeeded` and no polling header, which
 * azcore's poller takes as done (its body poller); DELETE answers 200 (gone) or 204 (absent)
 * (docs/real-controllers.md#legacy-path).
 */
import { createHash } from 'node:crypto';
import type { VirtualNetwork } from '../azure/model.ts';

/** network.azure.com v1api20201101's ARM api-version (ASO v2.18.0 `v2/api/network/v1api20201101`). */
export const NETWORK_API_VERSIONS = ['2020-11-01'];

const etag = (v: unknown) =>
  `W/"${createHash('sha256')
    .update(JSON.stringify(v))
    .digest('hex')
    .slice(0, 8)}-0000-0000-0000-000000000000"`;

export const vnetId = (v: VirtualNetwork) =>
  `/subscriptions/${v.subscriptionId}/resourceGroups/${v.resourceGroup}/providers/Microsoft.Network/virtualNetworks/${v.name}`;

export function subnetToWire(
  v: VirtualNetwork,
  s: { name: string; properties: Record<string, unknown> },
) {
  return {
    id: `${vnetId(v)}/subnets/${s.name}`,
    name: s.name,
    type: 'Microsoft.Network/virtualNetworks/subnets',
    etag: etag(s.properties),
    properties: {
      ...structuredClone(s.properties),
      provisioningState: 'Succeeded',
    },
  };
}

export function vnetToWire(v: VirtualNetwork) {
  return {
    id: vnetId(v),
    name: v.name,
    type: 'Microsoft.Network/virtualNetworks',
    location: v.location,
    tags: { ...v.tags },
    etag: etag(v.properties),
    properties: {
      ...structuredClone(v.properties),
      provisioningState: 'Succeeded',
      resourceGuid: createHash('md5')
        .update(vnetId(v).toLowerCase())
        .digest('hex'),
      subnets: Object.values(v.subnets).map(s => subnetToWire(v, s)),
    },
  };
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};

export function vnetFromWire(body: Json) {
  const tags = obj(body.tags) as Record<string, string>;
  return {
    location: typeof body.location === 'string' ? body.location : '',
    tags,
    properties: obj(body.properties),
  };
}

export const subnetFromWire = (body: Json) => obj(body.properties);
