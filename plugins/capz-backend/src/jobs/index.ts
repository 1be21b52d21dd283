import type {
  DatabaseService,
  LoggerService,
} from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import type { SignalsService } from '@backstage/plugin-signals-node';
import {
  CAPZ_JOBS_SIGNAL_CHANNEL,
  type CapzJobSignal,
  type Job,
} from '@capz-backstage/plugin-capz-common';
import type { AksDiscovery } from '../azure/AksDiscovery';
import type { JobClient } from '../cluster/clientViews';
import type { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { faultHookFromEnv } from './faults';
import type { JobGit } from './gitSteps';
import { JobEngine } from './JobEngine';
import { JobPlanner } from './JobPlanner';
import { DatabaseJobStore } from './DatabaseJobStore';
import { JobStarter } from './JobStarter';
import type { JobStore } from './JobStore';
import type { ChangeWaker } from './StepRunner';

export { JobEngine } from './JobEngine';
export type { JobGit } from './gitSteps';
export type { JobStore, StoredJob } from './JobStore';
export { DatabaseJobStore } from './DatabaseJobStore';
export { JobPlanner } from './JobPlanner';
export { JobStarter } from './JobStarter';

/**
 * The job engine with its store, planner and edges (docs/architecture.md#flow-jobs). Config `capz.jobs.leaseSeconds`
 * (default 30) bounds how long a crashed replica's job waits before another replica resumes it.
 */
export async function createJobs(o: {
  config: Config;
  logger: LoggerService;
  database: DatabaseService;
  managementClusters: ManagementClusterConfig[];
  cache: WatchCache;
  /** The jobs' view of each management cluster's client (cluster/clientViews.ts). */
  client: (managementCluster: string) => Promise<JobClient>;
  /** The ARM client, shared with the plugin's other consumers. */
  aks: AksDiscovery;
  signals?: SignalsService;
  /** The Git edge for jobs in Git mode; absent when the backend proposes nothing to Git. */
  git?: JobGit;
  /** Told once when a run moves a job to another state (the owners' notifications). */
  onStateChange?: (job: Job) => void;
}) {
  const store: JobStore = await DatabaseJobStore.create({
    database: o.database,
  });
  const client = o.client;
  // A wait re-checks when the watch cache reports any change on the job's management cluster.
  const waker =
    (managementCluster: string): ChangeWaker =>
    onChange => {
      const listener = (change: { managementCluster: string }) => {
        if (change.managementCluster === managementCluster) onChange();
      };
      o.cache.on('change', listener);
      return () => o.cache.off('change', listener);
    };
  const leaseSeconds =
    o.config.getOptionalNumber('capz.jobs.leaseSeconds') ?? 30;
  const engine = new JobEngine({
    store,
    logger: o.logger,
    client,
    waker,
    azure: o.aks,
    git: o.git,
    leaseMs: leaseSeconds * 1000,
    faults: faultHookFromEnv(),
    onStateChange: o.onStateChange,
    // The one-owner check reads every configured management cluster, live.
    clusters: async () =>
      Promise.all(
        o.managementClusters.map(async m => ({
          name: m.name,
          client: await client(m.name),
        })),
      ),
    notify: job => {
      const message: CapzJobSignal = {
        jobId: job.id,
        state: job.state,
        ...(job.currentStep ? { currentStep: job.currentStep } : {}),
      };
      o.signals
        ?.publish({
          recipients: { type: 'broadcast' },
          channel: CAPZ_JOBS_SIGNAL_CHANNEL,
          message: { ...message },
        })
        .catch(e =>
          o.logger.warn(
            `could not publish a job signal: ${(e as Error).message}`,
          ),
        );
    },
  });
  const planner = new JobPlanner({
    managementClusters: o.managementClusters,
    cache: o.cache,
    client,
    aks: o.aks,
  });
  // How jobs start: the jobs API and a fleet run's job steps (a migration wave) alike.
  const starter = new JobStarter({
    logger: o.logger,
    cache: o.cache,
    store,
    engine,
    planner,
  });
  return { store, engine, planner, starter };
}
