/**
 * The day-2 actions' rules and plans, pure: from a cluster's objects and an action, either the rules it breaks (each
 * naming the rule, in the user's words) or the writes that carry it out and what they change, field by field.
 * The backend reads the objects live, runs this, validates the writes with `dryRun=All`, then applies them; the
 * frontend may run the same rules before it asks. Each fact relied on is in docs/capz-aso-facts.md#day2-actions.
 */
import { apiVersionOf, kinds } from '../kinds';
import {
  aksAsoPoolManifests,
  legacyPoolManifests,
  type KubeObject,
} from '../manifests/aksAsoCluster';
import {
  clusterNameErrors,
  type AksAsoPoolParams,
  MAX_POOL_NODES,
  nodePoolsErrors,
  poolObjectName,
} from '../manifests/clusterRules';
import { at, isObj } from '../tree/read';
import type { ObservedObject } from '../tree/types';
import type { Day2Action, FieldChange, ObjectChange } from './api';
import {
  RECONCILE_POLICY_ANNOTATION,
  REPLICAS_MANAGED_BY_ANNOTATION,
} from '../vocabulary';
import { findDay2Pool, type Day2Cluster, type Day2Pool } from './snapshot';
import {
  compareKubernetesVersions,
  controlPlaneStepError,
  nextControlPlaneVersions,
  parseKubernetesVersion,
  withV,
} from './versions';

/** An object addressed by kind and name. @public */
export interface Day2Target {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * One write of a plan. `apply`: server-side apply under the product's field manager with `force` (the user chose
 * these values, seeing what they replace), guarded by `metadata.resourceVersion` when the object exists, so that a
 * change since the plan was made is a 409 rather than overwritten (the backend then plans again from a new read).
 * @public
 */
export type Day2Write =
  | { type: 'apply'; object: KubeObject; create: boolean }
  /** Guarded by the object's uid (the one planned from, not a namesake made since); its status may move meanwhile. */
  | { type: 'delete'; target: Day2Target; uid?: string }
  /** A JSON merge patch: only to remove a field another manager may own (`null`), which an apply cannot. */
  | {
      type: 'merge';
      target: Day2Target;
      patch: Record<string, unknown>;
      resourceVersion?: string;
    };

/** Why an action is refused: `input` (400: the request breaks a rule) or `conflict` (409: the cluster's state). @public */
export interface Day2Problem {
  rule: string;
  kind: 'input' | 'conflict';
  message: string;
}

/** What the planner answers. @public */
export type Day2PlanResult =
  | { ok: false; problems: Day2Problem[] }
  | {
      ok: true;
      writes: Day2Write[];
      changes: ObjectChange[];
      warnings: string[];
    };

/** What the planner needs beyond the cluster's objects. @public */
export interface Day2PlanContext {
  /**
   * The Kubernetes versions AKS offers in the cluster's region (ARM), for upgrades; undefined when they cannot be
   * read, and then an upgrade is refused (a version the region does not offer would fail only in Azure).
   */
  offeredVersions?: readonly string[];
  /** Why the offered versions are unknown, for the refusal. */
  offeredVersionsError?: string;
  /** Object names already taken in the namespace (read live), for a new pool. */
  takenNames?: readonly string[];
}

const input = (rule: string, message: string): Day2Problem => ({
  rule,
  kind: 'input',
  message,
});
const conflict = (rule: string, message: string): Day2Problem => ({
  rule,
  kind: 'conflict',
  message,
});

/** `rule: message`, as the 400/409 answers word a problem. @public */
export const formatDay2Problems = (problems: readonly Day2Problem[]) =>
  problems.map(p => `${p.rule}: ${p.message}`).join('; ');

const target = (o: ObservedObject, namespace: string): Day2Target => ({
  apiVersion: o.apiVersion ?? '',
  kind: o.kind ?? '',
  namespace: o.metadata?.namespace ?? namespace,
  name: o.metadata?.name ?? '',
});

/** A server-side apply of some fields of an existing object, at the API version it was read. */
function applyTo(
  o: ObservedObject,
  namespace: string,
  spec: Record<string, unknown>,
): Day2Write {
  const t = target(o, namespace);
  return {
    type: 'apply',
    create: false,
    object: {
      apiVersion: t.apiVersion,
      kind: t.kind,
      metadata: {
        name: t.name,
        namespace: t.namespace,
        ...(o.metadata?.resourceVersion
          ? { resourceVersion: o.metadata.resourceVersion }
          : {}),
      } as KubeObject['metadata'],
      spec,
    },
  };
}

