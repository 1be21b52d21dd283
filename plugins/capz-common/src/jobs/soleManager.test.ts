import type { ObservedObject } from '../objects/types';
import {
  clusterNotManagedCheck,
  groupDeleters,
  groupNotManagedCheck,
  soleManagerCondition,
} from './soleManager';
import { params, snapshot } from './__fixtures__/migration';
import { planMigration } from './migration';

const SUB = '6f1c2d3e-0000-4000-8000-0000000000a1';
const azure = {
  subscriptionId: SUB,
  resourceGroup: 'RG-Payments',
  name: 'pay',
};

const group = (
  namespace: string,
  name: string,
  o: { azureName?: string; policy?: string; id?: string; job?: string } = {},
): ObservedObject => ({
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  metadata: {
    namespace,
    name,
    annotations: {
      ...(o.policy
        ? { 'serviceoperator.azure.com/reconcile-policy': o.policy }
        : {}),
      ...(o.job ? { 'capz.io/job': o.job } : {}),
    },
  },
  spec: {
    location: 'westeurope',
    ...(o.azureName ? { azureName: o.azureName } : {}),
  },
  ...(o.id ? { status: { id: o.id } } : {}),
});

const on = (managementCluster: string, ...objects: ObservedObject[]) =>
  objects.map(object => ({ managementCluster, object }));

describe('groupDeleters: the ResourceGroup objects that would delete the AKS cluster group', () => {
  it('counts a manage object (annotation absent or manage) in another namespace or on another management cluster, by Azure name, case-insensitively', () => {
    expect(
      groupDeleters(
        azure,
        [
          ...on('local', group('team-a', 'rg-payments')),
          ...on(
            'other',
            group('ops', 'pay-group', {
              azureName: 'rg-payments',
              policy: 'manage',
            }),
          ),
        ],
        { managementCluster: 'local', except: [] },
      ),
    ).toEqual([
      'ResourceGroup local/team-a/rg-payments (reconcile-policy manage) would delete its resource group RG-Payments',
      'ResourceGroup other/ops/pay-group (reconcile-policy manage) would delete its resource group RG-Payments',
    ]);
  });

  it('leaves out skip and detach-on-delete objects, the job’s own, the reused one and other groups', () => {
    expect(
      groupDeleters(
        azure,
        on(
          'local',
          group('a', 'rg-payments', { policy: 'skip' }),
          group('b', 'rg-payments', { policy: 'detach-on-delete' }),
          group('c', 'rg-payments', { job: 'job-1' }),
          group('d', 'rg-payments'),
          group('e', 'rg-other'),
        ),
        {
          managementCluster: 'local',
          jobId: 'job-1',
          except: [
            {
              apiVersion: 'resources.azure.com/v1api20200601',
              kind: 'ResourceGroup',
              namespace: 'd',
              name: 'rg-payments',
            },
          ],
        },
      ),
    ).toEqual([]);
  });

  it('goes by the ARM id ASO recorded when there is one: the subscription counts', () => {
    const other = '00000000-0000-4000-8000-000000000000';
    expect(
      groupDeleters(
        azure,
        on(
          'local',
          group('a', 'x', {
            id: `/subscriptions/${SUB}/resourceGroups/rg-payments`,
          }),
          group('b', 'rg-payments', {
            id: `/subscriptions/${other}/resourceGroups/rg-payments`,
          }),
        ),
        { managementCluster: 'local', except: [] },
      ),
    ).toEqual([
      'ResourceGroup local/a/x (reconcile-policy manage) would delete its resource group RG-Payments',
    ]);
  });
});

