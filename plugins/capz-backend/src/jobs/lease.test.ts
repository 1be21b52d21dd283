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
  const logger = { warn: jest.fn() };

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
      'job j: heartbeat failed: connection reset',
    );
    lease.markLost();
    await lease.end();
    expect(store.release).not.toHaveBeenCalled();
  });
});
