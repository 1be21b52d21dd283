/**
 * Who applies an object from outside the product (Flux, Argo CD, Helm), read from its labels, annotations and
 * field managers only: a live write to an object a GitOps controller applies is put back (or the object re-created)
 * at the controller's next run. Each rule cites docs/flux-facts.md. Pure: no I/O.
 */
import {
  APP_INSTANCE_LABEL,
  ARGOCD_TRACKING_ANNOTATION,
  FLUX_HELMRELEASE_NAME_LABEL,
  FLUX_HELMRELEASE_NAMESPACE_LABEL,
  FLUX_KUSTOMIZATION_NAME_LABEL,
  FLUX_KUSTOMIZATION_NAMESPACE_LABEL,
  FLUX_RECONCILE_KEY,
  FLUX_SSA_KEY,
  HELM_RELEASE_NAME_ANNOTATION,
  HELM_RELEASE_NAMESPACE_ANNOTATION,
  MANAGED_BY_LABEL,
} from '../vocabulary';
import { groupOf } from './read';
import type { ObservedObject } from './types';

/** The tool that applies an object. @public */
export type AppliedByTool =
  | 'flux-kustomization'
  | 'flux-helmrelease'
  | 'argocd'
  | 'helm';

/** Who applies an object, and how that is known. @public */
export interface AppliedBy {
  tool: AppliedByTool;
  /**
   * The Kustomization or HelmRelease (namespace and name), the Argo CD Application (name, as Argo CD writes it:
   * `<namespace>_<name>` for an Application outside Argo CD's namespace) or the Helm release; absent when only a
   * field manager tells.
   */
  source?: { namespace?: string; name: string };
  /** Set when only a server-side-apply field manager tells (no label or annotation names the source). */
  fieldManager?: string;
  /**
   * A controller puts a live change back by itself (Flux, Argo CD): a live write is refused. False for a plain Helm
   * release: nothing reconciles it, only the next `helm upgrade` may (a warning).
   */
  reconciles: boolean;
}

/** The GitOps controllers' field managers: docs/flux-facts.md#flux-ssa, docs/flux-facts.md#flux-helm-labels, docs/flux-facts.md#argocd-manager. */
const MANAGERS: Record<string, AppliedByTool> = {
  'kustomize-controller': 'flux-kustomization',
  'helm-controller': 'flux-helmrelease',
  'argocd-controller': 'argocd',
};

const meta = (o: ObservedObject, key: string) =>
  o.metadata?.labels?.[key] ?? o.metadata?.annotations?.[key];

/**
 * Flux skips an object that says `reconcile: disabled` or `ssa: Ignore` on the live object (docs/flux-facts.md#flux-annotations):
 * neither applied nor pruned. That does not hold for a delete: the object is gone, and Git's copy is applied again.
 */
const fluxOptedOut = (o: ObservedObject) =>
  meta(o, FLUX_RECONCILE_KEY) === 'disabled' ||
  meta(o, FLUX_SSA_KEY) === 'Ignore';

/**
 * Argo CD's tracking id `<app>:<group>/<kind>:<namespace>/<name>`, counted only when it names this very object
 * (as Argo CD's `isSelfReferencedObj` does, so that a copied annotation is not taken for Argo CD's).
 */
function argoTracking(o: ObservedObject): string | undefined {
  const v = o.metadata?.annotations?.[ARGOCD_TRACKING_ANNOTATION];
  if (!v) return undefined;
  const parts = v.split(':');
  if (parts.length < 3) return undefined;
  const [app, gk, ...rest] = parts;
  const nsName = rest.join(':');
  const g = gk.split('/');
  const n = nsName.split('/');
  if (!app || g.length !== 2 || n.length !== 2) return undefined;
  const ns = o.metadata?.namespace ?? '';
  const self =
    g[0] === groupOf(o.apiVersion) &&
    g[1] === o.kind &&
    n[1] === o.metadata?.name &&
    (ns === '' || n[0] === ns);
  return self ? app : undefined;
}

const managers = (o: ObservedObject): string[] =>
  (o.metadata?.managedFields ?? [])
    .filter(m => m.subresource !== 'status' && typeof m.manager === 'string')
    .map(m => m.manager as string);

/**
 * Who applies `o`, first rule that matches (docs/flux-facts.md#applied-by-rule):
 * 1. Flux Kustomization: both `kustomize.toolkit.fluxcd.io/name` and `/namespace` labels, unless the live object
 *    opts out (`reconcile: disabled`, `ssa: Ignore`; not for a delete);
 * 2. Flux HelmRelease: both `helm.toolkit.fluxcd.io/name` and `/namespace` labels;
 * 3. Argo CD: `argocd.argoproj.io/tracking-id` naming this object;
 * 4. Argo CD by label: `app.kubernetes.io/instance` only together with the field manager `argocd-controller` (the
 *    label alone is the common Kubernetes label every Helm chart sets);
 * 5. Helm: `app.kubernetes.io/managed-by: Helm` and `meta.helm.sh/release-name` (not reconciling);
 * 6. a field manager `kustomize-controller`, `helm-controller` or `argocd-controller` alone.
 * @public
 */
