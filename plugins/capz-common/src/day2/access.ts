import type { AccessRequirement } from '../jobs/types';
import { CAPI_GROUP, CAPZ_GROUP } from '../kinds';

/**
 * Everything the day-2 routes ask of the API server, as plugins/capz-backend/rbac/day2.yaml grants it (a test keeps
 * the two equal): live `get` of the objects a plan is made from, server-side apply (`patch`; `create` too for a new
 * pool, as an apply that creates needs both) of the fields the actions change, and `delete` of a MachinePool (remove
 * a pool) and of a Cluster (delete); the MachinePools of a namespace are listed live. Nothing is watched here (the
watch cache reads), no Secret is read.
 * @public
 */
export function requiredDay2Access(): AccessRequirement[] {
  const capi = CAPI_GROUP;
  const capz = CAPZ_GROUP;
  const r = (
    group: string,
    resource: string,
    verbs: Record<string, string>,
  ): AccessRequirement[] =>
    Object.entries(verbs).map(([verb, why]) => ({
      group,
      resource,
      verb,
      why,
    }));
  const read = 'read live before every plan';
  return [
    ...r(capi, 'clusters', {
      get: read,
      patch: 'pause, resume (spec.paused)',
      delete: 'delete the cluster',
    }),
    ...r(capi, 'machinepools', {
      get: read,
      list: "a cluster's pools, read live (a pool just added may not be in the watch cache yet)",
      patch: 'scale (spec.replicas), pool upgrade (spec.template.spec.version)',
      create: 'add a pool',
      delete: 'remove a pool',
    }),
    ...r(capz, 'azureasomanagedcontrolplanes', {
      get: read,
      patch: 'control plane upgrade (spec.version)',
    }),
    ...r(capz, 'azureasomanagedmachinepools', {
      get: read,
      patch: 'autoscale (spec.resources)',
      create: 'add a pool',
    }),
    ...r(capz, 'azuremanagedcontrolplanes', {
      get: read,
      patch: 'control plane upgrade (spec.version), legacy API',
    }),
    ...r(capz, 'azuremanagedmachinepools', {
      get: read,
      patch: 'autoscale (spec.scaling), legacy API',
      create: 'add a pool, legacy API',
    }),
    ...r('containerservice.azure.com', 'managedclustersagentpools', {
      get: 'add a pool: the agent pool object CAPZ will create is checked free',
    }),
  ];
}
