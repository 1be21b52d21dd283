export { ClusterPage } from './ClusterPage';
export { ClusterView } from './ClusterView';