export function appliedBy(
  o: ObservedObject | undefined,
  opts: { deleting?: boolean } = {},
): AppliedBy | undefined {
  if (!o) return undefined;
  const labels = o.metadata?.labels ?? {};
  const annotations = o.metadata?.annotations ?? {};
  const optedOut = !opts.deleting && fluxOptedOut(o);
  const kName = labels[FLUX_KUSTOMIZATION_NAME_LABEL];
  const kNs = labels[FLUX_KUSTOMIZATION_NAMESPACE_LABEL];
  if (kName && kNs && !optedOut)
    return {
      tool: 'flux-kustomization',
      source: { namespace: kNs, name: kName },
      reconciles: true,
    };
  const hName = labels[FLUX_HELMRELEASE_NAME_LABEL];
  const hNs = labels[FLUX_HELMRELEASE_NAMESPACE_LABEL];
  if (hName && hNs)
    return {
      tool: 'flux-helmrelease',
      source: { namespace: hNs, name: hName },
      reconciles: true,
    };
  const app = argoTracking(o);
  if (app) return { tool: 'argocd', source: { name: app }, reconciles: true };
  const written = managers(o);
  const instance = labels[APP_INSTANCE_LABEL];
  if (instance && written.includes('argocd-controller'))
    return { tool: 'argocd', source: { name: instance }, reconciles: true };
  const release = annotations[HELM_RELEASE_NAME_ANNOTATION];
  if (labels[MANAGED_BY_LABEL] === 'Helm' && release)
    return {
      tool: 'helm',
      source: {
        namespace: annotations[HELM_RELEASE_NAMESPACE_ANNOTATION],
        name: release,
      },
      reconciles: false,
    };
  for (const m of written) {
    const tool = MANAGERS[m];
    if (!tool || (tool === 'flux-kustomization' && optedOut)) continue;
    return { tool, fieldManager: m, reconciles: true };
  }
  return undefined;
}

const place = (s: { namespace?: string; name: string }) =>
  s.namespace ? `${s.namespace}/${s.name}` : s.name;

/** "Flux's Kustomization flux-system/clusters", "Argo CD's Application clusters", "Helm release ns/name". @public */
export function describeAppliedBy(a: AppliedBy): string {
  const sourceKind: Record<AppliedByTool, string> = {
    'flux-kustomization': 'Kustomization',
    'flux-helmrelease': 'HelmRelease',
    argocd: 'Application',
    helm: 'release',
  };
  const via = a.fieldManager
    ? ` (its field manager ${a.fieldManager} says so; no label names the ${
        sourceKind[a.tool]
      })`
    : '';
  switch (a.tool) {
    case 'flux-kustomization':
      return a.source
        ? `Flux's Kustomization ${place(a.source)}`
        : `Flux's kustomize-controller${via}`;
    case 'flux-helmrelease':
      return a.source
        ? `Flux's HelmRelease ${place(a.source)}`
        : `Flux's helm-controller${via}`;
    case 'argocd':
      return a.source
        ? `Argo CD's Application ${a.source.name}`
        : `Argo CD${via}`;
    default:
      return `Helm release ${a.source ? place(a.source) : ''}`.trim();
  }
}

/** When the tool runs again, in words. */
const NEXT: Record<AppliedByTool, string> = {
  'flux-kustomization': 'at its next reconcile',
  'flux-helmrelease':
    'at its next upgrade (at once when its drift detection is enabled)',
  argocd: 'at its next sync (at once with self-heal)',
  helm: 'at the next helm upgrade or rollback',
};

/** An object as a sentence names it: `MachinePool default/c1-pool0`. @public */
export interface AppliedObjectRef {
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * Why a live write to an object a GitOps controller applies is refused, in the user's words: who applies it, what
 * its next run would do, and where to make the change instead. `paths` are the fields the write changes; `delete`
 * for a removal.
 * @public
 */
export function gitOpsRefusal(
  a: AppliedBy,
  object: AppliedObjectRef,
  change: { operation: 'update' | 'delete'; paths?: readonly string[] },
): string {
  const what = `${object.kind} ${place(object)}`;
  const next = NEXT[a.tool];
  const effect =
    change.operation === 'delete'
      ? `it would create it again ${next}; remove it from Git instead`
      : `it would put ${
          change.paths?.length ? change.paths.join(', ') : 'the change'
        } back ${next}; change it in Git`;
  return `${describeAppliedBy(a)} applies ${what}: ${effect}.`;
}

/** The warning for a write to an object a plain Helm release installed (nothing reconciles it). @public */
export function helmWarning(a: AppliedBy, object: AppliedObjectRef): string {
  return `${describeAppliedBy(a)} installed ${object.kind} ${place(
    object,
  )}: nothing puts a live change back, but ${
    NEXT.helm
  } of the release may; change the release's values too.`;
}

/**
 * Who applies a cluster: the first of its objects (the Cluster, control plane, pools, ASO objects, in the order
 * given) that a reconciling tool applies, else the first a Helm release installed. A cluster is GitOps-applied when
 * any of its objects is: a job or a live write on one object fights the controller that applies another.
 * @public
 */
export function clusterAppliedBy(
  objects: readonly ObservedObject[],
  opts: { deleting?: boolean } = {},
): { object: ObservedObject; appliedBy: AppliedBy } | undefined {
  let helm: { object: ObservedObject; appliedBy: AppliedBy } | undefined;
  for (const object of objects) {
    const a = appliedBy(object, opts);
    if (a?.reconciles) return { object, appliedBy: a };
    if (a && !helm) helm = { object, appliedBy: a };
  }
  return helm;
}

/**
 * The Flux Kustomization that applies a cluster: the one that applies its Cluster (the first of `objects`), else the
 * first of its other objects one applies (labels of docs/flux-facts.md#flux-labels, as {@link appliedBy} reads them).
 * Undefined when none does.
 * @public
 */
export function clusterKustomization(
  objects: readonly ObservedObject[],
): { namespace: string; name: string } | undefined {
  for (const object of objects) {
    const a = appliedBy(object);
    if (a?.tool === 'flux-kustomization' && a.source?.namespace)
      return { namespace: a.source.namespace, name: a.source.name };
  }
  return undefined;
}
