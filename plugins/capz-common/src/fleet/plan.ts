/**
 * A fleet upgrade's preview: every cluster's part planned before anything starts, from what the backend holds (the
 * watch cache and the versions AKS offers per region), with the same planner as the single-cluster upgrade
 * (`planDay2Action`): the control plane to the target, then its pools to it. Pure and deterministic.
 */
import type { ClusterPlace } from '../api';
import type { ObjectChange } from '../day2/api';
import { validateDnsLabel } from '../jobs/names';
import type { JobPreview, JobRequest } from '../jobs/types';
import type { Day2UpgradeTarget } from '../day2/api';
import { planDay2Action } from '../day2/plan';
import type { Day2AppliedBy, Day2PlanContext } from '../day2/plan/types';
import type { Day2Cluster } from '../day2/snapshot';
import {
  compareKubernetesVersions,
  nextControlPlaneVersions,
  parseKubernetesVersion,
  withV,
} from '../day2/versions';
import { poolSkews } from '../lifecycle/support';
import type { Health } from '../tree/types';

/**
 * What a fleet upgrade moves each cluster to: `next-minor`, the newest patch of the next minor version AKS offers in
 * the cluster's region (one minor a time, as AKS requires); or one `version` for all.
 * @public
 */
export type FleetUpgradeTarget =
  | { kind: 'next-minor' }
  | { kind: 'version'; version: string };

/**
 * A migration wave: each legacy cluster (AzureManagedControlPlane) moved to AzureASOManagedControlPlane by the
 * migration job (docs/migration-procedure.md), one job per cluster. `targetNamespace` names each cluster's new
 * namespace, which must not exist yet: `{namespace}` and `{name}` stand for the cluster's (default
 * {@link FLEET_MIGRATION_NAMESPACE}); one namespace per cluster, since the job creates it.
 * @public
 */
export type FleetMigrateTarget = { kind: 'migrate'; targetNamespace?: string };

/** What a fleet run does to each cluster: an upgrade, or a migration to the ASO API. @public */
export type FleetRunTarget = FleetUpgradeTarget | FleetMigrateTarget;

/** The default target namespace of a migration wave's cluster: its namespace and name, so that each has its own. @public */
export const FLEET_MIGRATION_NAMESPACE = '{namespace}-{name}';

/** A migration wave cluster's target namespace, from the target's pattern. @public */
export function fleetMigrationNamespace(
  target: FleetMigrateTarget,
  place: Pick<ClusterPlace, 'namespace' | 'name'>,
): string {
  return (target.targetNamespace ?? FLEET_MIGRATION_NAMESPACE)
    .replace(/\{namespace\}/g, place.namespace)
    .replace(/\{name\}/g, place.name);
}

/**
 * A cluster of a stage, and its group: the groups of a stage run side by side (up to the run's concurrency), the
 * clusters of one group one after the other (Fleet Manager's groups of a stage). A cluster without a group is a group
 * of its own.
 * @public
 */
export type FleetStageCluster = ClusterPlace & { group?: string };

/** One stage of a fleet run: its clusters, upgraded after the stages before it. @public */
export interface FleetStageSpec {
  name: string;
  clusters: FleetStageCluster[];
}

/** What a fleet upgrade is asked to do. @public */
export interface FleetRunSpec {
  target: FleetRunTarget;
  /** In order: a stage starts once the one before it has passed its gate. */
  stages: FleetStageSpec[];
  /** Clusters of a stage upgraded at the same time (default 1). */
  concurrency?: number;
}

/** One upgrade of a cluster's part, as the single-cluster upgrade plans it. @public */
export type FleetUpgradeStep = {
  kind?: 'upgrade';
  target: Day2UpgradeTarget;
  version: string;
  changes: ObjectChange[];
  warnings: string[];
  /** What Azure does, in Azure's words. */
  effects?: string[];
  /**
   * Set when a Flux Kustomization applies the objects it changes: the step is proposed as a pull request (the single
   * cluster's day 2 through Git), applied by Flux once a person merges it. Who applies what, in words: "Flux's
   * Kustomization flux-system/clusters applies AzureASOManagedControlPlane alpha".
   */
  throughGit?: string;
};

/**
 * A cluster's part carried out by a job (a migration): the request as previewed, started once per run, cluster and
 * attempt; done when the job succeeds, failed when it fails or is cancelled.
 * @public
 */
export type FleetJobStep = {
  kind: 'job';
  request: JobRequest;
  /** In words, e.g. "migrate to the ASO API in team-legacy-data-lake". */
  title: string;
  /** The job's steps as its preview plans them, by title. */
  plan: string[];
  /** The preview's warnings (checks that pass with a caution), each with its fix. */
  warnings: string[];
};