const change = (
  o: ObservedObject,
  namespace: string,
  operation: ObjectChange['operation'],
  fields: FieldChange[],
): ObjectChange => {
  const t = target(o, namespace);
  return { ...t, operation, fields };
};

const field = (path: string, before: unknown, after: unknown): FieldChange => ({
  path,
  ...(before === undefined ? {} : { before }),
  ...(after === undefined ? {} : { after }),
});

const poolLabel = (p: Day2Pool) => `pool "${p.name}"`;
const mpName = (c: Day2Cluster, p: Day2Pool) =>
  `MachinePool ${c.namespace}/${p.machinePool.metadata?.name}`;

/** The one-line fix for a value pinned in an embedded ASO object's spec (CAPZ sets it and refuses another). */
const removePinFix = (
  o: ObservedObject,
  namespace: string,
  index: number,
  key: string,
) =>
  `kubectl -n ${namespace} patch ${o.kind?.toLowerCase()} ${
    o.metadata?.name
  } --type json -p '[{"op":"remove","path":"/spec/resources/${index}/spec/${key}"}]'`;

function poolOrProblem(c: Day2Cluster, name: string): Day2Pool | Day2Problem {
  const pool = findDay2Pool(c, name);
  if (!pool)
    return input(
      'pool-exists',
      `cluster ${c.name} has no pool "${name}"; its pools are ${
        c.pools.map(p => p.name).join(', ') || 'none'
      }`,
    );
  if (pool.deleting)
    return conflict('pool-deleting', `${poolLabel(pool)} is being deleted`);
  return pool;
}

const isProblem = (x: unknown): x is Day2Problem =>
  isObj(x) && typeof x.rule === 'string' && typeof x.message === 'string';

/** Who owns a pool's count instead of its MachinePool, if anyone: the annotation, or autoscaling asked in the spec. */
function countOwner(c: Day2Cluster, p: Day2Pool): string | undefined {
  if (p.replicasManagedBy)
    return `its node count is managed by "${
      p.replicasManagedBy
    }" (annotation ${REPLICAS_MANAGED_BY_ANNOTATION} on ${mpName(c, p)})`;
  if (p.autoscaling)
    return `its node count is managed by AKS's cluster autoscaler (${
      p.autoscaling.minCount ?? '?'
    } to ${p.autoscaling.maxCount ?? '?'} nodes, set on ${p.infra?.kind} ${
      c.namespace
    }/${p.infra?.metadata?.name})`;
  return undefined;
}

const pausedWarning = (c: Day2Cluster) =>
  c.paused
    ? [
        `Cluster ${c.name} is paused: the change is written, but CAPZ and ASO act on it (and Azure changes) only once it is resumed.`,
      ]
    : [];

function planScale(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'scale' }>,
): Day2PlanResult {
  const pool = poolOrProblem(c, a.pool);
  if (isProblem(pool)) return { ok: false, problems: [pool] };
  const problems: Day2Problem[] = [];
  const min = pool.mode === 'System' ? 1 : 0;
  if (
    !Number.isInteger(a.replicas) ||
    a.replicas < 0 ||
    a.replicas > MAX_POOL_NODES
  )
    problems.push(
      input(
        'replicas-range',
        `the node count must be a whole number from ${min} to ${MAX_POOL_NODES}`,
      ),
    );
  else if (a.replicas < min)
    problems.push(
      input(
        'system-pool-min',
        `${poolLabel(pool)} is a System pool: it keeps at least 1 node`,
      ),
    );
  const owner = countOwner(c, pool);
  if (owner)
    problems.push(
      input(
        'replicas-managed-by',
        `${poolLabel(
          pool,
        )}: ${owner}; change the autoscaler's minimum and maximum instead, or turn autoscaling off first`,
      ),
    );
  if (
    pool.pinnedCount !== undefined &&
    pool.pinnedCount !== a.replicas &&
    pool.infra &&
    pool.agentPoolIndex !== undefined
  )
    problems.push(
      input(
        'pinned-count',
        `${poolLabel(pool)}: spec.resources[${
          pool.agentPoolIndex
        }].spec.count is pinned to ${pool.pinnedCount} on ${pool.infra.kind} ${
          c.namespace
        }/${
          pool.infra.metadata?.name
        }, and CAPZ refuses a count that differs from the MachinePool's replicas; remove it: ${removePinFix(
          pool.infra,
          c.namespace,
          pool.agentPoolIndex,
          'count',
        )}`,
      ),
    );
  if (problems.length) return { ok: false, problems };
  if (pool.replicas === a.replicas)
    return { ok: true, writes: [], changes: [], warnings: [] };
  return {
    ok: true,
    writes: [applyTo(pool.machinePool, c.namespace, { replicas: a.replicas })],
    changes: [
      change(pool.machinePool, c.namespace, 'update', [
        field('spec.replicas', pool.replicas, a.replicas),
      ]),
    ],
    warnings: pausedWarning(c),
  };
}

