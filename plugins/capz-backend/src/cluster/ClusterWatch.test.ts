/**
 * ClusterWatch with the real watched kinds against a stand-in of client-node (its CustomObjectsApi, CoreV1Api and
 * informer): a management cluster without Flux's CRDs answers 404 for Flux's groups, as a kube-apiserver does for a
 * group it does not serve (ClusterWatch.integration.test.ts checks that against a real one).
 */
import { mockServices } from '@backstage/backend-test-utils';
import { EventEmitter } from 'node:events';
import type { KubeConfig } from '@kubernetes/client-node';
import { ClusterWatch } from './ClusterWatch';
import type { ClientNode } from './kubeConfig';
import { WATCHED_KINDS } from './watchedKinds';

const FLUX_GROUPS = ['kustomize.toolkit.fluxcd.io', 'source.toolkit.fluxcd.io'];

/** One object of each plural it is asked for. */
const item = (plural: string) => ({
  apiVersion: 'x/v1',
  kind: plural,
  metadata: { name: `${plural}-1`, namespace: 'ns', uid: `uid-${plural}` },
});

function clientNode(o: { flux: boolean }) {
  const probes: string[] = [];
  const informers: string[] = [];
  const answer = (group: string, plural: string) => {
    if (!o.flux && FLUX_GROUPS.includes(group))
      throw Object.assign(
        new Error('the server could not find the requested resource'),
        {
          code: 404,
        },
      );
    return { metadata: {}, items: [item(plural)] };
  };
  const custom = {
    listClusterCustomObject: async (a: {
      group: string;
      version: string;
      plural: string;
      limit?: number;
    }) => {
      if (a.limit === 1) probes.push(`${a.group}/${a.version}/${a.plural}`);
      return answer(a.group, a.plural);
    },
    listNamespacedCustomObject: async (a: { group: string; plural: string }) =>
      answer(a.group, a.plural),
  };
  const core = {
    listEventForAllNamespaces: async () => ({ metadata: {}, items: [] }),
    listNamespacedEvent: async () => ({ metadata: {}, items: [] }),
  };
  class Informer extends EventEmitter {
    private items: any[] = [];
    constructor(private readonly listFn: () => Promise<any>) {
      super();
    }
    async start() {
      const list = await this.listFn();
      this.items = list.items;
      for (const i of this.items) this.emit('add', i);
    }
    async stop() {}
    list() {
      return this.items;
    }
  }
  const k8s = {
    CustomObjectsApi: custom,
    CoreV1Api: core,
    makeInformer: (_kc: unknown, path: string, listFn: () => Promise<any>) => {
      informers.push(path);
      return new Informer(listFn);
    },
  } as unknown as ClientNode;
  const kc = {
    makeApiClient: (api: unknown) => api,
  } as unknown as KubeConfig;
  return { k8s, kc, probes, informers };
}

describe('ClusterWatch on a management cluster with and without Flux', () => {
  it("skips Flux's kinds where the server does not serve them: unsynced without an error, nothing watched, the cache synced", async () => {
    const { k8s, kc, probes, informers } = clientNode({ flux: false });
    const logger = mockServices.logger.mock();
    const watch = new ClusterWatch('mc', kc, k8s, WATCHED_KINDS, logger);
    await watch.start();
    try {
      const status = watch.kindStatus();
      for (const kind of ['Kustomization', 'GitRepository'])
        expect(status[kind]).toEqual({
          version: undefined,
          synced: false,
          restarts: 0,
        });
      expect(watch.synced()).toBe(true);
      expect(status.Cluster).toMatchObject({
        version: 'v1beta2',
        synced: true,
      });
      expect(watch.list('Cluster').map(c => c.metadata.name)).toEqual([
        'clusters-1',
      ]);
      expect(watch.list('Kustomization')).toEqual([]);
      // One probe per Flux kind for its version, and no list or watch of them after it.
      expect(probes.filter(p => /fluxcd/.test(p))).toEqual([
        'kustomize.toolkit.fluxcd.io/v1/kustomizations',
        'source.toolkit.fluxcd.io/v1/gitrepositories',
      ]);
      expect(informers.filter(p => /fluxcd/.test(p))).toEqual([]);
      expect(logger.warn).not.toHaveBeenCalled();
    } finally {
      await watch.stop();
    }
  });

  it('lists and watches them at v1 where Flux is installed', async () => {
    const { k8s, kc, informers } = clientNode({ flux: true });
    const watch = new ClusterWatch(
      'mc',
      kc,
      k8s,
      WATCHED_KINDS,
      mockServices.logger.mock(),
    );
    await watch.start();
    try {
      expect(watch.kindStatus().Kustomization).toMatchObject({
        version: 'v1',
        synced: true,
      });
      expect(
        watch.get('GitRepository', 'ns', 'gitrepositories-1'),
      ).toBeDefined();
      expect(informers.filter(p => /fluxcd/.test(p)).sort()).toEqual([
        '/apis/kustomize.toolkit.fluxcd.io/v1/kustomizations',
        '/apis/source.toolkit.fluxcd.io/v1/gitrepositories',
      ]);
    } finally {
      await watch.stop();
    }
  });
});
