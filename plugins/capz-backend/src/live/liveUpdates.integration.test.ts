/**
 * Live updates end to end: the real backend plugin with the real signals plugin, the real API server, and the
 * simulator (started by scripts/test.sh for `team-*` namespaces) making the changes. A WebSocket client subscribes
 * like the browser does; the time from the simulator's write (seen by an independent watch) to the push is printed.
 */
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { eventsServiceFactory } from '@backstage/plugin-events-node';
import {
  CAPZ_SIGNAL_CHANNEL,
  generateAksAsoClusterManifests,
  kinds,
} from '@capz-backstage/plugin-capz-common';
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import WebSocket from 'ws';
import { capzPlugin } from '../plugin';
import {
  createObjects,
  deleteTestNamespace,
  kube,
  testClusterInfo,
  until,
} from '../testing/realCluster';

// The plugin loads client-node with a native import(), which Jest cannot run; give it Jest's require instead.
jest.mock('../cluster/kubeConfig', () => ({
  ...jest.requireActual('../cluster/kubeConfig'),
  loadClientNode: async () => require('@kubernetes/client-node'),
}));

const info = testClusterInfo();
const ns = `team-live-${randomBytes(3).toString('hex')}`;
const plural = (kind: keyof typeof kinds) => {
  const k = kinds[kind];
  return `/apis/${k.group}/${k.version}/namespaces/${ns}/${k.plural}`;
};

let backend: Awaited<ReturnType<typeof startTestBackend>>;
let socket: WebSocket | undefined;
const received: Array<{ at: number; clusterUids: string[] }> = [];

beforeAll(async () => {
  // A cluster of the test's own, made the way a user makes one: the aks-aso manifests and a credential Secret
  // (copied from a scenario namespace, so that it names the simulated subscription).
  const secrets = await kube(info, 'GET', '/api/v1/secrets');
  const credential = secrets.body.items.find(
    (s: any) =>
      s.metadata.namespace.startsWith('team-') && s.data?.AZURE_SUBSCRIPTION_ID,
  );
  if (!credential)
    throw new Error(
      'no credential Secret in a team-* namespace: is the simulator running?',
    );
  const created = await kube(info, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  if (created.status !== 201)
    throw new Error(`create namespace ${ns}: ${created.status}`);
  await kube(info, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential' },
    data: credential.data,
  });
  const manifests = generateAksAsoClusterManifests({
    name: 'live',
    namespace: ns,
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: [
      { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
    ],
  });
  await createObjects(info, ns, manifests);

  backend = await startTestBackend({
    features: [
      capzPlugin,
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@backstage/plugin-signals-backend').default,
      // The real events bus shared by all plugins (the default test mock gives each plugin its own).
      eventsServiceFactory,
      mockServices.rootConfig.factory({
        data: {
          capz: {
            managementClusters: [
              {
                name: 'local',
                url: info.url,
                caData: info.caPem,
                serviceAccountToken: info.backendToken,
                namespaces: [ns],
              },
            ],
          },
        },
      }),
    ],
  });
  await until(
    'the watch cache to sync',
    async () =>
      (
        await request(backend.server).get('/api/capz/management-clusters')
      ).body.items?.[0]?.watch?.synced,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  socket?.close();
  await backend?.stop();
  await deleteTestNamespace(info, ns);
}, 90_000);

const summary = async () => {
  const res = await request(backend.server).get('/api/capz/clusters');
  return res.body.items.find(
    (c: any) => c.namespace === ns && c.name === 'live',
  );
};

/** Raw watch of one collection, recording when each event arrives: the simulator's writes as any client sees them. */
function watchCollection(
  path: string,
  onEvent: (e: { type: string; object: any }) => void,
): () => void {
  const req = https.get(
    `${info.url}${path}?watch=1&allowWatchBookmarks=false`,
    { ca: info.caPem, headers: { Authorization: `Bearer ${info.adminToken}` } },
    res => {
      let buffer = '';
      res.on('data', chunk => {
        buffer += chunk;
        for (
          let nl = buffer.indexOf('\n');
          nl >= 0;
          nl = buffer.indexOf('\n')
        ) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) onEvent(JSON.parse(line));
        }
      });
    },
  );
  return () => req.destroy();
}

/**
 * Connects to the signals plugin like its browser client does, retrying: the plugin starts listening for WebSocket
 * upgrades on the HTTP server only once the first upgrade request has passed through its router.
 */
