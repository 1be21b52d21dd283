import { mockServices } from '@backstage/backend-test-utils';
import type { ObservedObject } from '@capz-backstage/plugin-capz-common';
import { EventEmitter } from 'node:events';
import { AzureServiceError } from '../azure/errors';
import { ClusterEndpoints } from './ClusterEndpoints';

const ARM_ID =
  '/subscriptions/sub-1/resourceGroups/rg-1/providers/Microsoft.ContainerService/managedClusters/aks-1';

const managedCluster = (fqdn?: string): ObservedObject => ({
  apiVersion: 'containerservice.azure.com/v1api20240901',
  kind: 'ManagedCluster',
  metadata: {
    name: 'shop',
    namespace: 'team-a',
    uid: 'u1',
    annotations: { 'serviceoperator.azure.com/credential-from': 'my-cred' },
  },
  spec: {},
  status: { id: ARM_ID, ...(fqdn ? { fqdn } : {}) },
});

const kubeconfig = (server: string, user: string) => `apiVersion: v1
kind: Config
clusters:
- name: aks-1
  cluster:
    server: ${server}
    certificate-authority-data: Q0E=
contexts:
- name: aks-1
  context: {cluster: aks-1, user: u}
current-context: aks-1
users:
- name: u
  user:
${user}
`;

function setup(answer: (n: number) => string | Error) {
  const calls: unknown[] = [];
  const known: string[] = [];
  const logger = mockServices.logger.mock();
  const endpoints = new ClusterEndpoints({
    logger,
    azure: {
      listClusterUserCredential: async q => {
        calls.push(q);
        const a = answer(calls.length);
        if (a instanceof Error) throw a;
        return a;
      },
    },
    onKnown: (mc, o) => known.push(`${mc}/${o.metadata?.name}`),
  });
  return { endpoints, calls, known, logger };
}

