import { mockServices } from '@backstage/backend-test-utils';
import { DefaultEventsService } from '@backstage/plugin-events-node';
import { DefaultSignalsService } from '@backstage/plugin-signals-node';
import {
  CAPZ_SIGNAL_CHANNEL,
  ClusterSummary,
} from '@capz-backstage/plugin-capz-common';
import {
  CapzClusterEntityProvider,
  ClusterChangeStream,
  FULL_REPLACE_MS,
  MAX_UIDS_READ,
} from './CapzClusterEntityProvider';
import { CapzSignalChangeStream } from './CapzSignalChangeStream';
import { clusterToEntity, entityNameFor } from './clusterEntity';

const cluster: ClusterSummary = {
  uid: 'c0ffee00-0000-0000-0000-000000000001',
  managementCluster: 'local',
  namespace: 'team-a',
  name: 'aks-dev',
  api: 'aso-v1beta1',
};

describe('CapzClusterEntityProvider', () => {
  it('replaces the catalog set with one Resource per cluster', async () => {
    const connection = { applyMutation: jest.fn(), refresh: jest.fn() };
    const provider = new CapzClusterEntityProvider({
      source: {
        listClusters: async () => ({
          items: [
            cluster,
            { ...cluster, name: 'aks-prod', owner: 'group:default/sre' },
          ],
        }),
      },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
    });
    await provider.connect(connection);
    await provider.refresh();
    const [[mutation]] = connection.applyMutation.mock.calls;
    expect(mutation.type).toBe('full');
    expect(
      mutation.entities.map((e: any) => [
        e.entity.metadata.name,
        e.entity.spec.owner,
      ]),
    ).toEqual([
      ['local-team-a-aks-dev', 'group:default/platform'],
      ['local-team-a-aks-prod', 'group:default/sre'],
    ]);
  });

  it('refuses to refresh before the catalog connects it', async () => {
    const provider = new CapzClusterEntityProvider({
      source: { listClusters: async () => ({ items: [] }) },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
    });
    await expect(provider.refresh()).rejects.toThrow(/not connected/);
  });
});

/** A change stream the test drives: `emit` is what the capz backend announcing changed Clusters does. */
function fakeChanges() {
  let listener: ((uids: string[]) => void) | undefined;
  const stream: ClusterChangeStream = {
    subscribe: async onChange => {
      listener = onChange;
      return () => {
        listener = undefined;
      };
    },
  };
  return { stream, emit: (uids: string[]) => listener?.(uids) };
}

/** Resolves once `check` holds (checked every 5 ms; the test's timeout detects a hang). */
async function until(check: () => boolean) {
  while (!check()) await new Promise(r => setTimeout(r, 5));
}

/** Resolves once the connection got `n` mutations. */
async function mutations(connection: { applyMutation: jest.Mock }, n: number) {
  for (
    let i = 0;
    i < 200 && connection.applyMutation.mock.calls.length < n;
    i++
  )
    await new Promise(r => setTimeout(r, 5));
  return connection.applyMutation.mock.calls.map(([m]) => m);
}

const summary = (m: any) =>
  m.type === 'full'
    ? {
        type: 'full',
        entities: m.entities.map((e: any) => e.entity.metadata.name),
      }
    : {
        type: 'delta',
        added: m.added.map((e: any) => [
          e.entity.metadata.name,
          e.entity.spec.owner,
          e.locationKey,
        ]),
        removed: m.removed.map((e: any) => e.entity.metadata.name),
      };

