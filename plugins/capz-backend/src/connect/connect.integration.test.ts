/**
 * The kubeconfig download against a real kube-apiserver with the real CAPI/CAPZ/ASO CRDs and the simulated Azure,
 * ASO, CAPZ and CAPI (capz-sim, its own management cluster): the backend reads the cluster from its watch cache and
 * AKS's user kubeconfig from the simulated ARM (`listClusterUserCredential?format=exec`) with the namespace's ASO
 * credential, as in production. An Entra ID cluster's kubeconfig (kubelogin, no secret) is handed out; a cluster with
 * local accounts gets none (409 naming capz.connect.allowLocalAccountKubeconfig) unless the operator allows it.
 */
import { mockServices } from '@backstage/backend-test-utils';
import {
  generateAksAsoClusterManifests,
  kubeconfigSecrets,
} from '@capz-backstage/plugin-capz-common';
import YAML from 'yaml';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { WatchCache } from '../cluster/WatchCache';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { Day2Service } from '../day2/Day2Service';
import { JobsWorld } from '../testing/jobsWorld';
import { createObjects, loadClientForTests } from '../testing/realCluster';
import { ClusterConnect } from './ClusterConnect';

const w = new JobsWorld('connect');
const ns = 'connect';
let cache: WatchCache;
let day2: Day2Service;
let azure: AksDiscovery;

async function createCluster(name: string, entraOnly: boolean) {
  await createObjects(
    w.info,
    ns,
    generateAksAsoClusterManifests({
      name,
      namespace: ns,
      location: 'westeurope',
      kubernetesVersion: 'v1.33.2',
      credentialSecretName: 'aso-credential',
      entraOnly,
      pools: [
        {
          name: 'system',
          mode: 'System',
          vmSize: 'Standard_D2s_v3',
          replicas: 1,
        },
      ],
    }),
    'kubectl-client-side-apply',
  );
}

/** The AKS cluster exists in the simulated Azure and its ManagedCluster (with its ARM id) is in the watch cache. */
async function provisioned(name: string) {
  await w.waitFor(
    `cluster ${name} in Azure and in the watch cache`,
    async () => {
      const inAzure = w.azure().managedClusters.some(m => m.name === name);
      const cached = cache
        .list('local', 'ManagedCluster', ns)
        .find(o => o.metadata.name === name) as
        | { status?: { id?: string } }
        | undefined;
      return (
        (inAzure && Boolean(cached?.status?.id)) ||
        `in Azure: ${inAzure}, cached id: ${cached?.status?.id}`
      );
    },
    120_000,
  );
}

const place = (name: string) => ({
  managementCluster: 'local',
  namespace: ns,
  name,
});

const connect = (allowLocalAccountKubeconfig: boolean) =>
  new ClusterConnect({
    logger: mockServices.logger.mock(),
    cluster: p => day2.cluster(p),
    azure,
    allowLocalAccountKubeconfig,
  });

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  await w.namespaceWithCredential(ns);
  const mc: ManagementClusterConfig = {
    name: 'local',
    authMethod: 'serviceAccountToken',
    url: w.info.url,
    caData: w.info.caPem,
    serviceAccountToken: w.info.backendToken,
  };
  const logger = mockServices.logger.mock();
  cache = new WatchCache([mc], logger, loadClientForTests);
  await cache.start();
  azure = w.aksDiscovery(logger);
  day2 = new Day2Service({
    logger,
    managementClusters: ['local'],
    cache,
    azure,
    client: async () => {
      throw new Error('connect writes nothing');
    },
  });
  await createCluster('entra', true);
  await createCluster('local-accounts', false);
  await provisioned('entra');
  await provisioned('local-accounts');
}, 300_000);

afterAll(async () => {
  await cache?.stop();
  await w.stop();
}, 120_000);

describe('kubeconfig download', () => {
  it("hands out an Entra ID cluster's kubeconfig from ARM: kubelogin exec, no secret", async () => {
    const kc = await connect(false).kubeconfig(place('entra'));
    const parsed = YAML.parse(kc.kubeconfig);
    expect(kubeconfigSecrets(parsed)).toEqual([]);
    expect(kc.auth).toBe('exec');
    expect(kc.fileName).toBe('entra.kubeconfig');
    expect(parsed.users[0].user.exec.command).toBe('kubelogin');
    const fqdn = (
      w.azure().managedClusters.find(m => m.name === 'entra') as unknown as {
        fqdn: string;
      }
    ).fqdn;
    expect(kc.server).toBe(`https://${fqdn}:443`);
  });

  it('says in the connect info, before any download, whether the kubeconfig is available and why not', async () => {
    expect(day2.connect(place('entra')).kubeconfig).toEqual({
      available: true,
    });
    expect(day2.connect(place('local-accounts')).kubeconfig).toEqual({
      available: false,
      reason: expect.stringMatching(/^This cluster does not use Entra ID/),
    });
  });

  it('gives a cluster with local accounts no credential unless the operator allows it', async () => {
    await expect(
      connect(false).kubeconfig(place('local-accounts')),
    ).rejects.toMatchObject({
      name: 'ConflictError',
      message: expect.stringContaining(
        'capz.connect.allowLocalAccountKubeconfig: true',
      ),
    });
    const kc = await connect(true).kubeconfig(place('local-accounts'));
    expect(kc.auth).toBe('local-account');
  });
});
