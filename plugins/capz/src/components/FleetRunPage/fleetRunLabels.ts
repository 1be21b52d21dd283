/** A fleet run's state and title in words, for its page and the list of runs. */
import type {
  FleetRun,
  FleetRunState,
} from '@capz-backstage/plugin-capz-common';
import {
  RiCheckboxCircleFill,
  RiCloseCircleFill,
  RiLoader4Line,
  RiPauseCircleLine,
  RiStopCircleLine,
} from '@remixicon/react';
import {
  INFO,
  MUTED,
  NEGATIVE,
  POSITIVE,
  WARNING,
  type Look,
} from '../JobPage/jobLabels';

export const RUN_STATE: Record<FleetRunState, Look> = {
  running: { label: 'Running', icon: RiLoader4Line, color: INFO },
  paused: { label: 'Paused', icon: RiPauseCircleLine, color: MUTED },
  stopping: {
    label: 'Stopping: the clusters being upgraded finish their part',
    icon: RiLoader4Line,
    color: WARNING,
  },
  succeeded: {
    label: 'Succeeded',
    icon: RiCheckboxCircleFill,
    color: POSITIVE,
  },
  failed: { label: 'Failed', icon: RiCloseCircleFill, color: NEGATIVE },
  cancelled: { label: 'Cancelled', icon: RiStopCircleLine, color: MUTED },
};

/** "Fleet upgrade to the next minor: 6 clusters in 2 stages". */
export function fleetRunTitle(run: FleetRun): string {
  const clusters = run.stages.flatMap(s => s.clusters).length;
  if (run.target.kind === 'migrate')
    return `Fleet migration to the ASO API: ${clusters} cluster${
      clusters === 1 ? '' : 's'
    } in ${run.stages.length} stage${run.stages.length === 1 ? '' : 's'}`;
  const target =
    run.target.kind === 'version' ? run.target.version : 'the next minor';
  return `Fleet upgrade to ${target}: ${clusters} cluster${
    clusters === 1 ? '' : 's'
  } in ${run.stages.length} stage${run.stages.length === 1 ? '' : 's'}`;
}

/** What the run does to a cluster, as a verb: "upgraded" / "upgrading", or "migrated" / "migrating". */
export function fleetRunVerbs(run: FleetRun): { done: string; doing: string } {
  return run.target.kind === 'migrate'
    ? { done: 'migrated', doing: 'migrating' }
    : { done: 'upgraded', doing: 'upgrading' };
}
