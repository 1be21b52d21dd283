import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import type { JobRequest, StepPlan } from '@capz-backstage/plugin-capz-common';
import { azureClaimKeys } from './claims';
import { JobConflictError, JobStore } from './JobStore';

/**
 * The claims of issue 16 on both databases: one adoption or migration per Azure cluster and resource group, whatever
 * the namespace; decided by the database (concurrent inserts), kept while the job can still run (failed, paused),
 * released with its final state in the same transaction. The integration test (claims.integration.test.ts) runs
 * the same through two backend replicas.
 */
const postgresId = (Object.keys(process.env)
  .map(k =>
    /^BACKSTAGE_TEST_DATABASE_(POSTGRES)(\d+)_CONNECTION_STRING$/.exec(k),
  )
  .filter((m): m is RegExpExecArray => !!m)
  .map(m => `${m[1]}_${m[2]}`)[0] ?? 'POSTGRES_15') as TestDatabaseId;
const databases = TestDatabases.create({ ids: ['SQLITE_3', postgresId] });

const SUB = '00000000-0000-0000-0000-0000000000aa';
const adopt = (
  namespace: string,
  clusterName = 'analytics-aks',
  resourceGroup = 'rg-analytics',
): JobRequest => ({
  type: 'adopt',
  params: {
    managementCluster: 'east',
    namespace,
    credentialSecret: 'aso-credential',
    subscriptionId: SUB,
    resourceGroup,
    clusterName,
  },
});
const plan: StepPlan[] = [
  {
    id: 'adopt-resource-group',
    title: 'Adopt',
    description: '',
    preconditions: [],
    actions: [],
    waitFor: [],
    timeoutSeconds: 10,
  },
];

function insert(store: JobStore, id: string, request: JobRequest) {
  const p = request.params as {
    namespace: string;
    clusterName: string;
    subscriptionId: string;
    resourceGroup: string;
  };
  return store.insert({
    id,
    request,
    target: {
      managementCluster: 'east',
      namespace: p.namespace,
      name: p.clusterName,
    },
    plan,
    createdBy: 'user:default/tester',
    claims: azureClaimKeys({
      subscriptionId: p.subscriptionId,
      resourceGroup: p.resourceGroup,
      name: p.clusterName,
    }),
  });
}

