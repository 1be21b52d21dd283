/** Adding a pool: its MachinePool and CAPZ pool object, on the ASO-managed or the deprecated API. */
import {
  aksAsoPoolManifests,
  legacyPoolManifests,
  type KubeObject,
} from '../../manifests/aksAsoCluster';
import {
  clusterNameErrors,
  type AksAsoPoolParams,
  nodePoolsErrors,
  poolObjectName,
} from '../../manifests/clusterRules';
import { at, isObj } from '../../objects/read';
import type { Day2Action } from '../api';
import { findDay2Pool, type Day2Cluster } from '../snapshot';
import { conflict, field, input, pausedWarning } from './shared';
import type { Day2PlanContext, Day2PlanResult, Day2Problem } from './types';

export function planAddPool(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'addPool' }>,
  ctx: Day2PlanContext,
): Day2PlanResult {
  const pool = { ...a.pool, osType: a.pool?.osType ?? 'Linux' };
  const problems: Day2Problem[] = [];
  // The template's rules (name, OS, VM size, mode, count), on the new pool alone; "at least one System pool" is the
  // cluster's, which already has one.
  for (const e of nodePoolsErrors([pool]).filter(x => x.field !== 'pools'))
    problems.push(
      input(`pool.${e.field.replace(/^pools\[0\]\./, '')}`, e.message),
    );
  for (const e of clusterNameErrors(c.name, { pools: [pool] }).filter(
    x => x.rule === 'pool-object-name',
  ))
    problems.push(input('pool.name', e.message));
  if (problems.length) return { ok: false, problems };
  const existing = findDay2Pool(c, pool.name);
  const objName = poolObjectName(c.name, pool.name);
  if (existing || ctx.takenNames?.includes(objName))
    return {
      ok: false,
      problems: [
        input(
          'name-taken',
          existing
            ? `cluster ${c.name} already has a pool "${pool.name}"`
            : `the name ${objName} is taken in namespace ${c.namespace}`,
        ),
      ],
    };
  if (c.api === 'legacy') return planAddLegacyPool(c, pool);
  const mc = c.controlPlane?.spec?.resources;
  const mcObject = Array.isArray(mc)
    ? (mc[c.managedClusterIndex ?? -1] as Record<string, unknown> | undefined)
    : undefined;
  const managedClusterName = at(mcObject, 'metadata', 'name');
  const version = c.observedVersion ?? c.version;
  if (typeof managedClusterName !== 'string' || !version)
    return {
      ok: false,
      problems: [
        conflict(
          'control-plane',
          `cluster ${c.name}'s control plane embeds no ManagedCluster with a version to add a pool to`,
        ),
      ],
    };
  const tags = at(mcObject, 'spec', 'tags');
  const objects = aksAsoPoolManifests(
    {
      clusterName: c.name,
      namespace: c.namespace,
      kubernetesVersion: version,
      managedClusterName,
      credentialSecretName: c.credentialSecret,
      tags: isObj(tags) ? (tags as Record<string, string>) : undefined,
    },
    pool,
  );
  return newPoolPlan(c, pool, version, objects, [
    'spec.resources[0].spec.azureName',
    'spec.resources[0].spec.mode',
    'spec.resources[0].spec.osType',
    'spec.resources[0].spec.vmSize',
  ]);
}

/**
 * A pool on the deprecated AzureManagedControlPlane API: the MachinePool and AzureManagedMachinePool pair CAPZ's legacy
 * controllers turn into an agent pool (docs/capz-aso-facts.md#day2-legacy-add-pool), at the control plane's version.
 */
function planAddLegacyPool(
  c: Day2Cluster,
  pool: AksAsoPoolParams,
): Day2PlanResult {
  const version = c.observedVersion ?? c.version;
  if (!version)
    return {
      ok: false,
      problems: [
        conflict(
          'control-plane',
          `cluster ${c.name}'s AzureManagedControlPlane has no version to add a pool at`,
        ),
      ],
    };
  const objects = legacyPoolManifests(
    { clusterName: c.name, namespace: c.namespace, kubernetesVersion: version },
    pool,
  );
  return newPoolPlan(
    c,
    pool,
    version,
    objects,
    ['spec.name', 'spec.mode', 'spec.osType', 'spec.sku'],
    ", through CAPZ's legacy controllers",
  );
}

/**
 * A new pool's plan on either API: its MachinePool and CAPZ pool object created with server-side apply, the fields
 * that say what it is (`fields`: the pool object's paths of its Azure name, mode, OS and VM size, in that order).
 */
function newPoolPlan(
  c: Day2Cluster,
  pool: AksAsoPoolParams,
  version: string,
  objects: KubeObject[],
  fields: [name: string, mode: string, osType: string, vmSize: string],
  via = '',
): Day2PlanResult {
  const [machinePool, infra] = objects;
  const values = [pool.name, pool.mode, pool.osType ?? 'Linux', pool.vmSize];
  return {
    ok: true,
    writes: objects.map(object => ({ type: 'apply', object, create: true })),
    changes: [
      {
        apiVersion: machinePool.apiVersion,
        kind: machinePool.kind,
        namespace: c.namespace,
        name: machinePool.metadata.name,
        operation: 'create',
        fields: [
          field('spec.replicas', undefined, pool.replicas),
          field('spec.template.spec.version', undefined, version),
        ],
      },
      {
        apiVersion: infra.apiVersion,
        kind: infra.kind,
        namespace: c.namespace,
        name: infra.metadata.name,
        operation: 'create',
        fields: fields.map((path, i) => field(path, undefined, values[i])),
      },
    ],
    warnings: pausedWarning(c),
    notes: [
      `AKS creates agent pool ${pool.name} (${pool.replicas} x ${
        pool.vmSize
      }) in cluster ${c.azureName ?? c.name}${via}.`,
    ],
  };
}
