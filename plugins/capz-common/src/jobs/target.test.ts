import { planAdoption } from './adoption';
import { planMigration } from './migration';
import { planApiVersionUpgrade } from './upgrade';
import { azureNamed } from './__fixtures__/adoption';
import {
  params as migrateParams,
  snapshot as migrateSnapshot,
} from './__fixtures__/migration';
import {
  params as upgradeParams,
  snapshot as upgradeSnapshot,
} from './__fixtures__/upgrade';
import { jobTargetOf } from './target';

describe('jobTargetOf', () => {
  it("keys an adoption under the Cluster it creates: the AKS cluster's Azure name, normalised", () => {
    const { params, snapshot } = azureNamed();
    expect(jobTargetOf({ type: 'adopt', params })).toEqual({
      managementCluster: 'mgmt',
      namespace: 'adopt',
      name: 'myakscluster',
    });
    // The job is stored under the planner's target: the early checks must use the same key.
    expect(jobTargetOf({ type: 'adopt', params })).toEqual(
      planAdoption(params, snapshot).target,
    );
  });

  it('keys a migration and an API version upgrade under the Cluster they name, as their planners do', () => {
    expect(jobTargetOf({ type: 'migrate', params: migrateParams })).toEqual(
      planMigration(migrateParams, migrateSnapshot()).target,
    );
    expect(
      jobTargetOf({ type: 'upgrade-api-version', params: upgradeParams }),
    ).toEqual(planApiVersionUpgrade(upgradeParams, upgradeSnapshot()).target);
    expect(jobTargetOf({ type: 'migrate', params: migrateParams })).toEqual({
      managementCluster: migrateParams.managementCluster,
      namespace: migrateParams.namespace,
      name: migrateParams.name,
    });
  });
});
