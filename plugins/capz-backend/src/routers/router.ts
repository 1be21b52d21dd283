import {
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError, NotFoundError } from '@backstage/errors';
import express from 'express';
import { ConnectionMonitor } from '../cluster/ConnectionMonitor';
import { WatchCache } from '../cluster/WatchCache';
import {
  ManagementClusterConfig,
  toPublicInfo,
} from '../config/managementClusters';
import type { HistoryStore } from '../history';
import { readFilter } from '../permissions/readAccess';
import type { ClusterOwnerOf } from '../permissions/rules';
import { capzOpenApiRouter } from './openApiRouter';
import { ClusterViews } from '../views/clusterViews';
import { addJobRoutes, JobsRouterOptions } from './jobsRouter';
import { toYaml } from './objectYaml';
import { TreeBodies } from './treeBodies';
import type { ClusterEndpoints } from '../connect/ClusterEndpoints';
import { createPickersRouter, type PickerSources } from './pickersRouter';
import {
  CLUSTER_FILTER_KEYS,
  CLUSTER_VIEW_KEYS,
  clusterFacets,
  clusterAttention,
  type AttentionOptions,
  type ClusterFacets,
  type ClusterPageQuery,
  type ClusterSortColumn,
  type ClusterSummary,
} from '@capz-backstage/plugin-capz-common';

/** A summary without its API server's CA (kept: the URL). */
function withoutCertificateAuthority(c: ClusterSummary): ClusterSummary {
  if (!c.apiServer?.certificateAuthorityData) return c;
  return { ...c, apiServer: { url: c.apiServer.url } };
}

/** The part of the condition history the routes read (src/history). */

export type TimelineReader = Pick<HistoryStore, 'timeline'>;

export interface RouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  managementClusters: ManagementClusterConfig[];
  connections: ConnectionMonitor;
  cache?: WatchCache;
  history?: TimelineReader;
  /** The jobs API's dependencies; its routes are served by this router (src/routers/jobsRouter.ts). */
  jobs?: JobsRouterOptions;
  /** The workload clusters' API servers for the list's summaries (src/connect/ClusterEndpoints.ts). */
  endpoints?: Pick<ClusterEndpoints, 'of'>;
  /** The scaffolder form's pickers' sources (src/routers/pickersRouter.ts). */
  pickers?: PickerSources;
  /** Validate responses against the OpenAPI document too (tests turn this on). */
  validateResponses?: boolean;
  /** The clusters' owners for a policy's IS_CLUSTER_OWNER condition (cluster/clusterOwners.ts). */
  ownerOf?: ClusterOwnerOf;
  /** AKS's release calendar and `soonDays` (capz.lifecycle) for the `attention` filter of GET /clusters. */
  lifecycle?: Omit<AttentionOptions, 'today'>;
  /** Today, for the `attention` filter (tests fix it). */
  now?: () => Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_TIMELINE_LIMIT = 20_000;

/**
 * The plugin's HTTP API, described by src/schema/openapi.yaml and validated against it (bad input is a 400 naming
 * the field before any handler runs). The read routes here read the watch cache or the history, never an API server;
 * the jobs routes (given `jobs`) are added from ./jobsRouter on the same router.
 */
