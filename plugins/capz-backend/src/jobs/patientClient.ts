import type { KubeObject, ObjectRef } from '@capz-backstage/plugin-capz-common';
import { whyNoAnswer, type NoAnswer } from '../cluster/unreachable';
import type { JobClient } from '../cluster/clientViews';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import { StepFailedError, StepInterruptedError } from './StepRunner';

/** How long a job waits for its management cluster to answer again before its step fails (one outage). */
export const DEFAULT_UNREACHABLE_WAIT_MS = 10 * 60_000;

/** Between attempts while the management cluster does not answer: 1 s doubling to 10 s. */
const retryDelay = (attempt: number) => Math.min(1000 * 2 ** attempt, 10_000);

export interface PatienceOptions {
  managementCluster: string;
  /** The run's signal: a pause, cancel, lost lease or shutdown ends a wait at once. */
  signal: AbortSignal;
  /** How long one outage may last before the request fails the step (default {@link DEFAULT_UNREACHABLE_WAIT_MS}). */
  maxWaitMs?: number;
  /** Told once when the management cluster stops answering (the job's log and its running step say so). */
  onWaiting(message: string): Promise<void>;
  /** Told once when it answers again. */
  onBack(message: string): Promise<void>;
  /** Test hook: the delay between attempts (default 1 s doubling to 10 s). */
  delayMs?: (attempt: number) => number;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** Resolves after `ms`, or rejects with a StepInterruptedError when the run is interrupted first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new StepInterruptedError(String(signal.reason ?? 'stopped')));
      return;
    }
    let timer: NodeJS.Timeout | undefined = undefined;
    const stop = () => {
      clearTimeout(timer);
      reject(new StepInterruptedError(String(signal.reason ?? 'stopped')));
    };
    timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * A job's {@link JobClient} that waits out an outage of its management cluster instead of failing the step: a
 * request that gets no answer (refused, timed out, cut off, or 429/502/503/504: cluster/unreachable.ts) is tried
 * again, 1 s doubling to 10 s apart, until the cluster answers, for at most `maxWaitMs` per outage; the job's log and
 * its running step say that it waits and for what. Every request a step makes is idempotent (runAction: a create that
 * went through before its answer was lost finds its own object, a delete finds it gone, a patch writes the same
 * again), so trying one again after a lost answer is safe. Any answer of the API server (404, 409, 422, ...) is the
 * caller's, unchanged. docs/job-guarantees.md#management-cluster-outage.
 */
export class PatientClusterClient implements JobClient {
  /** When the current outage began (the first request without an answer), if one is going on. */
  private since?: number;

  constructor(
    private readonly inner: JobClient,
    private readonly o: PatienceOptions,
  ) {}

  get(ref: ObjectRef) {
    return this.call(() => this.inner.get(ref));
  }

  list(apiVersion: string, kind: string) {
    return this.call(() => this.inner.list(apiVersion, kind));
  }

  create(obj: KubeObject) {
    return this.call(() => this.inner.create(obj));
  }

  mergePatch(ref: ObjectRef, patch: Record<string, unknown>) {
    return this.call(() => this.inner.mergePatch(ref, patch));
  }

  delete(ref: ObjectRef) {
    return this.call(() => this.inner.delete(ref));
  }

  canI(access: {
    verb: string;
    group: string;
    resource: string;
    namespace?: string;
  }) {
    return this.call(() => this.inner.canI(access));
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    const { managementCluster: mc, signal } = this.o;
    const maxWaitMs = this.o.maxWaitMs ?? DEFAULT_UNREACHABLE_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted)
        throw new StepInterruptedError(String(signal.reason ?? 'stopped'));
      let none: NoAnswer | undefined;
      try {
        const answer = await request();
        if (this.since !== undefined) {
          const down = Date.now() - this.since;
          this.since = undefined;
          await this.o.onBack(
            `management cluster ${mc} answers again (after ${seconds(
              down,
            )} without an answer); going on`,
          );
        }
        return answer;
      } catch (e) {
        none = e instanceof KubeRequestError ? e.noAnswer : whyNoAnswer(e);
        if (!none) throw e;
      }
      const now = Date.now();
      if (this.since === undefined) {
        this.since = now;
        await this.o.onWaiting(
          `waiting for management cluster ${mc}: its API server did not answer (${
            none.reason
          }); the step goes on once it answers (waiting up to ${seconds(
            maxWaitMs,
          )})`,
        );
      }
      if (now - this.since >= maxWaitMs)
        throw new StepFailedError(
          `management cluster ${mc} has not answered for ${seconds(
            now - this.since,
          )} (last: ${
            none.reason
          }): the step stops here; resume the job once its API server answers`,
        );
      await pause(
        Math.min(
          (this.o.delayMs ?? retryDelay)(attempt),
          Math.max(0, this.since + maxWaitMs - now),
        ),
        signal,
      );
    }
  }
}
