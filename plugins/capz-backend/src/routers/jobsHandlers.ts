import { InputError, NotFoundError } from '@backstage/errors';
import {
  CREDENTIAL_FROM_ANNOTATION,
  gitopsResumeOnCancel,
  jobTargetOf,
  type CredentialSecretsResponse,
  type JobDetails,
  type JobRequest,
  type ClusterPlace,
} from '@capz-backstage/plugin-capz-common';
import type express from 'express';
import type { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { JobConflictError } from '../jobs/conflicts';
import type { JobEngine } from '../jobs/JobEngine';
import type { AksLister } from '../jobs/JobPlanner';
import type { JobStarter } from '../jobs/JobStarter';
import type { JobStore, StoredJob } from '../jobs/JobStore';
import { describeLeftBehind } from '../jobs/leftBehind';
import type { SecretReader } from '../cluster/clientViews';
import { refusalMessage } from '../jobs/transitions';
import type { JobsAccess } from './jobsAccess';

/** What the handlers work with. */
export interface JobsHandlersDeps {
  logger: { info(message: string): void };
  managementClusters: ManagementClusterConfig[];
  cache: Pick<WatchCache, 'list'>;
  store: JobStore;
  engine: Pick<JobEngine, 'kick' | 'interrupt'>;
  starter: Pick<JobStarter, 'preview' | 'start'>;
  readSecret: SecretReader;
  aks?: AksLister;
  access: JobsAccess;
}

type Handler = (req: express.Request, res: express.Response) => Promise<void>;

/**
 * The jobs API's handlers. Input is already validated against openapi.yaml; who may do what is {@link JobsAccess}'s;
 * a refusal caused by a job is a {@link JobConflictError} naming it, a failed preflight a PreflightFailedError (both
 * thrown by {@link JobStarter}, answered by jobErrorBodies).
 */
export class JobsHandlers {
  constructor(private readonly o: JobsHandlersDeps) {}

  /** POST /jobs/preview: preflight + exact plan; a held claim shows as a failed check. */
  preview: Handler = async (req, res) => {
    const request = req.body as JobRequest;
    await this.o.access.authorizeJob(req, request.type, jobTargetOf(request));
    const { result: _result, ...preview } = await this.o.starter.preview(
      request,
    );
    res.json(preview);
  };

  /** POST /jobs: the checks in order (active job, claims, preflight), then the insert the database arbitrates. */
  create: Handler = async (req, res) => {
    const request = req.body as JobRequest;
    const target = jobTargetOf(request);
    const creds = await this.o.access.authorizeJob(req, request.type, target);
    let job: StoredJob | undefined;
    await this.o.access.audited(
      req,
      { action: 'create', type: request.type, target: { ...target } },
      async () => {
        job = await this.o.starter.start(
          request,
          creds.principal.userEntityRef,
        );
        return { jobId: job.id };
      },
    );
    res.status(201).json(await this.details(job!));
  };

  /** GET /jobs: newest first, only what the caller may read, without plans. */
  list: Handler = async (req, res) => {
    const allowed = await this.o.access.readable(req);
    const q = req.query as Partial<ClusterPlace> & {
      active?: 'true' | 'false';
    };
    const jobs = await this.o.store.list({
      managementCluster: q.managementCluster,
      namespace: q.namespace,
      name: q.name,
      active: q.active === 'true',
    });
    res.json({
      items: jobs
        .filter(j => allowed(j.target))
        .map(({ plan: _plan, ...job }) => job),
    });
  };

  /** GET /jobs/:id */
  get: Handler = async (req, res) => {
    res.json(await this.details(await this.readJob(req)));
  };

  /** POST /jobs/:id/pause, /resume, /cancel: a 409 naming the job when its state does not allow it. */
  action =
    (action: 'pause' | 'resume' | 'cancel'): Handler =>
    async (req, res) => {
      const job = await this.readJob(req);
      const creds = await this.o.access.authorizeJob(req, job.type, job.target);
      let changed: StoredJob | undefined;
      await this.o.access.audited(
        req,
        { action, jobId: job.id, type: job.type, target: { ...job.target } },
        async () => {
          changed =
            action === 'resume'
              ? await this.o.store.resume(job.id)
              : await this.o.store.request(
                  job.id,
                  action,
                  describeLeftBehind,
                  j => !!gitopsResumeOnCancel(j),
                );
          if (!changed)
            throw new JobConflictError(refusalMessage(action, job), job.id);
          await this.o.store.appendLog(job.id, [
            {
              level: 'info',
              message: `${action} requested by ${creds.principal.userEntityRef}`,
            },
          ]);
          if (action !== 'resume') this.o.engine.interrupt(job.id, action);
          // A resume, or a cancel queued for a runner (it still writes: gitopsResumeOnCancel), runs here now.
          if (action === 'resume' || changed!.state === 'queued')
            this.o.engine.kick(job.id);
        },
      );
      res.json(await this.details(changed!));
    };

  /**
   * GET /credential-secrets: candidates are the Secrets ASO objects already name, ASO's namespace default and a name
   * the user typed; each is read live to see that it exists. The backend never lists Secrets (that would hand it
   * every value in the namespace), and answers with names and non-secret facts only.
   */
  credentialSecrets: Handler = async (req, res) => {
    const q = req.query as {
      managementCluster: string;
      namespace: string;
      name?: string;
    };
    await this.o.access.authorizeNamespace(
      req,
      q.managementCluster,
      q.namespace,
    );
    if (!this.o.managementClusters.some(c => c.name === q.managementCluster))
      throw new NotFoundError(
        `No management cluster named "${q.managementCluster}"`,
      );
    const names = new Set<string>([
      'aso-credential',
      ...(q.name ? [q.name] : []),
    ]);
    for (const kind of [
      'ManagedCluster',
      'ResourceGroup',
      'ManagedClustersAgentPool',
    ]) {
      for (const obj of this.o.cache.list(
        q.managementCluster,
        kind,
        q.namespace,
      )) {
        const n = (
          obj as { metadata?: { annotations?: Record<string, string> } }
        ).metadata?.annotations?.[CREDENTIAL_FROM_ANNOTATION];
        if (n) names.add(n);
      }
    }
    const items: CredentialSecretsResponse['items'] = [];
    for (const n of [...names].sort()) {
      const data = await this.o.readSecret(q.managementCluster, q.namespace, n);
      if (!data) continue;
      items.push({
        namespace: q.namespace,
        name: n,
        subscriptionId: data.AZURE_SUBSCRIPTION_ID || undefined,
        authMode:
          data.AUTH_MODE || (data.AZURE_CLIENT_SECRET ? 'secret' : undefined),
      });
    }
    res.json({ items });
  };

  /** GET /azure/clusters: what the credential can see, through ARM (needs capz.cluster.adopt). */
  azureClusters: Handler = async (req, res) => {
    const q = req.query as {
      managementCluster: string;
      namespace: string;
      credentialSecret: string;
    };
    await this.o.access.authorizeJob(req, 'adopt', { ...q, name: '' });
    if (!this.o.aks)
      throw new InputError(
        'Azure discovery is not configured on this backend (capz.azureDiscovery)',
      );
    res.json(await this.o.aks.listClusters(q));
  };

  /** A job the caller may read; a 404 (not a 403) otherwise, so that ids of others' jobs are not confirmed. */
  private async readJob(req: express.Request): Promise<StoredJob> {
    const allowed = await this.o.access.readable(req);
    const job = await this.o.store.get(req.params.id);
    if (!allowed(job.target))
      throw new NotFoundError(`No job ${req.params.id}`);
    return job;
  }

  private async details(job: StoredJob): Promise<JobDetails> {
    return { ...job, log: await this.o.store.readLog(job.id) };
  }
}
