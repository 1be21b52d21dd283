/**
 * Safe readers for untyped JSON (internal): every accessor returns undefined rather than throwing.
 */
import { RECONCILE_POLICY_ANNOTATION } from '../vocabulary';
import type { ConditionView, ObservedObject, Severity } from './types';

export type Json = Record<string, unknown>;

export const isObj = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const obj = (v: unknown): Json | undefined => (isObj(v) ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : undefined;
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;
export const bool = (v: unknown): boolean | undefined =>
  typeof v === 'boolean' ? v : undefined;

/** Reads a nested value: `at(o, 'status', 'powerState', 'code')`. */
export function at(v: unknown, ...path: string[]): unknown {
  let cur: unknown = v;
  for (const k of path) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export const nameOf = (o: ObservedObject | undefined): string =>
  o?.metadata?.name ?? '';
export const kindOf = (o: ObservedObject | undefined): string => o?.kind ?? '';
export const ann = (
  o: ObservedObject | undefined,
  key: string,
): string | undefined => o?.metadata?.annotations?.[key];
export const label = (
  o: ObservedObject | undefined,
  key: string,
): string | undefined => o?.metadata?.labels?.[key];
export const groupOf = (apiVersion: string | undefined): string =>
  apiVersion && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
export const versionOf = (apiVersion: string | undefined): string | undefined =>
  apiVersion ? apiVersion.split('/').pop() : undefined;
export const isDeleting = (o: ObservedObject | undefined): boolean =>
  Boolean(o?.metadata?.deletionTimestamp);

/** ASO's policy on an object (`manage` by default, docs/capz-aso-facts.md#reconcile-policy). @public */
export const reconcilePolicyOf = (o: ObservedObject | undefined) =>
  o?.metadata?.annotations?.[RECONCILE_POLICY_ANNOTATION] ?? 'manage';

const SEVERITIES: readonly string[] = ['Info', 'Warning', 'Error'];
const STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

function toCondition(v: unknown): ConditionView | undefined {
  if (!isObj(v)) return undefined;
  const type = str(v.type);
  if (!type) return undefined;
  const rawStatus = str(v.status);
  const status = (
    rawStatus && STATUSES.includes(rawStatus) ? rawStatus : 'Unknown'
  ) as ConditionView['status'];
  const c: ConditionView = { type, status };
  const reason = str(v.reason);
  const message = str(v.message);
  const severity = str(v.severity);
  const ltt = str(v.lastTransitionTime);
  const og = num(v.observedGeneration);
  if (reason) c.reason = reason;
  if (message) c.message = message;
  if (severity && SEVERITIES.includes(severity))
    c.severity = severity as Severity;
  if (ltt) c.lastTransitionTime = ltt;
  if (og !== undefined) c.observedGeneration = og;
  return c;
}

/**
 * An object's conditions: `status.conditions`, plus `status.v1beta2.conditions` for CAPI objects read at v1beta1
 * (clusterctl's UnstructuredGet order, docs/capz-aso-facts.md#clusterctl-conditions). On a type present in both, the
 * v1beta2 one wins.
 * @public
 */
export function conditionsOf(o: ObservedObject | undefined): ConditionView[] {
  const main = arr(o?.status?.conditions)
    .map(toCondition)
    .filter((c): c is ConditionView => !!c);
  const v1beta2 = arr(at(o?.status, 'v1beta2', 'conditions'))
    .map(toCondition)
    .filter((c): c is ConditionView => !!c);
  if (!v1beta2.length) return main;
  const types = new Set(v1beta2.map(c => c.type));
  return [...v1beta2, ...main.filter(c => !types.has(c.type))];
}

export const findCondition = (
  o: ObservedObject | undefined,
  type: string,
): ConditionView | undefined => conditionsOf(o).find(c => c.type === type);

/** Milliseconds since the epoch of an ISO time, or undefined. */
export function timeOf(
  v: Date | string | number | undefined,
): number | undefined {
  if (v === undefined) return undefined;
  let t: number;
  if (v instanceof Date) t = v.getTime();
  else if (typeof v === 'number') t = v;
  else t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}
