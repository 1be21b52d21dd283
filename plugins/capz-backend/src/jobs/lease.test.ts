import { JobDatabaseUnavailableError } from './JobStore';
import { Lease, LEASE_LOST } from './lease';

describe('Lease', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function fakeStore(o: { claim?: boolean } = {}) {
    return {
      claim: jest.fn(async () => o.claim ?? true),
      heartbeat: jest.fn(async () => true),
      release: jest.fn(async () => undefined),
    };
  }
  const logger = { warn: jest.fn(), info: jest.fn() };
  beforeEach(() => jest.clearAllMocks());

  it('is not taken when another replica holds the job', async () => {
    const store = fakeStore({ claim: false });
    const abort = new AbortController();
    expect(
      await Lease.acquire({
        store,
        jobId: 'j',
        owner: 'me',
        ttlMs: 3000,
        abort,
        logger,
      }),
    ).toBeUndefined();
    expect(store.claim).toHaveBeenCalledWith('j', 'me', 3000);
  });

  it('renews every third of its time to live, runs the hook, and gives the lease back at the end', async () => {
    const store = fakeStore();
    const onRenewed = jest.fn(async () => undefined);
    const lease = (await Lease.acquire({
      store,
      jobId: 'j',
      owner: 'me',
      ttlMs: 3000,
      abort: new AbortController(),
      logger,
      onRenewed,
    }))!;
    expect(Lease.renewEveryMs(3000)).toBe(1000);
    expect(Lease.renewEveryMs(30)).toBe(200);
    await jest.advanceTimersByTimeAsync(3000);
    expect(store.heartbeat).toHaveBeenCalledTimes(3);
    expect(store.heartbeat).toHaveBeenCalledWith('j', 'me', 3000);
    expect(onRenewed).toHaveBeenCalledTimes(3);
    await lease.end();
    expect(store.release).toHaveBeenCalledWith('j', 'me');
    await jest.advanceTimersByTimeAsync(3000);
    expect(store.heartbeat).toHaveBeenCalledTimes(3);
  });

  it('aborts the run when a renewal finds the lease taken, and does not give back what it lost', async () => {
    const store = fakeStore();
    const abort = new AbortController();
    const lease = (await Lease.acquire({
      store,
      jobId: 'j',
      owner: 'me',
      ttlMs: 3000,
      abort,
      logger,
    }))!;
    store.heartbeat.mockResolvedValue(false);
    await jest.advanceTimersByTimeAsync(1000);
    expect(lease.lost).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(LEASE_LOST);
    await lease.end();
    expect(store.release).not.toHaveBeenCalled();
  });

  it('keeps the lease through a failed renewal (a database hiccup), logging it', async () => {
    const store = fakeStore();
    const abort = new AbortController();
    const lease = (await Lease.acquire({
      store,
      jobId: 'j',
      owner: 'me',
      ttlMs: 3000,
      abort,
      logger,
    }))!;
    store.heartbeat.mockRejectedValueOnce(new Error('connection reset'));
    await lease.renew();
    expect(lease.lost).toBe(false);
    expect(abort.signal.aborted).toBe(false);
    expect(logger.warn).toHaveBeenCalledWith(
      'job j: heartbeat failed: connection reset (tried again every 1000 ms)',
    );
    lease.markLost();
    await lease.end();
    expect(store.release).not.toHaveBeenCalled();
  });

  it('says once that renewals fail and once that they work again, with no renewal beside one still waiting', async () => {
    const store = fakeStore();
    const abort = new AbortController();
    const lease = (await Lease.acquire({
      store,
      jobId: 'j',
      owner: 'me',
      ttlMs: 3000,
      abort,
      logger,
    }))!;
    store.heartbeat.mockRejectedValue(
      new JobDatabaseUnavailableError('connection refused, ECONNREFUSED'),
    );
    await jest.advanceTimersByTimeAsync(3000);
    expect(store.heartbeat).toHaveBeenCalledTimes(3);
    expect(logger.warn.mock.calls).toEqual([
      [
        'job j: heartbeat failed: the job database cannot be reached (connection refused, ECONNREFUSED) (tried again every 1000 ms)',
      ],
    ]);
    // A renewal that hangs on the database: the timer starts none beside it.
    let answer: (ok: boolean) => void = () => undefined;
    store.heartbeat.mockImplementation(
      () => new Promise<boolean>(r => (answer = r)),
    );
    await jest.advanceTimersByTimeAsync(3000);
    expect(store.heartbeat).toHaveBeenCalledTimes(4);
    answer(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(logger.info.mock.calls).toEqual([
      ['job j: lease renewed again after 3 failed heartbeat(s)'],
    ]);
    expect(lease.lost).toBe(false);
    await lease.end();
  });

  it('confirm(): true while the lease is ours, false and the run aborted once another replica holds it, a throw while the database is away', async () => {
    const store = fakeStore();
    const abort = new AbortController();
    const lease = (await Lease.acquire({
      store,
      jobId: 'j',
      owner: 'me',
      ttlMs: 3000,
      abort,
      logger,
    }))!;
    await expect(lease.confirm()).resolves.toBe(true);
    store.heartbeat.mockRejectedValueOnce(
      new JobDatabaseUnavailableError('the connection was cut'),
    );
    await expect(lease.confirm()).rejects.toThrow(JobDatabaseUnavailableError);
    expect(lease.lost).toBe(false);
    store.heartbeat.mockResolvedValueOnce(false);
    await expect(lease.confirm()).resolves.toBe(false);
    expect(lease.lost).toBe(true);
    expect(abort.signal.reason).toBe(LEASE_LOST);
    await lease.end();
    expect(store.release).not.toHaveBeenCalled();
  });
});