async function openSignalsSocket(port: number): Promise<WebSocket> {
  return until(
    'a WebSocket connection to the signals plugin',
    () =>
      new Promise<WebSocket | undefined>(resolve => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/api/signals`);
        let timer: NodeJS.Timeout | undefined = undefined;
        const give = (value: WebSocket | undefined) => {
          clearTimeout(timer);
          if (!value) ws.terminate();
          resolve(value);
        };
        timer = setTimeout(() => give(undefined), 2000);
        ws.once('open', () => give(ws));
        ws.once('error', () => give(undefined));
        ws.once('unexpected-response', () => give(undefined));
      }),
    20_000,
  );
}

describe('live updates', () => {
  it('pushes a change the simulator makes to a subscribed client, which then reads it through the API', async () => {
    // The simulator provisions the new cluster: its pool becomes ready.
    let last: unknown;
    const ready = await until(
      'the new cluster to be healthy',
      async () => {
        const s = await summary();
        last = s;
        return s?.health === 'healthy' && s.pools?.ready === 1 ? s : undefined;
      },
      90_000,
    ).catch(e => {
      throw new Error(`${e.message}; last summary: ${JSON.stringify(last)}`);
    });

    socket = await openSignalsSocket(
      (backend.server.address() as AddressInfo).port,
    );
    socket.on('message', data => {
      const { channel, message } = JSON.parse(data.toString());
      if (channel === CAPZ_SIGNAL_CHANNEL)
        received.push({ at: Date.now(), clusterUids: message.clusterUids });
    });
    socket.send(
      JSON.stringify({ action: 'subscribe', channel: CAPZ_SIGNAL_CHANNEL }),
    );

    // Scale the pool; the simulated ASO then writes the agent pool's status (Updating, then the new count).
    const simWrites: Array<{ at: number; count?: number; state?: string }> = [];
    const stop = watchCollection(plural('ManagedClustersAgentPool'), e => {
      simWrites.push({
        at: Date.now(),
        count: e.object.status?.count,
        state: e.object.status?.provisioningState,
      });
    });
    try {
      await until('the test watch to see the pool', () => simWrites.length > 0);
      const pools = await kube(info, 'GET', plural('MachinePool'));
      const mp = pools.body.items[0];
      const patched = await kube(
        info,
        'PATCH',
        `${plural('MachinePool')}/${mp.metadata.name}`,
        { spec: { replicas: 2 } },
        'application/merge-patch+json',
      );
      expect(patched.status).toBe(200);

      // The simulator's write that finishes the scale-out, as an independent watch saw it...
      const done = await until(
        'the simulator to scale the pool to 2',
        () => simWrites.find(w => w.count === 2 && w.state === 'Succeeded'),
        60_000,
      );
      // ...and the first push naming the cluster after it.
      const push = await until(
        'a push naming the cluster',
        () =>
          received.find(
            r => r.at >= done.at && r.clusterUids.includes(ready.uid),
          ),
        10_000,
      );
      // eslint-disable-next-line no-console
      console.log(
        `change-to-push: ${
          push.at - done.at
        } ms from the simulator's write (seen by a watch) to the signal`,
      );

      // What the push announced is readable at once: the agent pool in the tree has the new count.
      const tree = await request(backend.server).get(
        `/api/capz/clusters/local/${ns}/live/tree?group=0`,
      );
      const agentPools: any[] = [];
      const walk = (n: any) => {
        if (n.kind === 'ManagedClustersAgentPool') agentPools.push(n);
        n.children.forEach(walk);
      };
      walk(tree.body.tree);
      expect(agentPools.map(p => p.facts.replicas)).toEqual([2]);
      // The condition history recorded the cluster's way up, served by the timeline route oldest first.
      const timeline = await until(
        'the timeline to hold the agent pool becoming Ready',
        async () => {
          const res = await request(backend.server).get(
            `/api/capz/clusters/local/${ns}/live/timeline`,
          );
          const t = res.body.transitions as Array<{
            kind: string;
            conditionType: string;
            status: string;
            transitionTime: string;
          }>;
          return t?.some(
            x =>
              x.kind === 'ManagedClustersAgentPool' &&
              x.conditionType === 'Ready' &&
              x.status === 'True',
          )
            ? t
            : undefined;
        },
        30_000,
      );
      const kindsSeen = new Set(timeline.map(x => x.kind));
      for (const k of [
        'Cluster',
        'ResourceGroup',
        'ManagedCluster',
        'ManagedClustersAgentPool',
        'AzureASOManagedControlPlane',
      ]) {
        expect(kindsSeen).toContain(k);
      }
      // Only opaque uids travel on the broadcast channel.
      for (const r of received)
        for (const uid of r.clusterUids) expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      stop();
    }
  }, 180_000);
});
