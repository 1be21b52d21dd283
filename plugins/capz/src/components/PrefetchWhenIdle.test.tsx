import { cleanup, render } from '@testing-library/react';
import { PrefetchWhenIdle } from './PrefetchWhenIdle';

describe('PrefetchWhenIdle', () => {
  const original = {
    request: window.requestIdleCallback,
    cancel: window.cancelIdleCallback,
  };
  let idle: Array<{ id: number; run: () => void }> = [];
  beforeEach(() => {
    idle = [];
    let next = 1;
    window.requestIdleCallback = ((run: () => void) => {
      const id = next++;
      idle.push({ id, run });
      return id;
    }) as typeof window.requestIdleCallback;
    window.cancelIdleCallback = (id: number) => {
      idle = idle.filter(i => i.id !== id);
    };
  });
  afterEach(() => {
    // Unmounted while the stand-ins are still there (jsdom has neither).
    cleanup();
    window.requestIdleCallback = original.request;
    window.cancelIdleCallback = original.cancel;
  });

  it('loads once the browser is idle after the page has loaded, not before', () => {
    const load = jest.fn(async () => 'chunk');
    render(<PrefetchWhenIdle load={load} />);
    // jsdom's document is loaded: the load waits only for an idle period.
    expect(load).not.toHaveBeenCalled();
    expect(idle).toHaveLength(1);
    idle[0].run();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('loads nothing when unmounted before the browser is idle, and survives a failed load', async () => {
    const load = jest.fn(async () => {
      throw new Error('ChunkLoadError');
    });
    const { unmount } = render(<PrefetchWhenIdle load={load} />);
    unmount();
    expect(idle).toHaveLength(0);
    expect(load).not.toHaveBeenCalled();

    render(<PrefetchWhenIdle load={load} />);
    idle[0].run();
    await expect(load.mock.results[0].value).rejects.toThrow('ChunkLoadError');
  });
});
