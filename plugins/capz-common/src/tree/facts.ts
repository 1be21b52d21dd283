/**
 * What a person wants to see at a glance on each node: versions, location, endpoints, replicas, autoscaling,
 * provisioningState, policies. Only values that are present are listed.
 */
import { ann, arr, at, bool, kindOf, num, str } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import {
  RECONCILE_POLICY_ANNOTATION,
  REPLICAS_MANAGED_BY_ANNOTATION,
} from '../vocabulary';

/** An object's facts by name, as the tree shows them. @public */
export type Facts = Record<string, string | number | boolean>;

function put(f: Facts, key: string, v: unknown): void {
  if (
    (typeof v === 'string' && v !== '') ||
    (typeof v === 'number' && Number.isFinite(v)) ||
    typeof v === 'boolean'
  ) {
    f[key] = v;
  }
}

const controllerOf = (o: ObservedObject) =>
  o.metadata?.ownerReferences?.find(r => r.controller);

/** The facts of one object, by kind. @public */
export function factsFor(o: ObservedObject): Facts {
  const f: Facts = {};
  put(f, 'apiVersion', o.apiVersion);
  const s = o.spec;
  const st = o.status;
  switch (kindOf(o)) {
    case 'Cluster':
      put(f, 'phase', str(st?.phase));
      put(f, 'paused', bool(s?.paused));
      put(
        f,
        'controlPlaneEndpoint',
        str(at(s, 'controlPlaneEndpoint', 'host')),
      );
      put(f, 'kubernetesVersion', str(at(s, 'topology', 'version')));
      put(f, 'workersDesired', num(at(st, 'workers', 'desiredReplicas')));
      put(f, 'workersReady', num(at(st, 'workers', 'readyReplicas')));
      put(f, 'workersAvailable', num(at(st, 'workers', 'availableReplicas')));
      break;
    case 'MachinePool':
      put(f, 'kubernetesVersion', str(at(s, 'template', 'spec', 'version')));
      put(f, 'replicas', num(s?.replicas));
      put(f, 'currentReplicas', num(st?.replicas));
      put(f, 'readyReplicas', num(st?.readyReplicas));
      put(f, 'availableReplicas', num(st?.availableReplicas));
      put(f, 'phase', str(st?.phase));
      put(f, 'replicasManagedBy', ann(o, REPLICAS_MANAGED_BY_ANNOTATION));
      break;
    case 'AzureASOManagedControlPlane':
      put(f, 'kubernetesVersion', str(st?.version) ?? str(s?.version));
      put(f, 'desiredKubernetesVersion', str(s?.version));
      put(f, 'ready', bool(st?.ready));
      put(f, 'initialized', bool(st?.initialized));
      put(
        f,
        'controlPlaneEndpoint',
        str(at(st, 'controlPlaneEndpoint', 'host')),
      );
      break;
    case 'AzureASOManagedCluster':
      put(f, 'ready', bool(st?.ready));
      put(
        f,
        'controlPlaneEndpoint',
        str(at(s, 'controlPlaneEndpoint', 'host')),
      );
      break;
    case 'AzureASOManagedMachinePool':
      put(f, 'ready', bool(st?.ready));
      put(f, 'replicas', num(st?.replicas));
      if (Array.isArray(s?.providerIDList))
        put(f, 'providerIDs', arr(s?.providerIDList).length);
      break;
    case 'AzureManagedControlPlane':
      put(f, 'kubernetesVersion', str(st?.version) ?? str(s?.version));
      put(f, 'desiredKubernetesVersion', str(s?.version));
      put(f, 'location', str(s?.location));
      put(f, 'resourceGroupName', str(s?.resourceGroupName));
      put(f, 'ready', bool(st?.ready));
      put(f, 'initialized', bool(st?.initialized));
      put(
        f,
        'controlPlaneEndpoint',
        str(at(s, 'controlPlaneEndpoint', 'host')),
      );
      put(f, 'disableLocalAccounts', bool(s?.disableLocalAccounts));
      break;
    case 'AzureManagedMachinePool':
      put(f, 'azureName', str(s?.name));
      put(f, 'mode', str(s?.mode));
      put(f, 'vmSize', str(s?.sku));
      put(f, 'osType', str(s?.osType));
      put(f, 'osSku', str(s?.osSKU));
      put(f, 'autoscalingMin', num(at(s, 'scaling', 'minSize')));
      put(f, 'autoscalingMax', num(at(s, 'scaling', 'maxSize')));
      put(f, 'replicas', num(st?.replicas));
      put(f, 'ready', bool(st?.ready));
      break;
    case 'AzureManagedCluster':
      put(f, 'ready', bool(st?.ready));
      put(
        f,
        'controlPlaneEndpoint',
        str(at(s, 'controlPlaneEndpoint', 'host')),
      );
      break;
    case 'ResourceGroup':
      put(f, 'azureName', str(s?.azureName) ?? str(st?.name));
      put(f, 'location', str(st?.location) ?? str(s?.location));
      put(
        f,
        'provisioningState',
        str(at(st, 'properties', 'provisioningState')) ??
          str(st?.provisioningState),
      );
      break;
    case 'VirtualNetwork':
      put(f, 'azureName', str(s?.azureName) ?? str(st?.name));
      put(f, 'location', str(st?.location) ?? str(s?.location));
      put(
        f,
        'addressSpace',
        (arr(at(st, 'addressSpace', 'addressPrefixes')).length
          ? arr(at(st, 'addressSpace', 'addressPrefixes'))
          : arr(at(s, 'addressSpace', 'addressPrefixes'))
        )
          .filter((x): x is string => typeof x === 'string')
          .join(', '),
      );
      put(f, 'provisioningState', str(st?.provisioningState));
      break;
    case 'VirtualNetworksSubnet':
      put(f, 'azureName', str(s?.azureName) ?? str(st?.name));
      put(f, 'addressPrefix', str(st?.addressPrefix) ?? str(s?.addressPrefix));
      put(f, 'provisioningState', str(st?.provisioningState));
      break;
    case 'ManagedCluster':
      put(f, 'azureName', str(s?.azureName) ?? str(st?.name));
      put(
        f,
        'kubernetesVersion',
        str(st?.currentKubernetesVersion) ?? str(s?.kubernetesVersion),
      );
      put(f, 'location', str(st?.location) ?? str(s?.location));
      put(f, 'fqdn', str(st?.privateFQDN) ?? str(st?.fqdn));
      put(f, 'nodeResourceGroup', str(st?.nodeResourceGroup));
      put(f, 'provisioningState', str(st?.provisioningState));
      put(f, 'powerState', str(at(st, 'powerState', 'code')));
      put(
        f,
        'disableLocalAccounts',
        bool(st?.disableLocalAccounts) ?? bool(s?.disableLocalAccounts),
      );
      put(
        f,
        'entraManaged',
        bool(at(st, 'aadProfile', 'managed')) ??
          bool(at(s, 'aadProfile', 'managed')),
      );
      put(f, 'agentPools', arr(st?.agentPoolProfiles).length || undefined);
      break;
    case 'ManagedClustersAgentPool': {
      put(f, 'azureName', str(s?.azureName) ?? str(st?.name));
      put(f, 'mode', str(st?.mode) ?? str(s?.mode));
      put(f, 'vmSize', str(st?.vmSize) ?? str(s?.vmSize));
      put(f, 'osType', str(st?.osType) ?? str(s?.osType));
      put(f, 'osSku', str(st?.osSKU) ?? str(s?.osSKU));
      put(
        f,
        'kubernetesVersion',
        str(st?.currentOrchestratorVersion) ??
          str(st?.orchestratorVersion) ??
          str(s?.orchestratorVersion),
      );
      put(f, 'replicas', num(st?.count) ?? num(s?.count));
      const autoscaling =
        bool(st?.enableAutoScaling) ?? bool(s?.enableAutoScaling);
      put(f, 'autoscaling', autoscaling);
      if (autoscaling) {
        put(f, 'autoscalingMin', num(st?.minCount) ?? num(s?.minCount));
        put(f, 'autoscalingMax', num(st?.maxCount) ?? num(s?.maxCount));
      }
      put(f, 'provisioningState', str(st?.provisioningState));
      put(f, 'powerState', str(at(st, 'powerState', 'code')));
      break;
    }
    default:
      break;
  }
  put(f, 'reconcilePolicy', ann(o, RECONCILE_POLICY_ANNOTATION));
  const controller = controllerOf(o);
  if (controller?.kind && controller.name)
    put(f, 'controlledBy', `${controller.kind}/${controller.name}`);
  return f;
}
