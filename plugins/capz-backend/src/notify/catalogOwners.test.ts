import { mockServices } from '@backstage/backend-test-utils';
import { clusterAddressees } from './catalogOwners';

const place = (name: string) => ({
  managementCluster: 'local',
  namespace: 'team-payments',
  name,
});

describe('clusterAddressees', () => {
  it("groups by the entity's owner, waits for an entity the catalog lacks, and falls back to the cluster's own entity", async () => {
    const logger = mockServices.logger.mock();
    const asked: string[][] = [];
    const a = await clusterAddressees(
      [place('owned'), place('orphan'), place('new')],
      {
        logger,
        owners: async refs => {
          asked.push([...refs]);
          return [{ owner: 'group:default/payments' }, {}, undefined];
        },
      },
    );
    expect(asked).toEqual([
      [
        'resource:default/local-team-payments-owned',
        'resource:default/local-team-payments-orphan',
        'resource:default/local-team-payments-new',
      ],
    ]);
    expect(a).toEqual([
      { held: true, owner: 'group:default/payments' },
      { held: true, owner: 'resource:default/local-team-payments-orphan' },
      { held: false },
    ]);
  });

  it('asks 500 at a time, and tells through each cluster when a batch cannot be asked (logged once for it)', async () => {
    const logger = mockServices.logger.mock();
    let calls = 0;
    const a = await clusterAddressees(
      Array.from({ length: 1001 }, (_, i) => place(`c-${i}`)),
      {
        logger,
        owners: async refs => {
          calls += 1;
          if (calls === 2) throw new Error('connect ECONNREFUSED');
          return refs.map(() => ({ owner: 'group:default/payments' }));
        },
      },
    );
    expect(calls).toBe(3);
    expect(a.slice(499, 501)).toEqual([
      { held: true, owner: 'group:default/payments' },
      { held: true, owner: 'resource:default/local-team-payments-c-500' },
    ]);
    expect(a[1000]).toEqual({ held: true, owner: 'group:default/payments' });
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringMatching(
        /^could not ask the catalog for 500 cluster entities/,
      ),
    );
  });

  it("without the catalog, each cluster's notification stands alone", async () => {
    expect(
      await clusterAddressees([place('a')], {
        logger: mockServices.logger.mock(),
      }),
    ).toEqual([
      { held: true, owner: 'resource:default/local-team-payments-a' },
    ]);
  });
});
