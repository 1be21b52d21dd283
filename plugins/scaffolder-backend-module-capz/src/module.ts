import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { scaffolderActionsExtensionPoint } from '@backstage/plugin-scaffolder-node';
import { createCreateClusterAction } from './actions/createCluster';
import { createProposeClusterAction } from './actions/proposeCluster';
import { createRenderClusterManifestsAction } from './actions/renderClusterManifests';

/** Registers the CAPZ scaffolder actions. @public */
export const scaffolderModuleCapz = createBackendModule({
  pluginId: 'scaffolder',
  moduleId: 'capz',
  register(env) {
    env.registerInit({
      deps: {
        scaffolder: scaffolderActionsExtensionPoint,
        auth: coreServices.auth,
        discovery: coreServices.discovery,
        config: coreServices.rootConfig,
      },
      async init({ scaffolder, auth, discovery, config }) {
        scaffolder.addActions(
          createRenderClusterManifestsAction({ config }),
          createCreateClusterAction({ auth, discovery, config }),
          createProposeClusterAction({ config }),
        );
      },
    });
  },
});