describe("groupNotManagedCheck: the migration preview shows the refusal of the pause step's first write", () => {
  // The migration's own plan: its pause step's live one-owner condition excepts the old cluster's objects.
  const planned = planMigration(params, snapshot());
  const condition = soleManagerCondition(planned.plan)!;
  const legacyGroups = snapshot().objects.filter(
    o => o.kind === 'ResourceGroup',
  ) as ObservedObject[];
  const check = (groups: ReturnType<typeof on>) =>
    groupNotManagedCheck({
      azure: condition.azure,
      except: condition.except,
      managementCluster: 'mgmt',
      managementClusters: ['mgmt', 'other'],
      groups,
      excepted: 'which the migration disarms first',
    });

  it('passes over the old cluster own groups, which the migration disarms, and names them', () => {
    expect(condition.azure.resourceGroup).toBe('RG_legacy-1');
    const r = check(on('mgmt', ...legacyGroups));
    expect(r).toMatchObject({ id: 'group-not-managed', status: 'pass' });
    expect(r.message).toBe(
      `No ResourceGroup object with reconcile-policy manage on mgmt, other points at RG_legacy-1 besides ${condition.except
        .filter(x => x.kind === 'ResourceGroup')
        .map(x => x.name)
        .join(', ')}, which the migration disarms first.`,
    );
  });

  it('fails on a manage ResourceGroup for the group in another namespace or on another management cluster, in the words of the live check', () => {
    const ops = group('ops', 'shared-rg', { azureName: 'rg_LEGACY-1' });
    const r = check([
      ...on('mgmt', ...legacyGroups, ops),
      ...on(
        'other',
        group('team-legacy', 'copy', { azureName: 'RG_legacy-1' }),
      ),
    ]);
    expect(r.status).toBe('fail');
    expect(r.message).toBe(
      `The job's first write would be refused: ${groupDeleters(
        condition.azure,
        [
          ...on('mgmt', ops),
          ...on(
            'other',
            group('team-legacy', 'copy', { azureName: 'RG_legacy-1' }),
          ),
        ],
        { managementCluster: 'mgmt', except: [] },
      ).join('; ')}.`,
    );
    expect(r.message).toContain('ResourceGroup mgmt/ops/shared-rg');
    expect(r.message).toContain('ResourceGroup other/team-legacy/copy');
    expect(r.message).not.toContain(`mgmt/team-legacy/`);
  });
});

describe("clusterNotManagedCheck: the migration preview shows the pause step's refusal when a ManagedCluster elsewhere manages the AKS cluster", () => {
  const planned = planMigration(params, snapshot());
  const condition = soleManagerCondition(planned.plan)!;
  const oldManagedCluster = condition.except.find(
    x => x.kind === 'ManagedCluster',
  )!;
  const check = (
    owners: Parameters<typeof clusterNotManagedCheck>[0]['owners'],
    unread: string[] = [],
  ) =>
    clusterNotManagedCheck({
      azure: condition.azure,
      except: condition.except,
      managementCluster: 'mgmt',
      managementClusters: ['mgmt', 'other'],
      owners,
      unread,
      excepted: 'which the migration disarms first',
    });
  const own = {
    managementCluster: 'mgmt',
    namespace: oldManagedCluster.namespace!,
    name: oldManagedCluster.name,
  };

  it("passes over the old cluster's own ManagedCluster, which the migration disarms, and names it", () => {
    expect(oldManagedCluster).toMatchObject({
      namespace: 'team-legacy',
      name: 'legacy-1',
    });
    expect(check([own])).toEqual({
      id: 'not-managed-elsewhere',
      title: 'Nothing else manages the AKS cluster',
      status: 'pass',
      message:
        'No ManagedCluster on mgmt, other points at AKS cluster RG_legacy-1/legacy-1 besides legacy-1, which the migration disarms first.',
    });
  });

  it('fails on a ManagedCluster in another namespace or on another management cluster, and only warns when one is not read yet', () => {
    const r = check([
      own,
      {
        managementCluster: 'other',
        namespace: 'team-legacy',
        name: 'legacy-1',
      },
      {
        managementCluster: 'mgmt',
        namespace: 'team-x',
        name: 'copy',
        cluster: 'copy',
      },
    ]);
    expect(r.status).toBe('fail');
    expect(r.message).toBe(
      "The job's first write would be refused: ManagedCluster other/team-legacy/legacy-1 already manages AKS cluster RG_legacy-1/legacy-1; ManagedCluster mgmt/team-x/copy (Cluster copy) already manages AKS cluster RG_legacy-1/legacy-1.",
    );
    expect(check([own], ['other'])).toMatchObject({
      status: 'warn',
      message:
        'No other ManagedCluster points at it on mgmt, but other is not read yet.',
    });
  });
});
