import {
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError, NotFoundError } from '@backstage/errors';
import {
  ClustersResponse,
  ManagementClustersResponse,
} from '@internal/plugin-capz-common';
import express from 'express';
import Router from 'express-promise-router';
import { ConnectionMonitor } from '../cluster/ConnectionMonitor';
import { WatchCache } from '../cluster/WatchCache';
import { ClusterViews } from './clusterViews';
import { ManagementClusterConfig, toPublicInfo } from '../config/managementClusters';
import { readFilter } from '../permissions/readAccess';

export interface RouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  managementClusters: ManagementClusterConfig[];
  connections: ConnectionMonitor;
  cache?: WatchCache;
}

export async function createRouter(options: RouterOptions): Promise<express.Router> {
  const { httpAuth, permissions, managementClusters, connections, cache } = options;
  const router = Router();
  router.use(express.json());

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Every read route authenticates and asks for the read permission first; a conditional decision (by management
  // cluster and namespace) comes back as a filter applied to what the route returns.
  const authorizeRead = async (req: express.Request) =>
    readFilter(permissions, await httpAuth.credentials(req, { allow: ['user', 'service'] }));

  router.get('/management-clusters', async (req, res) => {
    await authorizeRead(req);
    const body: ManagementClustersResponse = {
      items: managementClusters.map(c => ({
        ...toPublicInfo(c),
        status: connections.status(c.name),
        ...(cache ? { watch: cache.status(c.name) } : {}),
      })),
    };
    res.json(body);
  });

  const views = cache ? new ClusterViews(cache, managementClusters.map(c => c.name)) : undefined;
  const DNS_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

  router.get('/clusters', async (req, res) => {
    const allowed = await authorizeRead(req);
    const body: ClustersResponse = { items: (views?.list() ?? []).filter(allowed) };
    res.json(body);
  });

  router.get('/clusters/:managementCluster/:namespace/:name/tree', async (req, res) => {
    const allowed = await authorizeRead(req);
    const { managementCluster, namespace, name } = req.params;
    for (const [label, value] of Object.entries({ managementCluster, namespace, name })) {
      if (!DNS_NAME.test(value)) throw new InputError(`${label} "${value}" is not a valid Kubernetes name`);
    }
    if (!allowed({ managementCluster, namespace, name })) {
      throw new NotAllowedError(`Not allowed to read clusters in ${managementCluster}/${namespace}`);
    }
    const group = req.query.group === undefined ? 3 : Number(req.query.group);
    if (!Number.isInteger(group) || group < 0) throw new InputError('group must be a whole number >= 0 (0 turns grouping off)');
    if (!views) throw new NotFoundError('The watch cache is not running');
    res.json(views.tree(managementCluster, namespace, name, group));
  });

  return router;
}
