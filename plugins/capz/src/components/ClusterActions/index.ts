export { ClusterActions } from './ClusterActions';
export { PausedBanner } from './PausedBanner';
