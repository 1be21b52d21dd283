import type {
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError, NotFoundError } from '@backstage/errors';
import express from 'express';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { retryAfterHeader } from '../azure/errors';
import type { WatchCache } from '../cluster/WatchCache';
import { CLUSTER_KINDS, EVENT_KIND } from '../cluster/watchedKinds';
import { kubeConfigFor, loadClientNode } from '../cluster/kubeConfig';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { readFilter } from '../permissions/readAccess';
import type { ClusterOwnerOf } from '../permissions/rules';
import { capzOpenApiRouter } from './openApiRouter';

/** Where the pickers read Azure and the live namespaces from (plugin.ts hands them in; tests fake them). */
export interface PickerSources {
  /** Kubernetes versions and regions through ARM with an ASO credential Secret (capz.azureDiscovery). */
  azure?: Pick<AksDiscovery, 'listKubernetesVersions' | 'listLocations'>;
  /** The namespaces of a management cluster, listed live; default: the API server's namespace list. */
  listNamespaces?: (
    managementCluster: ManagementClusterConfig,
  ) => Promise<string[]>;
}

export interface PickersRouterOptions extends PickerSources {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  managementClusters: ManagementClusterConfig[];
  cache?: Pick<WatchCache, 'list'>;
  validateResponses?: boolean;
  /** The clusters' owners for a policy's IS_CLUSTER_OWNER condition. */
  ownerOf?: ClusterOwnerOf;
}

/** A cheap, curated list of general-purpose sizes (the full SKU list is per region and large). */
export const VM_SIZES = [
  { name: 'Standard_B2s', vCPUs: 2, memoryGiB: 4 },
  { name: 'Standard_D2s_v3', vCPUs: 2, memoryGiB: 8 },
  { name: 'Standard_D4s_v3', vCPUs: 4, memoryGiB: 16 },
  { name: 'Standard_D8s_v3', vCPUs: 8, memoryGiB: 32 },
  { name: 'Standard_D2s_v5', vCPUs: 2, memoryGiB: 8 },
  { name: 'Standard_D4s_v5', vCPUs: 4, memoryGiB: 16 },
  { name: 'Standard_D8s_v5', vCPUs: 8, memoryGiB: 32 },
  { name: 'Standard_D16s_v5', vCPUs: 16, memoryGiB: 64 },
  { name: 'Standard_E4s_v5', vCPUs: 4, memoryGiB: 32 },
  { name: 'Standard_E8s_v5', vCPUs: 8, memoryGiB: 64 },
  { name: 'Standard_F4s_v2', vCPUs: 4, memoryGiB: 8 },
];

/** The API server's namespace list, through the management cluster's configured credentials. */
async function liveNamespaces(c: ManagementClusterConfig): Promise<string[]> {
  const k8s = await loadClientNode();
  const api = (await kubeConfigFor(c, k8s)).makeApiClient(k8s.CoreV1Api);
  const list = await api.listNamespace();
  return list.items.map(n => n.metadata?.name ?? '').filter(Boolean);
}

const statusOf = (e: unknown) =>
  (e as { code?: unknown })?.code ??
  (e as { statusCode?: unknown })?.statusCode;

/**
 * The scaffolder form's pickers (read-only): namespaces of a management cluster, and, through ARM with an ASO
 * credential Secret, the regions of its subscription and the Kubernetes versions AKS offers in a region; plus a
 * curated VM size list. Every route authenticates and applies capz.cluster.read (conditional on management cluster
 * and namespace); nothing here writes.
 */
export async function createPickersRouter(
  o: PickersRouterOptions,
): Promise<express.Router> {
  const router = await capzOpenApiRouter({
    validateResponses: o.validateResponses,
  });
  const listNamespaces = o.listNamespaces ?? liveNamespaces;

  const allowedFilter = async (req: express.Request) =>
    readFilter(
      o.permissions,
      await o.httpAuth.credentials(req, { allow: ['user', 'service'] }),
      o.ownerOf,
    );
  const managementCluster = (name: string) => {
    const c = o.managementClusters.find(m => m.name === name);
    if (!c) throw new NotFoundError(`No management cluster named "${name}"`);
    return c;
  };
  /** The credential routes: may the caller read that namespace, and is Azure discovery on. */
  const credentialQuery = async (
    req: express.Request,
    q: {
      managementCluster: string;
      namespace: string;
      credentialSecret: string;
      subscriptionId?: string;
    },
  ) => {
    const allowed = await allowedFilter(req);
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
    managementCluster(q.managementCluster);
    if (!o.azure)
      throw new InputError(
        'Azure discovery is not configured on this backend (capz.azureDiscovery)',
      );
    return {
      managementCluster: q.managementCluster,
      namespace: q.namespace,
      credentialSecret: q.credentialSecret,
      ...(q.subscriptionId ? { subscriptionId: q.subscriptionId } : {}),
    };
  };

  router.get('/pickers/namespaces', async (req, res) => {
    const allowed = await allowedFilter(req);
    const c = managementCluster(req.query.managementCluster);
    let source: 'config' | 'live' | 'watch-cache';
    let names: string[];
    if (c.namespaces?.length) {
      source = 'config';
      names = [...c.namespaces];
    } else {
      try {
        names = await listNamespaces(c);
        source = 'live';
      } catch (e) {
        // Without `list` on namespaces (rbac/create.yaml grants it), the namespaces the watch cache has clusters' objects
        // or Events in; not Flux's namespaces for its Kustomizations and GitRepositories.
        o.logger.warn(
          `Cannot list the namespaces of ${c.name} (${
            statusOf(e) ?? (e as Error).message
          }); answering with the watch cache's`,
        );
        source = 'watch-cache';
        const seen = new Set<string>();
        for (const kind of [...CLUSTER_KINDS, EVENT_KIND])
          for (const obj of o.cache?.list(c.name, kind.name) ?? []) {
            const ns = (obj as { metadata?: { namespace?: string } }).metadata
              ?.namespace;
            if (ns) seen.add(ns);
          }
        names = [...seen];
      }
    }
    res.json({
      managementCluster: c.name,
      source,
      items: [...new Set(names)]
        .filter(n =>
          allowed({ managementCluster: c.name, namespace: n, name: '' }),
        )
        .sort()
        .map(name => ({ name })),
    });
  });

  // ARM's refusals of what the query names are 400 (a region) or 404 (a subscription the credential cannot see), in
  // the user's words with what ARM offers; 502 is ARM refusing the credential or failing; 503 with Retry-After is ARM
  // throttling (src/azure/errors.ts, docs/azure-facts.md#arm-error-classes, docs/azure-facts.md#arm-throttling).
  router.get('/pickers/regions', async (req, res) => {
    const q = await credentialQuery(req, req.query);
    res.json(await o.azure!.listLocations(q));
  });

  router.get('/pickers/kubernetes-versions', async (req, res) => {
    const q = await credentialQuery(req, req.query);
    res.json(
      await o.azure!.listKubernetesVersions({
        ...q,
        location: req.query.location,
      }),
    );
  });

  router.get('/pickers/vm-sizes', async (req, res) => {
    await allowedFilter(req);
    res.json({ items: VM_SIZES });
  });

  // After the routes: a 503 of ARM (throttling, unavailable) answers with `Retry-After`.
  router.use(retryAfterHeader());
  return router as unknown as express.Router;
}
