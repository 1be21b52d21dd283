import type {
  AuditorService,
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError, NotFoundError } from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  capzClusterAdoptPermission,
  capzClusterMigratePermission,
  type CredentialSecretsResponse,
  type JobDetails,
  type JobRequest,
  type JobType,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import Router from 'express-promise-router';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import type { ClusterClient } from '../jobs/ClusterClient';
import type { JobEngine } from '../jobs/JobEngine';
import { AksLister, bindPlanToJob, JobPlanner } from '../jobs/JobPlanner';
import {
  azureClaimKeys,
  previewAzureKey,
  requestAzureKey,
} from '../jobs/claims';
import {
  activeJobMessage,
  claimMessage,
  JobConflictError,
  StoredJob,
  JobStore,
} from '../jobs/JobStore';
import { describeLeftBehind } from '../jobs/leftBehind';
import { readFilter } from '../permissions/readAccess';

export interface JobsRouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  managementClusters: ManagementClusterConfig[];
  cache: Pick<WatchCache, 'list'>;
  store: JobStore;
  engine: JobEngine;
  planner: JobPlanner;
  client: (managementCluster: string) => Promise<ClusterClient>;
  aks?: AksLister;
}

const name = z.string().min(1).max(253);
const dnsLabel = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    'must be a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  )
  .max(63);
const jobRequest = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('adopt'),
    params: z
      .object({
        managementCluster: name,
        namespace: dnsLabel,
        credentialSecret: name,
        subscriptionId: z.string().min(1),
        resourceGroup: z.string().min(1).max(90),
        clusterName: z.string().min(1).max(63),
      })
      .strict(),
  }),
  z.object({
    type: z.literal('migrate'),
    params: z
      .object({
        managementCluster: name,
        namespace: dnsLabel,
        name,
        targetNamespace: dnsLabel,
      })
      .strict(),
  }),
  z.object({
    type: z.literal('upgrade-api-version'),
    params: z
      .object({ managementCluster: name, namespace: dnsLabel, name })
      .strict(),
  }),
]);

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0];
    throw new InputError(`${first.path.join('.') || 'body'}: ${first.message}`);
  }
  return r.data;
}

const permissionFor = (type: JobType) =>
  type === 'adopt' ? capzClusterAdoptPermission : capzClusterMigratePermission;

/** The target a request works on (for adoption: the cluster it will create). */
const targetOf = (r: JobRequest) =>
  r.type === 'adopt'
    ? {
        managementCluster: r.params.managementCluster,
        namespace: r.params.namespace,
        name: r.params.clusterName,
      }
    : {
        managementCluster: r.params.managementCluster,
        namespace: r.params.namespace,
        name: r.params.name,
      };

/**
 * The jobs API: preview (preflight + exact plan), start, list, read, pause/resume/cancel, and the adoption wizard's
 * look-ups (credential Secrets by name, AKS clusters through ARM). Every route authenticates; every mutation is
 * permission-checked (capz.cluster.adopt / capz.cluster.migrate) and audited.
 */
