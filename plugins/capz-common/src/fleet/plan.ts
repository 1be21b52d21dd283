/**
 * A fleet upgrade's preview: every cluster's part planned before anything starts, from what the backend holds (the
 * watch cache and the versions AKS offers per region), with the same planner as the single-cluster upgrade
 * (`planDay2Action`): the control plane to the target, then its pools to it. Pure and deterministic.
 */
import type { ClusterPlace } from '../api';
import type { ObjectChange } from '../day2/api';
import type { Day2UpgradeTarget } from '../day2/api';
import { planDay2Action } from '../day2/plan';
import type { Day2PlanContext } from '../day2/plan/types';
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

/** One stage of a fleet run: its clusters, upgraded after the stages before it. @public */
export interface FleetStageSpec {
  name: string;
  clusters: ClusterPlace[];
}

/** What a fleet upgrade is asked to do. @public */
export interface FleetRunSpec {
  target: FleetUpgradeTarget;
  /** In order: a stage starts once the one before it has passed its gate. */
  stages: FleetStageSpec[];
  /** Clusters of a stage upgraded at the same time (default 1). */
  concurrency?: number;
}

/** One upgrade of a cluster's part, as the single-cluster upgrade plans it. @public */
export type FleetUpgradeStep = {
  target: Day2UpgradeTarget;
  version: string;
  changes: ObjectChange[];
  warnings: string[];
  /** What Azure does, in Azure's words. */
  effects?: string[];
};

/** A cluster's part of a fleet run. @public */
export type FleetClusterPlan = ClusterPlace & {
  /**
   * `upgrade`: its steps run in its stage; `current`: it already runs the target, control plane and pools;
   * `refused`: it is left out of the run, for `problems`.
   */
  outcome: 'upgrade' | 'current' | 'refused';
  /** The control plane's version now (`spec.version`). */
  from?: string;
  /** The version it moves to. */
  to?: string;
  steps: FleetUpgradeStep[];
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
  ctx: Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'>,
): FleetClusterPlan {
  const refused = (
    problems: string[],
    versions: { from?: string; to?: string } = {},
  ): FleetClusterPlan => ({
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
    if (cp.blockers?.length) return refused(cp.blockers, { from, to });
    steps.push({
      target: 'controlPlane',
      version: to,
      changes: cp.changes,
      warnings: cp.warnings,
      ...(cp.effects?.length ? { effects: cp.effects } : {}),
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
    if (pools.blockers?.length) return refused(pools.blockers, { from, to });
    steps.push({
      target: { pools: behind },
      version: to,
      changes: pools.changes,
      warnings: pools.warnings,
      ...(pools.effects?.length ? { effects: pools.effects } : {}),
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
  return out;
}

/** A fleet run's preview: each stage's clusters with their plan, and the counts. @public */
export type FleetRunPreview = {
  target: FleetUpgradeTarget;
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
  const counts = { upgrade: 0, current: 0, refused: 0 };
  const stages = spec.stages.map(s => ({
    name: s.name,
    clusters: s.clusters.map(place => {
      const plan = planOf(place);
      counts[plan.outcome] += 1;
      return plan;
    }),
  }));
  return {
    target: spec.target,
    concurrency: spec.concurrency ?? 1,
    stages,
    counts,
  };
}
