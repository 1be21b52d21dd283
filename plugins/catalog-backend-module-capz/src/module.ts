import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { catalogProcessingExtensionPoint } from '@backstage/plugin-catalog-node';
import { CapzBackendClusterSource } from './providers/CapzBackendClusterSource';
import { CapzClusterEntityProvider } from './providers/CapzClusterEntityProvider';

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
      },
      async init({ catalog, config, logger, scheduler, discovery, auth }) {
        const refreshSeconds =
          config.getOptionalNumber('catalog.providers.capz.refreshSeconds') ??
          60;
        catalog.addEntityProvider(
          new CapzClusterEntityProvider({
            source: new CapzBackendClusterSource({ discovery, auth }),
            logger,
            defaultOwner:
              config.getOptionalString('catalog.providers.capz.defaultOwner') ??
              'group:default/platform',
            taskRunner: scheduler.createScheduledTaskRunner({
              frequency: { seconds: refreshSeconds },
              timeout: { seconds: Math.max(30, refreshSeconds) },
              initialDelay: { seconds: 5 },
            }),
          }),
        );
      },
    });
  },
});
