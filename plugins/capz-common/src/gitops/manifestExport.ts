/**
 * A live object as a Git repository should hold it (docs/flux-facts.md#git-export): what Flux's server-side apply of
 * it changes nothing in, and never fights a controller over. Kept: apiVersion, kind, name, namespace, labels,
 * annotations and spec (and any other top-level field but status); dropped: status, the metadata the API server and
 * the controllers keep, Flux's own marks, and the fields and annotations a controller writes (the rules below, each
 * with where upstream writes it). Pure: no I/O.
 */
import { CAPI_GROUP, CAPZ_GROUP } from '../kinds';
import type { KubeObject } from '../manifests/aksAsoCluster';
import type { ObservedObject } from '../objects/types';
import {
  BLOCK_MOVE_ANNOTATION,
  JOB_ANNOTATION,
  REPLICAS_MANAGED_BY_ANNOTATION,
} from '../vocabulary';
import { apiGroupOf } from './kustomizeBuild';

/** A field of `spec` a controller writes, for one kind: a Git copy of it would have Flux force it back. */
interface ControllerField {
  group: string;
  kind: string;
  /** The path under the object (`spec`, ...). */
  path: readonly string[];
  /** Only when this holds for the live object; always without. */
  when?: (live: ObservedObject) => boolean;
}

const annotationsOf = (live: ObservedObject) =>
  live.metadata?.annotations ?? {};

/** The value at a path of maps, or undefined. */
function valueAt(obj: unknown, path: readonly string[]): unknown {
  let node = obj;
  for (const k of path) {
    if (!node || typeof node !== 'object' || Array.isArray(node))
      return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  return node;
}

/**
 * The fields controllers write, read in CAPI v1.13.3 and CAPZ v1.26.0 (the versions packages/mgmt-cluster pins;
 * docs/flux-facts.md#git-export). AzureASOManagedControlPlane has none: CAPZ writes only its status.
 */
const CONTROLLER_WRITTEN_FIELDS: ReadonlyArray<Readonly<ControllerField>> = [
  // CAPI's Cluster controller copies it from the infrastructure cluster, else from the control plane, while it is not
  // valid: cluster-api v1.13.3 internal/controllers/cluster/cluster_controller_phases.go lines 217-228
  // (reconcileInfrastructure) and 330-341 (reconcileControlPlane).
  {
    group: CAPI_GROUP,
    kind: 'Cluster',
    path: ['spec', 'controlPlaneEndpoint'],
  },
  // CAPZ sets it from the AzureASOManagedControlPlane's status.controlPlaneEndpoint on every reconcile:
  // cluster-api-provider-azure v1.26.0 controllers/azureasomanagedcluster_controller.go line 274 (reconcileNormal).
  {
    group: CAPZ_GROUP,
    kind: 'AzureASOManagedCluster',
    path: ['spec', 'controlPlaneEndpoint'],
  },
  // CAPI's MachinePool controller copies the infrastructure machine pool's spec.providerIDList: cluster-api v1.13.3
  // internal/controllers/machinepool/machinepool_controller_phases.go lines 317-338 (reconcileInfrastructure).
  {
    group: CAPI_GROUP,
    kind: 'MachinePool',
    path: ['spec', 'providerIDList'],
  },
  // With an external autoscaler (the annotation present, any value), CAPZ copies the agent pool's count into the
  // MachinePool's spec.replicas and patches the MachinePool: cluster-api-provider-azure v1.26.0
  // controllers/azureasomanagedmachinepool_controller.go lines 167-175 (the patch) and 282-284; CAPI's contract:
  // cluster-api v1.13.3 docs/book/src/developer/core/controllers/machine-pool.md lines 125-133.
  {
    group: CAPI_GROUP,
    kind: 'MachinePool',
    path: ['spec', 'replicas'],
    when: live => REPLICAS_MANAGED_BY_ANNOTATION in annotationsOf(live),
  },
  // With a bootstrap config, CAPI's MachinePool controller copies its data secret's name: cluster-api v1.13.3
  // internal/controllers/machinepool/machinepool_controller_phases.go lines 186-235 (reconcileBootstrap). AKS pools
  // have no configRef (dataSecretName is the user's then, and kept).
  {
    group: CAPI_GROUP,
    kind: 'MachinePool',
    path: ['spec', 'template', 'spec', 'bootstrap', 'dataSecretName'],
    when: live =>
      !!valueAt(live.spec, [
        'template',
        'spec',
        'bootstrap',
        'configRef',
        'name',
      ]),
  },
  // CAPZ lists the workload cluster's Nodes of the agent pool and writes their provider IDs, sorted:
  // cluster-api-provider-azure v1.26.0 controllers/azureasomanagedmachinepool_controller.go lines 263-280.
  {
    group: CAPZ_GROUP,
    kind: 'AzureASOManagedMachinePool',
    path: ['spec', 'providerIDList'],
  },
];

/** The prefix of kustomize-controller's own labels and annotations (docs/flux-facts.md#flux-labels). */
const FLUX_KUSTOMIZE_PREFIX = 'kustomize.toolkit.fluxcd.io/';
/** kubectl's client-side apply record: not the object, and Flux's apply would own it. */
const LAST_APPLIED_ANNOTATION =
  'kubectl.kubernetes.io/last-applied-configuration';
/**
 * CAPZ's value of the replicas-managed-by annotation, the one it writes (`ReplicasManagedByAKS`,
 * cluster-api-provider-azure v1.26.0 api/v1beta1/azureasomanagedmachinepool_types.go line 28).
 */
const REPLICAS_MANAGED_BY_AKS = 'aks';

/**
 * Whether a label or annotation is one Git must not hold: Flux's own marks, kubectl's record, the job's mark, and
 * those a controller adds and removes by itself (docs/flux-facts.md#git-export).
 */
function dropMark(
  live: ObservedObject,
  key: string,
  value: string,
  annotation: boolean,
): boolean {
  if (key.startsWith(FLUX_KUSTOMIZE_PREFIX)) return true;
  if (!annotation) return false;
  if (key === LAST_APPLIED_ANNOTATION || key === JOB_ANNOTATION) return true;
  // CAPZ adds it while it reconciles and removes it when paused (so that clusterctl move may go on): Flux would put
  // it back on a paused object. cluster-api-provider-azure v1.26.0 controllers/helpers.go lines 1031-1055, called
  // from each AzureASOManaged* controller's reconcileNormal and reconcilePaused.
  if (key === BLOCK_MOVE_ANNOTATION) return true;
  // CAPZ writes `aks` while the agent pool autoscales and removes it when it stops: a Git copy would bring it back
  // (and with it CAPZ's copy of the count into spec.replicas). cluster-api-provider-azure v1.26.0
  // pkg/mutators/azureasomanagedmachinepool.go lines 102-128 (reconcileAutoscaling). Another value is the user's.
  if (
    key === REPLICAS_MANAGED_BY_ANNOTATION &&
    value === REPLICAS_MANAGED_BY_AKS &&
    apiGroupOf(live.apiVersion) === CAPI_GROUP &&
    live.kind === 'MachinePool'
  )
    return true;
  return false;
}

function keptMarks(
  live: ObservedObject,
  marks: Record<string, string> | undefined,
  annotation: boolean,
): Record<string, string> | undefined {
  const out = Object.fromEntries(
    Object.entries(marks ?? {}).filter(
      ([k, v]) => !dropMark(live, k, v, annotation),
    ),
  );
  return Object.keys(out).length ? out : undefined;
}

const deepCopy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function deletePath(obj: Record<string, unknown>, path: readonly string[]) {
  let node: unknown = obj;
  for (const k of path.slice(0, -1)) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return;
    node = (node as Record<string, unknown>)[k];
  }
  if (node && typeof node === 'object' && !Array.isArray(node))
    delete (node as Record<string, unknown>)[path[path.length - 1]];
}

