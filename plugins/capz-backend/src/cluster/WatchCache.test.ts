import { mockServices } from '@backstage/backend-test-utils';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { WatchCache } from './WatchCache';

const mc = (name: string) =>
  ({
    name,
    authMethod: 'serviceAccountToken',
    url: `https://${name}.example`,
    serviceAccountToken: 'token',
  } as ManagementClusterConfig);

describe('WatchCache.initialListing', () => {
  it('counts a management cluster as listing from construction until its start is over, also when it fails', async () => {
    const cache = new WatchCache(
      [mc('east'), mc('west')],
      mockServices.logger.mock(),
      // No client can be loaded: each start fails at once, before any list.
      async () => {
        throw new Error('no client');
      },
    );
    // Not started yet: a reader must not take the empty cache for "no clusters".
    expect(cache.initialListing('east')).toBe(true);
    expect(cache.initialListing()).toBe(true);
    const listed: string[] = [];
    cache.on('listed', (name: string) => listed.push(name));
    await cache.start();
    expect(cache.initialListing('east')).toBe(false);
    expect(cache.initialListing()).toBe(false);
    expect(listed.sort()).toEqual(['east', 'west']);
    expect(cache.status('east').error).toMatch(/no client/);
  });
});