function planAutoscale(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'autoscale' }>,
): Day2PlanResult {
  const pool = poolOrProblem(c, a.pool);
  if (isProblem(pool)) return { ok: false, problems: [pool] };
  if (!pool.infra)
    return {
      ok: false,
      problems: [
        conflict(
          'pool-infrastructure',
          `${poolLabel(pool)}: its infrastructure object (${
            pool.machinePool.spec?.template
              ? 'spec.template.spec.infrastructureRef'
              : 'reference'
          }) was not found`,
        ),
      ],
    };
  const problems: Day2Problem[] = [];
  const min = pool.mode === 'System' ? 1 : 0;
  if (a.enabled) {
    const { minCount, maxCount } = a;
    if (!Number.isInteger(minCount) || (minCount as number) < min)
      problems.push(
        input(
          'autoscaler-min',
          `the autoscaler minimum must be a whole number of at least ${min}${
            min ? ` (${poolLabel(pool)} is a System pool)` : ''
          }`,
        ),
      );
    else if (
      !Number.isInteger(maxCount) ||
      (maxCount as number) < (minCount as number) ||
      (maxCount as number) > MAX_POOL_NODES
    )
      problems.push(
        input(
          'autoscaler-max',
          `the autoscaler maximum must be a whole number from the minimum (${minCount}) to ${MAX_POOL_NODES}`,
        ),
      );
    else if (
      pool.replicas !== undefined &&
      (pool.replicas < (minCount as number) ||
        pool.replicas > (maxCount as number))
    )
      problems.push(
        input(
          'count-within-bounds',
          `${poolLabel(pool)} has ${
            pool.replicas
          } nodes, outside ${minCount} to ${maxCount}: AKS needs minimum <= count <= maximum, so widen the bounds${
            pool.replicasManagedBy ? '' : ' or scale the pool first'
          }`,
        ),
      );
    if (
      c.api === 'aso' &&
      pool.replicasManagedBy &&
      pool.replicasManagedBy !== 'aks'
    )
      problems.push(
        input(
          'replicas-managed-by',
          `${poolLabel(pool)}: its node count is managed by "${
            pool.replicasManagedBy
          }" (annotation ${REPLICAS_MANAGED_BY_ANNOTATION} on ${mpName(
            c,
            pool,
          )}); CAPZ refuses to turn AKS's autoscaler on while another controller owns the count`,
        ),
      );
  } else if (a.minCount !== undefined || a.maxCount !== undefined) {
    problems.push(
      input(
        'autoscaler-off',
        'turning autoscaling off takes no minimum or maximum',
      ),
    );
  }
  if (problems.length) return { ok: false, problems };

  const before = pool.autoscaling;
  const wanted = a.enabled
    ? { minCount: a.minCount as number, maxCount: a.maxCount as number }
    : undefined;
  if (
    (!before && !wanted) ||
    (before &&
      wanted &&
      before.minCount === wanted.minCount &&
      before.maxCount === wanted.maxCount)
  )
    return { ok: true, writes: [], changes: [], warnings: [] };

  const warnings = [...pausedWarning(c)];
  if (!wanted)
    warnings.push(
      `${poolLabel(pool)} keeps the node count AKS last set (${
        pool.replicas ?? 'unknown'
      }); scale it afterwards if needed.`,
    );
  else
    warnings.push(
      `AKS's cluster autoscaler then owns the node count of ${poolLabel(
        pool,
      )}: CAPZ marks ${mpName(
        c,
        pool,
      )} with ${REPLICAS_MANAGED_BY_ANNOTATION} and copies AKS's count into its spec.replicas.`,
    );

  if (c.api === 'aso') {
    const index = pool.agentPoolIndex;
    if (index === undefined)
      return {
        ok: false,
        problems: [
          conflict(
            'pool-infrastructure',
            `${pool.infra.kind} ${c.namespace}/${pool.infra.metadata?.name} embeds no ManagedClustersAgentPool in spec.resources`,
          ),
        ],
      };
    const resources = (pool.infra.spec?.resources as unknown[]).map((r, i) => {
      if (i !== index || !isObj(r)) return r;
      const spec = { ...((r.spec as Record<string, unknown>) ?? {}) };
      if (wanted) {
        spec.enableAutoScaling = true;
        spec.minCount = wanted.minCount;
        spec.maxCount = wanted.maxCount;
      } else {
        spec.enableAutoScaling = false;
        delete spec.minCount;
        delete spec.maxCount;
      }
      return { ...r, spec };
    });
    const p = `spec.resources[${index}].spec`;
    return {
      ok: true,
      // spec.resources is an atomic list: the whole list is applied, as read, with only these fields changed.
      writes: [applyTo(pool.infra, c.namespace, { resources })],
      changes: [
        change(pool.infra, c.namespace, 'update', [
          field(`${p}.enableAutoScaling`, before ? true : undefined, !!wanted),
          field(`${p}.minCount`, before?.minCount, wanted?.minCount),
          field(`${p}.maxCount`, before?.maxCount, wanted?.maxCount),
        ]),
      ],
      warnings,
    };
  }
  // Legacy AzureManagedMachinePool: spec.scaling {minSize, maxSize} (docs/capz-aso-facts.md#day2-legacy-autoscale).
  const fields = [
    field('spec.scaling.minSize', before?.minCount, wanted?.minCount),
    field('spec.scaling.maxSize', before?.maxCount, wanted?.maxCount),
  ];
  const t = target(pool.infra, c.namespace);
  return {
    ok: true,
    writes: [
      wanted
        ? applyTo(pool.infra, c.namespace, {
            scaling: { minSize: wanted.minCount, maxSize: wanted.maxCount },
          })
        : {
            type: 'merge',
            target: t,
            patch: { spec: { scaling: null } },
            resourceVersion: pool.infra.metadata?.resourceVersion,
          },
    ],
    changes: [change(pool.infra, c.namespace, 'update', fields)],
    warnings,
  };
}

