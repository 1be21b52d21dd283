/**
 * KubeObjectClient against the real API server of the test run (CAPZ_TEST_CLUSTER): a validating write changes
 * nothing, whatever else the request carries.
 */
import { randomBytes } from 'node:crypto';
import {
  kube,
  loadClientForTests,
  testClusterInfo,
  type ClusterInfo,
} from '../testing/realCluster';
import { KubeObjectClient } from './KubeObjectClient';

let info: ClusterInfo;
let client: KubeObjectClient;
const ns = `t-objects-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  info = testClusterInfo();
  const k8s = await loadClientForTests();
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'test',
        server: info.url,
        caData: Buffer.from(info.caPem).toString('base64'),
      },
    ],
    users: [{ name: 'test-admin', token: info.adminToken }],
    contexts: [{ name: 'test', cluster: 'test', user: 'test-admin' }],
    currentContext: 'test',
  });
  client = new KubeObjectClient(k8s, kc);
  const created = await kube(info, 'POST', '/api/v1/namespaces', {
    metadata: { name: ns },
  });
  if (created.status !== 201)
    throw new Error(`namespace ${ns}: ${JSON.stringify(created.body)}`);
}, 60_000);
afterAll(async () => {
  await kube(info, 'DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
});

describe('KubeObjectClient.delete', () => {
  it('with dryRun and a uid precondition deletes nothing; without dryRun it deletes', async () => {
    const made = await kube(
      info,
      'POST',
      `/api/v1/namespaces/${ns}/configmaps`,
      {
        metadata: { name: 'pool' },
        data: { a: '1' },
      },
    );
    expect(made.status).toBe(201);
    const t = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'pool',
    };
    const uid = made.body.metadata.uid as string;

    // The API server reads DELETE's query parameters only when there is no body: the preview's dryRun must be in
    // the body beside the precondition, or the "preview" of removing a pool removes it.
    await client.delete(t, { dryRun: true, uid });
    const after = await client.get(t);
    expect(after?.metadata?.uid).toBe(uid);
    expect(after?.metadata?.deletionTimestamp).toBeUndefined();

    await client.delete(t, { dryRun: false, uid });
    expect(await client.get(t)).toBeUndefined();
  });

  it('refuses a delete whose uid precondition does not match, and deletes nothing', async () => {
    await kube(info, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'other' },
    });
    const t = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'other',
    };
    await expect(
      client.delete(t, { dryRun: false, uid: 'not-its-uid' }),
    ).rejects.toMatchObject({ statusCode: 409 });
    expect(await client.get(t)).toBeDefined();
  });
});
