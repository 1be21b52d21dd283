import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { EventEmitter } from 'node:events';
import { CacheChange } from '../cluster/ClusterWatch';
import { createHistory } from '.';

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });

describe('createHistory', () => {
  it('migrates the database, subscribes the recorder to the cache and schedules the pruning', async () => {
    const knex = await databases.init('SQLITE_3');
    const scheduler = mockServices.scheduler.mock();
    const cache = Object.assign(new EventEmitter(), { list: () => [] });
    const { store, recorder } = await createHistory({
      database: mockServices.database({ knex, migrations: { skip: false } }),
      scheduler,
      config: new ConfigReader({ capz: { history: { retention: 'P7D' } } }),
      logger: mockServices.logger.mock(),
      cache,
      managementClusters: [],
    });
    expect(await knex.schema.hasTable('capz_condition_transitions')).toBe(true);
    expect(await knex.schema.hasTable('capz_events')).toBe(true);
    expect(scheduler.scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({ id: 'capz-history-prune', scope: 'global' }),
    );

    cache.emit('change', {
      managementCluster: 'local',
      kind: 'Cluster',
      type: 'add',
      object: {
        kind: 'Cluster',
        metadata: { name: 'c', namespace: 'team-a', uid: 'c-uid' },
        status: {
          conditions: [
            {
              type: 'Available',
              status: 'True',
              reason: 'Available',
              lastTransitionTime: '2026-11-20T10:00:00Z',
            },
          ],
        },
      },
    } satisfies CacheChange);
    await recorder.stop();
    const timeline = await store.timeline({
      managementCluster: 'local',
      namespace: 'team-a',
      cluster: 'c',
      from: new Date(0),
      to: new Date('2030-01-01'),
      limit: 10,
    });
    expect(
      timeline.transitions.map(t => `${t.kind}/${t.conditionType}=${t.status}`),
    ).toEqual(['Cluster/Available=True']);
  });

  it('leaves the schema alone when migrations are skipped', async () => {
    const knex = await databases.init('SQLITE_3');
    await createHistory({
      database: mockServices.database({ knex, migrations: { skip: true } }),
      scheduler: mockServices.scheduler.mock(),
      config: new ConfigReader({}),
      logger: mockServices.logger.mock(),
      cache: Object.assign(new EventEmitter(), { list: () => [] }),
      managementClusters: [],
    }).then(({ recorder }) => recorder.stop());
    expect(await knex.schema.hasTable('capz_condition_transitions')).toBe(
      false,
    );
  });
});
