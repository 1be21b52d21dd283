/** The longest the check waits between two tries while sends fail. */
export const SEND_BACKOFF_MAX_MS = 60 * 60_000;

/**
 * The sends' backoff while they fail: after a failed send, none is tried until the check's interval later, then
 * twice that, four times... up to SEND_BACKOFF_MAX_MS; a send that goes through ends it. Meanwhile what is due waits
 * in the database (an episode unclaimed, an ended one's row kept, a digest's row as last told).
 *
 * In memory, per replica: it only spares a backend that is away tries bound to fail, and the log a warning per
 * notice and check. A replica that runs the check without knowing tries once and learns; a shared state would cost
 * a write per failure and a read per check for that one try.
 */
export class SendBackoff {
  private failures = 0;
  private since = 0;
  private retryAt = 0;

  constructor(private readonly everyMs: number) {}

  /** Whether a send at `now` waits; a check that runs a little early (the scheduler's jitter) still tries. */
  waits(now: number): boolean {
    return this.failures > 0 && now + this.everyMs / 2 < this.retryAt;
  }

  /** How long until the next try. */
  nextTryIn(now: number): number {
    return Math.max(0, this.retryAt - now);
  }

  /** A send failed at `now`: the next try later. True when it is a stretch's first failure. */
  failed(now: number): boolean {
    if (this.failures === 0) this.since = now;
    this.failures += 1;
    this.retryAt =
      now +
      Math.min(SEND_BACKOFF_MAX_MS, this.everyMs * 2 ** (this.failures - 1));
    return this.failures === 1;
  }

  /** A send went through: the backoff ends. How long the stretch of failures it ends lasted, if there was one. */
  succeeded(now: number): number | undefined {
    if (this.failures === 0) return undefined;
    this.failures = 0;
    return now - this.since;
  }
}
