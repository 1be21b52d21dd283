import { createBackendModule } from '@backstage/backend-plugin-api';
import { scaffolderActionsExtensionPoint } from '@backstage/plugin-scaffolder-node';
import { createRenderClusterManifestsAction } from './actions/renderClusterManifests';

/** Registers the CAPZ scaffolder actions. @public */
export const scaffolderModuleCapz = createBackendModule({
  pluginId: 'scaffolder',
  moduleId: 'capz',
  register(env) {
    env.registerInit({
      deps: { scaffolder: scaffolderActionsExtensionPoint },
      async init({ scaffolder }) {
        scaffolder.addActions(createRenderClusterManifestsAction());
      },
    });
  },
});
