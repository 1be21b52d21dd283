/** Pause, normal reconcile (finalizer, block-move, a paused object's policy restored) and deletion of a legacy object. */
import type { Result } from '../../runtime/controller.ts';
import { K } from '../../runtime/kinds.ts';
import { isNotFound } from '../../runtime/kube.ts';
import {
  ann,
  controllerOf,
  hasFinalizer,
  isDeleting,
} from '../../runtime/meta.ts';
import type { Obj } from '../../runtime/types.ts';
import { BLOCK_MOVE } from '../asoManaged.ts';
import type { LegacyContext } from './context.ts';
import { POLICY, PRE_PAUSE, type LegacyAsoKind } from './names.ts';

/**
 * How long a legacy controller waits after deleting an ASO object before it looks again. CAPZ v1.26.0's
 * azure/services/aso/aso.go `DeleteResource` answers "operation not done" with `requeueInterval` (20 s), and the
 * legacy controllers do not watch the ASO objects (controllers/azuremanagedcontrolplane_controller.go
 * `SetupWithManager`), so an object's disappearance does not wake them: the control plane drops its finalizer (and,
 * by garbage collection, `<cluster>-aso-secret`) at least one such interval after its ManagedCluster is gone. The
 * agent pool objects of a deleting Cluster, garbage-collected when their ManagedCluster goes, still need that Secret
 * for ASO's delete; reacting at once, as this simulation did, let the Secret go first (docs/real-controllers.md#findings,
 * finding 9). Compressed here, as the simulated Azure compresses AKS's minutes.
 */
export const LEGACY_DELETE_REQUEUE_MS = 3_000;

/** Objects this owner controls: paused to skip with the previous policy saved, then block-move removed (docs/capz-aso-facts.md#legacy-pause). */
export async function pause(
  ctx: LegacyContext,
  owner: Obj,
  kinds: LegacyAsoKind[],
): Promise<void> {
  for (const kind of kinds) {
    for (const o of ctx.cache.list(kind, owner.metadata.namespace)) {
      if (
        controllerOf(o)?.uid !== owner.metadata.uid ||
        ann(o, PRE_PAUSE) !== undefined
      )
        continue;
      await ctx.kube.mergePatch(
        K[kind],
        o.metadata.namespace,
        o.metadata.name,
        {
          metadata: {
            annotations: {
              [PRE_PAUSE]: ann(o, POLICY) ?? 'manage',
              [POLICY]: 'skip',
            },
          },
        },
      );
    }
  }
  if (ann(owner, BLOCK_MOVE) !== undefined) {
    await ctx.kube.mergePatch(
      K[owner.kind as 'AzureManagedControlPlane'],
      owner.metadata.namespace,
      owner.metadata.name,
      { metadata: { annotations: { [BLOCK_MOVE]: null } } },
    );
  }
}

/** Normal reconcile: finalizer and block-move first, and a paused object's saved policy restored. */
export async function beginReconcile(
  ctx: LegacyContext,
  owner: Obj,
  finalizer: string,
  kinds: LegacyAsoKind[],
): Promise<void> {
  if (ann(owner, BLOCK_MOVE) === undefined || !hasFinalizer(owner, finalizer)) {
    await ctx.kube.mergePatch(
      K[owner.kind as 'AzureManagedControlPlane'],
      owner.metadata.namespace,
      owner.metadata.name,
      {
        metadata: {
          annotations: { [BLOCK_MOVE]: 'true' },
          finalizers: [
            ...new Set([...(owner.metadata.finalizers ?? []), finalizer]),
          ],
        },
      },
    );
  }
  for (const kind of kinds) {
    for (const o of ctx.cache.list(kind, owner.metadata.namespace)) {
      const saved = ann(o, PRE_PAUSE);
      if (controllerOf(o)?.uid !== owner.metadata.uid || saved === undefined)
        continue;
      await ctx.kube.mergePatch(
        K[kind],
        o.metadata.namespace,
        o.metadata.name,
        { metadata: { annotations: { [PRE_PAUSE]: null, [POLICY]: saved } } },
      );
    }
  }
}

/**
 * Deleting a legacy object deletes the ASO objects it controls (ASO then acts on their policy), phase by phase (the
 * kinds of one phase together, the next phase once they are gone), then its finalizer.
 */
export async function deleteOwned(
  ctx: LegacyContext,
  owner: Obj,
  finalizer: string,
  phases: LegacyAsoKind[][],
): Promise<Result | void> {
  if (!hasFinalizer(owner, finalizer)) return;
  const uid = owner.metadata.uid!;
  const wait = (ctx.deleteNotBefore.get(uid) ?? 0) - Date.now();
  if (wait > 0) return { requeueAfterMs: wait };
  for (const kinds of phases) {
    let remaining = 0;
    for (const kind of kinds) {
      for (const o of ctx.cache.list(kind, owner.metadata.namespace)) {
        if (controllerOf(o)?.uid !== owner.metadata.uid) continue;
        remaining++;
        if (!isDeleting(o))
          await ctx.kube.delete(K[kind], o.metadata.namespace, o.metadata.name);
      }
    }
    if (remaining) {
      ctx.deleteNotBefore.set(uid, Date.now() + LEGACY_DELETE_REQUEUE_MS);
      return { requeueAfterMs: LEGACY_DELETE_REQUEUE_MS };
    }
  }
  ctx.deleteNotBefore.delete(uid);
  await ctx.kube
    .mergePatch(
      K[owner.kind as 'AzureManagedControlPlane'],
      owner.metadata.namespace,
      owner.metadata.name,
      {
        metadata: {
          finalizers: (owner.metadata.finalizers ?? []).filter(
            f => f !== finalizer,
          ),
          resourceVersion: owner.metadata.resourceVersion,
        },
      },
    )
    .catch(e => {
      if (!isNotFound(e)) throw e;
    });
}
