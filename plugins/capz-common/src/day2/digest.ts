/**
 * What a day-2 preview was made from, in a canonical form: a confirm plans again and must find the same, or it writes
 * nothing . The backend hashes {@link canonicalDay2PlanBasis} (sha256, hex) into
 * `Day2Plan.planDigest`. Pure, so that the same inputs give the same digest on every replica.
 *
 * Each object read is taken as far as a plan can depend on it: its identity (uid), its desired state (`spec`, labels,
 * the annotations a plan reads, deletion) and its `resourceVersion`. The resourceVersion also moves on every status write, which the
 * controllers make all the time (a pool's node count while it scales, conditions); see {@link day2ReadObjects}.
 */
import { at, isObj } from '../objects/read';
import type { ObservedObject } from '../objects/types';
import {
  CREDENTIAL_FROM_ANNOTATION,
  PAUSED_ANNOTATION,
  PRE_PAUSE_RECONCILE_POLICY_ANNOTATION,
  RECONCILE_POLICY_ANNOTATION,
  REPLICAS_MANAGED_BY_ANNOTATION,
} from '../vocabulary';
import type { Day2Action, ObjectChange } from './api';

/** One object a plan was made from, as far as the plan can depend on it. @public */
export interface Day2ReadObject {
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
  /** The API server's version of the whole object; only in the digest when the caller keeps it (see day2ReadObjects). */
  resourceVersion?: string;
  /** `spec` without the fields controllers fill in (`providerIDList`). */
  spec?: unknown;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
}

/** What a plan is and what it was made from: the digest's input. @public */
export interface Day2PlanBasis {
  /** The action (its `planDigest`, if any, is left out). */
  action: Day2Action;
  changes: readonly ObjectChange[];
  warnings: readonly string[];
  /** Every object the plan read live. */
  read: readonly Day2ReadObject[];
}

/** JSON with object keys sorted at every level (arrays keep their order): the same value, the same text. @public */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .filter(k => v[k] !== undefined)
      .sort()
      .map(k => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

const readKey = (o: { kind?: string; namespace?: string; name?: string }) =>
  `${o.kind}/${o.namespace}/${o.name}`;

/** Spec fields the controllers write as they work, which no plan reads: a change of them is not a change of plan. */
const CONTROLLER_SPEC_FIELDS = ['providerIDList'];

/**
 * The annotations a day-2 plan reads (its planners and the health they ask). The others are the controllers'
 * bookkeeping, written as they work: CAPZ adds `clusterctl.cluster.x-k8s.io/block-move` when a reconcile starts and
 * removes it after (and records its owned ASO kinds), ASO writes its reconcile markers (docs/capz-aso-facts.md#aso-managed-metadata).
 * Taking them in would make a confirm refuse a plan that did not change.
 */
const PLAN_ANNOTATIONS = [
  PAUSED_ANNOTATION,
  RECONCILE_POLICY_ANNOTATION,
  PRE_PAUSE_RECONCILE_POLICY_ANNOTATION,
  REPLICAS_MANAGED_BY_ANNOTATION,
  CREDENTIAL_FROM_ANNOTATION,
];

const planAnnotations = (
  all: Record<string, string> | undefined,
): Record<string, string> | undefined => {
  const kept = Object.fromEntries(
    PLAN_ANNOTATIONS.filter(k => all?.[k] !== undefined).map(k => [k, all![k]]),
  );
  return Object.keys(kept).length ? kept : undefined;
};

/**
 * The objects of a live read as {@link Day2ReadObject}s. `resourceVersions: true` keeps each object's
 * resourceVersion, so that any write since (a status write included) changes the digest; the day-2 service leaves
 * them out and guards each write with the resourceVersion of its own read instead, planning again when a controller
 * wrote status in between. @public
 */
export const day2ReadObjects = (
  objects: readonly ObservedObject[],
  namespace: string,
  o: { resourceVersions?: boolean } = {},
): Day2ReadObject[] =>
  objects.map(x => {
    const spec = isObj(x.spec) ? { ...x.spec } : x.spec;
    if (isObj(spec)) for (const f of CONTROLLER_SPEC_FIELDS) delete spec[f];
    const m = x.metadata;
    // A MachinePool whose replicas another manager owns (AKS's autoscaler: CAPZ copies AKS's count into it) changes
    // its replicas as that manager works: no plan may depend on them (CAPI's replicas-managed-by contract).
    if (
      isObj(spec) &&
      m?.annotations?.[REPLICAS_MANAGED_BY_ANNOTATION] !== undefined
    )
      delete spec.replicas;
    return {
      kind: x.kind ?? '',
      namespace: m?.namespace ?? namespace,
      name: m?.name ?? '',
      ...(m?.uid ? { uid: m.uid } : {}),
      ...(o.resourceVersions && m?.resourceVersion
        ? { resourceVersion: m.resourceVersion }
        : {}),
      ...(spec !== undefined ? { spec } : {}),
      ...(m?.labels && Object.keys(m.labels).length
        ? { labels: m.labels }
        : {}),
      ...(planAnnotations(m?.annotations)
        ? { annotations: planAnnotations(m?.annotations) }
        : {}),
      ...(m?.deletionTimestamp
        ? { deletionTimestamp: m.deletionTimestamp }
        : {}),
    };
  });

/**
 * The canonical text of a plan's basis: the action without its digest, the changes and warnings in plan order, the
 * objects read sorted (each once). Equal text exactly when the plan and every object read are equal. @public
 */
export function canonicalDay2PlanBasis(b: Day2PlanBasis): string {
  const { planDigest: _ignored, ...action } = b.action;
  const read = [...new Map(b.read.map(r => [readKey(r), r])).values()].sort(
    (x, y) => readKey(x).localeCompare(readKey(y)),
  );
  return canonicalJson({
    v: 1,
    action,
    changes: b.changes,
    warnings: b.warnings,
    read,
  });
}

/** The value at a change's dotted path (`spec.replicas`, `spec.resources[0].spec.minCount`) in an object. @public */
export function valueAtChangePath(o: unknown, path: string): unknown {
  const keys = path
    .split('.')
    .flatMap(part =>
      [...part.matchAll(/([^[\]]+)|\[(\d+)\]/g)].map(m =>
        m[2] !== undefined ? Number(m[2]) : m[1],
      ),
    );
  let cur: unknown = o;
  for (const k of keys) {
    if (typeof k === 'number') cur = Array.isArray(cur) ? cur[k] : undefined;
    else cur = at(cur, k);
    if (cur === undefined) return undefined;
  }
  return cur;
}

const fmt = (v: unknown) => (v === undefined ? 'absent' : canonicalJson(v));

/** The leaf paths where two values differ (`spec.replicas`, `spec.resources[0].spec.count`), at most `max`. */
function differences(a: unknown, b: unknown, path: string, out: string[]) {
  if (out.length >= 5 || canonicalJson(a) === canonicalJson(b)) return;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => differences(x, b[i], `${path}[${i}]`, out));
    return;
  }
  if (isObj(a) && isObj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      differences(a[k], b[k], path ? `${path}.${k}` : k, out);
    return;
  }
  out.push(`${path}: ${fmt(a)} → ${fmt(b)}`);
}

