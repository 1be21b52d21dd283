/**
 * ManagementClusterClient against the real API server of the test run (CAPZ_TEST_CLUSTER): a validating write changes
 * nothing, whatever else the request carries; and what each consumer's view makes of the API server's answers (a
 * job's "already done", day 2's and cluster creation's errors).
 */
import { randomBytes } from 'node:crypto';
import {
  adminKubeConfig,
  kube,
  loadClientForTests,
  testClusterInfo,
  type ClusterInfo,
} from '../testing/realCluster';
import { clusterCreateClient, day2Client, jobClient } from './clientViews';
import {
  KubeRequestError,
  ManagementClusterClient,
} from './ManagementClusterClient';

let info: ClusterInfo;
let client: ManagementClusterClient;
const ns = `t-objects-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  info = testClusterInfo();
  const k8s = await loadClientForTests();
  client = new ManagementClusterClient(k8s, adminKubeConfig(k8s, info));
  const created = await kube(info, 'POST', '/api/v1/namespaces', {
    metadata: { name: ns },
  });
  if (created.status !== 201)
    throw new Error(`namespace ${ns}: ${JSON.stringify(created.body)}`);
}, 60_000);
afterAll(async () => {
  await kube(info, 'DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
});

/** A ConfigMap of the test's namespace, as the client names an object. */
const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: ns,
  name,
});

/** Creates a ConfigMap in the test's namespace as the admin (as `fieldManager` when given); the API server's answer. */
const createConfigMap = (
  name: string,
  data?: Record<string, string>,
  fieldManager?: string,
) =>
  kube(
    info,
    'POST',
    `/api/v1/namespaces/${ns}/configmaps${
      fieldManager ? `?fieldManager=${fieldManager}` : ''
    }`,
    { metadata: { name }, ...(data ? { data } : {}) },
  );

describe('ManagementClusterClient.delete', () => {
  it('with dryRun and a uid precondition deletes nothing; without dryRun it deletes', async () => {
    const made = await createConfigMap('pool', { a: '1' });
    expect(made.status).toBe(201);
    const t = configMap('pool');
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
    await createConfigMap('other');
    const t = configMap('other');
    await expect(
      client.delete(t, { dryRun: false, uid: 'not-its-uid' }),
    ).rejects.toMatchObject({ statusCode: 409 });
    expect(await client.get(t)).toBeDefined();
  });
});

describe('the views of the one client', () => {
  it("a job's requests: what is already done is an answer", async () => {
    const jobs = jobClient(client);
    const t = configMap('job');
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'job', namespace: ns },
      data: { a: '1' },
    };
    const first = await jobs.create(obj);
    expect(first.outcome).toBe('created');
    // A create sent again after its answer was lost finds its own object.
    const again = await jobs.create({ ...obj, data: { a: '2' } });
    expect(again.outcome).toBe('exists');
    expect(again.object.metadata.name).toBe('job');
    expect((again.object as { data?: unknown }).data).toEqual({ a: '1' });

    // A merge patch guarded by a resourceVersion that is no longer the object's is a conflict (409).
    const stale = await jobs
      .mergePatch(t, {
        metadata: { resourceVersion: '1' },
        data: { a: '3' },
      })
      .then(
        () => undefined,
        e => e,
      );
    expect(stale).toBeInstanceOf(KubeRequestError);
    expect(stale).toMatchObject({ statusCode: 409, noAnswer: undefined });
    const patched = await jobs.mergePatch(t, { data: { a: '3' } });
    expect((patched as { data?: unknown }).data).toEqual({ a: '3' });

    // Every namespace, each item with its kind; a kind the API server does not serve holds nothing.
    const all = await jobs.list('v1', 'ConfigMap');
    expect(
      all.find(o => o.metadata.namespace === ns && o.metadata.name === 'job'),
    ).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    await expect(
      jobs.list('example.com/v1', 'NotServedAnywhere'),
    ).resolves.toEqual([]);

    expect(await jobs.delete(t)).toBe('deleted');
    expect(await jobs.delete(t)).toBe('absent');
    expect(await jobs.mergePatch(t, { data: { a: '4' } })).toBeUndefined();
    expect(await jobs.get(t)).toBeUndefined();
  });

  it("day 2's requests: a delete or patch of what is gone is the caller's 404", async () => {
    const day2 = day2Client(client);
    const t = configMap('gone');
    await expect(day2.delete(t, { dryRun: false })).rejects.toMatchObject({
      name: 'KubeRequestError',
      statusCode: 404,
      noAnswer: undefined,
    });
    await expect(
      day2.mergePatch(t, { data: { a: '1' } }, { dryRun: true }),
    ).rejects.toMatchObject({ statusCode: 404 });
    await expect(
      day2.list({
        apiVersion: 'example.com/v1',
        kind: 'NotServed',
        namespace: ns,
      }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });

  it("cluster creation applies without force: another manager's field is a conflict; day 2 takes it", async () => {
    const made = await createConfigMap('owned', { a: '1' }, 'someone-else');
    expect(made.status).toBe(201);
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', namespace: ns },
      data: { a: '2' },
    };
    await expect(
      clusterCreateClient(client).apply(obj, { dryRun: true }),
    ).rejects.toMatchObject({ statusCode: 409 });
    const taken = await day2Client(client).apply(obj, { dryRun: true });
    expect((taken as { data?: unknown }).data).toEqual({ a: '2' });
    // Both were dry runs: nothing changed.
    expect(
      ((await client.get(configMap('owned'))) as { data?: unknown }).data,
    ).toEqual({ a: '1' });
  });
});