/** A step of a cluster's part: an upgrade (control plane or pools), or a job. @public */
export type FleetStep = FleetUpgradeStep | FleetJobStep;

/** Whether a step is carried out by a job. @public */
export function isFleetJobStep(step: FleetStep): step is FleetJobStep {
  return step.kind === 'job';
}

/** A step in words: "control plane to v1.34.3", "pools system, user to v1.34.3", or the job's title. @public */
export function fleetStepWords(step: FleetStep, arrow = 'to'): string {
  if (isFleetJobStep(step)) return step.title;
  return step.target === 'controlPlane'
    ? `control plane ${arrow} ${step.version}`
    : `pools ${step.target.pools.join(', ')} ${arrow} ${step.version}`;
}

/** A cluster's part of a fleet run (an upgrade's plan has upgrade steps only). @public */
export type FleetClusterPlan<S extends FleetStep = FleetStep> = ClusterPlace & {
  /** Its group in its stage (the spec's). */
  group?: string;
  /**
   * `upgrade`: its steps run in its stage; `current`: it already runs the target, control plane and pools;
   * `refused`: it is left out of the run, for `problems`.
   */
  outcome: 'upgrade' | 'current' | 'refused';
  /** The control plane's version now (`spec.version`). */
  from?: string;
  /** The version it moves to. */
  to?: string;
  steps: S[];
  /** Why it is refused, in words, each with what to do where there is something to do. */
  problems: string[];
};

/** What the fleet planner reads of a cluster beyond its objects. @public */
export interface FleetClusterFacts {
  /** The rollup of its tree (the clusters page's health) and why. */
  health?: Health;
  reason?: string;
  /** CAPZ fighting AKS over the version (capz-common `versionConflicts`): an upgrade would be fought too. */
  conflicts?: ReadonlyArray<{ message: string; fix: string }>;
}

/**
 * The version a cluster moves to, or why there is none. `offered` are the versions AKS offers in its region
 * (undefined: unknown, `offeredError` says why).
 * @public
 */
export function fleetTargetVersion(
  current: string,
  target: FleetUpgradeTarget,
  offered: readonly string[] | undefined,
  where: string,
  offeredError?: string,
): { version: string } | { problem: string } {
  if (target.kind === 'version') {
    if (!parseKubernetesVersion(target.version))
      return { problem: `"${target.version}" is not a version like v1.34.2` };
    return { version: withV(target.version) };
  }
  const cur = parseKubernetesVersion(current);
  if (!cur)
    return { problem: `its spec.version "${current}" is not a version` };
  if (!offered)
    return {
      problem: `the versions AKS offers in ${where} are not known${
        offeredError ? `: ${offeredError}` : ''
      }`,
    };
  const minor = `${cur[0]}.${cur[1] + 1}`;
  const next = nextControlPlaneVersions(current, offered).find(v => {
    const p = parseKubernetesVersion(v);
    return p && `${p[0]}.${p[1]}` === minor;
  });
  return next
    ? { version: next }
    : {
        problem: `AKS offers no ${minor} version in ${where} (it offers ${
          [...offered].sort(compareKubernetesVersions).join(', ') || 'none'
        })`,
      };
}

const problemWords = (ps: ReadonlyArray<{ message: string }>) =>
  ps.map(p => p.message);

/**
 * How a planned step is written: live (undefined: nothing blocks it), through Git (its words: every object a GitOps
 * controller applies is a Flux Kustomization's, and the backend proposes such changes as pull requests), or not at all
 * (false: another controller would put the change back; the plan's blockers say which).
 */
function throughGit(
  plan: { blockers?: string[]; appliedBy?: Day2AppliedBy[] },
  proposes: boolean | undefined,
): string | false | undefined {
  if (!plan.blockers?.length) return undefined;
  const blocking = (plan.appliedBy ?? []).filter(a => a.blocks);
  if (
    !proposes ||
    !blocking.length ||
    blocking.some(a => a.tool !== 'flux-kustomization')
  )
    return false;
  const by = [...new Set(blocking.map(a => a.appliedBy))].join(', ');
  return `${by} applies ${blocking.map(a => `${a.kind} ${a.name}`).join(', ')}`;
}

/**
 * A cluster's part of a fleet upgrade: refused when it is not healthy, when CAPZ fights AKS over its version, or when
 * the single-cluster upgrade refuses it; else the control plane's upgrade (when it is behind the target), then the
 * upgrade of its pools behind the target, each planned as the single-cluster upgrade plans it.
 * @public
 */