describe('ClusterEndpoints', () => {
  it('reads the API server once per FQDN from the cache, with the ManagedCluster credential and ARM id, and again when the FQDN changes', async () => {
    const { endpoints, calls, known } = setup(n =>
      kubeconfig(
        `https://aks-${n}.hcp.westeurope.azmk8s.io:443`,
        '    token: s3cret',
      ),
    );
    const cache = Object.assign(new EventEmitter(), {
      list: () => [managedCluster('a.example')],
    });
    endpoints.watch(cache as never, ['local']);
    // No FQDN yet: nothing to read.
    cache.emit('change', {
      managementCluster: 'local',
      kind: 'ManagedCluster',
      type: 'add',
      object: managedCluster(),
    });
    // The initial list and then status updates with the same FQDN: one read.
    cache.emit('listed', 'local');
    for (let i = 0; i < 5; i++)
      cache.emit('change', {
        managementCluster: 'local',
        kind: 'ManagedCluster',
        type: 'update',
        object: managedCluster('a.example'),
      });
    await endpoints.idle();
    expect(calls).toEqual([
      {
        managementCluster: 'local',
        namespace: 'team-a',
        credentialSecret: 'my-cred',
        subscriptionId: 'sub-1',
        resourceGroup: 'rg-1',
        name: 'aks-1',
      },
    ]);
    expect(known).toEqual(['local/shop']);
    // Public data only, for the FQDN it was read for.
    expect(endpoints.of('local', managedCluster('a.example'))).toEqual({
      url: 'https://aks-1.hcp.westeurope.azmk8s.io:443',
      certificateAuthorityData: 'Q0E=',
    });
    expect(JSON.stringify(endpoints)).not.toContain('s3cret');
    expect(endpoints.of('local', managedCluster('b.example'))).toBeUndefined();
    // A new FQDN: read again.
    cache.emit('change', {
      managementCluster: 'local',
      kind: 'ManagedCluster',
      type: 'update',
      object: managedCluster('b.example'),
    });
    await endpoints.idle();
    expect(calls).toHaveLength(2);
    expect(endpoints.of('local', managedCluster('b.example'))?.url).toBe(
      'https://aks-2.hcp.westeurope.azmk8s.io:443',
    );
    // Deleted: forgotten.
    cache.emit('change', {
      managementCluster: 'local',
      kind: 'ManagedCluster',
      type: 'delete',
      object: managedCluster('b.example'),
    });
    expect(endpoints.of('local', managedCluster('b.example'))).toBeUndefined();
  });

  it("reads a first list's ManagedClusters once it is over, and logs one warning per reason, not one per cluster", async () => {
    const { endpoints, calls, logger } = setup(
      () =>
        new Error(
          'ASO credential Secret team-a/my-cred has no AZURE_TENANT_ID',
        ),
    );
    const objects = [1, 2, 3, 4, 5].map(i => ({
      ...managedCluster(`aks-${i}.example`),
      metadata: {
        ...managedCluster().metadata,
        name: `shop-${i}`,
        uid: `u${i}`,
      },
    }));
    let listing = true;
    const cache = Object.assign(new EventEmitter(), {
      list: () => objects,
      initialListing: () => listing,
    });
    endpoints.watch(cache as never, ['local']);
    for (const object of objects)
      cache.emit('change', {
        managementCluster: 'local',
        kind: 'ManagedCluster',
        type: 'add',
        object,
      });
    await endpoints.idle();
    // Nothing read while the API server sends the lists.
    expect(calls).toHaveLength(0);
    listing = false;
    cache.emit('listed', 'local');
    await endpoints.idle();
    expect(calls).toHaveLength(5);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(
      'API server of 5 ManagedClusters not known (local/team-a/shop-1 (aks-1.example), ' +
        'local/team-a/shop-2 (aks-2.example), local/team-a/shop-3 (aks-3.example), and 2 more): ' +
        'ASO credential Secret team-a/my-cred has no AZURE_TENANT_ID',
    );
  });

  it('reads the ManagedClusters of a management cluster that had listed before it followed the cache', async () => {
    const { endpoints, calls } = setup(() =>
      kubeconfig('https://aks-1.hcp.westeurope.azmk8s.io:443', '    token: t'),
    );
    const cache = Object.assign(new EventEmitter(), {
      list: () => [managedCluster('a.example')],
      initialListing: () => false,
    });
    endpoints.watch(cache as never, ['local']);
    await endpoints.idle();
    expect(calls).toHaveLength(1);
    expect(endpoints.of('local', managedCluster('a.example'))?.url).toBe(
      'https://aks-1.hcp.westeurope.azmk8s.io:443',
    );
  });

  it('does not retry a failed read on every status update', async () => {
    const { endpoints, calls } = setup(() => new Error('AuthorizationFailed'));
    for (let i = 0; i < 3; i++) {
      endpoints.observe('local', managedCluster('a.example'));
      await endpoints.idle();
    }
    expect(calls).toHaveLength(1);
    expect(endpoints.of('local', managedCluster('a.example'))).toBeUndefined();
  });

  it('starts no read while ARM asks to wait after a throttled one, and reads the others once the wait is over', async () => {
    const { endpoints, calls, logger } = setup(n =>
      n === 1
        ? new AzureServiceError(
            'ARM',
            'Azure is throttling requests; try again in 1 s (ARM answered 429 TooManyRequests while …)',
            { code: 'TooManyRequests', statusCode: 503, retryAfterSeconds: 1 },
          )
        : kubeconfig(`https://aks-${n}.example:443`, '    token: t'),
    );
    const named = (name: string): ObservedObject => ({
      ...managedCluster(`${name}.example`),
      metadata: { ...managedCluster().metadata, name },
    });
    endpoints.observe('local', named('a'));
    await endpoints.idle();
    expect(calls).toHaveLength(1);
    // Two clusters seen during the wait ARM asked for: queued, not read now.
    const started = Date.now();
    endpoints.observe('local', named('b'));
    endpoints.observe('local', named('c'));
    expect(calls).toHaveLength(1);
    expect(logger.info).toHaveBeenCalledWith(
      'ARM asked to wait 1 s: the queued API server reads start then',
    );
    await endpoints.idle();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(calls).toHaveLength(3);
    expect(endpoints.of('local', named('b'))?.url).toMatch(/^https:\/\/aks-/);
    expect(endpoints.of('local', named('c'))?.url).toMatch(/^https:\/\/aks-/);
  });
});
