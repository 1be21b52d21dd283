/**
 * The lane's file-level hooks: a hang detector on each, and their time reported for scripts/test-durations.mjs (a
 * diagnostic "before hook: <ms> ms of its <timeout> ms timeout", which scripts/node-test-json-reporter.mjs writes to
 * the lane's report; node:test reports no duration for hooks).
 *
 * node:test cannot cancel a hook or a test that timed out: it aborts its signal, moves on and runs the `after` hooks
 * while the timed-out body still runs (Node v24 lib/internal/test_runner/test.js, `Test.run`: the body races the
 * timeout, then `after` runs in the catch). A `before` still starting clusters or managers would then start them after
 * the teardown. So the `after` here first waits (bounded) for the `before` to settle, then tears down; whatever a
 * hung setup starts even later is found and killed by scripts/test-real-controllers.sh, which fails the lane for it.
 */
import { after, before, type TestContext } from 'node:test';

/** Resolves when `p` settles or after `ms`, whichever comes first; never rejects. */
export async function settled(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>(r => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}

function report(
  t: unknown,
  hook: 'before' | 'after',
  startedAt: number,
  timeoutMs: number,
): void {
  // A file-level hook runs with the root test's context, which has diagnostic() (its type says TestContext | SuiteContext).
  const ms = Math.round(performance.now() - startedAt);
  (t as Partial<TestContext>).diagnostic?.(
    `${hook} hook: ${ms} ms of its ${timeoutMs} ms timeout`,
  );
}

/**
 * Registers the file's `before` (setup) and `after` (teardown). `setupTimeoutMs` and `teardownTimeoutMs` are hang
 * detectors, sized like a test's; the teardown's includes up to a third of it spent waiting for a setup that timed
 * out, so a teardown itself should take at most the other two thirds.
 */
export function fileHooks(o: {
  setup: () => Promise<void>;
  setupTimeoutMs: number;
  teardown: () => Promise<void>;
  teardownTimeoutMs: number;
}): void {
  let setup: Promise<void> | undefined;
  before(
    async t => {
      const startedAt = performance.now();
      setup = o.setup();
      await setup;
      report(t, 'before', startedAt, o.setupTimeoutMs);
    },
    { timeout: o.setupTimeoutMs },
  );
  after(
    async t => {
      const startedAt = performance.now();
      if (setup) await settled(setup, o.teardownTimeoutMs / 3);
      await o.teardown();
      report(t, 'after', startedAt, o.teardownTimeoutMs);
    },
    { timeout: o.teardownTimeoutMs },
  );
}