export function planFleetCluster(
  place: ClusterPlace,
  c: Day2Cluster,
  facts: FleetClusterFacts,
  target: FleetUpgradeTarget,
  ctx: Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'> & {
    /** The backend proposes a change Flux applies as a pull request (a Git delivery is configured for day 2). */
    throughGit?: boolean;
  },
): FleetClusterPlan<FleetUpgradeStep> {
  const refused = (
    problems: string[],
    versions: { from?: string; to?: string } = {},
  ): FleetClusterPlan<FleetUpgradeStep> => ({
    ...place,
    outcome: 'refused',
    ...versions,
    steps: [],
    problems,
  });
  if (!c.version)
    return refused([
      `cluster ${c.name} has no control plane with a spec.version to upgrade from`,
    ]);
  const from = withV(c.version);
  const problems: string[] = [];
  if (facts.health && facts.health !== 'healthy')
    problems.push(
      `it is ${facts.health}${
        facts.reason ? ` (${facts.reason})` : ''
      }: a run upgrades healthy clusters only, so that its health gate judges the upgrade and not what was there before`,
    );
  for (const conflict of facts.conflicts ?? [])
    problems.push(`${conflict.message} ${conflict.fix}`);
  const where = c.location ?? "the cluster's region";
  const chosen = fleetTargetVersion(
    from,
    target,
    ctx.offeredVersions,
    where,
    ctx.offeredVersionsError,
  );
  if ('problem' in chosen)
    return refused([...problems, chosen.problem], { from });
  const to = chosen.version;
  if (problems.length) return refused(problems, { from, to });

  const steps: FleetUpgradeStep[] = [];
  let after = c;
  if (compareKubernetesVersions(to, from) > 0) {
    // AKS refuses a control plane further ahead of a pool than its skew allows: such a pool must move first.
    const skews = poolSkews(
      to,
      c.pools.map(p => ({ name: p.name, version: p.version })),
    ).filter(k => k.behind > 0);
    if (skews.length)
      return refused(
        skews.map(
          k =>
            `pool ${k.pool} runs ${k.poolVersion}, ${k.behind} minor versions behind ${to}: more than AKS allows between a control plane and its pools; upgrade the pool first (one minor at a time), then run this cluster`,
        ),
        { from, to },
      );
    const cp = planDay2Action(
      c,
      { action: 'upgrade', version: to, target: 'controlPlane' },
      ctx,
    );
    if (!cp.ok) return refused(problemWords(cp.problems), { from, to });
    const git = throughGit(cp, ctx.throughGit);
    if (git === false) return refused(cp.blockers!, { from, to });
    steps.push({
      target: 'controlPlane',
      version: to,
      changes: cp.changes,
      warnings: cp.warnings,
      ...(cp.effects?.length ? { effects: cp.effects } : {}),
      ...(git ? { throughGit: git } : {}),
    });
    // The pools are planned as they will be met: after the control plane runs the target.
    after = { ...c, version: to, observedVersion: to };
  } else if (compareKubernetesVersions(to, from) < 0) {
    return refused(
      [
        `it runs ${from}, newer than the target ${to}: AKS cannot downgrade Kubernetes`,
      ],
      { from, to },
    );
  }
  const behind = c.pools
    .filter(p => p.version && compareKubernetesVersions(p.version, to) < 0)
    .map(p => p.name);
  if (behind.length) {
    const pools = planDay2Action(
      after,
      { action: 'upgrade', version: to, target: { pools: behind } },
      ctx,
    );
    if (!pools.ok) return refused(problemWords(pools.problems), { from, to });
    const git = throughGit(pools, ctx.throughGit);
    if (git === false) return refused(pools.blockers!, { from, to });
    steps.push({
      target: { pools: behind },
      version: to,
      changes: pools.changes,
      warnings: pools.warnings,
      ...(pools.effects?.length ? { effects: pools.effects } : {}),
      ...(git ? { throughGit: git } : {}),
    });
  }
  return {
    ...place,
    outcome: steps.length ? 'upgrade' : 'current',
    from,
    to,
    steps,
    problems: [],
  };
}

const placeKey = (p: ClusterPlace) =>
  `${p.managementCluster}/${p.namespace}/${p.name}`;

/**
 * Why a fleet run's spec cannot run, in the request's words: no stage, a stage without a name or clusters, a name
 * twice, a cluster in two stages (or twice in one), a concurrency below one. Empty when it can.
 * @public
 */