describe('CapzClusterEntityProvider: live updates', () => {
  function setup() {
    let clusters: ClusterSummary[] = [cluster];
    let listing: string[] | undefined;
    const changes = fakeChanges();
    const connection = { applyMutation: jest.fn(), refresh: jest.fn() };
    const listClusters = jest.fn(async () => ({ items: clusters, listing }));
    const provider = new CapzClusterEntityProvider({
      source: { listClusters },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
      changes: changes.stream,
      changeDelayMs: 10,
      listingRetryMs: 10,
    });
    return {
      provider,
      connection,
      emit: changes.emit,
      listClusters,
      set: (next: ClusterSummary[]) => {
        clusters = next;
      },
      setListing: (next?: string[]) => {
        listing = next;
      },
    };
  }

  it('applies nothing while the capz backend is doing a first list, then replaces the whole set once it is over', async () => {
    const { provider, connection, emit, set, setListing, listClusters } =
      setup();
    await provider.connect(connection);
    // A restart: the catalog still holds aks-dev and aks-prod; the cache has listed aks-dev only so far.
    setListing(['local']);
    await provider.refresh();
    emit([cluster.uid]);
    expect(connection.applyMutation).not.toHaveBeenCalled();
    // The retry asks again while the list goes on, applying nothing.
    await until(() => listClusters.mock.calls.length >= 2);
    expect(connection.applyMutation).not.toHaveBeenCalled();
    set([cluster, { ...cluster, uid: 'u2', name: 'aks-prod' }]);
    setListing(undefined);
    expect((await mutations(connection, 1)).map(summary)).toEqual([
      {
        type: 'full',
        entities: ['local-team-a-aks-dev', 'local-team-a-aks-prod'],
      },
    ]);
    provider.close();
  });

  it('applies each announced change as a delta: a new cluster with its owner, a changed one, a removed one', async () => {
    const { provider, connection, emit, set } = setup();
    await provider.connect(connection);
    await provider.refresh();

    // The scaffolder created team-a/new with owner group:default/search.
    const created = {
      ...cluster,
      uid: 'c0ffee00-0000-0000-0000-000000000002',
      name: 'new',
      owner: 'group:default/search',
    };
    set([cluster, created]);
    emit([created.uid]);
    await mutations(connection, 2);
    // The owner annotation changed on aks-dev, then team-a/new was deleted.
    set([{ ...cluster, owner: 'group:default/sre' }, created]);
    emit([cluster.uid]);
    await mutations(connection, 3);
    set([{ ...cluster, owner: 'group:default/sre' }]);
    emit([created.uid]);
    const ms = await mutations(connection, 4);

    expect(ms.map(summary)).toEqual([
      { type: 'full', entities: ['local-team-a-aks-dev'] },
      {
        type: 'delta',
        added: [['local-team-a-new', 'group:default/search', 'capz-clusters']],
        removed: [],
      },
      {
        type: 'delta',
        added: [['local-team-a-aks-dev', 'group:default/sre', 'capz-clusters']],
        removed: [],
      },
      { type: 'delta', added: [], removed: ['local-team-a-new'] },
    ]);
    provider.close();
  });

  it('coalesces a burst of changes into one read and one delta, and applies nothing when nothing moved', async () => {
    const { provider, connection, emit, listClusters } = setup();
    await provider.connect(connection);
    await provider.refresh();
    for (let i = 0; i < 20; i++) emit([cluster.uid]);
    await new Promise(r => setTimeout(r, 60));
    expect(listClusters).toHaveBeenCalledTimes(2); // the refresh, then one for the burst
    expect(connection.applyMutation).toHaveBeenCalledTimes(1); // only the full one: the burst changed nothing
    provider.close();
  });

  it('ignores changes before the catalog connects it, and after close', async () => {
    const { provider, connection, emit } = setup();
    emit(['x']);
    await new Promise(r => setTimeout(r, 30));
    expect(connection.applyMutation).not.toHaveBeenCalled();
    await provider.connect(connection);
    provider.close();
    emit(['x']);
    await new Promise(r => setTimeout(r, 30));
    expect(connection.applyMutation).not.toHaveBeenCalled();
  });
});

