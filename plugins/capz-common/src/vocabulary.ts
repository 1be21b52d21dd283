/**
 * The well-known labels, annotations and finalizers the CAPZ plugins read and write, each defined once: CAPI's,
 * CAPZ's, ASO's and this product's own. Everything else imports them from here.
 */

/** CAPI: the label on every object of a cluster, naming its Cluster. @public */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';

/** The pause annotation CAPI and CAPZ honour on any object (docs/capz-aso-facts.md#aso-managed-pause, docs/capz-aso-facts.md#legacy-pause). @public */
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';

/** CAPI: the annotation that hands a MachinePool's replica count to another controller (docs/capz-aso-facts.md#capz-mutators). @public */
export const REPLICAS_MANAGED_BY_ANNOTATION =
  'cluster.x-k8s.io/replicas-managed-by';

/** clusterctl: the annotation that holds a move until CAPZ has paused the object (docs/capz-aso-facts.md#legacy-pause). @public */
export const BLOCK_MOVE_ANNOTATION = 'clusterctl.cluster.x-k8s.io/block-move';

/** CAPZ: the annotation that makes the adoption controllers take over an ASO object (docs/capz-aso-facts.md#adopt-annotation). @public */
export const ADOPT_ANNOTATION = 'sigs.k8s.io/cluster-api-provider-azure-adopt';

/** Where the legacy CAPZ controllers keep an ASO object's own policy while its Cluster is paused (docs/capz-aso-facts.md#legacy-pause). @public */
export const PRE_PAUSE_RECONCILE_POLICY_ANNOTATION =
  'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy';

/** ASO's reconcile policy annotation (docs/capz-aso-facts.md#reconcile-policy). @public */
export const RECONCILE_POLICY_ANNOTATION =
  'serviceoperator.azure.com/reconcile-policy';

/** ASO: the credential Secret an ASO object is reconciled with (docs/capz-aso-facts.md#capz-credential-lookup). @public */
export const CREDENTIAL_FROM_ANNOTATION =
  'serviceoperator.azure.com/credential-from';

/** ASO: the ARM id of the Azure resource an object stands for, once it has reached Azure. @public */
export const RESOURCE_ID_ANNOTATION = 'serviceoperator.azure.com/resource-id';

/** ASO's finalizer on the objects it reconciles (docs/capz-aso-facts.md#aso-finalizer). @public */
export const ASO_FINALIZER = 'serviceoperator.azure.com/finalizer';

/** The annotation every object a job creates carries, so a resumed job recognises its own objects. @public */
export const JOB_ANNOTATION = 'capz.io/job';

/** The annotation naming a cluster's catalog owner. @public */
export const OWNER_ANNOTATION = 'capz.io/owner';

/**
 * The annotation that ties a catalog entity to a CAPZ cluster: `<management cluster>/<namespace>/<name>`. The catalog
 * module writes it on the cluster entities it provides; a Component carrying it shows that cluster.
 * @public
 */
export const CAPZ_CLUSTER_ANNOTATION = 'capz.io/cluster';

/** The label of a cluster's catalog entity naming its management cluster. @public */
export const MANAGEMENT_CLUSTER_LABEL = 'capz.io/management-cluster';

/** The label of a cluster's catalog entity naming the CAPZ API it is written in. @public */
export const CLUSTER_API_LABEL = 'capz.io/api';

/** Flux kustomize-controller: the labels naming the Kustomization that applies an object (docs/flux-facts.md#flux-labels). @public */
export const FLUX_KUSTOMIZATION_NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
/** @public */
export const FLUX_KUSTOMIZATION_NAMESPACE_LABEL =
  'kustomize.toolkit.fluxcd.io/namespace';
/** Flux kustomize-controller: the per-object opt-out (`disabled`), label or annotation (docs/flux-facts.md#flux-annotations). @public */
export const FLUX_RECONCILE_KEY = 'kustomize.toolkit.fluxcd.io/reconcile';
/** Flux kustomize-controller: the apply policy (`Ignore` skips the object, docs/flux-facts.md#flux-annotations). @public */
export const FLUX_SSA_KEY = 'kustomize.toolkit.fluxcd.io/ssa';
/** Flux helm-controller: the labels naming the HelmRelease that applies an object (docs/flux-facts.md#flux-helm-labels). @public */
export const FLUX_HELMRELEASE_NAME_LABEL = 'helm.toolkit.fluxcd.io/name';
/** @public */
export const FLUX_HELMRELEASE_NAMESPACE_LABEL =
  'helm.toolkit.fluxcd.io/namespace';
/** Argo CD's tracking annotation `<app>:<group>/<kind>:<namespace>/<name>` (docs/flux-facts.md#argocd-tracking). @public */
export const ARGOCD_TRACKING_ANNOTATION = 'argocd.argoproj.io/tracking-id';
/** Argo CD's label tracking method's label, also the common Kubernetes "instance" label (docs/flux-facts.md#argocd-tracking). @public */
export const APP_INSTANCE_LABEL = 'app.kubernetes.io/instance';
/** Helm: the release annotations and managed-by label on everything it installs (docs/flux-facts.md#helm-ownership). @public */
export const HELM_RELEASE_NAME_ANNOTATION = 'meta.helm.sh/release-name';
/** @public */
export const HELM_RELEASE_NAMESPACE_ANNOTATION =
  'meta.helm.sh/release-namespace';
/** @public */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
