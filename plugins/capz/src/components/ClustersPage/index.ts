export { ClustersPage } from './ClustersPage';
