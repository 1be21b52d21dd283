/**
 * The ASO objects an AzureASOManaged* object embeds, found among the watched objects (docs/capz-aso-facts.md#aso-managed-status).
 */
import {
  arr,
  at,
  bool,
  groupOf,
  kindOf,
  nameOf,
  obj,
  str,
  versionOf,
} from '../../objects/read';
import type { ObservedObject } from '../../objects/types';
import { watchedAsoGroup } from './watchedKinds';

/** One entry of an AzureASOManaged* object's `spec.resources` / `status.resources`. @public */
export interface ResourceRef {
  group: string;
  version?: string;
  kind: string;
  name: string;
}

/** A referenced ASO object with what the referencing object reports about it. @public */
export interface ResolvedResource {
  ref: ResourceRef;
  /** The live object, when found among the given objects. */
  object?: ObservedObject;
  /** `status.resources[].ready` of the referencing object, when it lists this resource. */
  readyInStatus?: boolean;
  /** Whether the backend watches this kind ({@link WATCHED_ASO_KINDS}); if not, "not found" means "not looked at". */
  watched: boolean;
}

/**
 * The ASO objects an AzureASOManaged* object embeds: `spec.resources[]` and `status.resources[]` merged by group,
 * kind and name (versions are ignored, as CAPZ does), each resolved among `objects` in the same namespace.
 * @public
 */
export function resolveResources(
  owner: ObservedObject,
  objects: readonly ObservedObject[],
): ResolvedResource[] {
  const byKey = new Map<string, ResolvedResource>();
  const key = (r: ResourceRef) => `${r.group}/${r.kind}/${r.name}`;
  for (const item of arr(owner.spec?.resources)) {
    const kind = str(at(item, 'kind'));
    const name = str(at(item, 'metadata', 'name'));
    if (!kind || !name) continue;
    const apiVersion = str(at(item, 'apiVersion'));
    const ref: ResourceRef = {
      group: groupOf(apiVersion),
      version: apiVersion ? versionOf(apiVersion) : undefined,
      kind,
      name,
    };
    if (!byKey.has(key(ref)))
      byKey.set(key(ref), {
        ref,
        watched: watchedAsoGroup(kind) === ref.group,
      });
  }
  for (const item of arr(owner.status?.resources)) {
    const r = obj(at(item, 'resource'));
    const kind = str(r?.kind);
    const name = str(r?.name);
    if (!kind || !name) continue;
    const ref: ResourceRef = {
      group: str(r?.group) ?? '',
      version: str(r?.version),
      kind,
      name,
    };
    const existing = byKey.get(key(ref));
    const ready = bool(at(item, 'ready'));
    if (existing) existing.readyInStatus = ready;
    else
      byKey.set(key(ref), {
        ref,
        readyInStatus: ready,
        watched: watchedAsoGroup(kind) === ref.group,
      });
  }
  const ns = owner.metadata?.namespace;
  for (const r of byKey.values()) {
    r.object = objects.find(
      o =>
        kindOf(o) === r.ref.kind &&
        nameOf(o) === r.ref.name &&
        (!o.apiVersion || groupOf(o.apiVersion) === r.ref.group) &&
        (!ns || !o.metadata?.namespace || o.metadata.namespace === ns),
    );
  }
  return [...byKey.values()];
}
