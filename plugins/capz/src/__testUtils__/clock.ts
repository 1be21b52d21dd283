/**
 * Fakes only the clock (`Date`) for the tests of the enclosing `describe`: the pages judge a version's support for
 * their own day, so a test pins the day; timers, microtasks and animation frames stay real (msw, user-event and React
 * need them).
 */
export function withDay(isoTime: string): void {
  beforeEach(() =>
    jest.useFakeTimers({
      now: new Date(isoTime),
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'requestAnimationFrame',
        'cancelAnimationFrame',
        'requestIdleCallback',
        'cancelIdleCallback',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    }),
  );
  afterEach(() => jest.useRealTimers());
}
