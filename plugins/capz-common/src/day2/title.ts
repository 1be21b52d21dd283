import type { Day2Action } from './api';

/** The action in words, as the menu and a pull request's title say it, e.g. "Scale pool system to 5". @public */
export function day2ActionTitle(a: Day2Action): string {
  switch (a.action) {
    case 'scale':
      return `Scale pool ${a.pool} to ${a.replicas}`;
    case 'autoscale':
      return a.enabled
        ? `Autoscaling of pool ${a.pool} on (${a.minCount ?? '?'}-${
            a.maxCount ?? '?'
          })`
        : `Autoscaling of pool ${a.pool} off`;
    case 'upgrade':
      return a.target === 'controlPlane'
        ? `Upgrade the control plane to ${a.version}`
        : `Upgrade pool${
            a.target.pools.length > 1 ? 's' : ''
          } ${a.target.pools.join(', ')} to ${a.version}`;
    case 'addPool':
      return `Add pool ${a.pool.name}`;
    case 'removePool':
      return `Remove pool ${a.pool}`;
    case 'pause':
      return 'Pause reconciliation';
    case 'resume':
      return 'Resume reconciliation';
    default:
      return 'Cluster action';
  }
}
