/** Upgrading the control plane, or pools up to the version the control plane runs. */
import type { Day2Action, ObjectChange } from '../api';
import type { Day2Cluster } from '../snapshot';
import {
  compareKubernetesVersions,
  controlPlaneStepError,
  nextControlPlaneVersions,
  parseKubernetesVersion,
  withV,
} from '../versions';
import {
  applyTo,
  change,
  conflict,
  field,
  input,
  isProblem,
  pausedWarning,
  poolLabel,
  poolOrProblem,
  removePinFix,
} from './shared';
import type {
  Day2PlanContext,
  Day2PlanResult,
  Day2Problem,
  Day2Write,
} from './types';

export function planUpgrade(
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
      warnings: pausedWarning(c),
      ...(notUpgraded.length
        ? {
            notes: [
              `Only the control plane moves: the pools (${notUpgraded
                .map(p => p.name)
                .join(
                  ', ',
                )}) stay on their version until you upgrade them, once the control plane runs ${version}.`,
            ],
          }
        : {}),
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
