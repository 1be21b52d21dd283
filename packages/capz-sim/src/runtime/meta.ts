import type { Condition, Obj, OwnerReference } from './types.ts';

export const ann = (o: Obj | undefined, k: string) =>
  o?.metadata.annotations?.[k];
export const label = (o: Obj | undefined, k: string) => o?.metadata.labels?.[k];
export const hasFinalizer = (o: Obj, f: string) =>
  (o.metadata.finalizers ?? []).includes(f);
export const isDeleting = (o: Obj) => Boolean(o.metadata.deletionTimestamp);
export const b64 = (s: string) => Buffer.from(s).toString('base64');
export const unb64 = (s: string | undefined) =>
  s === undefined ? undefined : Buffer.from(s, 'base64').toString('utf8');

export function ownerRef(owner: Obj, controller = true): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid!,
    controller,
    blockOwnerDeletion: true,
  };
}

export const controllerOf = (o: Obj | undefined) =>
  o?.metadata.ownerReferences?.find(r => r.controller);
export const groupOf = (apiVersion: string) =>
  apiVersion.includes('/') ? apiVersion.split('/')[0] : '';

/**
 * Sets a condition, keeping lastTransitionTime when the status did not change (how both ASO and CAPI behave), and
 * returns the new list. Comparing lists before writing keeps a settled world silent.
 */
export function setCondition(
  conditions: Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
): Condition[] {
  const list = conditions ?? [];
  const prev = list.find(c => c.type === next.type);
  const merged: Condition = {
    ...next,
    lastTransitionTime:
      prev && prev.status === next.status
        ? prev.lastTransitionTime
        : new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  // metav1 conditions require message (empty allowed); ASO/v1beta1 ones omit what is unset.
  for (const k of Object.keys(merged) as Array<keyof Condition>)
    if (merged[k] === undefined) delete merged[k];
  return [...list.filter(c => c.type !== next.type), merged].sort((a, b) =>
    a.type.localeCompare(b.type),
  );
}

export const getCondition = (
  o: Obj | undefined,
  type: string,
): Condition | undefined =>
  (o?.status?.conditions as Condition[] | undefined)?.find(
    c => c.type === type,
  );

/** Deep equality on JSON values, to skip writes that would change nothing. */
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, canonical(x)]),
    );
  }
  return v;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The JSON merge patch (RFC 7386) that turns `old` into `next`: keys `next` no longer has are set to null, so a map
 * that shrank (tags a PUT replaced) shrinks on the server too; a plain merge of `next` would keep the old keys.
 * Lists are replaced whole, as merge patch does.
 */
export function mergePatchFrom(old: unknown, next: unknown): unknown {
  if (!isPlainObject(old) || !isPlainObject(next))
    return next === undefined ? null : next;
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(old))
    if (next[k] === undefined && old[k] !== undefined) patch[k] = null;
  for (const [k, v] of Object.entries(next)) {
    if (v !== undefined && !same(old[k], v))
      patch[k] = mergePatchFrom(old[k], v);
  }
  return patch;
}
