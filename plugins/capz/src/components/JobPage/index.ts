export { JobPage } from './JobPage';
export { ActiveJobBanner } from './ActiveJobBanner';