/** Top-level fields that are never the object's desired state. */
const NOT_DESIRED = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * A live object as a Git repository should hold it so that Flux's server-side apply of it changes nothing and never
 * fights a controller (docs/flux-facts.md#git-export): apiVersion, kind, metadata.name, metadata.namespace, the labels
 * and annotations but Flux's own (`kustomize.toolkit.fluxcd.io/*`), kubectl's last-applied-configuration, the job's
 * {@link JOB_ANNOTATION} and those a controller adds and removes by itself (CAPZ's block-move, its
 * `replicas-managed-by: aks`), empty maps left out; spec, deep-copied, without the fields a controller writes:
 * Cluster and AzureASOManagedCluster `spec.controlPlaneEndpoint`, MachinePool and AzureASOManagedMachinePool
 * `spec.providerIDList`, MachinePool `spec.replicas` when it carries `cluster.x-k8s.io/replicas-managed-by` and its
 * `spec.template.spec.bootstrap.dataSecretName` when it has a bootstrap `configRef`. Status and every other metadata
 * field (uid, resourceVersion, generation, creationTimestamp, managedFields, ownerReferences, finalizers, deletion*,
 * selfLink) are dropped. Another top-level field (a ConfigMap's data) is kept. Throws when the object has no
 * apiVersion, kind or name.
 * @public
 */
export function manifestForGit(live: ObservedObject): KubeObject {
  const meta = live.metadata ?? {};
  const { apiVersion, kind } = live;
  const name = meta.name;
  if (!apiVersion || !kind || !name)
    throw new Error(
      `manifestForGit: the object has no ${Object.entries({
        apiVersion,
        kind,
        'metadata.name': name,
      })
        .filter(([, v]) => !v)
        .map(([k]) => k)
        .join(', ')}`,
    );
  const labels = keptMarks(live, meta.labels, false);
  const annotations = keptMarks(live, meta.annotations, true);
  const out: KubeObject = {
    apiVersion,
    kind,
    metadata: {
      name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
    },
  };
  for (const [k, v] of Object.entries(live as Record<string, unknown>))
    if (!NOT_DESIRED.has(k) && v !== undefined) out[k] = deepCopy(v);
  const group = apiGroupOf(apiVersion);
  for (const f of CONTROLLER_WRITTEN_FIELDS)
    if (f.group === group && f.kind === live.kind && (!f.when || f.when(live)))
      deletePath(out, f.path);
  return out;
}
