import {
  evaluateObjectCondition,
  JOB_ANNOTATION,
  type KubeObject,
  type LiveCondition,
  type ObjectRef,
  type PlannedAction,
  type PlannedCondition,
  type StepPlan,
} from '@internal/plugin-capz-common';
import type { AksDiscovery } from '../azure/AksDiscovery';
import type { ClusterClient } from './ClusterClient';

/** The Azure side of the final verification (AksDiscovery.clusterExists). */
export type AzureChecker = Pick<AksDiscovery, 'clusterExists'>;

/** Wakes a wait when something may have changed: the watch cache's change events for the management cluster. */
export type ChangeWaker = (onChange: () => void) => () => void;

/** A step's refusal or failure; its message says what was expected and what was seen. */
export class StepFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailedError';
  }
}

/** The run was interrupted (pause, cancel, lost lease, shutdown) during a wait; nothing half-done is left by a wait. */
export class StepInterruptedError extends Error {
  constructor(readonly why: string) {
    super(`interrupted: ${why}`);
    this.name = 'StepInterruptedError';
  }
}

export interface StepContext {
  jobId: string;
  managementCluster: string;
  client: ClusterClient;
  azure?: AzureChecker;
  waker: ChangeWaker;
  signal: AbortSignal;
  log(level: 'info' | 'warn' | 'error', message: string): Promise<void>;
  /** What the step is doing or waiting for now (shown on the step). */
  progress(message: string): Promise<void>;
  /** Test hook: called when a wait first finds a condition not yet holding. */
  onWaiting?: () => void;
  /** How often a wait re-checks without a change event (a slow or missed watch event must not stall a job). */
  recheckMs?: number;
}

const describeRef = (r: ObjectRef) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

/** Evaluates one condition against the live cluster (or Azure, or the backend's RBAC). */
export async function evaluateLive(c: LiveCondition, ctx: StepContext): Promise<{ holds: boolean; observed: string }> {
  if (c.type === 'allowed') {
    const allowed = await ctx.client.canI({ verb: c.verb, group: c.group, resource: c.resource, namespace: c.namespace });
    return { holds: allowed, observed: allowed ? 'allowed' : 'forbidden' };
  }
  if (c.type === 'azure-cluster-exists') {
    if (!ctx.azure) return { holds: false, observed: 'Azure discovery is not configured on this backend' };
    const r = await ctx.azure.clusterExists({
      managementCluster: ctx.managementCluster,
      credential: { namespace: c.credential.namespace!, name: c.credential.name },
      subscriptionId: c.subscriptionId,
      resourceGroup: c.resourceGroup,
      name: c.name,
      agentPools: c.agentPools,
    });
    return { holds: r.exists && r.missingPools.length === 0, observed: r.observed };
  }
  const obj = await ctx.client.get(c.ref);
  return evaluateObjectCondition(c, obj);
}

function withJobAnnotation(obj: KubeObject, jobId: string): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [JOB_ANNOTATION]: jobId } } };
}

