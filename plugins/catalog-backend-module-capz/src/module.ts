import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { catalogProcessingExtensionPoint } from '@backstage/plugin-catalog-node';
import { DEFAULT_CLUSTER_OWNER } from '@capz-backstage/plugin-capz-common';
import { eventsServiceRef } from '@backstage/plugin-events-node';
import { CapzBackendClusterSource } from './providers/CapzBackendClusterSource';
import { CapzClusterEntityProvider } from './providers/CapzClusterEntityProvider';
import { CapzSignalChangeStream } from './providers/CapzSignalChangeStream';

/** Registers the CAPZ cluster entity provider with the catalog. @public */
export const catalogModuleCapz = createBackendModule({
  pluginId: 'catalog',
  moduleId: 'capz',
  register(env) {
    env.registerInit({
      deps: {
        catalog: catalogProcessingExtensionPoint,
        config: coreServices.rootConfig,
        logger: coreServices.logger,
        scheduler: coreServices.scheduler,
        discovery: coreServices.discovery,
        auth: coreServices.auth,
        events: eventsServiceRef,
      },
      async init({
        catalog,
        config,
        logger,
        scheduler,
        discovery,
        auth,
        events,
      }) {
        const c = config.getOptionalConfig('catalog.providers.capz');
        const refreshSeconds = c?.getOptionalNumber('refreshSeconds') ?? 60;
        const live = c?.getOptionalBoolean('liveUpdates') ?? true;
        catalog.addEntityProvider(
          new CapzClusterEntityProvider({
            source: new CapzBackendClusterSource({ discovery, auth }),
            logger,
            defaultOwner:
              c?.getOptionalString('defaultOwner') ?? DEFAULT_CLUSTER_OWNER,
            taskRunner: scheduler.createScheduledTaskRunner({
              frequency: { seconds: refreshSeconds },
              timeout: { seconds: Math.max(30, refreshSeconds) },
              initialDelay: { seconds: 5 },
            }),
            changes: live
              ? new CapzSignalChangeStream({ events, logger })
              : undefined,
            changeDelayMs: c?.getOptionalNumber('liveUpdateDelayMs'),
          }),
        );
      },
    });
  },
});
