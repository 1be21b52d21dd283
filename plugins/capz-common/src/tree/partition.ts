import type { ObservedObject } from '../objects/types';
import { CLUSTER_NAME_LABEL } from '../vocabulary';

/** Every string a tree lookup could follow from this object: `name`/`clusterName` values anywhere in spec/status. */
function referencedNames(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 12 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) referencedNames(v, into, depth + 1);
    return;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') {
      if (key === 'name' || key === 'clusterName') into.add(v);
    } else {
      referencedNames(v, into, depth + 1);
    }
  }
}

/**
 * The names one object can lead a tree lookup to. Memoised per object: the cache replaces an object on every change,
 * so a namespace re-partitioned after one change walks only the new object's spec and status. Kept on the object
 * under a symbol (not enumerable: JSON, spreads and `Object.keys` do not see it) rather than in a WeakMap: a backend
 * at 10,000 clusters holds 140,000 objects, and a WeakMap's entries are ephemerons, which V8 traces in a major GC's
 * pause (`--trace-gc-nvp`: `mark.ephemeron.marking`, 58-141 ms of each 100-240 ms pause, docs/scale.md). Objects that
 * cannot take it (frozen) use the WeakMap.
 */
const NAMES = Symbol('capz.referencedNames');
const namesOf = new WeakMap<ObservedObject, string[]>();
function memoNames(o: ObservedObject): string[] | undefined {
  return (
    ((o as { [NAMES]?: string[] })[NAMES] as string[] | undefined) ??
    namesOf.get(o)
  );
}
function rememberNames(o: ObservedObject, names: string[]): void {
  if (Object.isExtensible(o))
    Object.defineProperty(o, NAMES, { value: names, enumerable: false });
  else namesOf.set(o, names);
}
function namesReferencedBy(o: ObservedObject): string[] {
  let names = memoNames(o);
  if (!names) {
    const set = new Set<string>();
    referencedNames(o.spec, set);
    referencedNames(o.status, set);
    const label = o.metadata?.labels?.[CLUSTER_NAME_LABEL];
    if (label) set.add(label);
    for (const ref of o.metadata?.ownerReferences ?? [])
      if (ref.name) set.add(ref.name);
    names = [...set];
    rememberNames(o, names);
  }
  return names;
}

/**
 * Splits one namespace's objects into the groups a cluster tree can reach, in one pass (union-find), so that each
 * tree is built from its own objects instead of the whole namespace: without it, a namespace of N clusters costs
 * O(N²) per clusters list (measured by the benchmark: 5.6 s for 1,000 clusters in one namespace).
 *
 * The tree only ever follows names (references, `spec.owner.name`, embedded `resources[].metadata.name`,
 * `clusterName`), owner references and the cluster-name label, so two objects are joined when one names the other
 * by any of these. That over-approximates (a shared name may join two clusters' groups), which only makes a group
 * bigger, never drops an object a tree needs. Pure; returns, per Cluster uid, the objects of its group.
 * @public
 */
export function partitionByCluster(
  objects: readonly ObservedObject[],
): Map<string, ObservedObject[]> {
  const parent = objects.map((_, i) => i);
  const find = (start: number): number => {
    let root = start;
    while (parent[root] !== root) root = parent[root];
    // Path compression: point everything on the way at the root.
    for (let i = start; parent[i] !== root; ) {
      const next = parent[i];
      parent[i] = root;
      i = next;
    }
    return root;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[ra] = rb;
  };

  const byName = new Map<string, number[]>();
  const byUid = new Map<string, number>();
  objects.forEach((o, i) => {
    const name = o.metadata?.name;
    if (name) {
      const same = byName.get(name);
      if (same) same.push(i);
      else byName.set(name, [i]);
    }
    if (o.metadata?.uid) byUid.set(o.metadata.uid, i);
  });

  objects.forEach((o, i) => {
    for (const ref of o.metadata?.ownerReferences ?? []) {
      const owner = ref.uid ? byUid.get(ref.uid) : undefined;
      if (owner !== undefined) union(i, owner);
    }
    for (const n of namesReferencedBy(o))
      for (const j of byName.get(n) ?? []) union(i, j);
  });

  const groups = new Map<number, ObservedObject[]>();
  objects.forEach((o, i) => {
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(o);
    else groups.set(root, [o]);
  });
  const result = new Map<string, ObservedObject[]>();
  objects.forEach((o, i) => {
    if (o.kind === 'Cluster' && o.metadata?.uid)
      result.set(o.metadata.uid, groups.get(find(i))!);
  });
  return result;
}
