import {
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  capzClusterReadPermission,
  ClustersResponse,
  ManagementClustersResponse,
} from '@internal/plugin-capz-common';
import express from 'express';
import Router from 'express-promise-router';
import { ConnectionMonitor } from '../cluster/ConnectionMonitor';
import { WatchCache } from '../cluster/WatchCache';
import { ManagementClusterConfig, toPublicInfo } from '../config/managementClusters';

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

  // Every read route authenticates and checks the read permission first.
  const authorizeRead = async (req: express.Request) => {
    const credentials = await httpAuth.credentials(req, { allow: ['user', 'service'] });
    const [decision] = await permissions.authorize(
      [{ permission: capzClusterReadPermission }],
      { credentials },
    );
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError('Not allowed to read CAPZ clusters');
    }
  };

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

  // The clusters list is served from the watch cache, which the read-path issue adds; until then it is empty.
  router.get('/clusters', async (req, res) => {
    await authorizeRead(req);
    const body: ClustersResponse = { items: [] };
    res.json(body);
  });

  return router;
}