function planUpgrade(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'upgrade' }>,
  ctx: Day2PlanContext,
): Day2PlanResult {
  if (!parseKubernetesVersion(a.version))
    return {
      ok: false,
      problems: [
        input(
          'version-format',
          `"${a.version}" must be a version like v1.33.2`,
        ),
      ],
    };
  const version = withV(a.version);
  if (!c.controlPlane || !c.version)
    return {
      ok: false,
      problems: [
        conflict(
          'control-plane',
          `cluster ${c.name} has no control plane with a spec.version to upgrade from`,
        ),
      ],
    };
  const problems: Day2Problem[] = [];
  if (a.target === 'controlPlane') {
    if (
      c.observedVersion &&
      compareKubernetesVersions(c.observedVersion, c.version) !== 0 &&
      compareKubernetesVersions(version, c.version) !== 0
    )
      problems.push(
        conflict(
          'control-plane-upgrading',
          `the control plane is still moving from ${c.observedVersion} to ${c.version}: wait until it runs ${c.version}`,
        ),
      );
    const step = controlPlaneStepError(c.version, version);
    if (step) problems.push(input(step.rule, step.message));
    if (!step && compareKubernetesVersions(version, c.version) > 0) {
      if (!ctx.offeredVersions)
        problems.push(
          conflict(
            'offered-in-region',
            `cannot check that AKS offers ${version} in ${
              c.location ?? "the cluster's region"
            }${
              ctx.offeredVersionsError ? `: ${ctx.offeredVersionsError}` : ''
            }`,
          ),
        );
      else if (!ctx.offeredVersions.map(withV).includes(version)) {
        const next = nextControlPlaneVersions(c.version, ctx.offeredVersions);
        problems.push(
          input(
            'offered-in-region',
            `AKS does not offer ${version} in ${
              c.location ?? "the cluster's region"
            }; from ${c.version} it offers ${
              next.join(', ') || 'no newer version'
            }`,
          ),
        );
      }
    }
    const pinned = c.pinnedKubernetesVersion;
    if (
      c.api === 'aso' &&
      pinned !== undefined &&
      withV(pinned) !== version &&
      c.managedClusterIndex !== undefined
    )
      problems.push(
        input(
          'pinned-version',
          `spec.resources[${
            c.managedClusterIndex
          }].spec.kubernetesVersion is pinned to ${pinned} on ${
            c.controlPlane.kind
          } ${c.namespace}/${
            c.controlPlane.metadata?.name
          }, and CAPZ refuses a value that differs from spec.version (a terminal "incompatible value" error); remove it first: ${removePinFix(
            c.controlPlane,
            c.namespace,
            c.managedClusterIndex,
            'kubernetesVersion',
          )}`,
        ),
      );
    if (problems.length) return { ok: false, problems };
    if (compareKubernetesVersions(version, c.version) === 0)
      return { ok: true, writes: [], changes: [], warnings: [] };
    const notUpgraded = c.pools.filter(
      p => p.version && compareKubernetesVersions(p.version, version) < 0,
    );
    return {
      ok: true,
      writes: [applyTo(c.controlPlane, c.namespace, { version })],
      changes: [
        change(c.controlPlane, c.namespace, 'update', [
          field('spec.version', c.version, version),
        ]),
      ],
      warnings: [
        ...pausedWarning(c),
        ...(notUpgraded.length
          ? [
              `Only the control plane moves: the pools (${notUpgraded
                .map(p => p.name)
                .join(
                  ', ',
                )}) stay on their version until you upgrade them, once the control plane runs ${version}.`,
            ]
          : []),
      ],
    };
  }

  const names = a.target.pools;
  if (!Array.isArray(names) || !names.length)
    return {
      ok: false,
      problems: [input('pools', 'name at least one pool to upgrade')],
    };
  // Pools follow the control plane as it runs, not as it is asked to: AKS refuses a pool newer than its control plane.
  const controlPlaneRuns = c.observedVersion ?? c.version;
  const writes: Day2Write[] = [];
  const changes: ObjectChange[] = [];
  for (const name of [...new Set(names)]) {
    const pool = poolOrProblem(c, name);
    if (isProblem(pool)) {
      problems.push(pool);
      continue;
    }
    if (compareKubernetesVersions(version, controlPlaneRuns) > 0) {
      problems.push(
        input(
          'pool-not-newer-than-control-plane',
          `${poolLabel(
            pool,
          )} cannot move to ${version}: the control plane runs ${controlPlaneRuns}, and no pool may be newer than its control plane (upgrade the control plane first)`,
        ),
      );
      continue;
    }
    if (pool.version && compareKubernetesVersions(version, pool.version) < 0) {
      problems.push(
        input(
          'no-downgrade',
          `${poolLabel(pool)} runs ${
            pool.version
          }: ${version} would be a downgrade, which AKS refuses`,
        ),
      );
      continue;
    }
    if (
      c.api === 'aso' &&
      pool.pinnedOrchestratorVersion !== undefined &&
      withV(pool.pinnedOrchestratorVersion) !== version &&
      pool.infra &&
      pool.agentPoolIndex !== undefined
    ) {
      problems.push(
        input(
          'pinned-version',
          `${poolLabel(pool)}: spec.resources[${
            pool.agentPoolIndex
          }].spec.orchestratorVersion is pinned to ${
            pool.pinnedOrchestratorVersion
          } on ${pool.infra.kind} ${c.namespace}/${
            pool.infra.metadata?.name
          }, and CAPZ refuses a value that differs from the MachinePool's version; remove it first: ${removePinFix(
            pool.infra,
            c.namespace,
            pool.agentPoolIndex,
            'orchestratorVersion',
          )}`,
        ),
      );
      continue;
    }
    if (pool.version === version) continue;
    writes.push(
      applyTo(pool.machinePool, c.namespace, {
        template: { spec: { version } },
      }),
    );
    changes.push(
      change(pool.machinePool, c.namespace, 'update', [
        field('spec.template.spec.version', pool.version, version),
      ]),
    );
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, writes, changes, warnings: pausedWarning(c) };
}