/** Runs one action idempotently; returns the log line that says what happened. */
export async function runAction(a: PlannedAction, ctx: StepContext): Promise<string> {
  switch (a.action) {
    case 'create': {
      const { outcome, object } = await ctx.client.create(withJobAnnotation(a.object, ctx.jobId));
      if (outcome === 'created') return `created ${describeRef(a.ref)}`;
      if (object.metadata.annotations?.[JOB_ANNOTATION] === ctx.jobId) return `${describeRef(a.ref)} already exists (created by this job before)`;
      // Never reuse or overwrite an object someone else made: adoption would silently take it over (ground truth 2).
      throw new StepFailedError(`${describeRef(a.ref)} already exists and was not created by this job; remove or rename it, then resume`);
    }
    case 'merge-patch': {
      const patched = await ctx.client.mergePatch(a.ref, a.patch);
      if (patched) return `patched ${describeRef(a.ref)}`;
      if (a.ifExists) return `${describeRef(a.ref)} is already gone`;
      throw new StepFailedError(`${describeRef(a.ref)} does not exist`);
    }
    case 'delete': {
      const r = await ctx.client.delete(a.ref);
      return r === 'deleted' ? `deleted ${describeRef(a.ref)} (not waiting)` : `${describeRef(a.ref)} was already gone`;
    }
    case 'copy-secret': {
      const source = await ctx.client.get(a.from);
      const existing = await ctx.client.get(a.to);
      if (existing) {
        if (source && JSON.stringify(existing.data ?? {}) === JSON.stringify(source.data ?? {})) {
          return `${describeRef(a.to)} already holds the same data`;
        }
        if (!source) return `${describeRef(a.to)} exists (the source is gone; it was copied before)`;
        throw new StepFailedError(`${describeRef(a.to)} already exists with other data; it was not copied by this job`);
      }
      if (!source) throw new StepFailedError(`${describeRef(a.from)} does not exist: nothing to copy`);
      // Metadata reduced to name and namespace, as the procedure's jq does: no ownerReferences (the old control
      // plane owns the legacy Secret and would take the copy with it), no labels, no annotations.
      await ctx.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: a.to.name, namespace: a.to.namespace },
        ...(source.type ? { type: source.type } : {}),
        data: source.data ?? {},
      } as KubeObject);
      return `copied ${describeRef(a.from)} to ${describeRef(a.to)} (values not logged)`;
    }
    default:
      throw new StepFailedError(`unknown action ${(a as { action: string }).action}`);
  }
}

/** Resolves on the next change event, after `ms`, or when the run is interrupted, whichever comes first. */
function wakeOrTimeout(ctx: StepContext, ms: number): Promise<void> {
  return new Promise<void>(resolve => {
    const cleanup: Array<() => void> = [];
    const done = () => {
      cleanup.forEach(f => f());
      resolve();
    };
    const timer = setTimeout(done, ms);
    cleanup.push(() => clearTimeout(timer));
    cleanup.push(ctx.waker(done));
    ctx.signal.addEventListener('abort', done);
    cleanup.push(() => ctx.signal.removeEventListener('abort', done));
  });
}

/** Waits until every condition holds: re-checked on every change the watch reports, and every `recheckMs`. */
export async function waitForAll(conditions: PlannedCondition[], timeoutSeconds: number, ctx: StepContext): Promise<void> {
  if (!conditions.length) return;
  const deadline = Date.now() + timeoutSeconds * 1000;
  let lastMessage = '';
  let reportedWaiting = false;
  for (;;) {
    if (ctx.signal.aborted) throw new StepInterruptedError(String(ctx.signal.reason ?? 'stopped'));
    const pending: string[] = [];
    for (const c of conditions) {
      const r = await evaluateLive(c, ctx);
      if (!r.holds) pending.push(`${c.description} (now: ${r.observed})`);
    }
    if (!pending.length) return;
    const message = `waiting for ${pending[0]}${pending.length > 1 ? ` and ${pending.length - 1} more` : ''}`;
    if (message !== lastMessage) {
      lastMessage = message;
      await ctx.progress(message);
    }
    if (!reportedWaiting) {
      reportedWaiting = true;
      ctx.onWaiting?.();
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new StepFailedError(`timed out after ${timeoutSeconds}s ${message}`);
    }
    await wakeOrTimeout(ctx, Math.min(left, ctx.recheckMs ?? 5000));
  }
}

/** One step: preconditions on the live cluster (nothing changes when one fails), then the actions, then the waits. */
export async function runStep(step: StepPlan, ctx: StepContext): Promise<void> {
  for (const c of step.preconditions) {
    const r = await evaluateLive(c, ctx);
    if (!r.holds) throw new StepFailedError(`precondition not met: ${c.description} (now: ${r.observed}); nothing was changed by this step`);
  }
  // The actions run to the end even if a pause or cancel arrives meanwhile: they are quick, and a step's actions
  // half done is a state nobody planned for. Requests are honoured at the wait and at the step boundary.
  for (const a of step.actions) {
    await ctx.log('info', await runAction(a, ctx));
  }
  await waitForAll(step.waitFor, step.timeoutSeconds, ctx);
}
