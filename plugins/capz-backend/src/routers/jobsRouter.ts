import type {
  AuditorService,
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import express from 'express';
import { retryAfterHeader } from '../azure/errors';
import {
  secretReader,
  type JobClient,
  type SecretReader,
} from '../cluster/clientViews';
import type { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import type { JobEngine } from '../jobs/JobEngine';
import type { AksLister, JobPlanner } from '../jobs/JobPlanner';
import { JobStarter } from '../jobs/JobStarter';
import type { JobStore } from '../jobs/JobStore';
import { capzOpenApiRouter } from './openApiRouter';
import type { ClusterOwnerOf } from '../permissions/rules';
import { JobsAccess } from './jobsAccess';
import { jobErrorBodies } from './jobsErrors';
import { JobsHandlers } from './jobsHandlers';

export interface JobsRouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  /** The clusters' owners for a policy's IS_CLUSTER_OWNER condition. */
  ownerOf?: ClusterOwnerOf;
  managementClusters: ManagementClusterConfig[];
  cache: Pick<WatchCache, 'list'>;
  store: JobStore;
  engine: JobEngine;
  planner: JobPlanner;
  /** How jobs start (the fleet runs' job steps share it); by default one over store, engine and planner. */
  starter?: JobStarter;
  client: (managementCluster: string) => Promise<JobClient>;
  /** The Secret lookup the plugin's ARM client uses too (plugin.ts); by default one over `client`. */
  readSecret?: SecretReader;
  aks?: AksLister;
}

/**
 * Adds the jobs API to a router validated against openapi.yaml (every route and body is described there): preview
 * (preflight + exact plan), start, list, read, pause/resume/cancel, and the adoption wizard's look-ups (credential
 * Secrets by name, AKS clusters through ARM). Last, `Retry-After` on ARM's 503s and the error bodies that name the job a
 * conflict is about.
 */
export function addJobRoutes(
  router: express.Router,
  o: JobsRouterOptions,
): void {
  const h = new JobsHandlers({
    ...o,
    starter: o.starter ?? new JobStarter(o),
    readSecret: o.readSecret ?? secretReader(o.client),
    access: new JobsAccess(o),
  });
  router.post('/jobs/preview', h.preview);
  router.post('/jobs', h.create);
  router.get('/jobs', h.list);
  router.get('/jobs/:id', h.get);
  router.post('/jobs/:id/pause', h.action('pause'));
  router.post('/jobs/:id/resume', h.action('resume'));
  router.post('/jobs/:id/cancel', h.action('cancel'));
  router.get('/credential-secrets', h.credentialSecrets);
  router.get('/azure/clusters', h.azureClusters);
  // A 503 of ARM (throttling, unavailable) answers with `Retry-After` (docs/azure-facts.md#arm-throttling).
  router.use(retryAfterHeader());
  router.use(jobErrorBodies());
}

/** The jobs API alone, on its own validated router (tests; the plugin serves it from createRouter). */
export async function createJobsRouter(
  o: JobsRouterOptions & { validateResponses?: boolean },
): Promise<express.Router> {
  const router = (await capzOpenApiRouter({
    middleware: [express.json({ limit: '64kb' })],
    validateResponses: o.validateResponses,
  })) as unknown as express.Router;
  addJobRoutes(router, o);
  return router;
}
