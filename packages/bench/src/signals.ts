/**
 * Change-to-push latency: a Backstage signals subscriber (the WebSocket the app's pages use) on the capz channel.
 * Contract: plugins/capz-common/src/api.ts (CAPZ_SIGNAL_CHANNEL, CapzChangeSignal); type-only import, the value is
 * repeated here because this package runs in plain Node without the Backstage build.
 */
import type { CapzChangeSignal } from '@capz-backstage/plugin-capz-common';

export const CAPZ_SIGNAL_CHANNEL = 'capz:changes';

export class SignalListener {
  private readonly ws: WebSocket;
  private waiters: Array<{ uid: string; resolve: (t: number) => void }> = [];
  messages = 0;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.addEventListener('message', ev => {
      const at = performance.now();
      let data: { channel?: string; message?: CapzChangeSignal };
      try {
        data = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (data.channel !== CAPZ_SIGNAL_CHANNEL) return;
      this.messages++;
      const uids = new Set(data.message?.clusterUids ?? []);
      this.waiters = this.waiters.filter(w => {
        if (!uids.has(w.uid)) return true;
        w.resolve(at);
        return false;
      });
    });
  }

  /**
   * Connects without a token: the signals plugin accepts unauthenticated subscribers as guest (broadcasts reach them).
   * The plugin only hooks the server's `upgrade` event when the first WebSocket request reaches its router, and that
   * first request is never answered; like the app's own signals client, this retries after a short timeout.
   */
  static async connect(
    baseUrl: string,
    attempts = 4,
    timeoutMs = 3_000,
  ): Promise<SignalListener> {
    let lastError = '';
    for (let i = 0; i < attempts; i++) {
      const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/signals`);
      const opened = await new Promise<boolean>(resolvePromise => {
        const timer = setTimeout(() => resolvePromise(false), timeoutMs);
        ws.addEventListener(
          'open',
          () => {
            clearTimeout(timer);
            resolvePromise(true);
          },
          { once: true },
        );
        ws.addEventListener(
          'error',
          () => {
            lastError = 'error event';
            clearTimeout(timer);
            resolvePromise(false);
          },
          { once: true },
        );
      });
      if (opened) {
        ws.send(
          JSON.stringify({ action: 'subscribe', channel: CAPZ_SIGNAL_CHANNEL }),
        );
        return new SignalListener(ws);
      }
      ws.close();
    }
    throw new Error(
      `the signals WebSocket did not open after ${attempts} attempts of ${timeoutMs} ms${
        lastError ? ` (${lastError})` : ''
      }`,
    );
  }

  /** Resolves with the arrival time of the first message naming `uid`, or undefined after `timeoutMs`. */
  waitFor(uid: string, timeoutMs: number): Promise<number | undefined> {
    return new Promise(resolvePromise => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter(w => w !== waiter);
        resolvePromise(undefined);
      }, timeoutMs);
      const waiter = {
        uid,
        resolve: (t: number) => {
          clearTimeout(timer);
          resolvePromise(t);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Whether the WebSocket is still open (a soak checks it: pushes after a close are all lost). */
  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.ws.close();
  }
}
