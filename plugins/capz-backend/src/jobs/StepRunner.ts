import {
  apiVersionOf,
  evaluateObjectCondition,
  groupDeleters,
  JOB_ANNOTATION,
  kinds,
  type KubeObject,
  type LiveCondition,
  type ObservedObject,
  type ObjectRef,
  type JobResult,
  type PlannedAction,
  type PlannedCondition,
  type StepPlan,
} from '@capz-backstage/plugin-capz-common';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { parseArmId } from '../azure/mapping';
import type { JobClient } from '../cluster/clientViews';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import {
  evaluateGitCondition,
  GitStepError,
  runGitAction,
  type JobGit,
} from './gitSteps';

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
  client: JobClient;
  azure?: AzureChecker;
  waker: ChangeWaker;
  signal: AbortSignal;
  log(level: 'info' | 'warn' | 'error', message: string): Promise<void>;
  /** What the step is doing or waiting for now (shown on the step). */
  progress(message: string): Promise<void>;
  /** Test hook: called when a wait first finds a condition not yet holding. */
  onWaiting?: () => void;
  /** Test hook: called when a step's actions are done, before its waits and before the step is recorded. */
  onActionsDone?: () => void;
  /**
   * Every configured management cluster (this one included), for the checks that must see all of them (one owner
   * per AKS cluster). Without it only this management cluster is read.
   */
  clusters?: () => Promise<Array<{ name: string; client: JobClient }>>;
  /** How often a wait re-checks without a change event (a slow or missed watch event must not stall a job). */
  recheckMs?: number;
  /** The Git edge for a job in Git mode (docs/flux-facts.md#job-git-mode); absent when proposals are off. */
  git?: JobGit;
  /** The job's result as last written, and a write of it (what a Git step notes for later ones). */
  result?(): JobResult | undefined;
  saveResult?(r: JobResult): Promise<void>;
}

