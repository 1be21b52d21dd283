/**
 * The GitOps guard of a day-2 plan: who applies each object the writes change, and the blockers. A write to an
 * object Flux or Argo CD applies is refused (the controller would put it back, or re-create a deleted object, at its
 * next run); one to an object a plain Helm release installed is a warning (nothing reconciles it); a new object in a
 * GitOps-applied cluster is a warning (it is not in Git).
 */
import {
  appliedBy,
  clusterAppliedBy,
  describeAppliedBy,
  gitOpsRefusal,
  helmWarning,
} from '../../objects/appliedBy';
import type { ObservedObject } from '../../objects/types';
import type { Day2Cluster } from '../snapshot';
import type { Day2AppliedBy, Day2PlanResult, Day2Target } from './types';

/** The cluster's objects a plan may write, Cluster first. */
function objectsOf(c: Day2Cluster): ObservedObject[] {
  return [
    c.cluster,
    c.controlPlane,
    c.infraCluster,
    ...c.pools.flatMap(p => [p.machinePool, p.infra]),
  ].filter((o): o is ObservedObject => !!o);
}

const same = (o: ObservedObject, t: { kind: string; name: string }) =>
  o.kind === t.kind && o.metadata?.name === t.name;

/** The plan with who applies what it changes, the blockers, and the warnings of Helm-installed or new objects. */
export function withGitOps(
  c: Day2Cluster,
  result: Extract<Day2PlanResult, { ok: true }>,
): Extract<Day2PlanResult, { ok: true }> {
  const objects = objectsOf(c);
  const applied: Day2AppliedBy[] = [];
  const blockers: string[] = [];
  const warnings: string[] = [];
  let created = false;
  for (const w of result.writes) {
    if (w.type === 'apply' && w.create) {
      created = true;
      continue;
    }
    const t: Day2Target =
      w.type === 'apply'
        ? {
            apiVersion: w.object.apiVersion,
            kind: w.object.kind,
            namespace: w.object.metadata.namespace ?? c.namespace,
            name: w.object.metadata.name,
          }
        : w.target;
    const live = objects.find(o => same(o, t));
    const a = appliedBy(live, { deleting: w.type === 'delete' });
    if (!a) continue;
    applied.push({
      kind: t.kind,
      namespace: t.namespace,
      name: t.name,
      appliedBy: describeAppliedBy(a),
      tool: a.tool,
      blocks: a.reconciles,
    });
    if (!a.reconciles) {
      warnings.push(helmWarning(a, t));
      continue;
    }
    const change = result.changes.find(
      x => x.kind === t.kind && x.name === t.name,
    );
    blockers.push(
      gitOpsRefusal(a, t, {
        operation: w.type === 'delete' ? 'delete' : 'update',
        paths: change?.fields.map(f => f.path),
      }),
    );
  }
  if (created) {
    const cluster = clusterAppliedBy(objects);
    if (cluster?.appliedBy.reconciles)
      warnings.push(
        `${describeAppliedBy(cluster.appliedBy)} applies cluster ${c.name}'s ${
          cluster.object.kind
        } ${
          cluster.object.metadata?.name
        }: the new objects are written live, not in Git; add them to Git too.`,
      );
  }
  if (!applied.length && !warnings.length) return result;
  return {
    ...result,
    warnings: [...result.warnings, ...warnings],
    ...(applied.length ? { appliedBy: applied } : {}),
    ...(blockers.length ? { blockers } : {}),
  };
}
