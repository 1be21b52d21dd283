import {
  ApiBlueprint,
  AppRootElementBlueprint,
  createFrontendPlugin,
  discoveryApiRef,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import {
  EntityCardBlueprint,
  EntityContentBlueprint,
} from '@backstage/plugin-catalog-react/alpha';
import { RiCloudLine } from '@remixicon/react';
import { capzApiRef } from './api/CapzApi';
import { CapzClient } from './api/CapzClient';
import { loadOnce } from './components/loadOnce';
import { preloadPage } from './components/pages';
import { PrefetchWhenIdle } from './components/PrefetchWhenIdle';
import { hasClusterAnnotation } from './components/EntityClusterContent/annotation';
import {
  adoptRouteRef,
  clusterRouteRef,
  createClusterRouteRef,
  jobRouteRef,
  fleetRunRouteRef,
  fleetRunsRouteRef,
  jobsRouteRef,
  migrateRouteRef,
  rootRouteRef,
  upgradeRouteRef,
} from './routes';
import { capzFormFields } from './scaffolder/extensions';

const capzApi = ApiBlueprint.make({
  params: defineParams =>
    defineParams({
      api: capzApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: deps => new CapzClient(deps),
    }),
});

const loadCapzPage = loadOnce(() =>
  import('./components/CapzPage').then(m => <m.CapzPage />),
);

/** /capz: the clusters list, and each cluster's page below it. */
const clustersPage = PageBlueprint.make({
  params: {
    path: '/capz',
    routeRef: rootRouteRef,
    title: 'AKS clusters',
    icon: <RiCloudLine />,
    loader: () => {
      // The sub-page the address asks for, fetched beside this chunk instead of after it.
      preloadPage(window.location.pathname);
      // The page calls this on each of its renders (loadOnce.ts): the same element, at once after the first load.
      return loadCapzPage();
    },
  },
});

/**
 * The clusters page's code, loaded once the app is idle after its start: the first visit of /capz then renders at once
 * (loadOnce answers synchronously) instead of fetching and running its chunks first. An app that does not want it
 * disables the extension (`app.extensions: [{ 'app-root-element:capz/prefetch': false }]`).
 */
const prefetchClustersPage = AppRootElementBlueprint.make({
  name: 'prefetch',
  params: { element: <PrefetchWhenIdle load={loadCapzPage} /> },
});

/** A "Cluster" tab on catalog entities that carry the capz.io/cluster annotation. */
const entityClusterContent = EntityContentBlueprint.make({
  name: 'cluster',
  params: {
    path: '/aks-cluster',
    title: 'AKS cluster',
    filter: hasClusterAnnotation,
    loader: () =>
      import('./components/EntityClusterContent').then(m => (
        <m.EntityClusterContent />
      )),
  },
});

/** On the Overview of catalog entities that carry the capz.io/cluster annotation: the cluster's health. */
const entityHealthCard = EntityCardBlueprint.make({
  name: 'health',
  params: {
    filter: hasClusterAnnotation,
    type: 'info',
    loader: () =>
      import('./components/EntityClusterContent').then(m => (
        <m.EntityCapzHealthCard />
      )),
  },
});

/** The CAPZ frontend plugin. @public */
export const capzPlugin = createFrontendPlugin({
  pluginId: 'capz',
  title: 'AKS clusters',
  icon: <RiCloudLine />,
  extensions: [
    capzApi,
    clustersPage,
    prefetchClustersPage,
    entityClusterContent,
    entityHealthCard,
    ...capzFormFields,
  ],
  routes: {
    root: rootRouteRef,
    cluster: clusterRouteRef,
    adopt: adoptRouteRef,
    migrate: migrateRouteRef,
    upgrade: upgradeRouteRef,
    job: jobRouteRef,
    jobs: jobsRouteRef,
    fleetRun: fleetRunRouteRef,
    fleetRuns: fleetRunsRouteRef,
  },
  externalRoutes: {
    createCluster: createClusterRouteRef,
  },
});
