/**
 * The watch cache across a kube-apiserver restart (SIGKILL: every watch drops at once, as in a crash or a
 * control-plane upgrade). On a management cluster of the test's own, with the simulator running on it: killing the
 * run's shared API server would disturb the other suites.
 */
import { mockServices } from '@backstage/backend-test-utils';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ClusterViews } from '../views/clusterViews';
import {
  ClusterInfo,
  kube,
  loadClientForTests,
  until,
} from '../testing/realCluster';
import { cacheMatchesServer } from '../testing/cacheMatchesServer';
import { WatchCache } from './WatchCache';

const repo = join(__dirname, '..', '..', '..', '..');
const cli = (pkg: string) => join(repo, 'packages', pkg, 'src', 'cli.ts');
const name = `restart-${process.pid}`;

let info: ClusterInfo;
let sim: ChildProcess | undefined;
let cache: WatchCache;
let views: ClusterViews;

beforeAll(async () => {
  const kubeconfig = execFileSync(
    'node',
    [cli('mgmt-cluster'), 'start', '--name', name, '--ephemeral'],
    { encoding: 'utf8' },
  ).trim();
  info = JSON.parse(
    readFileSync(join(dirname(kubeconfig), 'cluster.json'), 'utf8'),
  );
  sim = spawn(
    'node',
    [
      cli('capz-sim'),
      'run',
      '--cluster',
      name,
      '--scenarios',
      'healthy-aso,failing-aso',
      '--operation-ms',
      '100',
    ],
    {
      stdio: 'ignore',
    },
  );
  const managementClusters = [
    {
      name,
      authMethod: 'serviceAccountToken' as const,
      url: info.url,
      caData: info.caPem,
      serviceAccountToken: info.backendToken,
    },
  ];
  cache = new WatchCache(
    managementClusters,
    mockServices.logger.mock(),
    loadClientForTests,
  );
  await cache.start();
  views = new ClusterViews(cache, [name]);
}, 180_000);

afterAll(async () => {
  await cache?.stop();
  sim?.kill();
  execFileSync('node', [cli('mgmt-cluster'), 'stop', '--name', name]);
}, 60_000);

const summaries = () =>
  views
    .list()
    .map(
      c =>
        `${c.namespace}/${c.name} ${c.health} pools=${c.pools?.ready}/${c.pools?.total} replicas=${c.pools?.replicas}`,
    )
    .sort();

const rgPath = (ns: string, rg = '') =>
  `/apis/resources.azure.com/v1api20200601/namespaces/${ns}/resourcegroups${
    rg ? `/${rg}` : ''
  }`;
const probe = (rgName: string) => ({
  apiVersion: 'resources.azure.com/v1api20200601',
  kind: 'ResourceGroup',
  // reconcile-policy skip: the simulated ASO leaves it alone (no finalizer, no Azure call), so it is a pure probe.
  metadata: {
    name: rgName,
    annotations: { 'serviceoperator.azure.com/reconcile-policy': 'skip' },
  },
  spec: { location: 'westeurope' },
});

describe('after an API-server restart', () => {
  it('the watch cache converges to the server, misses no delete, and the trees are right again', async () => {
    const settled = [
      'team-payments/payments-dev healthy pools=1/1 replicas=1',
      'team-payments/payments-prod healthy pools=3/3 replicas=9',
      'team-search/search-prod degraded pools=0/2 replicas=0',
    ];
    await until(
      'the scenarios to settle',
      () => JSON.stringify(summaries()) === JSON.stringify(settled),
      120_000,
    ).catch(e => {
      throw new Error(`${e.message}: ${JSON.stringify(summaries())}`);
    });
    expect(
      (await kube(info, 'POST', rgPath('team-payments'), probe('probe-before')))
        .status,
    ).toBe(201);
    await until('the probe in the cache', () =>
      cache
        .list(name, 'ResourceGroup', 'team-payments')
        .some(o => o.metadata.name === 'probe-before'),
    );

    execFileSync(
      'node',
      [cli('mgmt-cluster'), 'restart-apiserver', '--name', name],
      { stdio: 'ignore' },
    );

    // Changes right after the restart, while the informers may still be reconnecting: a delete, a create, and a
    // scale-out that the simulator (reconnecting too) must carry out.
    expect(
      (await kube(info, 'DELETE', rgPath('team-payments', 'probe-before')))
        .status,
    ).toBe(200);
    expect(
      (await kube(info, 'POST', rgPath('team-payments'), probe('probe-after')))
        .status,
    ).toBe(201);
    const mp = await kube(
      info,
      'PATCH',
      '/apis/cluster.x-k8s.io/v1beta2/namespaces/team-payments/machinepools/payments-dev-system',
      { spec: { replicas: 2 } },
      'application/merge-patch+json',
    );
    expect(mp.status).toBe(200);

    // The DELETE only marks probe-before: it is gone once the simulated ASO has removed its finalizer, which on a
    // busy machine can come after the cache first matches the server (seen under stress-ng: the cache rightly
    // still held the object being deleted). So wait for the delete to land, then for the cache to match.
    const rgsInCache = () =>
      cache
        .list(name, 'ResourceGroup', 'team-payments')
        .map(o => o.metadata.name);
    await until(
      'the delete of probe-before and the create of probe-after in the cache',
      () =>
        rgsInCache().includes('probe-after') &&
        !rgsInCache().includes('probe-before'),
      90_000,
    ).catch(e => {
      throw new Error(`${e.message}: ${JSON.stringify(rgsInCache())}`);
    });
    await until(
      'the cache to match the server again',
      async () => (await cacheMatchesServer(cache, name, info)) === true,
      90_000,
    ).catch(async e => {
      throw new Error(
        `${e.message}: ${await cacheMatchesServer(cache, name, info)}`,
      );
    });
    expect(rgsInCache()).toContain('probe-after');
    expect(rgsInCache()).not.toContain('probe-before');
    await until(
      'the scale-out to show',
      () =>
        summaries().includes(
          'team-payments/payments-dev healthy pools=1/1 replicas=2',
        ),
      60_000,
    ).catch(e => {
      throw new Error(`${e.message}: ${JSON.stringify(summaries())}`);
    });
    expect(summaries()).toEqual([
      settled[0].replace('replicas=1', 'replicas=2'),
      settled[1],
      settled[2],
    ]);
    expect(cache.status(name).synced).toBe(true);
    // eslint-disable-next-line no-console
    console.log(
      `watch restarts per kind after the API-server restart: ${JSON.stringify(
        Object.fromEntries(
          Object.entries(cache.status(name).kinds).map(([k, s]) => [
            k,
            s.restarts,
          ]),
        ),
      )}`,
    );
  }, 300_000);
});