describe.each(databases.eachSupportedId())(
  'JobStore claims on %p',
  databaseId => {
    async function setup() {
      const knex = await databases.init(databaseId);
      return {
        knex,
        store: await JobStore.create({
          database: mockServices.database({ knex }),
        }),
      };
    }

    it('refuses a second job on the same AKS cluster in another namespace, names the holder, stores nothing of it', async () => {
      const { store } = await setup();
      await insert(store, 'job-1', adopt('team-payments'));
      // Azure compares names case-insensitively: another spelling is the same cluster.
      const err = await insert(
        store,
        'job-2',
        adopt('team-search', 'Analytics-AKS', 'RG-Analytics'),
      ).catch(e => e);
      expect(err).toBeInstanceOf(JobConflictError);
      expect(err.jobId).toBe('job-1');
      expect(err.message).toBe(
        `AKS cluster ${SUB}/rg-analytics/analytics-aks is claimed by the queued adopt job job-1 on east/team-payments/analytics-aks: ` +
          'one job at a time may adopt or migrate an AKS cluster; let that job finish, or cancel it, first',
      );
      expect((await store.list({})).map(j => j.id)).toEqual(['job-1']);
      expect(await store.claimsOf('job-2')).toEqual([]);
      // Another cluster in the same resource group: the group is claimed too (two ResourceGroup objects on one group).
      const sameGroup = await insert(
        store,
        'job-3',
        adopt('team-other', 'other-aks'),
      ).catch(e => e);
      expect(sameGroup.message).toMatch(
        new RegExp(
          `^resource group ${SUB}/rg-analytics is claimed by the queued adopt job job-1`,
        ),
      );
    });

    it('lets exactly one of concurrent inserts through (the database decides)', async () => {
      const { store } = await setup();
      const results = await Promise.allSettled(
        ['a', 'b', 'c', 'd'].map(n =>
          insert(store, `job-${n}`, adopt(`team-${n}`)),
        ),
      );
      const won = results.filter(r => r.status === 'fulfilled');
      const lost = results.filter(
        (r): r is PromiseRejectedResult => r.status === 'rejected',
      );
      expect(won).toHaveLength(1);
      const winner = (won[0] as PromiseFulfilledResult<{ id: string }>).value
        .id;
      expect(
        lost.map(r => [r.reason instanceof JobConflictError, r.reason.jobId]),
      ).toEqual([
        [true, winner],
        [true, winner],
        [true, winner],
      ]);
      expect((await store.list({})).map(j => j.id)).toEqual([winner]);
    });

    it('keeps the claims while the job can resume and releases them with its final state', async () => {
      const { store } = await setup();
      await insert(store, 'job-1', adopt('team-payments'));
      const keys = await store.claimsOf('job-1');
      expect(keys).toEqual([
        `aks:${SUB}/rg-analytics/analytics-aks`,
        `rg:${SUB}/rg-analytics`,
      ]);
      expect(await store.claim('job-1', 'r1', 10_000)).toBe(true);
      expect(await store.update('job-1', 'r1', { state: 'running' })).toBe(
        true,
      );
      expect(
        await store.update('job-1', 'r1', { state: 'failed', error: 'boom' }),
      ).toBe(true);
      expect(await store.claimsOf('job-1')).toEqual(keys);
      // A replica that lost the lease (expired; r2 took it) cannot finish the job, nor release its claims.
      await store.resume('job-1');
      expect(
        await store.claim('job-1', 'r2', 60_000, Date.now() + 20_000),
      ).toBe(true);
      expect(await store.update('job-1', 'r1', { state: 'succeeded' })).toBe(
        false,
      );
      expect(await store.claimsOf('job-1')).toEqual(keys);
      expect(await store.update('job-1', 'r2', { state: 'succeeded' })).toBe(
        true,
      );
      expect(await store.claimsOf('job-1')).toEqual([]);
      await insert(store, 'job-2', adopt('team-search'));
      expect(await store.claimsOf('job-2')).toEqual(keys);
    });

    it('releases the claims of an idle job cancelled by a user, not of a paused one', async () => {
      const { store } = await setup();
      await insert(store, 'job-1', adopt('team-payments'));
      await store.request('job-1', 'pause', () => undefined);
      expect((await store.get('job-1')).state).toBe('paused');
      expect(
        await store.claimHolders(
          azureClaimKeys({
            subscriptionId: SUB,
            resourceGroup: 'rg-analytics',
            name: 'analytics-aks',
          }),
        ),
      ).toHaveLength(2);
      await store.request('job-1', 'cancel', () => undefined);
      expect((await store.get('job-1')).state).toBe('cancelled');
      expect(await store.claimsOf('job-1')).toEqual([]);
      await insert(store, 'job-2', adopt('team-search'));
    });

    it('gives the unfinished jobs of before the migration their claims, the oldest first', async () => {
      const knex = await databases.init(databaseId);
      const directory = resolvePackagePath(
        '@capz-backstage/plugin-capz-backend',
        'migrations',
      );
      await knex.migrate.up({ directory }); // condition history
      await knex.migrate.up({ directory }); // jobs
      const row = (
        id: string,
        state: string,
        createdAt: number,
        request: JobRequest,
        p: unknown = plan,
      ) => ({
        id,
        type: request.type,
        management_cluster: 'east',
        namespace: (request.params as { namespace: string }).namespace,
        name: id,
        active_key: state === 'succeeded' ? null : `east/${id}`,
        params: JSON.stringify(request.params),
        plan: JSON.stringify(p),
        steps: '[]',
        created_by: 'user:default/tester',
        state,
        created_at: createdAt,
        updated_at: createdAt,
      });
      const migration: JobRequest = {
        type: 'migrate',
        params: {
          managementCluster: 'east',
          namespace: 'team-data',
          name: 'data-lake',
          targetNamespace: 'data-lake-aso',
        },
      };
      const verify = [
        {
          ...plan[0],
          id: 'verify',
          preconditions: [
            {
              type: 'azure-cluster-exists',
              subscriptionId: SUB,
              resourceGroup: 'RG-Data-Lake',
              name: 'data-lake',
              credential: { apiVersion: 'v1', kind: 'Secret', name: 's' },
              description: '',
            },
          ],
        },
      ];
      await knex('capz_jobs').insert([
        row('old-done', 'succeeded', 1, adopt('a')),
        row('old-first', 'running', 2, adopt('b')),
        row('old-second', 'queued', 3, adopt('c')), // the double owner of before: keeps running, without claims
        row('old-migrate', 'failed', 4, migration, verify),
      ]);
      const store = await JobStore.create({
        database: mockServices.database({ knex }),
      });
      expect(await store.claimsOf('old-done')).toEqual([]);
      expect(await store.claimsOf('old-first')).toEqual([
        `aks:${SUB}/rg-analytics/analytics-aks`,
        `rg:${SUB}/rg-analytics`,
      ]);
      expect(await store.claimsOf('old-second')).toEqual([]);
      expect(await store.claimsOf('old-migrate')).toEqual([
        `aks:${SUB}/rg-data-lake/data-lake`,
        `rg:${SUB}/rg-data-lake`,
      ]);
    });
  },
);