const describeRef = (r: ObjectRef) =>
  `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;

/** Evaluates one condition against the live cluster (or Azure, or the backend's RBAC). */
export async function evaluateLive(
  c: LiveCondition,
  ctx: StepContext,
): Promise<{ holds: boolean; observed: string }> {
  if (c.type === 'allowed') {
    const allowed = await ctx.client.canI({
      verb: c.verb,
      group: c.group,
      resource: c.resource,
      namespace: c.namespace,
    });
    return { holds: allowed, observed: allowed ? 'allowed' : 'forbidden' };
  }
  if (c.type === 'azure-cluster-exists') {
    if (!ctx.azure)
      return {
        holds: false,
        observed: 'Azure discovery is not configured on this backend',
      };
    const azure = ctx.azure;
    const ask = () =>
      azure.clusterExists({
        managementCluster: ctx.managementCluster,
        credential: {
          namespace: c.credential.namespace!,
          name: c.credential.name,
        },
        subscriptionId: c.subscriptionId,
        resourceGroup: c.resourceGroup,
        name: c.name,
        agentPools: c.agentPools,
      });
    let r: Awaited<ReturnType<typeof ask>> | undefined;
    for (let attempt = 1; !r; attempt++) {
      try {
        r = await ask();
      } catch (e) {
        // The credential is read from the management cluster before ARM is asked: when that read got no answer, wait
        // for the cluster through the step's client (which waits while it does not answer), then ask again.
        if (!(e instanceof KubeRequestError && e.noAnswer) || attempt >= 3)
          throw e;
        await ctx.client.get({
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: c.credential.namespace!,
          name: c.credential.name,
        });
      }
    }
    return {
      holds: r.exists && r.missingPools.length === 0,
      observed: r.observed,
    };
  }
  if (c.type === 'sole-manager') return soleManager(c, ctx);
  const git = await evaluateGitCondition(c, ctx);
  if (git) return git;
  if (
    c.type === 'flux-source-holds' ||
    c.type === 'flux-applied' ||
    c.type === 'generation-unchanged'
  )
    throw new Error(`condition ${c.type} was not evaluated`);
  const obj = await ctx.client.get(c.ref);
  return evaluateObjectCondition(c, obj, ctx.jobId);
}

const lower = (v: unknown) =>
  typeof v === 'string' ? v.toLowerCase() : undefined;
const azureNameOf = (o: KubeObject) =>
  (o.spec as { azureName?: string } | undefined)?.azureName || o.metadata.name;

/**
 * One owner per AKS cluster, read live on every configured management cluster: no ManagedCluster in any
 * namespace points at the AKS cluster (its status.id, ARM's id, when ASO has filled it; else its owner group's and
 * its own Azure names, whatever the subscription, which can only over-refuse), and no ResourceGroup whose policy lets
 * ASO delete the group (`manage`, docs/capz-aso-facts.md#reconcile-policy) points at its group. The objects the job
 * moves away from and the job's own objects do not count. A management cluster that cannot be read fails the check: it
 * may hold the owner.
 */
async function soleManager(
  c: Extract<LiveCondition, { type: 'sole-manager' }>,
  ctx: StepContext,
): Promise<{ holds: boolean; observed: string }> {
  const { subscriptionId, resourceGroup, name } = c.azure;
  const groupId =
    `/subscriptions/${subscriptionId}/resourcegroups/${resourceGroup}`.toLowerCase();
  const clusterId =
    `${groupId}/providers/microsoft.containerservice/managedclusters/${name}`.toLowerCase();
  const clusters = ctx.clusters
    ? await ctx.clusters()
    : [{ name: ctx.managementCluster, client: ctx.client }];
  const found: string[] = [];
  for (const mc of clusters) {
    let groups: KubeObject[];
    let managed: KubeObject[];
    try {
      groups = await mc.client.list(
        apiVersionOf(kinds.ResourceGroup),
        'ResourceGroup',
      );
      managed = await mc.client.list(
        apiVersionOf(kinds.ManagedCluster),
        'ManagedCluster',
      );
    } catch (e) {
      found.push(
        `management cluster ${mc.name} could not be read (${
          (e as Error).message
        })`,
      );
      continue;
    }
    const skip = (o: KubeObject) =>
      o.metadata.annotations?.[JOB_ANNOTATION] === ctx.jobId ||
      (mc.name === ctx.managementCluster &&
        c.except.some(
          r =>
            r.kind === o.kind &&
            r.namespace === o.metadata.namespace &&
            r.name === o.metadata.name,
        ));
    const where = (o: KubeObject) =>
      `${o.kind} ${mc.name}/${o.metadata.namespace}/${o.metadata.name}`;
    const groupOf = (o: KubeObject) => {
      const owner = (
        o.spec as { owner?: { name?: string; armId?: string } } | undefined
      )?.owner;
      // An owner given as an ARM id (`/subscriptions/<s>/resourceGroups/<g>`) names the group itself.
      const byId = parseArmId(owner?.armId)?.resourceGroup;
      if (byId) return byId;
      const g = groups.find(
        x =>
          x.metadata.namespace === o.metadata.namespace &&
          x.metadata.name === owner?.name,
      );
      return g ? azureNameOf(g) : owner?.name;
    };
    for (const o of managed) {
      if (skip(o)) continue;
      const id = lower((o.status as { id?: string } | undefined)?.id);
      const points = id
        ? id === clusterId
        : lower(groupOf(o)) === resourceGroup.toLowerCase() &&
          azureNameOf(o).toLowerCase() === name.toLowerCase();
      if (points) found.push(`${where(o)} already manages it`);
    }
    // The same rule the adoption preview applies to the watch cache (capz-common groupDeleters).
    found.push(
      ...groupDeleters(
        c.azure,
        groups.map(object => ({
          managementCluster: mc.name,
          object: object as ObservedObject,
        })),
        {
          managementCluster: ctx.managementCluster,
          except: c.except,
          jobId: ctx.jobId,
        },
      ),
    );
  }
  return found.length
    ? { holds: false, observed: found.join('; ') }
    : {
        holds: true,
        observed: `no other ASO object on ${clusters
          .map(x => x.name)
          .join(', ')} points at it`,
      };
}

function withJobAnnotation(obj: KubeObject, jobId: string): KubeObject {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      annotations: { ...obj.metadata.annotations, [JOB_ANNOTATION]: jobId },
    },
  };
}

/** Runs one action idempotently; returns the log line that says what happened. */
export async function runAction(
  a: PlannedAction,
  ctx: StepContext,
): Promise<string> {
  switch (a.action) {
    case 'create': {
      const { outcome, object } = await ctx.client.create(
        withJobAnnotation(a.object, ctx.jobId),
      );
      if (outcome === 'created') return `created ${describeRef(a.ref)}`;
      if (object.metadata.annotations?.[JOB_ANNOTATION] === ctx.jobId)
        return `${describeRef(
          a.ref,
        )} already exists (created by this job before)`;
      // Never reuse or overwrite an object someone else made: adoption would silently take it over
      // (docs/capz-aso-facts.md#adoption-reuses-names).
      throw new StepFailedError(
        `${describeRef(
          a.ref,
        )} already exists and was not created by this job; remove or rename it, then resume`,
      );
    }
    case 'merge-patch': {
      const patched = await ctx.client.mergePatch(a.ref, a.patch);
      if (patched) return `patched ${describeRef(a.ref)}`;
      if (a.ifExists) return `${describeRef(a.ref)} is already gone`;
      throw new StepFailedError(`${describeRef(a.ref)} does not exist`);
    }
    case 'delete': {
      const r = await ctx.client.delete(a.ref);
      return r === 'deleted'
        ? `deleted ${describeRef(a.ref)} (not waiting)`
        : `${describeRef(a.ref)} was already gone`;
    }
    case 'copy-secret': {
      const source = await ctx.client.get(a.from);
      const existing = await ctx.client.get(a.to);
      if (existing) {
        if (
          source &&
          JSON.stringify(existing.data ?? {}) ===
            JSON.stringify(source.data ?? {})
        ) {
          return `${describeRef(a.to)} already holds the same data`;
        }
        if (!source)
          return `${describeRef(
            a.to,
          )} exists (the source is gone; it was copied before)`;
        throw new StepFailedError(
          `${describeRef(
            a.to,
          )} already exists with other data; it was not copied by this job`,
        );
      }
      if (!source)
        throw new StepFailedError(
          `${describeRef(a.from)} does not exist: nothing to copy`,
        );
      // Metadata reduced to name and namespace, as the procedure's jq does: no ownerReferences (the old control
      // plane owns the legacy Secret and would take the copy with it), no labels, no annotations.
      await ctx.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: a.to.name, namespace: a.to.namespace },
        ...(source.type ? { type: source.type } : {}),
        data: source.data ?? {},
      } as KubeObject);
      return `copied ${describeRef(a.from)} to ${describeRef(
        a.to,
      )} (values not logged)`;
    }
    case 'set-embedded-annotation':
      return setEmbeddedAnnotation(a, ctx);
    case 'propose-git-change':
    case 'record-generations':
      try {
        return (await runGitAction(a, ctx))!;
      } catch (e) {
        if (e instanceof GitStepError) throw new StepFailedError(e.message);
        throw e;
      }
    default:
      throw new StepFailedError(
        `unknown action ${(a as { action: string }).action}`,
      );
  }
}

/**
 * The embedded resource's annotation set to the value, written back with the resourceVersion it was read at (the API
 * server refuses a stale write with 409; then it is read again). CAPZ itself writes these objects, so a conflict is
 * expected now and then.
 */
async function setEmbeddedAnnotation(
  a: Extract<PlannedAction, { action: 'set-embedded-annotation' }>,
  ctx: StepContext,
): Promise<string> {
  const what = `${a.annotation}=${a.value} on ${a.resource.kind} ${
    a.resource.name
  } in ${describeRef(a.ref)} spec.resources`;
  for (let attempt = 1; ; attempt++) {
    const live = await ctx.client.get(a.ref);
    if (!live)
      throw new StepFailedError(`${describeRef(a.ref)} does not exist`);
    const resources = ((live.spec as { resources?: unknown[] } | undefined)
      ?.resources ?? []) as Array<{
      kind?: string;
      metadata?: { name?: string; annotations?: Record<string, string> };
    }>;
    const i = resources.findIndex(
      r => r.kind === a.resource.kind && r.metadata?.name === a.resource.name,
    );
    if (i < 0)
      throw new StepFailedError(
        `${describeRef(a.ref)} lists no ${a.resource.kind} ${
          a.resource.name
        } in spec.resources`,
      );
    if (resources[i].metadata?.annotations?.[a.annotation] === a.value)
      return `${what} already set`;
    const next = resources.map((r, j) =>
      j === i
        ? {
            ...r,
            metadata: {
              ...r.metadata,
              annotations: {
                ...r.metadata?.annotations,
                [a.annotation]: a.value,
              },
            },
          }
        : r,
    );
    try {
      const resourceVersion = (live.metadata as { resourceVersion?: string })
        .resourceVersion;
      await ctx.client.mergePatch(a.ref, {
        metadata: { resourceVersion },
        spec: { resources: next },
      });
      return `set ${what}`;
    } catch (e) {
      if (
        !(e instanceof KubeRequestError && e.statusCode === 409) ||
        attempt >= 5
      )
        throw e;
    }
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
export async function waitForAll(
  conditions: PlannedCondition[],
  timeoutSeconds: number,
  ctx: StepContext,
): Promise<void> {
  if (!conditions.length) return;
  const deadline = Date.now() + timeoutSeconds * 1000;
  let lastMessage = '';
  let reportedWaiting = false;
  for (;;) {
    if (ctx.signal.aborted)
      throw new StepInterruptedError(String(ctx.signal.reason ?? 'stopped'));
    const pending: string[] = [];
    for (const c of conditions) {
      const r = await evaluateLive(c, ctx);
      if (!r.holds) pending.push(`${c.description} (now: ${r.observed})`);
    }
    if (!pending.length) return;
    const message = `waiting for ${pending[0]}${
      pending.length > 1 ? ` and ${pending.length - 1} more` : ''
    }`;
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
      throw new StepFailedError(
        `timed out after ${timeoutSeconds}s ${message}`,
      );
    }
    await wakeOrTimeout(ctx, Math.min(left, ctx.recheckMs ?? 5000));
  }
}

/** One step: preconditions on the live cluster (nothing changes when one fails), then the actions, then the waits. */
export async function runStep(step: StepPlan, ctx: StepContext): Promise<void> {
  for (const c of step.preconditions) {
    const r = await evaluateLive(c, ctx);
    if (!r.holds)
      throw new StepFailedError(
        `precondition not met: ${c.description} (now: ${r.observed}); nothing was changed by this step`,
      );
  }
  // The actions run to the end even if a pause or cancel arrives meanwhile: they are quick, and a step's actions
  // half done is a state nobody planned for. Requests are honoured at the wait and at the step boundary.
  for (const a of step.actions) {
    await ctx.log('info', await runAction(a, ctx));
  }
  ctx.onActionsDone?.();
  await waitForAll(step.waitFor, step.timeoutSeconds, ctx);
}