function planAddPool(
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
    warnings: [
      ...pausedWarning(c),
      `AKS creates agent pool ${pool.name} (${pool.replicas} x ${
        pool.vmSize
      }) in cluster ${c.azureName ?? c.name}${via}.`,
    ],
  };
}

/** ASO's policy on an object (`manage` by default, docs/capz-aso-facts.md#reconcile-policy). @public */
export const reconcilePolicyOf = (o: ObservedObject | undefined) =>
  o?.metadata?.annotations?.[RECONCILE_POLICY_ANNOTATION] ?? 'manage';

function planRemovePool(
  c: Day2Cluster,
  a: Extract<Day2Action, { action: 'removePool' }>,
): Day2PlanResult {
  const pool = poolOrProblem(c, a.pool);
  if (isProblem(pool)) return { ok: false, problems: [pool] };
  if (
    pool.mode === 'System' &&
    !c.pools.some(p => p !== pool && p.mode === 'System' && !p.deleting)
  )
    return {
      ok: false,
      problems: [
        input(
          'last-system-pool',
          `${poolLabel(pool)} is the last System pool of cluster ${
            c.name
          }: AKS needs one; add another System pool first`,
        ),
      ],
    };
  const policy = reconcilePolicyOf(pool.agentPool);
  const apRef = pool.agentPool
    ? `ManagedClustersAgentPool ${c.namespace}/${pool.agentPool.metadata?.name}`
    : 'its ASO agent pool';
  const warnings = [
    ...pausedWarning(c),
    policy === 'manage'
      ? `Azure: agent pool ${pool.name} of AKS cluster ${
          c.azureName ?? c.name
        } is deleted with its nodes (${apRef}, reconcile-policy manage).`
      : `Azure: agent pool ${pool.name} is kept (${apRef}, reconcile-policy ${policy}): its nodes keep running, no longer managed from here.`,
  ];
  return {
    ok: true,
    writes: [
      {
        type: 'delete',
        target: target(pool.machinePool, c.namespace),
        uid: pool.machinePool.metadata?.uid,
      },
    ],
    changes: [
      change(pool.machinePool, c.namespace, 'delete', []),
      ...(pool.infra ? [change(pool.infra, c.namespace, 'delete', [])] : []),
      ...(pool.agentPool
        ? [change(pool.agentPool, c.namespace, 'delete', [])]
        : []),
    ],
    warnings,
  };
}