describe('CapzClusterEntityProvider: a change reads only the clusters it named', () => {
  function setup() {
    let clusters: ClusterSummary[] = [cluster];
    const changes = fakeChanges();
    const connection = { applyMutation: jest.fn(), refresh: jest.fn() };
    const listClusters = jest.fn(async () => ({ items: clusters }));
    // The capz backend's GET /clusters?uids=: the named clusters still there, in the order asked.
    const clustersWithUids = jest.fn(async (uids: string[]) => ({
      items: uids.flatMap(uid => clusters.filter(c => c.uid === uid)),
    }));
    const provider = new CapzClusterEntityProvider({
      source: { listClusters, clustersWithUids },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
      changes: changes.stream,
      changeDelayMs: 10,
    });
    return {
      provider,
      connection,
      emit: changes.emit,
      listClusters,
      clustersWithUids,
      set: (next: ClusterSummary[]) => {
        clusters = next;
      },
    };
  }
  const other = { ...cluster, uid: 'u-other', name: 'aks-other' };

  it('adds, updates and removes by the uids a change named, never reading the whole list', async () => {
    const { provider, connection, emit, set, listClusters, clustersWithUids } =
      setup();
    set([cluster, other]);
    await provider.connect(connection);
    await provider.refresh();

    const created = { ...cluster, uid: 'u-new', name: 'new' };
    set([cluster, other, created]);
    emit([created.uid]);
    await mutations(connection, 2);
    // aks-dev's owner changed and team-a/new was deleted, announced together.
    set([{ ...cluster, owner: 'group:default/sre' }, other]);
    emit([cluster.uid, created.uid]);
    const ms = await mutations(connection, 3);

    expect(ms.map(summary)).toEqual([
      {
        type: 'full',
        entities: ['local-team-a-aks-dev', 'local-team-a-aks-other'],
      },
      {
        type: 'delta',
        added: [
          ['local-team-a-new', 'group:default/platform', 'capz-clusters'],
        ],
        removed: [],
      },
      {
        type: 'delta',
        added: [['local-team-a-aks-dev', 'group:default/sre', 'capz-clusters']],
        removed: ['local-team-a-new'],
      },
    ]);
    expect(listClusters).toHaveBeenCalledTimes(1); // the refresh only
    expect(clustersWithUids.mock.calls).toEqual([
      [[created.uid]],
      [[cluster.uid, created.uid]],
    ]);
    provider.close();
  });

  it("keeps a name created again under a new uid when the old uid's delete is announced after it", async () => {
    const { provider, connection, set } = setup();
    await provider.connect(connection);
    await provider.refresh();
    const again = { ...cluster, uid: 'u-again', owner: 'group:default/sre' };
    set([again]);
    expect(
      (await provider.applyChanges([again.uid])).added.map(e => e.spec?.owner),
    ).toEqual(['group:default/sre']);
    // The first uid's delete, heard late: its name is the new cluster's now.
    expect(await provider.applyChanges([cluster.uid])).toEqual({
      added: [],
      removed: [],
    });
    // A uid never known, gone: nothing to remove.
    expect(await provider.applyChanges(['u-unknown'])).toEqual({
      added: [],
      removed: [],
    });
    // The new uid's delete removes it.
    set([]);
    const { removed } = await provider.applyChanges([again.uid]);
    expect(removed.map(e => e.metadata.name)).toEqual(['local-team-a-aks-dev']);
    provider.close();
  });

  it(`reads every cluster for a burst of more than ${MAX_UIDS_READ} uids, or a change without uids`, async () => {
    const { provider, connection, set, listClusters, clustersWithUids } =
      setup();
    await provider.connect(connection);
    await provider.refresh();
    const many = Array.from({ length: MAX_UIDS_READ + 1 }, (_, i) => ({
      ...cluster,
      uid: `u-${i}`,
      name: `c-${i}`,
    }));
    set(many);
    const delta = await provider.applyChanges(many.map(c => c.uid));
    expect(delta.added).toHaveLength(MAX_UIDS_READ + 1);
    // The whole set compared: aks-dev, named by no uid, is gone from it.
    expect(delta.removed.map(e => e.metadata.name)).toEqual([
      'local-team-a-aks-dev',
    ]);
    expect(await provider.applyChanges([])).toEqual({ added: [], removed: [] });
    expect(listClusters).toHaveBeenCalledTimes(3);
    expect(clustersWithUids).not.toHaveBeenCalled();
    provider.close();
  });
});

