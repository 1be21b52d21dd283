export { ClusterActions } from './ClusterActions';
export { PausedBanner } from './PausedBanner';
export { FollowedActionPanel } from './FollowedActionPanel';
