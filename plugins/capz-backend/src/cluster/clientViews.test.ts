import type { ObjectRef } from '@capz-backstage/plugin-capz-common';
import { jobClient, secretReader } from './clientViews';
import {
  KubeRequestError,
  type ManagementClusterClient,
} from './ManagementClusterClient';

describe('secretReader', () => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aso-credential', namespace: 'team-a' },
    data: { AZURE_SUBSCRIPTION_ID: Buffer.from('sub').toString('base64') },
  };
  const reader = () => {
    const reads: ObjectRef[] = [];
    const read = secretReader(async () => ({
      get: async (ref: ObjectRef) => {
        reads.push(ref);
        return ref.name === 'aso-credential' ? secret : undefined;
      },
    }));
    return { read, reads };
  };

  it('reads one Secret by name and decodes its data; undefined when it does not exist', async () => {
    const { read, reads } = reader();
    await expect(read('mc', 'team-a', 'aso-credential')).resolves.toEqual({
      AZURE_SUBSCRIPTION_ID: 'sub',
    });
    await expect(read('mc', 'team-a', 'other')).resolves.toBeUndefined();
    expect(reads).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: 'team-a',
        name: 'aso-credential',
      },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'team-a', name: 'other' },
    ]);
  });

  it.each([
    ['.', 'team-a'],
    ['..', 'team-a'],
    ['', 'team-a'],
    ['a/b', 'team-a'],
    ['Aso-Credential', 'team-a'],
    ['aso-credential', '..'],
    ['aso-credential', ''],
    ['aso-credential', 'team.a'],
  ])(
    'refuses the name %j in namespace %j before any request (a 400)',
    async (name, namespace) => {
      const { read, reads } = reader();
      await expect(read('mc', namespace, name)).rejects.toMatchObject({
        name: 'InputError',
      });
      expect(reads).toEqual([]);
    },
  );
});

describe('jobClient', () => {
  const ref = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'n',
    name: 'x',
  };
  const failing = (e: Error) =>
    jobClient({
      get: async () => undefined,
      list: async () => {
        throw e;
      },
      create: async () => {
        throw e;
      },
      mergePatch: async () => {
        throw e;
      },
      delete: async () => {
        throw e;
      },
    } as unknown as ManagementClusterClient);

  it('a 404 is already done (gone, or a kind not served)', async () => {
    const jobs = failing(new KubeRequestError(404, 'not found'));
    await expect(jobs.delete(ref)).resolves.toBe('absent');
    await expect(jobs.mergePatch(ref, {})).resolves.toBeUndefined();
    await expect(jobs.list('v1', 'ConfigMap')).resolves.toEqual([]);
  });

  it('passes every other error on unchanged: an outage, a conflict, forbidden', async () => {
    for (const e of [
      new KubeRequestError(0, 'no answer', {
        reason: 'connection refused (ECONNREFUSED)',
        maybeSent: false,
      }),
      new KubeRequestError(503, 'unavailable', {
        reason: 'HTTP 503 Service Unavailable',
        maybeSent: true,
      }),
      new KubeRequestError(409, 'conflict'),
      new KubeRequestError(403, 'forbidden'),
    ]) {
      const jobs = failing(e);
      await expect(jobs.delete(ref)).rejects.toBe(e);
      await expect(jobs.mergePatch(ref, {})).rejects.toBe(e);
      await expect(jobs.list('v1', 'ConfigMap')).rejects.toBe(e);
      // A create's 409 whose object is gone again is the 409 itself.
      await expect(
        jobs.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'x', namespace: 'n' },
        }),
      ).rejects.toBe(e);
    }
  });
});