export function fleetRunSpecProblems(spec: FleetRunSpec): string[] {
  const out: string[] = [];
  if (!spec.stages.length) out.push('stages: a run needs at least one stage');
  const names = new Set<string>();
  const seen = new Map<string, string>();
  spec.stages.forEach((s, i) => {
    const at = `stages[${i}]`;
    if (!s.name.trim()) out.push(`${at}.name: a stage needs a name`);
    else if (names.has(s.name))
      out.push(`${at}.name: "${s.name}" names two stages`);
    names.add(s.name);
    if (!s.clusters.length)
      out.push(`${at}.clusters: stage "${s.name}" has no cluster`);
    for (const c of s.clusters) {
      const k = placeKey(c);
      const first = seen.get(k);
      if (first !== undefined)
        out.push(
          `${at}.clusters: ${k} is already in stage "${first}": a cluster is upgraded once per run`,
        );
      else seen.set(k, s.name);
    }
  });
  if (spec.concurrency !== undefined && !(spec.concurrency >= 1))
    out.push('concurrency: at least 1 cluster at a time');
  if (
    spec.target.kind === 'version' &&
    !parseKubernetesVersion(spec.target.version)
  )
    out.push(
      `target.version: "${spec.target.version}" is not a version like v1.34.2`,
    );
  if (spec.target.kind === 'migrate') {
    // Each migration creates its target namespace: two clusters cannot share one.
    const into = new Map<string, string>();
    const target = spec.target;
    if (target.targetNamespace !== undefined && !target.targetNamespace.trim())
      out.push(
        'target.targetNamespace: empty; leave it out for {namespace}-{name}',
      );
    else
      for (const c of spec.stages.flatMap(s => s.clusters)) {
        const name = fleetMigrationNamespace(target, c);
        // Checked here, before the preview reads the namespace by that name on the API server.
        const invalid = validateDnsLabel(name, 'target namespace');
        if (invalid) {
          out.push(`target.targetNamespace: for ${placeKey(c)}: ${invalid}`);
          continue;
        }
        const ns = `${c.managementCluster}/${name}`;
        const first = into.get(ns);
        if (first !== undefined && first !== placeKey(c))
          out.push(
            `target.targetNamespace: ${first} and ${placeKey(
              c,
            )} would both migrate into namespace ${ns
              .split('/')
              .pop()}; each migration creates its own (use {name} in it)`,
          );
        else into.set(ns, placeKey(c));
      }
  }
  return out;
}

/**
 * A legacy cluster's part of a migration wave, from the migration job's preview (its preflight and plan, read live as
 * the wizard reads them): refused with every failed check (and its fix) when the job would not start; `current` when
 * the cluster already runs the ASO API; else one job step.
 * @public
 */
export function planFleetMigration(
  place: ClusterPlace,
  api: 'aso' | 'legacy',
  request: JobRequest,
  preview: Pick<JobPreview, 'preflight' | 'plan'> | undefined,
): FleetClusterPlan {
  if (api === 'aso')
    return {
      ...place,
      outcome: 'current',
      steps: [],
      problems: [],
    };
  if (!preview) throw new Error('a legacy cluster needs its job preview');
  const failed = preview.preflight.filter(c => c.status === 'fail');
  if (failed.length)
    return {
      ...place,
      outcome: 'refused',
      steps: [],
      problems: failed.map(
        c => `${c.title}: ${c.message}${c.fix ? ` ${c.fix}` : ''}`,
      ),
    };
  const into =
    request.type === 'migrate' ? request.params.targetNamespace : undefined;
  return {
    ...place,
    outcome: 'upgrade',
    steps: [
      {
        kind: 'job',
        request,
        title: `migrate to the ASO API${into ? ` in namespace ${into}` : ''}`,
        plan: preview.plan.map(s => s.title),
        warnings: preview.preflight
          .filter(c => c.status === 'warn')
          .map(c => `${c.title}: ${c.message}${c.fix ? ` ${c.fix}` : ''}`),
      },
    ],
    problems: [],
  };
}

/** A fleet run's preview: each stage's clusters with their plan, and the counts. @public */
export type FleetRunPreview = {
  target: FleetRunTarget;
  concurrency: number;
  stages: Array<{ name: string; clusters: FleetClusterPlan[] }>;
  counts: { upgrade: number; current: number; refused: number };
};

/**
 * The preview of a run from each cluster's plan (`planOf`, {@link planFleetCluster} or a refusal of the backend's:
 * not found, not allowed), in the spec's order.
 * @public
 */
export function fleetRunPreview(
  spec: FleetRunSpec,
  planOf: (place: ClusterPlace) => FleetClusterPlan,
): FleetRunPreview {
  // Each cluster planned from its place alone; its group rides along.
  const counts = { upgrade: 0, current: 0, refused: 0 };
  const stages = spec.stages.map(s => ({
    name: s.name,
    clusters: s.clusters.map(({ group, ...place }) => {
      const plan = planOf(place);
      counts[plan.outcome] += 1;
      return group ? { ...plan, group } : plan;
    }),
  }));
  return {
    target: spec.target,
    concurrency: spec.concurrency ?? 1,
    stages,
    counts,
  };
}
