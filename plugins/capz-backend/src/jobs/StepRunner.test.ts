import type {
  KubeObject,
  LiveCondition,
  ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import type { JobClient } from '../cluster/clientViews';
import { evaluateLive, type StepContext } from './StepRunner';

/** A management cluster's objects as a live LIST returns them (the matching rules are what is tested here). */
function listing(objects: KubeObject[], fail?: string): JobClient {
  return {
    list: async (_v: string, kind: string) => {
      if (fail) throw new Error(fail);
      return objects.filter(o => o.kind === kind);
    },
  } as unknown as JobClient;
}

const SUB = '00000000-0000-0000-0000-0000000000aa';
const mc = (
  ns: string,
  name: string,
  extra: Partial<KubeObject> & { spec?: Record<string, unknown> } = {},
): KubeObject => ({
  apiVersion: 'containerservice.azure.com/v1api20240901',
  kind: 'ManagedCluster',
  metadata: { name, namespace: ns, ...(extra.metadata ?? {}) },
  spec: { owner: { name: 'rg' }, ...(extra.spec ?? {}) },
  ...(extra.status ? { status: extra.status } : {}),
});
const rg = (
  ns: string,
  name: string,
  azureName: string,
  policy?: string,
): KubeObject => ({
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  metadata: {
    name,
    namespace: ns,
    ...(policy
      ? {
          annotations: { 'serviceoperator.azure.com/reconcile-policy': policy },
        }
      : {}),
  },
  spec: { azureName },
});

const sole = (except: ObjectRef[] = []): LiveCondition => ({
  type: 'sole-manager',
  azure: { subscriptionId: SUB, resourceGroup: 'My_RG', name: 'myAKS' },
  except,
});

async function check(clusters: Record<string, JobClient>, cond = sole()) {
  const ctx = {
    jobId: 'job-1',
    managementCluster: 'main',
    client: clusters.main,
    clusters: async () =>
      Object.entries(clusters).map(([name, client]) => ({ name, client })),
  } as unknown as StepContext;
  return evaluateLive(cond, ctx);
}

describe('the sole-manager check (one owner per AKS cluster)', () => {
  it('holds when nothing points at the cluster, and names the clusters it read', async () => {
    expect(
      await check({
        main: listing([rg('a', 'rg', 'other-rg'), mc('a', 'x')]),
        edge: listing([]),
      }),
    ).toEqual({
      holds: true,
      observed: 'no other ASO object on main, edge points at it',
    });
  });

  it('finds a ManagedCluster by ARM id, by group and Azure name (case-insensitive), or by an owner ARM id, on any management cluster', async () => {
    const byId = mc('a', 'one', {
      status: {
        id: `/subscriptions/${SUB}/resourceGroups/my_rg/providers/Microsoft.ContainerService/managedClusters/MYAKS`,
      },
    });
    const byNames = mc('b', 'two', {
      spec: { owner: { name: 'grp' }, azureName: 'myaks' },
    });
    const byOwnerId = mc('c', 'myaks', {
      spec: { owner: { armId: `/subscriptions/${SUB}/resourceGroups/MY_RG` } },
    });
    const r = await check({
      main: listing([byId, rg('b', 'grp', 'my_rg', 'skip'), byNames]),
      edge: listing([byOwnerId]),
    });
    expect(r.holds).toBe(false);
    expect(r.observed).toBe(
      'ManagedCluster main/a/one already manages it; ManagedCluster main/b/two already manages it; ManagedCluster edge/c/myaks already manages it',
    );
  });

  it('refuses a ResourceGroup on manage pointing at the group (it would delete the cluster with itself), not one on skip or detach-on-delete', async () => {
    const r = await check({
      main: listing([
        rg('a', 'g1', 'my_rg'),
        rg('b', 'g2', 'MY_RG', 'skip'),
        rg('c', 'g3', 'my_rg', 'detach-on-delete'),
      ]),
    });
    expect(r).toEqual({
      holds: false,
      observed:
        'ResourceGroup main/a/g1 (reconcile-policy manage) would delete its resource group My_RG',
    });
  });

  it("does not count the objects a migration moves away from (on its own management cluster only) nor the job's own", async () => {
    const old = mc('old', 'myaks', { spec: { owner: { name: 'g' } } });
    const ours = mc('new', 'myaks', {
      metadata: {
        name: 'myaks',
        namespace: 'new',
        annotations: { 'capz.io/job': 'job-1' },
      },
      spec: { owner: { name: 'g' } },
    });
    const groups = [
      rg('old', 'g', 'my_rg'),
      {
        ...rg('new', 'g', 'my_rg'),
        metadata: {
          name: 'g',
          namespace: 'new',
          annotations: { 'capz.io/job': 'job-1' },
        },
      },
    ];
    const except: ObjectRef[] = [
      {
        apiVersion: 'containerservice.azure.com/v1api20240901',
        kind: 'ManagedCluster',
        namespace: 'old',
        name: 'myaks',
      },
      {
        apiVersion: 'resources.azure.com/v1api20200601',
        kind: 'ResourceGroup',
        namespace: 'old',
        name: 'g',
      },
    ];
    expect(
      (await check({ main: listing([old, ours, ...groups]) }, sole(except)))
        .holds,
    ).toBe(true);
    // The same object names on another management cluster are another owner.
    expect(
      (
        await check(
          { main: listing([]), edge: listing([old, groups[0]]) },
          sole(except),
        )
      ).holds,
    ).toBe(false);
  });

  it('fails when a management cluster cannot be read: it may hold the owner', async () => {
    const r = await check({
      main: listing([]),
      edge: listing([], 'connect ECONNREFUSED 127.0.0.1:6443'),
    });
    expect(r).toEqual({
      holds: false,
      observed:
        'management cluster edge could not be read (connect ECONNREFUSED 127.0.0.1:6443)',
    });
  });
});
