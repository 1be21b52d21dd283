import { notificationService } from '@backstage/plugin-notifications-node';
import { ownerNotifications } from './notify/ownerNotifications';
import {
  DEFAULT_UNHEALTHY_AFTER_MS,
  HealthEpisodes,
  scheduleHealthNotifications,
} from './notify/healthEpisodes';
import {
  EndOfSupportNotices,
  readEndOfSupportWithinDays,
  scheduleEndOfSupportNotifications,
} from './notify/endOfSupport';
import { readDurationMs } from './config/durations';
import { ClusterViews } from './views/clusterViews';
import { actionsRegistryServiceRef } from '@backstage/backend-plugin-api/alpha';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { registerClusterActions } from './actions/clusterActions';
import { registerDay2Actions } from './actions/day2Actions';
import { registerFleetActions } from './actions/fleetActions';
import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import {
  aksLifecycleSettings,
  CAPZ_FLEET_RUNS_SIGNAL_CHANNEL,
  capzClusterResourcePermissions,
  capzPermissions,
  type CapzFleetRunSignal,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import {
  capzClusterResourceRef,
  capzClusterRules,
  parseClusterResourceRef,
} from './permissions/rules';
import { ConnectionMonitor } from './cluster/ConnectionMonitor';
import { WatchCache } from './cluster/WatchCache';
import { clusterOwnerOf } from './cluster/clusterOwners';
import { withOwner } from './permissions/readAccess';
import { permissionsAnsweringWhenDown } from './permissions/unavailable';
import { readManagementClusters } from './config/managementClusters';
import { ChangeSignals } from './live/ChangeSignals';
import { createHistory, HistoryFlush } from './history';
import { signalsServiceRef } from '@backstage/plugin-signals-node';
import { createRouter } from './routers/router';
import { createClusterCreateRouter } from './routers/clusterCreateRouter';
import { createJobs } from './jobs';
import { AksDiscovery } from './azure/AksDiscovery';
import { createDay2Router } from './routers/day2Router';
import { createFleetRouter } from './routers/fleetRouter';
import { FleetPreview } from './day2/fleetPreview';
import {
  fleetFaultFromEnv,
  FleetRuns,
  fleetStepObservation,
  scheduleFleetRuns,
} from './day2/fleetRuns';
import { FleetRunStore } from './day2/fleetRunStore';
import type { Handler } from 'express';
import { auditRefusals } from './routers/auditRefusals';
import { ALLOW_SERVICE_PRINCIPAL_APPLY } from './actions/day2Actions';
import { Day2Service } from './day2/Day2Service';
import { day2GitOps } from './day2/gitChange';
import { gitOpsRepository } from './git/GitOpsRepository';
import { managementClusterClients } from './cluster/ManagementClusterClient';
import {
  clusterCreateClient,
  day2Client,
  gitOpsSourceClient,
  jobClient,
  secretReader,
} from './cluster/clientViews';
import {
  ALLOW_LOCAL_ACCOUNT_KUBECONFIG,
  ClusterConnect,
} from './connect/ClusterConnect';
import { ClusterEndpoints } from './connect/ClusterEndpoints';

/**
 * The CAPZ backend plugin: management-cluster connections, watch cache, trees and health, condition history,
 * and the adoption and migration job engine. Wiring only; each concern lives in its own module.
 * @public
 */
export const capzPlugin = createBackendPlugin({
  pluginId: 'capz',
  register(env) {
    env.registerInit({
      deps: {
        config: coreServices.rootConfig,
        logger: coreServices.logger,
        httpAuth: coreServices.httpAuth,
        httpRouter: coreServices.httpRouter,
        permissions: coreServices.permissions,
        permissionsRegistry: coreServices.permissionsRegistry,
        scheduler: coreServices.scheduler,
        lifecycle: coreServices.lifecycle,
        database: coreServices.database,
        auditor: coreServices.auditor,
        signals: signalsServiceRef,
        notifications: notificationService,
        actionsRegistry: actionsRegistryServiceRef,
        auth: coreServices.auth,
        discovery: coreServices.discovery,
        catalog: catalogServiceRef,
      },
      async init({
        config,
        logger,
        httpAuth,
        httpRouter,
        permissions: permissionsService,
        permissionsRegistry,
        scheduler,
        lifecycle,
        database,
        auditor,
        signals,
        notifications,
        actionsRegistry,
        auth,
        discovery,
        catalog,
      }) {
        // A permission check that cannot be made (its backend or the auth database away) answers 503, not 500.
        const permissions = permissionsAnsweringWhenDown(permissionsService);
        const managementClusters = readManagementClusters(config);
        // AKS's release calendar with the operator's entries (capz.lifecycle.calendar): a wrong entry would move every
        // end-of-support date the owners are told, so it stops the start, in the config's words.
        const versionSupport = aksLifecycleSettings(config);
        if (versionSupport.errors.length)
          throw new Error(
            `capz.lifecycle.calendar is not valid: ${versionSupport.errors.join(
              ' ',
            )}`,
          );
        logger.info(
          `CAPZ: ${
            managementClusters.length
          } management cluster(s) configured: ${
            managementClusters.map(c => c.name).join(', ') || 'none'
          }`,
        );
        // The watch cache starts first and in the background: its first list is what the pages wait for after a start,
        // and it waits for nothing (not the databases' migrations below: 2 s of this plugin's initialization in the
        // bench's log); a slow or unreachable cluster never delays the backend. What follows the cache takes what it
        // holds already when it subscribes.
        const cache = new WatchCache(managementClusters, logger);
        // Who owns each cluster, as the catalog module writes its entity: for IS_CLUSTER_OWNER (permissions/rules.ts).
        const defaultOwner = config.getOptionalString(
          'catalog.providers.capz.defaultOwner',
        );
        const ownerOf = clusterOwnerOf(cache, defaultOwner);
        permissionsRegistry.addPermissions(capzPermissions);
        permissionsRegistry.addResourceType({
          resourceRef: capzClusterResourceRef,
          rules: capzClusterRules,
          permissions: capzClusterResourcePermissions,
          getResources: async refs =>
            refs.map(ref => {
              const place = parseClusterResourceRef(ref);
              return place && withOwner(place, ownerOf);
            }),
        });
        // Live updates: every change in the cache is announced (coalesced) on the signals channel.
        const changeSignals = new ChangeSignals(
          cache,
          managementClusters.map(c => c.name),
          signals,
          logger,
        );
        changeSignals.start();
        void cache.start();
        const connections = new ConnectionMonitor(managementClusters, logger);
        // An outage sends no watch event: open pages are told to read the management clusters' state again (they
        // then show it unreachable, or connected again).
        connections.onChange(() => changeSignals.notifyManagementClusters());
        await connections.start(scheduler);
        // The condition history records the initial list too (what the cache holds when it subscribes, then its
        // changes); what it writes is announced like any other change (a timeline on screen grows).
        const history = await createHistory({
          database,
          scheduler,
          config,
          logger,
          cache,
          managementClusters: managementClusters.map(c => c.name),
        });
        history.recorder.on('flush', (flush: HistoryFlush) =>
          changeSignals.notifyClusters(flush.clusterUids),
        );
        // The watch cache's views for what runs outside a request: the actions and the health check below.
        const cacheViews = new ClusterViews(
          cache,
          managementClusters.map(c => c.name),
        );
        // The reads as actions of the actions registry, for AI assistants through the MCP actions backend (src/actions).
        registerClusterActions({
          actionsRegistry,
          permissions,
          views: cacheViews,
          ownerOf,
          lifecycle: {
            soonDays: versionSupport.soonDays,
            calendar: versionSupport.calendar,
          },
        });
        // The day-2 preview and its confirm, as the routes themselves on behalf of the caller (src/actions).
        const allowServicePrincipalApply =
          config.getOptionalBoolean(ALLOW_SERVICE_PRINCIPAL_APPLY) ?? false;
        // A fleet upgrade's preview, as the route itself on behalf of the caller (src/actions).
        registerFleetActions({ actionsRegistry, auth, discovery });
        registerDay2Actions({
          actionsRegistry,
          auth,
          discovery,
          auditor,
          allowServicePrincipalApply,
        });
        // A cluster unhealthy for longer than capz.notifications.unhealthyAfter is told to its owners, once, and its
        // recovery in the same notification (notify/healthEpisodes.ts); the migrations above made its table.
        const unhealthyAfterMs = readDurationMs(
          config,
          'capz.notifications.unhealthyAfter',
          DEFAULT_UNHEALTHY_AFTER_MS,
        );
        const notifyDb = await database.getClient();
        const healthSource = {
          clusters: () => cacheViews.list(),
          synced: (mc: string) => cache.status(mc).synced,
        };
        // Many clusters' entities in one catalog request, each with the owner the notifications backend resolves it to
        // (its first `ownedBy` relation: @backstage/catalog-model's RELATION_OWNED_BY): notify/catalogOwners.ts.
        const catalogOwners = async (entityRefs: readonly string[]) =>
          (
            await catalog.getEntitiesByRefs(
              { entityRefs: [...entityRefs], fields: ['kind', 'relations'] },
              { credentials: await auth.getOwnServiceCredentials() },
            )
          ).items.map(e =>
            e
              ? {
                  owner: e.relations?.find(r => r.type === 'ownedBy')
                    ?.targetRef,
                }
              : undefined,
          );
        await scheduleHealthNotifications({
          scheduler,
          logger,
          unhealthyAfterMs,
          episodes: new HealthEpisodes({
            db: notifyDb,
            source: healthSource,
            notifications,
            logger,
            unhealthyAfterMs,
            owners: catalogOwners,
          }),
        });
        // A version whose support ends within capz.notifications.endOfSupportWithin (or has ended) is told to the
        // cluster's owners, once per stage (notify/endOfSupport.ts); zero switches it off.
        const endOfSupportWithinDays = readEndOfSupportWithinDays(config);
        if (endOfSupportWithinDays !== undefined)
          await scheduleEndOfSupportNotifications({
            scheduler,
            logger,
            notices: new EndOfSupportNotices({
              db: notifyDb,
              source: healthSource,
              notifications,
              logger,
              withinDays: endOfSupportWithinDays,
              calendar: versionSupport.calendar,
              owners: catalogOwners,
            }),
            whenListed: run => cache.on('listed', run),
          });
        // The one client of each management cluster for live reads and writes, made on first use. Each consumer gets
        // its own narrow view of it (cluster/clientViews.ts): the jobs, cluster creation, day-2 actions, and the
        // Secret reader through which the credential Secrets that ARM is asked with are read.
        const clients = managementClusterClients(managementClusters, logger);
        const jobClients = async (name: string) =>
          jobClient(await clients(name));
        const readSecret = secretReader(clients);
        // The ARM client (src/azure), one for all that ask ARM: jobs, pickers, API server endpoints, cluster create,
        // day-2 actions and connect. Where ASO points in Azure comes from the watch cache.
        const aks = new AksDiscovery({
          config,
          logger,
          readSecret,
          managedClusters: mc =>
            cache.list(mc, 'ManagedCluster') as unknown as ObservedObject[],
          resourceGroups: mc =>
            cache.list(mc, 'ResourceGroup') as unknown as ObservedObject[],
          managementClusters: () => managementClusters.map(m => m.name),
        });
        // The Git edge (src/git): day-2 actions and jobs on objects Flux applies propose their change there.
        const git =
          config.getOptionalBoolean('capz.gitops.pullRequests') === false
            ? undefined
            : {
                repository: gitOpsRepository({ config }),
                author: {
                  name:
                    config.getOptionalString('capz.gitops.author.name') ??
                    'Backstage CAPZ',
                  email:
                    config.getOptionalString('capz.gitops.author.email') ??
                    'capz@backstage.local',
                },
              };
        const owners = ownerNotifications({ notifications, logger });
        // Jobs: durable rows, run under a lease by whichever replica takes it; progress is pushed on its own channel.
        const jobs = await createJobs({
          git,
          config,
          logger,
          database,
          managementClusters,
          cache,
          client: jobClients,
          aks,
          signals,
          // A job's owners hear when it succeeds, fails, is paused or cancelled (notify/ownerNotifications.ts).
          onStateChange: owners.jobStateChanged,
        });
        lifecycle.addStartupHook(async () => {
          await jobs.engine.start(scheduler);
        });
        lifecycle.addShutdownHook(async () => {
          await jobs.engine.stop();
          changeSignals.stop();
          await history.recorder.stop();
          await cache.stop();
        });
        // The workload clusters' API servers (URL and CA) for the catalog's Kubernetes annotations: read from ARM
        // once per ManagedCluster FQDN as the cache reports it, never per request (src/connect).
        const endpoints = new ClusterEndpoints({
          logger,
          azure: aks,
          onKnown: (mc, o) =>
            changeSignals.notifyObject(mc, 'ManagedCluster', o as never),
        });
        endpoints.watch(
          cache,
          managementClusters.map(c => c.name),
        );
        httpRouter.use(
          await createRouter({
            logger,
            httpAuth,
            permissions,
            managementClusters,
            connections,
            cache,
            history: history.store,
            ownerOf,
            pickers: { azure: aks },
            endpoints,
            lifecycle: {
              soonDays: versionSupport.soonDays,
              calendar: versionSupport.calendar,
            },
            jobs: {
              logger,
              httpAuth,
              permissions,
              auditor,
              managementClusters,
              cache,
              ...jobs,
              client: jobClients,
              readSecret,
              aks,
              ownerOf,
            },
          }),
        );
        // New clusters (the scaffolder's capz:cluster:create): server-side apply without force.
        httpRouter.use(
          await createClusterCreateRouter({
            logger,
            httpAuth,
            permissions,
            auditor,
            managementClusters,
            client: async name => clusterCreateClient(await clients(name)),
            defaultOwner,
            // The version AKS offers in the region, as day-2 upgrades read it.
            azure: aks,
          }),
        );
        // Day-2 actions on a cluster (scale, autoscale, upgrade, pools, pause, delete, connect): src/day2.
        const day2 = new Day2Service({
          logger,
          managementClusters: managementClusters.map(c => c.name),
          cache,
          azure: aks,
          client: async name => day2Client(await clients(name)),
          allowLocalAccountKubeconfig:
            config.getOptionalBoolean(ALLOW_LOCAL_ACCOUNT_KUBECONFIG) ?? false,
          // Objects Flux applies are changed in its Git repository: a branch and pull request (src/git).
          gitOps:
            git &&
            day2GitOps({
              client: async name => gitOpsSourceClient(await clients(name)),
              ...git,
            }),
        });
        httpRouter.use(
          await createDay2Router({
            httpAuth,
            permissions,
            auditor,
            service: day2,
            ownerOf,
            // The owners hear how a confirmed action or delete ended (notify/ownerNotifications.ts).
            notify: owners.day2Done,
            allowServicePrincipalApply,
            // The kubeconfig download: src/connect.
            connect: new ClusterConnect({
              logger,
              cluster: p => day2.cluster(p),
              azure: aks,
              allowLocalAccountKubeconfig:
                config.getOptionalBoolean(ALLOW_LOCAL_ACCOUNT_KUBECONFIG) ??
                false,
            }),
          }),
        );
        // A fleet upgrade's preview: each cluster planned as its single-cluster upgrade, from the cache (src/day2);
        // its runs kept in the database (the jobs' migrations made the table) and advanced on one replica at a time.
        const fleet = new FleetPreview({
          day2,
          // A migration wave's parts: each legacy cluster's migration job previewed as its wizard previews it.
          previewJob: request => jobs.starter.preview(request),
          factsOf: p => {
            const s = cacheViews.summary(
              p.managementCluster,
              p.namespace,
              p.name,
            );
            return {
              ...(s.health ? { health: s.health } : {}),
              ...(s.reason ? { reason: s.reason } : {}),
              ...(s.lifecycle?.conflicts
                ? { conflicts: s.lifecycle.conflicts }
                : {}),
            };
          },
        });
        const fleetRuns = new FleetRuns({
          store: new FleetRunStore(notifyDb),
          preview: fleet,
          day2,
          // A migration wave's job steps: started as POST /jobs starts a job, once per run, cluster and attempt.
          jobs: {
            start: (request, createdBy, id) =>
              jobs.starter.start(request, createdBy, id),
            get: id =>
              jobs.store.get(id).catch(e => {
                if ((e as Error).name === 'NotFoundError') return undefined;
                throw e;
              }),
          },
          observe: c => {
            let seen;
            try {
              const { summary, tree } = cacheViews.tree(
                c.managementCluster,
                c.namespace,
                c.name,
                0,
              );
              seen = {
                tree,
                ...(summary.health ? { health: summary.health } : {}),
              };
            } catch {
              seen = undefined;
            }
            return fleetStepObservation(c, seen);
          },
          logger,
          auditor,
          onChange: run => {
            const message: CapzFleetRunSignal = {
              runId: run.id,
              state: run.run.state,
            };
            signals
              ?.publish({
                recipients: { type: 'broadcast' },
                channel: CAPZ_FLEET_RUNS_SIGNAL_CHANNEL,
                message: { ...message },
              })
              .catch(e =>
                logger.warn(
                  `could not publish a fleet run signal: ${
                    (e as Error).message
                  }`,
                ),
              );
          },
          onNotice: (run, notice) =>
            owners.fleetRun({
              runId: run.id,
              createdBy: run.createdBy,
              ...notice,
            }),
          ownerOf,
          fault: fleetFaultFromEnv(),
        });
        await scheduleFleetRuns({ scheduler, runs: fleetRuns });
        httpRouter.use(
          await createFleetRouter({
            httpAuth,
            permissions,
            auditor,
            ownerOf,
            fleet,
            runs: fleetRuns,
          }),
        );
        // After every router: each 403 any of them answers is audited (the allowed changes are, by their routes).
        // An error handler (four parameters), which Express and the httpRouter's express-promise-router keep as one;
        // HttpRouterService.use is typed for request handlers only. A Router holding it would be skipped on an error.
        httpRouter.use(auditRefusals(auditor, logger) as unknown as Handler);
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
      },
    });
  },
});
