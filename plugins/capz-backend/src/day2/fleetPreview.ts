/**
 * A fleet upgrade's preview (POST /fleet-runs/preview): every cluster's part planned before anything starts, from the
 * watch cache, with the versions AKS offers read from ARM once per region and credential. The planning is
 * capz-common's (`planFleetCluster`, the single-cluster upgrade's planner); this module reads what it plans from.
 */
import { NotFoundError } from '@backstage/errors';
import {
  fleetMigrationNamespace,
  fleetRunPreview,
  planFleetCluster,
  planFleetMigration,
  type ClusterPlace,
  type Day2PlanContext,
  type FleetClusterFacts,
  type FleetClusterPlan,
  type FleetRunPreview,
  type FleetRunSpec,
  type JobPreview,
  type JobRequest,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { Day2Service } from './Day2Service';

const keyOf = (p: ClusterPlace) =>
  `${p.managementCluster}\u0000${p.namespace}\u0000${p.name}`;

export class FleetPreview {
  constructor(
    private readonly o: {
      day2: Pick<Day2Service, 'cachedUpgradeBasis' | 'cluster'>;
      /** The cluster's health and version conflicts, as the clusters page has them (the watch cache's views). */
      factsOf(p: ClusterPlace): FleetClusterFacts;
      /** A job's preflight and plan, as the wizard previews it (src/jobs JobStarter): a migration wave's parts. */
      previewJob?(
        request: JobRequest,
      ): Promise<Pick<JobPreview, 'preflight' | 'plan'>>;
    },
  ) {}

  /**
   * The run's preview. `mayUpgrade` is the caller's permission on each cluster (capz.cluster.upgrade, or
   * capz.cluster.migrate for a migration wave): a cluster it does not allow is refused in the same words as one that
   * does not exist (the answer tells nothing of clusters the caller may not act on). ARM throttling or unavailable
   * fails the whole preview (503), as for one cluster's upgrade options. A migration wave reads each legacy cluster's
   * preflight live, as the migration wizard does.
   */
  async preview(
    spec: FleetRunSpec,
    mayUpgrade: (p: ClusterPlace) => boolean,
  ): Promise<FleetRunPreview> {
    const memo = new Map<
      string,
      Promise<Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'>>
    >();
    const namespaces = new Map<string, ObservedObject[]>();
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
          const target = spec.target;
          if (!mayUpgrade(place)) {
            plans.set(
              keyOf(place),
              refused(
                place,
                target.kind === 'migrate'
                  ? `no cluster ${place.namespace}/${place.name} that you may migrate on management cluster ${place.managementCluster} (capz.cluster.migrate)`
                  : `no cluster ${place.namespace}/${place.name} that you may upgrade on management cluster ${place.managementCluster} (capz.cluster.upgrade)`,
              ),
            );
            return;
          }
          try {
            if (target.kind === 'migrate') {
              const { api } = this.o.day2.cluster(place);
              const request: JobRequest = {
                type: 'migrate',
                params: {
                  ...place,
                  targetNamespace: fleetMigrationNamespace(target, place),
                },
              };
              if (api === 'legacy' && !this.o.previewJob)
                throw new Error('migration waves need the jobs engine');
              plans.set(
                keyOf(place),
                planFleetMigration(
                  place,
                  api,
                  request,
                  api === 'legacy'
                    ? await this.o.previewJob!(request)
                    : undefined,
                ),
              );
              return;
            }
            const { cluster, ctx } = await this.o.day2.cachedUpgradeBasis(
              place,
              memo,
              namespaces,
            );
            plans.set(
              keyOf(place),
              planFleetCluster(
                place,
                cluster,
                this.o.factsOf(place),
                target,
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
