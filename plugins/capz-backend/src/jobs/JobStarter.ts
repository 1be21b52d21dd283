/**
 * Starting a job, for the jobs API (POST /jobs) and for a fleet run's job steps alike: the checks in order (the
 * cluster's active job, the Azure claims, the preflight), then the insert the database arbitrates, then the engine's
 * kick. Who may start it and the audit stay with the caller.
 */
import { InputError } from '@backstage/errors';
import {
  jobTargetOf,
  type ClusterPlace,
  type JobPlanResult,
  type JobRequest,
} from '@capz-backstage/plugin-capz-common';
import { randomUUID } from 'node:crypto';
import type { WatchCache } from '../cluster/WatchCache';
import { azureClaimKeys, previewAzureKey, requestAzureKey } from './claims';
import {
  activeJobMessage,
  claimMessage,
  JobConflictError,
  PreflightFailedError,
} from './conflicts';
import type { JobEngine } from './JobEngine';
import { bindPlanToJob, type JobPlanner } from './JobPlanner';
import type { JobStore, StoredJob } from './JobStore';

export interface JobStarterDeps {
  logger: { info(message: string): void };
  cache: Pick<WatchCache, 'list'>;
  store: JobStore;
  engine: Pick<JobEngine, 'kick'>;
  planner: Pick<JobPlanner, 'preview'>;
}

export class JobStarter {
  constructor(private readonly o: JobStarterDeps) {}

  /** Preflight and exact plan; an Azure claim another job holds shows as a failed check first. */
  async preview(request: JobRequest): Promise<JobPlanResult> {
    const preview = await this.o.planner.preview(request);
    const held = await this.claimHeld(request);
    if (held) {
      // Shown before anything starts; start() refuses it with a 409 before any preflight.
      preview.preflight = [
        {
          id: 'no-other-job',
          title: 'No other job adopts or migrates this AKS cluster',
          status: 'fail',
          message: claimMessage(held.key, held.job),
          fix: `Open job ${held.job.id}; start this one once it has finished or been cancelled.`,
        },
        ...preview.preflight,
      ];
    }
    return preview;
  }

  /**
   * Starts the job: a {@link JobConflictError} naming the job in the way, a {@link PreflightFailedError} with every
   * check, or the stored job, kicked. `id` makes the start idempotent for a caller that may ask twice (a fleet run
   * after a crash): the second insert meets the first as the cluster's active job.
   */
  async start(
    request: JobRequest,
    createdBy: string,
    id: string = randomUUID(),
  ): Promise<StoredJob> {
    const target = jobTargetOf(request);
    await this.refuseIfTaken(request, target);
    const preview = await this.o.planner.preview(request);
    if (preview.preflight.some(c => c.status === 'fail'))
      throw new PreflightFailedError(preview.preflight);
    const azure = previewAzureKey(request, preview);
    if ((request.type === 'adopt' || request.type === 'migrate') && !azure) {
      throw new InputError(
        `The preview of this ${request.type} job does not say which AKS cluster it will manage; refusing to start it`,
      );
    }
    const job = await this.insert(target, {
      id,
      request,
      target: preview.target,
      plan: bindPlanToJob(preview.plan, id),
      createdBy,
      result: preview.result,
      claims: azure ? azureClaimKeys(azure) : [],
    });
    await this.o.store.appendLog(id, [
      {
        level: 'info',
        message: `${request.type} job created by ${createdBy}`,
      },
    ]);
    this.o.engine.kick(job.id);
    return job;
  }

  /**
   * The cluster's active job first (once it has changed the cluster, a preflight would fail for that reason), then
   * the Azure resources the request will manage: another job (any namespace, any replica) may hold them already.
   */
  private async refuseIfTaken(
    request: JobRequest,
    target: ClusterPlace,
  ): Promise<void> {
    const [active] = await this.o.store.list({
      ...target,
      active: true,
      limit: 1,
    });
    if (active)
      throw new JobConflictError(activeJobMessage(target, active), active.id);
    const held = await this.claimHeld(request);
    if (held)
      throw new JobConflictError(claimMessage(held.key, held.job), held.job.id);
  }

  /**
   * The unique active_key and the claims' primary key decide a race between two requests (on any replicas): the
   * loser gets the store's JobConflictError, and nothing of it is stored.
   */
  private async insert(
    target: ClusterPlace,
    job: Parameters<JobStore['insert']>[0],
  ): Promise<StoredJob> {
    try {
      return await this.o.store.insert(job);
    } catch (e) {
      if (e instanceof JobConflictError)
        // Both passed the early check at the same moment (two requests, maybe on two replicas): the database chose.
        this.o.logger.info(
          `job start on ${target.managementCluster}/${target.namespace}/${target.name} lost a race at the database to job ${e.jobId}`,
        );
      throw e;
    }
  }

  /** The job already holding a claim on the Azure resources this request will manage, if any (cheap: params, cache). */
  private async claimHeld(request: JobRequest) {
    const azure = requestAzureKey(request, this.o.cache);
    if (!azure) return undefined;
    const [held] = await this.o.store.claimHolders(azureClaimKeys(azure));
    return held;
  }
}
