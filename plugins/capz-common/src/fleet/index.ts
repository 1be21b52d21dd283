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
// The run that executes a preview, stage by stage, as a pure state machine the backend keeps and advances.
export {
  advanceFleetRun,
  commandFleetRun,
  currentFleetStage,
  newFleetRun,
  recordFleetStepWrite,
  FLEET_STEP_TIMEOUT_SECONDS,
  type FleetClusterObservation,
  type FleetClusterState,
  type FleetRun,
  type FleetRunCluster,
  type FleetRunCommand,
  type FleetRunNotice,
  type FleetRunOptions,
  type FleetRunStage,
  type FleetRunState,
  type FleetStageState,
  type FleetStepStart,
} from './run';