function planPause(c: Day2Cluster, paused: boolean): Day2PlanResult {
  if (c.paused === paused)
    return { ok: true, writes: [], changes: [], warnings: [] };
  return {
    ok: true,
    writes: [applyTo(c.cluster, c.namespace, { paused })],
    changes: [
      change(c.cluster, c.namespace, 'update', [
        field('spec.paused', c.cluster.spec?.paused, paused),
      ]),
    ],
    warnings: paused
      ? [
          'CAPI and CAPZ stop reconciling the cluster; CAPZ sets reconcile-policy skip on every ASO object it applies, so Azure is not changed (nor deleted) until it is resumed.',
        ]
      : [
          'CAPZ and ASO reconcile again: any change written while paused now reaches Azure.',
        ],
  };
}

/**
 * Plans one day-2 action on a cluster read with {@link readDay2Cluster}: the rules it breaks, or the writes and
 * changes. A cluster being deleted refuses every action. Deterministic and pure.
 * @public
 */
export function planDay2Action(
  c: Day2Cluster,
  action: Day2Action,
  ctx: Day2PlanContext = {},
): Day2PlanResult {
  if (c.deleting)
    return {
      ok: false,
      problems: [
        conflict('cluster-deleting', `cluster ${c.name} is being deleted`),
      ],
    };
  switch (action?.action) {
    case 'scale':
      return planScale(c, action);
    case 'autoscale':
      return planAutoscale(c, action);
    case 'upgrade':
      return planUpgrade(c, action, ctx);
    case 'addPool':
      return planAddPool(c, action, ctx);
    case 'removePool':
      return planRemovePool(c, action);
    case 'pause':
      return planPause(c, true);
    case 'resume':
      return planPause(c, false);
    default:
      return {
        ok: false,
        problems: [
          input(
            'action',
            `unknown action "${String(
              (action as { action?: unknown })?.action,
            )}"`,
          ),
        ],
      };
  }
}

/** The API versions day-2 writes use for new objects (CAPI's stored v1beta2, CAPZ's v1beta1). @public */
export const DAY2_API_VERSIONS = {
  Cluster: apiVersionOf(kinds.Cluster),
  MachinePool: apiVersionOf(kinds.MachinePool),
  AzureASOManagedMachinePool: apiVersionOf(kinds.AzureASOManagedMachinePool),
};
