import {
  ApiBlueprint,
  createFrontendPlugin,
  discoveryApiRef,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import { RiCloudLine } from '@remixicon/react';
import { capzApiRef } from './api/CapzApi';
import { CapzClient } from './api/CapzClient';
import { rootRouteRef } from './routes';

const capzApi = ApiBlueprint.make({
  params: defineParams =>
    defineParams({
      api: capzApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: deps => new CapzClient(deps),
    }),
});

const clustersPage = PageBlueprint.make({
  params: {
    path: '/capz',
    routeRef: rootRouteRef,
    title: 'AKS clusters',
    icon: <RiCloudLine />,
    loader: () =>
      import('./components/ClustersPage').then(m => <m.ClustersPage />),
  },
});

/** The CAPZ frontend plugin. @public */
export const capzPlugin = createFrontendPlugin({
  pluginId: 'capz',
  title: 'AKS clusters',
  icon: <RiCloudLine />,
  extensions: [capzApi, clustersPage],
  routes: { root: rootRouteRef },
});