/**
 * What changed between a preview's basis and the cluster now, in words, for the 409 of a stale confirm: each
 * previewed field whose value moved (`pool api: 2 → 1 replicas`), each object gone, new or made again, and each other
 * change of an object read (its spec, labels, annotations, deletion). `label` names an object for people (e.g. a
 * MachinePool by its pool). Empty when nothing is seen to differ (e.g. only the warnings). @public
 */
export function describeDay2Drift(
  preview: Day2PlanBasis,
  now: readonly Day2ReadObject[],
  label: (kind: string, name: string) => string = (k, n) => `${k} ${n}`,
): string[] {
  const out: string[] = [];
  const nowRead = new Map(now.map(r => [readKey(r), r]));
  const before = new Map(preview.read.map(r => [readKey(r), r]));
  const explained = new Set<string>();
  for (const c of preview.changes) {
    const key = readKey(c);
    const obj = nowRead.get(key);
    const who = label(c.kind, c.name);
    if (c.operation === 'create') {
      if (obj) {
        out.push(`${who} exists now`);
        explained.add(key);
      }
      continue;
    }
    if (!obj) continue; // said below, as every object gone
    for (const f of c.fields) {
      const v = valueAtChangePath(obj, f.path);
      if (canonicalJson(v) === canonicalJson(f.before)) continue;
      out.push(
        f.path === 'spec.replicas'
          ? `${who}: ${fmt(f.before)} → ${fmt(v)} replicas`
          : `${who} ${f.path}: ${fmt(f.before)} → ${fmt(v)}`,
      );
      explained.add(key);
    }
  }
  for (const [key, r] of before) {
    const who = label(r.kind, r.name);
    const n = nowRead.get(key);
    if (!n) out.push(`${who} is gone`);
    else if (n.uid !== r.uid) out.push(`${who} was deleted and made again`);
    else if (!explained.has(key)) {
      const diffs: string[] = [];
      differences(
        {
          spec: r.spec,
          metadata: {
            labels: r.labels,
            annotations: r.annotations,
            deletionTimestamp: r.deletionTimestamp,
          },
        },
        {
          spec: n.spec,
          metadata: {
            labels: n.labels,
            annotations: n.annotations,
            deletionTimestamp: n.deletionTimestamp,
          },
        },
        '',
        diffs,
      );
      if (diffs.length) out.push(`${who} ${diffs.join(', ')}`);
      else if (n.resourceVersion !== r.resourceVersion)
        out.push(
          `${who} was written (resourceVersion ${r.resourceVersion} → ${n.resourceVersion})`,
        );
    }
  }
  for (const [key, n] of nowRead)
    if (!before.has(key)) out.push(`${label(n.kind, n.name)} is new`);
  return out;
}