export async function createRouter(
  options: RouterOptions,
): Promise<express.Router> {
  const {
    httpAuth,
    permissions,
    managementClusters,
    connections,
    cache,
    history,
  } = options;
  const router = await capzOpenApiRouter({
    validateResponses: options.validateResponses,
  });
  const views = cache
    ? new ClusterViews(
        cache,
        managementClusters.map(c => c.name),
        options.endpoints,
      )
    : undefined;

  const treeBodies = new TreeBodies();

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Every read route authenticates and asks for the read permission first; a conditional decision (by management
  // cluster and namespace) comes back as a filter applied to what the route returns.
  const authorizeRead = async (req: Pick<express.Request, 'headers'>) =>
    readFilter(
      permissions,
      await httpAuth.credentials(req as express.Request, {
        allow: ['user', 'service'],
      }),
      options.ownerOf,
    );

  /** Authorizes one cluster's routes and checks that its management cluster is configured. */
  const authorizeCluster = async (
    req: express.Request,
    params: { managementCluster: string; namespace: string; name: string },
  ) => {
    const allowed = await authorizeRead(req);
    if (!allowed(params)) {
      throw new NotAllowedError(
        `Not allowed to read clusters in ${params.managementCluster}/${params.namespace}`,
      );
    }
    if (!managementClusters.some(c => c.name === params.managementCluster)) {
      throw new NotFoundError(
        `No management cluster named "${params.managementCluster}"`,
      );
    }
  };

  router.get('/management-clusters', async (req, res) => {
    await authorizeRead(req);
    res.json({
      items: managementClusters.map(c => ({
        ...toPublicInfo(c),
        status: connections.status(c.name),
        ...(cache ? { watch: cache.status(c.name) } : {}),
      })),
    });
  });

  // What needs attention, judged once per cluster summary and day (a summary is replaced when its cluster changes).
  const judged = new WeakMap<
    ClusterSummary,
    { day: string; attention: ReturnType<typeof clusterAttention> }
  >();
  const attentionOf = (c: ClusterSummary, day: string) => {
    let j = judged.get(c);
    if (j?.day !== day) {
      j = {
        day,
        attention: clusterAttention(c, { ...options.lifecycle, today: day }),
      };
      judged.set(c, j);
    }
    return j.attention;
  };

  router.get('/clusters', async (req, res) => {
    const allowed = await authorizeRead(req);
    const listing = managementClusters
      .map(c => c.name)
      .filter(mc => cache?.initialListing(mc));
    // A view of them (the clusters page's filters, its sort, a page) when the query asks for one: the clusters and
    // order capz-common's pageOfClusters gives, from orders kept between requests (ClusterViews.page).
    const q = req.query as Record<string, string | undefined>;
    const paged = CLUSTER_VIEW_KEYS.some(k => q[k] !== undefined);
    let items: ClusterSummary[];
    let page:
      | { total: number; offset: number; facets?: ClusterFacets }
      | undefined;
    if (q.uids !== undefined) {
      // The clusters a change signal named (the catalog module's delta), looked up by uid: not the whole list.
      if (paged)
        throw new InputError(
          `uids names clusters to read; it cannot be combined with a view's filters (${CLUSTER_VIEW_KEYS.filter(
            k => q[k] !== undefined,
          ).join(', ')})`,
        );
      items = views?.withUids(q.uids.split(','), allowed) ?? [];
    } else if (paged) {
      const query = {
        ...Object.fromEntries(
          CLUSTER_FILTER_KEYS.filter(k => q[k]).map(k => [k, q[k]]),
        ),
        ...(q.sort ? { sort: q.sort as ClusterSortColumn } : {}),
        ...(q.dir ? { dir: q.dir as 'ascending' | 'descending' } : {}),
        ...(q.offset ? { offset: Number(q.offset) } : {}),
        ...(q.limit ? { limit: Number(q.limit) } : {}),
      } as ClusterPageQuery;
      // What needs attention is judged with the configured calendar for the day the page asks for (the browser's,
      // so a view and its rows agree), else the server's; the summaries go out without the judgement.
      const today =
        q.today ?? (options.now?.() ?? new Date()).toISOString().slice(0, 10);
      const r = views?.page(query, allowed, {
        attentionOf: c => attentionOf(c, today),
        facets: q.facets === 'true',
      }) ?? {
        items: [],
        total: 0,
        offset: query.offset ?? 0,
        ...(q.facets === 'true' ? { facets: clusterFacets([]) } : {}),
      };
      items = r.items;
      page = {
        total: r.total,
        offset: r.offset,
        ...(r.facets ? { facets: r.facets } : {}),
      };
    } else {
      items = (views?.list() ?? []).filter(allowed);
    }
    // The CA is ~1.5 KB a cluster that no page reads: only the catalog module asks for it.
    res.json({
      items:
        req.query.include === 'certificateAuthority'
          ? items
          : items.map(withoutCertificateAuthority),
      ...(page ?? {}),
      ...(listing.length ? { listing } : {}),
    });
  });

  // Declared on the untyped router: the recursive TreeNode schema is too deep for the spec-derived types (TS2615).
  // The validator middleware checks its input all the same.
  (router as unknown as express.Router).get(
    '/clusters/:managementCluster/:namespace/:name/tree',
    async (req, res) => {
      await authorizeCluster(
        req,
        req.params as {
          managementCluster: string;
          namespace: string;
          name: string;
        },
      );
      const { managementCluster, namespace, name } = req.params;
      const group = req.query.group === undefined ? 3 : Number(req.query.group);
      if (!views) throw new NotFoundError('The watch cache is not running');
      const { summary, tree } = views.tree(
        managementCluster,
        namespace,
        name,
        group,
      );
      const body = treeBodies.of(summary, tree);
      // Tests validate answers against the OpenAPI document through res.json: the same bytes, parsed back.
      if (options.validateResponses) {
        res.json(JSON.parse(body.json.toString()));
        return;
      }
      // Gzipped once per change (a small tree not at all: treeBodies.ts). Either way the root router's compression
      // middleware must leave the answer alone: an encoded one it skips by itself, a plain one by `no-transform`.
      const gzip =
        req.acceptsEncodings('gzip', 'identity') === 'gzip'
          ? body.gzip()
          : undefined;
      res.set({
        'Content-Type': 'application/json; charset=utf-8',
        ETag: body.etag,
        // Revalidated every time: a page's next read of an unchanged tree is a 304.
        'Cache-Control': gzip ? 'no-cache' : 'no-cache, no-transform',
        Vary: 'Accept-Encoding',
      });
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      if (gzip) res.set('Content-Encoding', 'gzip');
      // The length is set here: the compression middleware sends the headers before the body, so Node would not add
      // it, and a chunked answer costs more writes than the whole rest of the request (the bench's profile).
      const bytes = gzip ?? body.json;
      res.set('Content-Length', String(bytes.length)).end(bytes);
    },
  );

  router.get(
    '/clusters/:managementCluster/:namespace/:name/objects/:uid',
    async (req, res) => {
      await authorizeCluster(req, req.params);
      const { managementCluster, namespace, name, uid } = req.params;
      if (!views) throw new NotFoundError('The watch cache is not running');
      const object = views.object(managementCluster, namespace, name, uid);
      res.json({
        kind: object.kind ?? '',
        name: object.metadata.name,
        ...(object.metadata.namespace
          ? { namespace: object.metadata.namespace }
          : {}),
        yaml: toYaml(object),
      });
    },
  );

  router.get(
    '/clusters/:managementCluster/:namespace/:name/timeline',
    async (req, res) => {
      await authorizeCluster(req, req.params);
      const { managementCluster, namespace, name } = req.params;
      const to = req.query.to ? new Date(String(req.query.to)) : new Date();
      const from = req.query.from
        ? new Date(String(req.query.from))
        : new Date(to.getTime() - DAY_MS);
      if (from.getTime() > to.getTime())
        throw new InputError(
          `from (${from.toISOString()}) is after to (${to.toISOString()})`,
        );
      const limit =
        req.query.limit === undefined ? 5000 : Number(req.query.limit);
      if (limit < 1 || limit > MAX_TIMELINE_LIMIT)
        throw new InputError(
          `limit must be between 1 and ${MAX_TIMELINE_LIMIT}`,
        );
      if (!history)
        throw new NotFoundError('The condition history is not enabled');
      const uid =
        req.query.uid === undefined ? undefined : String(req.query.uid);
      res.json(
        await history.timeline({
          managementCluster,
          namespace,
          cluster: name,
          from,
          to,
          objectUid: uid,
          limit,
        }),
      );
    },
  );

  if (options.jobs)
    addJobRoutes(router as unknown as express.Router, options.jobs);

  router.use(await createPickersRouter({ ...options, ...options.pickers }));

  return router as unknown as express.Router;
}