describe('CapzClusterEntityProvider: the scheduled refresh', () => {
  it(`replaces the whole set the first time and every ${
    FULL_REPLACE_MS / 60_000
  } minutes, and in between applies only what moved`, async () => {
    let clusters: ClusterSummary[] = [cluster];
    let now = 0;
    const connection = { applyMutation: jest.fn(), refresh: jest.fn() };
    const provider = new CapzClusterEntityProvider({
      source: { listClusters: async () => ({ items: clusters }) },
      logger: mockServices.logger.mock(),
      taskRunner: { run: async () => {} },
      defaultOwner: 'group:default/platform',
      now: () => now,
    });
    await provider.connect(connection);
    await provider.refresh();
    // A minute on, nothing moved: no mutation, so the catalog reads and hashes nothing.
    now += 60_000;
    await provider.refresh();
    expect(connection.applyMutation).toHaveBeenCalledTimes(1);
    // A cluster no signal announced (the safety net) and one gone: a delta with those two.
    const missed = { ...cluster, uid: 'u-missed', name: 'missed' };
    clusters = [missed];
    now += 60_000;
    await provider.refresh();
    // The hour is up: the whole set again, whatever moved.
    now = FULL_REPLACE_MS;
    await provider.refresh();
    expect(
      connection.applyMutation.mock.calls.map(([m]) => summary(m)),
    ).toEqual([
      { type: 'full', entities: ['local-team-a-aks-dev'] },
      {
        type: 'delta',
        added: [
          ['local-team-a-missed', 'group:default/platform', 'capz-clusters'],
        ],
        removed: ['local-team-a-aks-dev'],
      },
      { type: 'full', entities: ['local-team-a-missed'] },
    ]);
    provider.close();
  });
});

describe('CapzSignalChangeStream', () => {
  it("hears the capz backend's signals on the events service, and nothing else", async () => {
    // The real services: the capz backend publishes through its SignalsService, which rides on the events service.
    const events = DefaultEventsService.create({
      logger: mockServices.logger.mock(),
    });
    const signals = DefaultSignalsService.create({
      events: events.forPlugin('capz'),
    });
    const heard: string[][] = [];
    const stop = await new CapzSignalChangeStream({
      events: events.forPlugin('catalog'),
      logger: mockServices.logger.mock(),
    }).subscribe(uids => heard.push(uids));

    await signals.publish({
      recipients: { type: 'broadcast' },
      channel: CAPZ_SIGNAL_CHANNEL,
      message: { clusterUids: ['u1', 'u2'] },
    });
    await signals.publish({
      recipients: { type: 'broadcast' },
      channel: 'other:channel',
      message: { clusterUids: ['nope'] },
    });
    stop();
    await signals.publish({
      recipients: { type: 'broadcast' },
      channel: CAPZ_SIGNAL_CHANNEL,
      message: { clusterUids: ['after-stop'] },
    });
    expect(heard).toEqual([['u1', 'u2']]);
  });
});

describe('clusterToEntity', () => {
  it('makes a kubernetes-cluster Resource annotated with the cluster identity', () => {
    const e = clusterToEntity(cluster, {
      providerName: 'p',
      defaultOwner: 'group:default/platform',
    });
    expect(e.kind).toBe('Resource');
    expect(e.spec).toEqual({
      type: 'kubernetes-cluster',
      owner: 'group:default/platform',
    });
    expect(e.metadata.annotations?.['capz.io/cluster']).toBe(
      'local/team-a/aks-dev',
    );
  });

  it("carries the Kubernetes plugin's annotations once the API server is known; auth-provider aks for Entra ID only", () => {
    const opts = { providerName: 'p', defaultOwner: 'group:default/platform' };
    const apiServer = {
      url: 'https://aks-dev-dns.hcp.westeurope.azmk8s.io:443',
      certificateAuthorityData: 'TFMwdExTMUNSVWRK',
    };
    const k8s = (s: ClusterSummary) =>
      Object.fromEntries(
        Object.entries(clusterToEntity(s, opts).metadata.annotations!).filter(
          ([k]) => k.startsWith('kubernetes.io/'),
        ),
      );
    expect(k8s({ ...cluster, entraId: true, apiServer })).toEqual({
      'kubernetes.io/api-server': apiServer.url,
      'kubernetes.io/api-server-certificate-authority':
        apiServer.certificateAuthorityData,
      'kubernetes.io/auth-provider': 'aks',
    });
    // Local accounts: no auth provider the stock plugin could use without a secret, so the locator skips it.
    expect(k8s({ ...cluster, apiServer })).toEqual({
      'kubernetes.io/api-server': apiServer.url,
      'kubernetes.io/api-server-certificate-authority':
        apiServer.certificateAuthorityData,
    });
    expect(k8s({ ...cluster, entraId: true })).toEqual({});
  });

  it('keeps entity names within 63 valid characters', () => {
    const name = entityNameFor({
      managementCluster: 'm',
      namespace: 'n'.repeat(40),
      name: 'c'.repeat(40),
    });
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9-_.]*[a-zA-Z0-9]$/);
  });
});
