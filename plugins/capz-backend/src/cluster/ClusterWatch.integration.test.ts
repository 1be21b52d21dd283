/**
 * The watch cache against the real API server of the test run (CAPZ_TEST_CLUSTER, started by the README's test
 * command or `yarn mgmt start --name dev`).
 */
import { mockServices } from '@backstage/backend-test-utils';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { adminKubeConfig } from '../testing/realCluster';
import { ClusterWatch, CacheChange, LIST_PAGE } from './ClusterWatch';
import { WATCHED_KINDS } from './watchedKinds';

const clusterFile = process.env.CAPZ_TEST_CLUSTER;
if (!clusterFile) {
  throw new Error(
    'CAPZ_TEST_CLUSTER is not set: run through ./scripts/test.sh, or start a cluster with `yarn mgmt start --name dev` and export CAPZ_TEST_CLUSTER=.local/mgmt-clusters/dev/cluster.json',
  );
}
const info = JSON.parse(readFileSync(clusterFile, 'utf8')) as {
  name: string;
  url: string;
  caPem: string;
  adminToken: string;
};

let k8s: any;
let kc: any;
let custom: any;
let core: any;
const ns = `t-watch-${randomBytes(3).toString('hex')}`;
const CAPZ = { group: 'infrastructure.cluster.x-k8s.io', version: 'v1beta1' };

beforeAll(async () => {
  // Jest's transform turns client-node's ESM into CommonJS; the backend itself uses a native import().
  k8s = require('@kubernetes/client-node');
  kc = adminKubeConfig(k8s, info);
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: ns } } });
}, 120_000);
afterAll(async () => {
  await core?.deleteNamespace({ name: ns }).catch(() => undefined);
});

/** Resolves with the first change matching `pred` (live updates are pushed by the watch, never polled). */
const nextChange = (watch: ClusterWatch, pred: (c: CacheChange) => boolean) =>
  new Promise<CacheChange>(resolve => {
    const on = (c: CacheChange) => {
      if (pred(c)) {
        watch.off('change', on);
        resolve(c);
      }
    };
    watch.on('change', on);
  });

const controlPlane = (name: string) => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'AzureASOManagedControlPlane',
  metadata: { name },
  spec: { resources: [] },
});

describe('ClusterWatch', () => {
  it('lists, then follows adds, updates and deletes, keeping only a compact managedFields', async () => {
    await custom.createNamespacedCustomObject({
      ...CAPZ,
      namespace: ns,
      plural: 'azureasomanagedcontrolplanes',
      body: controlPlane('before-start'),
    });
    const watch = new ClusterWatch(
      info.name,
      kc,
      k8s,
      WATCHED_KINDS,
      mockServices.logger.mock(),
      [ns],
    );
    await watch.start();
    try {
      expect(watch.synced()).toBe(true);
      const status = watch.kindStatus();
      expect(status.AzureASOManagedControlPlane).toMatchObject({
        version: 'v1beta1',
        synced: true,
        restarts: 0,
      });
      expect(status.ManagedCluster).toMatchObject({
        version: 'v1api20240901',
        synced: true,
      });
      expect(
        watch.list('AzureASOManagedControlPlane', ns).map(o => o.metadata.name),
      ).toEqual(['before-start']);
      const [first] = watch.list('AzureASOManagedControlPlane', ns);
      expect(first.metadata.managedFields).toEqual([
        expect.objectContaining({
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          operation: 'Update',
        }),
      ]);
      expect(JSON.stringify(first)).not.toContain('fieldsV1');

      const added = nextChange(
        watch,
        c => c.type === 'add' && c.object.metadata.name === 'after-start',
      );
      await custom.createNamespacedCustomObject({
        ...CAPZ,
        namespace: ns,
        plural: 'azureasomanagedcontrolplanes',
        body: controlPlane('after-start'),
      });
      expect((await added).kind).toBe('AzureASOManagedControlPlane');

      const updated = nextChange(
        watch,
        c =>
          c.type === 'update' && c.object.metadata.labels?.team === 'payments',
      );
      await custom.patchNamespacedCustomObject(
        {
          ...CAPZ,
          namespace: ns,
          plural: 'azureasomanagedcontrolplanes',
          name: 'after-start',
          body: { metadata: { labels: { team: 'payments' } } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await updated;
      expect(
        watch
          .list('AzureASOManagedControlPlane', ns)
          .find(o => o.metadata.name === 'after-start')?.metadata.labels,
      ).toEqual({ team: 'payments' });

      const deleted = nextChange(
        watch,
        c => c.type === 'delete' && c.object.metadata.name === 'before-start',
      );
      await custom.deleteNamespacedCustomObject({
        ...CAPZ,
        namespace: ns,
        plural: 'azureasomanagedcontrolplanes',
        name: 'before-start',
      });
      await deleted;
      expect(
        watch.list('AzureASOManagedControlPlane', ns).map(o => o.metadata.name),
      ).toEqual(['after-start']);
    } finally {
      await watch.stop();
    }
  }, 60_000);

  it('lists a kind of more objects than a page whole, and its watch follows on from that list', async () => {
    const paged = `${ns}-paged`;
    await core.createNamespace({ body: { metadata: { name: paged } } });
    try {
      const names = Array.from({ length: LIST_PAGE + 1 }, (_, i) => `cp-${i}`);
      const api = custom;
      for (let i = 0; i < names.length; i += 25)
        await Promise.all(
          names.slice(i, i + 25).map(name =>
            api.createNamespacedCustomObject({
              ...CAPZ,
              namespace: paged,
              plural: 'azureasomanagedcontrolplanes',
              body: controlPlane(name),
            }),
          ),
        );
      const watch = new ClusterWatch(
        info.name,
        kc,
        k8s,
        WATCHED_KINDS.filter(k => k.name === 'AzureASOManagedControlPlane'),
        mockServices.logger.mock(),
        [paged],
      );
      await watch.start();
      try {
        expect(
          watch
            .list('AzureASOManagedControlPlane', paged)
            .map(o => o.metadata.name)
            .sort(),
        ).toEqual([...names].sort());
        const added = nextChange(
          watch,
          c => c.type === 'add' && c.object.metadata.name === 'after-list',
        );
        await custom.createNamespacedCustomObject({
          ...CAPZ,
          namespace: paged,
          plural: 'azureasomanagedcontrolplanes',
          body: controlPlane('after-list'),
        });
        await added;
        expect(watch.list('AzureASOManagedControlPlane', paged)).toHaveLength(
          LIST_PAGE + 2,
        );
      } finally {
        await watch.stop();
      }
    } finally {
      await core.deleteNamespace({ name: paged }).catch(() => undefined);
    }
  }, 120_000);

  it('reports a kind the server does not serve as unsynced without an error, and the others as synced', async () => {
    const watch = new ClusterWatch(
      info.name,
      kc,
      k8s,
      [
        ...WATCHED_KINDS.filter(k => k.name === 'Cluster'),
        {
          name: 'Missing',
          group: 'example.com',
          versions: ['v1'],
          plural: 'missings',
        },
      ],
      mockServices.logger.mock(),
      [ns],
    );
    await watch.start();
    try {
      expect(watch.kindStatus().Missing).toEqual({
        version: undefined,
        synced: false,
        restarts: 0,
      });
      expect(watch.kindStatus().Cluster.synced).toBe(true);
      expect(watch.synced()).toBe(true);
    } finally {
      await watch.stop();
    }
  }, 60_000);
});
