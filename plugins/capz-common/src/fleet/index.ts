// A fleet upgrade's preview: every cluster's part planned as the single-cluster upgrade plans it (issue: fleets).
export {
  fleetRunPreview,
  fleetRunSpecProblems,
  fleetTargetVersion,
  planFleetCluster,
  type FleetClusterFacts,
  type FleetClusterPlan,
  type FleetRunPreview,
  type FleetRunSpec,
  type FleetStageSpec,
  type FleetUpgradeStep,
  type FleetUpgradeTarget,
} from './plan';
