/**
 * Evaluates the conditions of a job step that are about one object, from that object as the backend read it
 * (at the condition's `ref.apiVersion`). The backend evaluates `azure-cluster-exists` (ARM) and `allowed`
 * (SelfSubjectAccessReview) itself.
 */
import { findCondition } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import { CAPZ, describeRef, groupOfApiVersion } from './helpers';
import type { LiveCondition } from './types';
import { JOB_ANNOTATION } from '../vocabulary';

/** The result of one condition: whether it holds and, in a few words, what was seen. @public */
export interface ConditionEvaluation {
  holds: boolean;
  /** e.g. `ManagedCluster team-x/foo: Ready=False (ReconciliationBlocked: ...)`, `absent`. */
  observed: string;
}

const MAX_MESSAGE = 200;
const short = (s: string) =>
  s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE - 1)}…` : s;

function show(v: unknown): string {
  if (v === undefined) return 'unset';
  return short(JSON.stringify(v));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== typeof b ||
    a === null ||
    b === null ||
    typeof a !== 'object'
  )
    return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  return [...keys].every(k => deepEqual(ao[k], bo[k]));
}

function valueAt(o: unknown, path: string[]): unknown {
  let cur = o;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** A map entry (annotation, label) against the expected value; `null` expects it unset. */
function mapEntry(
  what: 'annotation' | 'label',
  map: Record<string, string> | undefined,
  key: string,
  value: string | null,
): ConditionEvaluation {
  const actual = map?.[key];
  const observed =
    actual === undefined ? `no ${what} ${key}` : `${what} ${key}=${actual}`;
  return {
    holds: value === null ? actual === undefined : actual === value,
    observed,
  };
}

/**
 * Whether `cond` holds for `obj` (undefined: the object does not exist), and what was seen.
 *
 * - `ready`: the Ready condition is True and, when it says which generation it saw, it saw the current one
 *   (a Ready left from before the last spec change is not ready yet).
 * - `field` with `value: null`: the field is unset or null.
 * - `controlled-by`: an ownerReference with `controller: true`, that kind and name, and any API version of the
 *   group infrastructure.cluster.x-k8s.io (CAPZ's adoption skip rule, docs/capz-aso-facts.md#adopt-annotation).
 * - `not-written-at`: no `metadata.managedFields` entry outside the status subresource has that apiVersion.
 * - `orAbsent` (annotation, label, field, no-finalizers): a missing object counts as holding.
 * - `absent-or-ours`: missing, or carrying `capz.io/job: <jobId>` (never holds for a present object without `jobId`).
 *
 * - `field-not`: the field is anything but the value; an unset field holds, a missing object does not.
 *
 * Throws for `azure-cluster-exists`, `allowed`, `sole-manager` and the Flux and generation conditions, which are not
 * about one object alone.
 * @public
 */
export function evaluateObjectCondition(
  cond: LiveCondition,
  obj: ObservedObject | undefined,
  jobId?: string,
): ConditionEvaluation {
  if (
    cond.type === 'azure-cluster-exists' ||
    cond.type === 'allowed' ||
    cond.type === 'sole-manager' ||
    cond.type === 'flux-source-holds' ||
    cond.type === 'flux-applied' ||
    cond.type === 'generation-unchanged'
  ) {
    throw new Error(
      `condition ${cond.type} is not about one Kubernetes object alone: the backend evaluates it (ARM, SelfSubjectAccessReview, a live list, Git or the job's record)`,
    );
  }
  const who = describeRef(cond.ref);
  if (cond.type === 'absent-or-ours') {
    if (!obj) return { holds: true, observed: `${who}: absent` };
    const owner = obj.metadata?.annotations?.[JOB_ANNOTATION];
    const ours = jobId !== undefined && owner === jobId;
    return {
      holds: ours,
      observed: `${who}: present, ${
        owner ? `created by job ${owner}` : 'not created by a job'
      }${ours ? ' (this one)' : ''}`,
    };
  }
  if (cond.type === 'exists') {
    if (!obj) return { holds: false, observed: `${who}: absent` };
    return {
      holds: true,
      observed: `${who}: present${
        obj.metadata?.deletionTimestamp ? ' (being deleted)' : ''
      }`,
    };
  }
  if (cond.type === 'absent') {
    if (!obj) return { holds: true, observed: `${who}: absent` };
    const fin =
      obj.metadata && 'finalizers' in obj.metadata
        ? (obj.metadata as { finalizers?: string[] }).finalizers ?? []
        : [];
    const deleting = obj.metadata?.deletionTimestamp
      ? ` (being deleted since ${obj.metadata.deletionTimestamp}${
          fin.length ? `, finalizers: ${fin.join(', ')}` : ''
        })`
      : '';
    return { holds: false, observed: `${who}: still present${deleting}` };
  }
  if (!obj) {
    const orAbsent = 'orAbsent' in cond && cond.orAbsent === true;
    return { holds: orAbsent, observed: `${who}: absent` };
  }
  switch (cond.type) {
    case 'ready':
    case 'condition': {
      const type = cond.type === 'ready' ? 'Ready' : cond.condition;
      const want = cond.type === 'ready' ? 'True' : cond.status;
      const c = findCondition(obj, type);
      if (!c)
        return { holds: false, observed: `${who}: no ${type} condition yet` };
      const detail = [c.reason, c.message].filter(Boolean).join(': ');
      let observed = `${who}: ${type}=${c.status}${
        detail ? ` (${short(detail)})` : ''
      }`;
      let holds = c.status === want;
      const generation = obj.metadata?.generation;
      if (
        holds &&
        cond.type === 'ready' &&
        c.observedGeneration !== undefined &&
        generation !== undefined &&
        c.observedGeneration < generation
      ) {
        holds = false;
        observed += ` but for generation ${c.observedGeneration}, not the current ${generation}`;
      }
      return { holds, observed };
    }
    case 'annotation': {
      const r = mapEntry(
        'annotation',
        obj.metadata?.annotations,
        cond.annotation,
        cond.value,
      );
      return { holds: r.holds, observed: `${who}: ${r.observed}` };
    }
    case 'label': {
      const r = mapEntry('label', obj.metadata?.labels, cond.label, cond.value);
      return { holds: r.holds, observed: `${who}: ${r.observed}` };
    }
    case 'field': {
      const actual = valueAt(obj, cond.path);
      const holds =
        cond.value === null
          ? actual === undefined || actual === null
          : deepEqual(actual, cond.value);
      return {
        holds,
        observed: `${who}: ${cond.path.join('.')}=${show(actual)}`,
      };
    }
    case 'no-finalizers': {
      const fin =
        (obj.metadata as { finalizers?: string[] } | undefined)?.finalizers ??
        [];
      return {
        holds: fin.length === 0,
        observed: `${who}: ${
          fin.length ? `finalizers ${fin.join(', ')}` : 'no finalizers'
        }`,
      };
    }
    case 'controlled-by': {
      const controller = (obj.metadata?.ownerReferences ?? []).find(
        r => r.controller === true,
      );
      const holds =
        !!controller &&
        controller.kind === cond.ownerKind &&
        controller.name === cond.ownerName &&
        groupOfApiVersion(controller.apiVersion) === CAPZ;
      const observed = controller
        ? `controlled by ${controller.kind} ${controller.name} (${
            controller.apiVersion ?? 'no apiVersion'
          })`
        : 'no controller owner reference';
      return { holds, observed: `${who}: ${observed}` };
    }
    case 'field-not': {
      const actual = valueAt(obj, cond.path);
      const ours =
        cond.orOurs === true &&
        jobId !== undefined &&
        obj.metadata?.annotations?.[JOB_ANNOTATION] === jobId;
      return {
        holds: ours || !deepEqual(actual, cond.value),
        observed: `${who}: ${cond.path.join('.')}=${show(actual)}${
          ours ? ' (written by this job)' : ''
        }`,
      };
    }
    case 'not-written-at': {
      const writers = (obj.metadata?.managedFields ?? []).filter(
        m => m.subresource !== 'status' && m.apiVersion === cond.apiVersion,
      );
      const names = [
        ...new Set(writers.map(m => m.manager ?? '(unnamed manager)')),
      ];
      return {
        holds: writers.length === 0,
        observed: `${who}: ${
          names.length
            ? `written at ${cond.apiVersion} by ${names.join(', ')}`
            : `no field manager at ${cond.apiVersion}`
        }`,
      };
    }
    default: {
      const never: never = cond;
      throw new Error(`unknown condition ${JSON.stringify(never)}`);
    }
  }
}