export async function createJobsRouter(
  o: JobsRouterOptions,
): Promise<express.Router> {
  const router = Router();
  router.use(express.json({ limit: '64kb' }));

  const credentials = (req: express.Request) =>
    o.httpAuth.credentials(req, { allow: ['user'] });

  /** The job permission, and read access to the target (a policy may limit management clusters and namespaces). */
  async function authorizeJob(
    req: express.Request,
    type: JobType,
    target: { managementCluster: string; namespace: string; name: string },
  ) {
    const creds = await credentials(req);
    const [decision] = await o.permissions.authorize(
      [{ permission: permissionFor(type) }],
      { credentials: creds },
    );
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError(
        `Not allowed to ${
          type === 'adopt'
            ? 'adopt clusters (capz.cluster.adopt)'
            : 'migrate clusters (capz.cluster.migrate)'
        }`,
      );
    }
    const allowed = await readFilter(o.permissions, creds);
    if (!allowed(target))
      throw new NotAllowedError(
        `Not allowed to read clusters in ${target.managementCluster}/${target.namespace}`,
      );
    return creds;
  }

  const details = async (job: StoredJob): Promise<JobDetails> => ({
    ...job,
    log: await o.store.readLog(job.id),
  });

  /** A 409 naming the job in the way (its id also as `jobId`, for the wizard's link). */
  const conflict = (
    req: express.Request,
    res: express.Response,
    message: string,
    jobId: string,
  ) =>
    res.status(409).json({
      error: { name: 'ConflictError', message },
      request: { method: req.method, url: req.originalUrl },
      response: { statusCode: 409 },
      jobId,
    });

  /** The job already holding a claim on the Azure resources this request will manage, if any (cheap: params, cache). */
  const claimHeld = async (request: JobRequest) => {
    const azure = requestAzureKey(request, o.cache);
    if (!azure) return undefined;
    const [held] = await o.store.claimHolders(azureClaimKeys(azure));
    return held;
  };

  router.post('/jobs/preview', async (req, res) => {
    const request = parse(jobRequest, req.body) as JobRequest;
    await authorizeJob(req, request.type, targetOf(request));
    const { result: _result, ...preview } = await o.planner.preview(request);
    const held = await claimHeld(request);
    if (held) {
      // Shown in the wizard before anything starts; POST /jobs refuses it with a 409 before any preflight.
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
    res.json(preview);
  });

  router.post('/jobs', async (req, res) => {
    const request = parse(jobRequest, req.body) as JobRequest;
    const target = targetOf(request);
    const creds = await authorizeJob(req, request.type, target);
    const audit = await o.auditor.createEvent({
      eventId: 'capz-job',
      severityLevel: 'high',
      request: req,
      meta: { action: 'create', type: request.type, target: { ...target } },
    });
    try {
      // The cluster's active job first: once it has changed the cluster, a preflight would fail for that reason.
      const active = (
        await o.store.list({ ...target, active: true, limit: 1 })
      )[0];
      if (active) {
        const message = activeJobMessage(target, active);
        await audit.fail({ error: new Error(message) });
        conflict(req, res, message, active.id);
        return;
      }
      // Then the Azure resources it will manage: another job (any namespace, any replica) may hold them already.
      const held = await claimHeld(request);
      if (held) {
        const message = claimMessage(held.key, held.job);
        await audit.fail({ error: new Error(message) });
        conflict(req, res, message, held.job.id);
        return;
      }
      const preview = await o.planner.preview(request);
      const failed = preview.preflight.filter(c => c.status === 'fail');
      if (failed.length) {
        await audit.fail({
          error: new InputError(
            `preflight failed: ${failed.map(c => c.id).join(', ')}`,
          ),
        });
        res.status(422).json({
          error: {
            name: 'PreflightFailedError',
            message: `Preflight failed: ${failed
              .map(c => `${c.title}: ${c.message}`)
              .join('; ')}`,
          },
          request: { method: req.method, url: req.originalUrl },
          response: { statusCode: 422 },
          preflight: preview.preflight,
        });
        return;
      }
      const id = randomUUID();
      const azure = previewAzureKey(request, preview);
      if ((request.type === 'adopt' || request.type === 'migrate') && !azure) {
        throw new InputError(
          `The preview of this ${request.type} job does not say which AKS cluster it will manage; refusing to start it`,
        );
      }
      // The unique active_key and the claims' primary key decide a race between two requests (on any replicas):
      // the loser gets the store's JobConflictError, and nothing of it is stored.
      let job: StoredJob;
      try {
        job = await o.store.insert({
          id,
          request,
          target: preview.target,
          plan: bindPlanToJob(preview.plan, id),
          createdBy: creds.principal.userEntityRef,
          result: preview.result,
          claims: azure ? azureClaimKeys(azure) : [],
        });
      } catch (e) {
        if (!(e instanceof JobConflictError)) throw e;
        // Both passed the early check at the same moment (two requests, maybe on two replicas): the database chose.
        o.logger.info(
          `job start on ${target.managementCluster}/${target.namespace}/${target.name} lost a race at the database to job ${e.jobId}`,
        );
        await audit.fail({ error: e });
        conflict(req, res, e.message, e.jobId);
        return;
      }
      await o.store.appendLog(id, [
        {
          level: 'info',
          message: `${request.type} job created by ${creds.principal.userEntityRef}`,
        },
      ]);
      await audit.success({ meta: { jobId: id } });
      o.engine.kick(id);
      res.status(201).json(await details(job));
    } catch (e) {
      await audit.fail({ error: e as Error });
      throw e;
    }
  });

  router.get('/jobs', async (req, res) => {
    const allowed = await readFilter(o.permissions, await credentials(req));
    const q = parse(
      z.object({
        managementCluster: z.string().optional(),
        namespace: z.string().optional(),
        name: z.string().optional(),
        active: z.enum(['true', 'false']).optional(),
      }),
      req.query,
    );
    const jobs = await o.store.list({ ...q, active: q.active === 'true' });
    res.json({
      items: jobs
        .filter(j => allowed(j.target))
        .map(({ plan: _plan, ...job }) => job),
    });
  });

  const readJob = async (req: express.Request) => {
    const allowed = await readFilter(o.permissions, await credentials(req));
    const job = await o.store.get(req.params.id);
    if (!allowed(job.target))
      throw new NotFoundError(`No job ${req.params.id}`);
    return job;
  };

  router.get('/jobs/:id', async (req, res) => {
    res.json(await details(await readJob(req)));
  });

  for (const action of ['pause', 'resume', 'cancel'] as const) {
    router.post(`/jobs/:id/${action}`, async (req, res) => {
      const job = await readJob(req);
      await authorizeJob(req, job.type, job.target);
      const audit = await o.auditor.createEvent({
        eventId: 'capz-job',
        severityLevel: 'high',
        request: req,
        meta: {
          action,
          jobId: job.id,
          type: job.type,
          target: { ...job.target },
        },
      });
      const changed =
        action === 'resume'
          ? await o.store.resume(job.id)
          : await o.store.request(job.id, action, describeLeftBehind);
      if (!changed) {
        await audit.fail({
          error: new Error(`cannot ${action} a ${job.state} job`),
        });
        res.status(409).json({
          error: {
            name: 'ConflictError',
            message: `Cannot ${action} job ${job.id}: it is ${job.state}`,
          },
          request: { method: req.method, url: req.originalUrl },
          response: { statusCode: 409 },
        });
        return;
      }
      await o.store.appendLog(job.id, [
        {
          level: 'info',
          message: `${action} requested by ${
            (
              await credentials(req)
            ).principal.userEntityRef
          }`,
        },
      ]);
      if (action === 'resume') o.engine.kick(job.id);
      else o.engine.interrupt(job.id, action);
      await audit.success();
      res.json(await details(changed));
    });
  }

  router.get('/credential-secrets', async (req, res) => {
    const q = parse(
      z.object({
        managementCluster: name,
        namespace: dnsLabel,
        name: name.optional(),
      }),
      req.query,
    );
    const allowed = await readFilter(o.permissions, await credentials(req));
    if (
      !allowed({
        managementCluster: q.managementCluster,
        namespace: q.namespace,
        name: '',
      })
    )
      throw new NotAllowedError(
        `Not allowed to read clusters in ${q.managementCluster}/${q.namespace}`,
      );
    if (!o.managementClusters.some(c => c.name === q.managementCluster))
      throw new NotFoundError(
        `No management cluster named "${q.managementCluster}"`,
      );
    // Candidates are the Secrets ASO objects already name, ASO's namespace default and a name the user typed; each is read live to see
    // that it exists. The backend never lists Secrets (that would hand it every value in the namespace).
    const names = new Set<string>([
      'aso-credential',
      ...(q.name ? [q.name] : []),
    ]);
    for (const kind of [
      'ManagedCluster',
      'ResourceGroup',
      'ManagedClustersAgentPool',
    ]) {
      for (const obj of o.cache.list(q.managementCluster, kind, q.namespace)) {
        const n = (
          obj as { metadata?: { annotations?: Record<string, string> } }
        ).metadata?.annotations?.['serviceoperator.azure.com/credential-from'];
        if (n) names.add(n);
      }
    }
    const client = await o.client(q.managementCluster);
    const items: CredentialSecretsResponse['items'] = [];
    for (const n of [...names].sort()) {
      const s = await client.get({
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: q.namespace,
        name: n,
      });
      if (!s) continue;
      const data = (s as { data?: Record<string, string> }).data ?? {};
      const decode = (k: string) =>
        data[k] ? Buffer.from(data[k], 'base64').toString('utf8') : undefined;
      items.push({
        namespace: q.namespace,
        name: n,
        subscriptionId: decode('AZURE_SUBSCRIPTION_ID'),
        authMode:
          decode('AUTH_MODE') ??
          (data.AZURE_CLIENT_SECRET ? 'secret' : undefined),
      });
    }
    res.json({ items });
  });

  router.get('/azure/clusters', async (req, res) => {
    const q = parse(
      z.object({
        managementCluster: name,
        namespace: dnsLabel,
        credentialSecret: name,
      }),
      req.query,
    );
    await authorizeJob(req, 'adopt', { ...q, name: '' });
    if (!o.aks)
      throw new InputError(
        'Azure discovery is not configured on this backend (capz.azureDiscovery)',
      );
    res.json(await o.aks.listClusters(q));
  });

  return router;
}
