import type { KubeObject, ObjectRef } from '@capz-backstage/plugin-capz-common';
import type { JobClient } from '../cluster/clientViews';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import { PatientClusterClient } from './patientClient';
import { StepFailedError, StepInterruptedError } from './StepRunner';

const ref: ObjectRef = {
  apiVersion: 'v1',
  kind: 'Secret',
  namespace: 'team-a',
  name: 'aso-credential',
};
const refused = () =>
  new KubeRequestError(
    0,
    'reading Secret team-a/aso-credential: the API server did not answer (connection refused (ECONNREFUSED))',
    { reason: 'connection refused (ECONNREFUSED)', maybeSent: false },
  );

/** A management cluster that does not answer `failures` requests in a row, then answers; every call recorded. */
function flaky(failures: number, error: () => Error = refused) {
  const calls: string[] = [];
  let left = failures;
  const answer = async <T>(what: string, value: T): Promise<T> => {
    calls.push(what);
    if (left > 0) {
      left--;
      throw error();
    }
    return value;
  };
  const obj = { metadata: { name: 'x' } } as KubeObject;
  const inner: JobClient = {
    get: () => answer('get', obj),
    list: () => answer('list', [obj]),
    create: () =>
      answer('create', { outcome: 'created' as const, object: obj }),
    mergePatch: () => answer('mergePatch', obj),
    delete: () => answer('delete', 'deleted' as const),
    canI: () => answer('canI', true),
  };
  return { inner, calls };
}

function patient(
  inner: JobClient,
  o: { maxWaitMs?: number; signal?: AbortSignal } = {},
) {
  const notes: string[] = [];
  const client = new PatientClusterClient(inner, {
    managementCluster: 'east',
    signal: o.signal ?? new AbortController().signal,
    maxWaitMs: o.maxWaitMs ?? 60_000,
    delayMs: () => 5,
    onWaiting: async m => {
      notes.push(`waiting: ${m}`);
    },
    onBack: async m => {
      notes.push(`back: ${m}`);
    },
  });
  return { client, notes };
}

describe('PatientClusterClient: a job waits out an outage of its management cluster', () => {
  it('tries a request again until the cluster answers, saying once that it waits and once that it is back', async () => {
    const { inner, calls } = flaky(3);
    const { client, notes } = patient(inner);
    await expect(client.get(ref)).resolves.toEqual({ metadata: { name: 'x' } });
    expect(calls).toEqual(['get', 'get', 'get', 'get']);
    expect(notes).toEqual([
      expect.stringMatching(
        /^waiting: waiting for management cluster east: its API server did not answer \(connection refused \(ECONNREFUSED\)\); the step goes on once it answers \(waiting up to 60 s\)$/,
      ),
      expect.stringMatching(
        /^back: management cluster east answers again \(after \d+ s without an answer\); going on$/,
      ),
    ]);
    // A later outage is a new one: said again.
    await expect(client.delete(ref)).resolves.toBe('deleted');
    expect(notes).toHaveLength(2);
  });

  it.each(['list', 'create', 'mergePatch', 'delete', 'canI'] as const)(
    'waits on %s too',
    async method => {
      const { inner, calls } = flaky(1);
      const { client } = patient(inner);
      const args: Record<typeof method, () => Promise<unknown>> = {
        list: () => client.list('v1', 'Secret'),
        create: () => client.create({} as KubeObject),
        mergePatch: () => client.mergePatch(ref, {}),
        delete: () => client.delete(ref),
        canI: () => client.canI({ verb: 'get', group: '', resource: 'x' }),
      };
      await args[method]();
      expect(calls).toEqual([method, method]);
    },
  );

  it('passes an answer of the API server (404, 409, 422...) on at once', async () => {
    const { inner, calls } = flaky(
      1,
      () => new KubeRequestError(422, 'creating x: HTTP 422 invalid'),
    );
    const { client, notes } = patient(inner);
    await expect(client.create({} as KubeObject)).rejects.toThrow(
      'HTTP 422 invalid',
    );
    expect(calls).toEqual(['create']);
    expect(notes).toEqual([]);
  });

  it('fails the step, naming the cluster and the reason, once one outage lasts longer than its bound', async () => {
    const { inner } = flaky(Number.MAX_SAFE_INTEGER);
    const { client, notes } = patient(inner, { maxWaitMs: 50 });
    const failed = client.get(ref);
    await expect(failed).rejects.toThrow(StepFailedError);
    await expect(failed).rejects.toThrow(
      /^management cluster east has not answered for \d+ s \(last: connection refused \(ECONNREFUSED\)\): the step stops here; resume the job once its API server answers$/,
    );
    expect(notes).toHaveLength(1);
  });

  it('stops waiting at once when the run is paused, cancelled or shut down', async () => {
    const { inner } = flaky(Number.MAX_SAFE_INTEGER);
    const abort = new AbortController();
    const client = new PatientClusterClient(inner, {
      managementCluster: 'east',
      signal: abort.signal,
      delayMs: () => 60_000,
      onWaiting: async () => abort.abort('pause'),
      onBack: async () => undefined,
    });
    const interrupted = client.get(ref);
    await expect(interrupted).rejects.toThrow(StepInterruptedError);
    await expect(interrupted).rejects.toMatchObject({ why: 'pause' });
  });
});
