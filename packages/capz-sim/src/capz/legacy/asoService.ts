/** One CAPZ ASO service step: the ASO object written as CAPZ writes it, and the condition CAPZ reports for it. */
import { apiVersionOf, K } from '../../runtime/kinds.ts';
import {
  ann,
  controllerOf,
  getCondition,
  ownerRef,
} from '../../runtime/meta.ts';
import type { Condition, Obj } from '../../runtime/types.ts';
import { CLUSTER_NAME } from '../asoManaged.ts';
import type { LegacyContext } from './context.ts';
import {
  CREDENTIAL_FROM,
  POLICY,
  PRE_PAUSE,
  type LegacyAsoKind,
} from './names.ts';

export type Cond = Omit<Condition, 'lastTransitionTime'>;

/** One CAPZ service step: the ASO object, whether CAPZ would go on to the next service, whether it wrote it now. */
export interface Step {
  live?: Obj;
  settled: boolean;
  changed: boolean;
}

/**
 * A service's condition as `UpdatePutStatus` writes it (CAPZ v1.26.0 azure/scope/managedcontrolplane.go lines
 * 887–897): True when done; `Creating` (Info, "<service> creating or updating") for "operation not done" (the object
 * was just written, or ASO is Reconciling it, aso.go lines 132–137, 287–305); else `Failed` (Error, "<service> failed
 * to create or update. err: resource is not Ready: <ASO's message>", aso.go line 139). An object ASO has not given a
 * Ready condition yet counts as not done: real CAPZ looks again only 20 s after writing it (finding 15), by when ASO
 * has, while this simulation reacts at once.
 */
export function putStatus(type: string, service: string, r: Step): Cond {
  if (r.settled) return { type, status: 'True', severity: '' };
  const ready = getCondition(r.live, 'Ready');
  if (!r.live || r.changed || !ready || ready.reason === 'Reconciling')
    return {
      type,
      status: 'False',
      severity: 'Info',
      reason: 'Creating',
      message: `${service} creating or updating`,
    };
  return {
    type,
    status: 'False',
    severity: 'Error',
    reason: 'Failed',
    message: `${service} failed to create or update. err: resource is not Ready: ${
      ready.message ?? ''
    }`,
  };
}

/**
 * One CAPZ ASO service step for one object (CAPZ v1.26.0 azure/services/aso/aso.go `CreateOrUpdateResource` lines
 * 78–231): a missing object is created with reconcile-policy skip; an existing one it controls is flipped to
 * manage once it "was managed" (docs/capz-aso-facts.md#legacy-aso-objects) or once ASO found it missing in Azure
 * under skip (lines 117–131, "adopting"), and gets the annotations CAPZ sets on every reconcile (the last-applied
 * tags, tags.go line 37 `reconcileTags`). `settled` says whether CAPZ would go on to the next service: an object it
 * does not control is skipped as done (lines 104–109); one it controls must be Ready and unchanged by this step, else
 * the step answers "operation not done" (lines 132–137, 287–305) or the not-Ready error (line 139).
 */
export async function ensureAso(
  ctx: LegacyContext,
  kind: LegacyAsoKind,
  owner: Obj,
  clusterName: string,
  name: string,
  spec: Record<string, unknown>,
  wasManaged: boolean,
  annotations: Record<string, string> = {},
): Promise<Step> {
  const ns = owner.metadata.namespace;
  const live = ctx.cache.get(kind, ns, name);
  if (!live) {
    await ctx.kube.createIfAbsent(K[kind], {
      apiVersion: apiVersionOf(K[kind]),
      kind,
      metadata: {
        name,
        namespace: ns,
        labels: { [CLUSTER_NAME]: clusterName },
        annotations: {
          ...annotations,
          [CREDENTIAL_FROM]: `${clusterName}-aso-secret`,
          [POLICY]: 'skip',
        },
        ownerReferences: [ownerRef(owner)],
      },
      spec,
    });
    return { settled: false, changed: true };
  }
  // An existing object this owner does not control is left alone (the adoption guard of
  // docs/capz-aso-facts.md#legacy-aso-objects).
  if (controllerOf(live)?.uid !== owner.metadata.uid)
    return { live, settled: true, changed: false };
  const ready = getCondition(live, 'Ready');
  const paused = ann(live, PRE_PAUSE) !== undefined;
  const adopt =
    ready?.status !== 'True' &&
    ready?.reason === 'AzureResourceNotFound' &&
    ann(live, POLICY) === 'skip';
  const patch: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations))
    if (ann(live, k) !== v) patch[k] = v;
  if ((wasManaged || adopt) && ann(live, POLICY) === 'skip' && !paused)
    patch[POLICY] = 'manage';
  if (Object.keys(patch).length) {
    await ctx.kube.mergePatch(K[kind], ns, name, {
      metadata: { annotations: patch },
    });
    return { live, settled: false, changed: true };
  }
  return { live, settled: ready?.status === 'True', changed: false };
}

export function fromAso(
  type: string,
  o: Obj | undefined,
  ready: Condition | undefined,
): Cond {
  if (!o)
    return {
      type,
      status: 'False',
      severity: 'Info',
      reason: 'Creating',
      message: `${type.replace(/Ready|Running/, '')} is being created`,
    };
  if (ready?.status === 'True') return { type, status: 'True', severity: '' };
  return {
    type,
    status: 'False',
    severity: (ready?.severity as Cond['severity']) || 'Info',
    reason: ready?.reason ?? 'Reconciling',
    message: ready?.message,
  };
}
