/**
 * A fleet upgrade's preview (POST /fleet-runs/preview): every cluster's part planned before anything starts, from the
 * watch cache, with the versions AKS offers read from ARM once per region and credential. The planning is
 * capz-common's (`planFleetCluster`, the single-cluster upgrade's planner); this module reads what it plans from.
 */
import { NotFoundError } from '@backstage/errors';
import {
  fleetRunPreview,
  planFleetCluster,
  type ClusterPlace,
  type Day2PlanContext,
  type FleetClusterFacts,
  type FleetClusterPlan,
  type FleetRunPreview,
  type FleetRunSpec,
} from '@capz-backstage/plugin-capz-common';
import type { Day2Service } from './Day2Service';

const keyOf = (p: ClusterPlace) =>
  `${p.managementCluster}\u0000${p.namespace}\u0000${p.name}`;

export class FleetPreview {
  constructor(
    private readonly o: {
      day2: Pick<Day2Service, 'cachedUpgradeBasis'>;
      /** The cluster's health and version conflicts, as the clusters page has them (the watch cache's views). */
      factsOf(p: ClusterPlace): FleetClusterFacts;
    },
  ) {}

  /**
   * The run's preview. `mayUpgrade` is the caller's capz.cluster.upgrade on each cluster: a cluster it does not allow
   * is refused in the same words as one that does not exist (the answer tells nothing of clusters the caller may not
   * act on). ARM throttling or unavailable fails the whole preview (503), as for one cluster's upgrade options.
   */
  async preview(
    spec: FleetRunSpec,
    mayUpgrade: (p: ClusterPlace) => boolean,
  ): Promise<FleetRunPreview> {
    const memo = new Map<
      string,
      Promise<Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'>>
    >();
    const plans = new Map<string, FleetClusterPlan>();
    const refused = (p: ClusterPlace, problem: string): FleetClusterPlan => ({
      ...p,
      outcome: 'refused',
      steps: [],
      problems: [problem],
    });
    await Promise.all(
      spec.stages
        .flatMap(s => s.clusters)
        .map(async p => {
          const place = {
            managementCluster: p.managementCluster,
            namespace: p.namespace,
            name: p.name,
          };
          if (!mayUpgrade(place)) {
            plans.set(
              keyOf(place),
              refused(
                place,
                `no cluster ${place.namespace}/${place.name} that you may upgrade on management cluster ${place.managementCluster} (capz.cluster.upgrade)`,
              ),
            );
            return;
          }
          try {
            const { cluster, ctx } = await this.o.day2.cachedUpgradeBasis(
              place,
              memo,
            );
            plans.set(
              keyOf(place),
              planFleetCluster(
                place,
                cluster,
                this.o.factsOf(place),
                spec.target,
                ctx,
              ),
            );
          } catch (e) {
            if (!(e instanceof NotFoundError)) throw e;
            plans.set(keyOf(place), refused(place, e.message));
          }
        }),
    );
    return fleetRunPreview(spec, p => plans.get(keyOf(p))!);
  }
}
