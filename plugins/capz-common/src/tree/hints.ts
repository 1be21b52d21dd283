/**
 * Plain-language explanations of the reasons people meet most, with what to do. Based on ASO's condition reasons
 * and ARM error codes (docs/capz-aso-facts.md#reconcile-policy, docs/capz-aso-facts.md#aso-conditions,
 * docs/capz-aso-facts.md#aso-secret-export, docs/capz-aso-facts.md#entra-only-kubeconfig) and CAPZ's behaviour
 * (docs/capz-aso-facts.md#aso-managed-status, docs/capz-aso-facts.md#aso-managed-metadata,
 * docs/capz-aso-facts.md#capz-mutators, docs/capz-aso-facts.md#legacy-aso-objects), plus the reasons this module itself
 * sets on tree nodes.
 */

/** What a reason means and what to do about it. @public */
export interface ReasonHint {
  /** The bare reason the hint is for (without any `Kind name: ` prefix). */
  reason: string;
  /** A short title. */
  title: string;
  /** What is going on, in plain language. */
  explanation: string;
  /** What to do next. */
  action: string;
}

type Entry = Omit<ReasonHint, 'reason'>;

const LOCAL_ACCOUNTS: Entry = {
  title: 'Local accounts are disabled',
  explanation:
    'The AKS cluster has local accounts disabled (Entra ID only), so Azure refuses to hand out the static admin ' +
    'kubeconfig ASO was asked to export in spec.operatorSpec.secrets.adminCredentials.',
  action:
    'Export userCredentials instead of adminCredentials, under a Secret name other than <cluster>-kubeconfig ' +
    '(CAPZ owns that name and writes an Entra token into it).',
};

const HINTS: Record<string, Entry> = {
  ReconciliationBlocked: {
    title: 'Azure is busy with another operation',
    explanation:
      'ASO will not send changes while AKS is still running an operation on the cluster or pool (provisioningState ' +
      'not Succeeded, Failed or Canceled). It keeps retrying.',
    action:
      'Usually wait: check provisioningState in the facts and the Azure activity log. If it never settles, the AKS ' +
      'operation itself is stuck and needs attention in Azure.',
  },
  AzureResourceNotFound: {
    title: 'The Azure resource does not exist',
    explanation:
      'ASO looked the resource up in Azure and did not find it. With reconcile-policy skip ASO only reads the ' +
      'resource and never creates it, so it stays in this state.',
    action:
      'For an adopted resource, check the subscription (credential), resource group and azureName. If ASO should ' +
      'create it, the reconcile-policy must be manage (CAPZ switches the objects it pre-created itself).',
  },
  SecretNotFound: {
    title: 'The Azure credential Secret is missing',
    explanation:
      'ASO reads its Azure credential from the Secret named by serviceoperator.azure.com/credential-from, else ' +
      'aso-credential in the namespace, else the global aso-controller-settings. That Secret was not found.',
    action:
      "Create the Secret in the object's namespace with AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and " +
      'AZURE_CLIENT_ID (plus a client secret or workload identity). After a migration, copy <cluster>-aso-secret ' +
      'without its owner references.',
  },
  ConfigMapNotFound: {
    title: 'A referenced ConfigMap is missing',
    explanation:
      'The object reads a value from a ConfigMap that does not exist in its namespace.',
    action: 'Create the ConfigMap or fix the reference in the spec.',
  },
  WaitingForOwner: {
    title: 'Waiting for the owner',
    explanation:
      'Its owner in spec.owner (the resource group of a cluster, the cluster of an agent pool) does not exist or ' +
      'is not Ready yet. Normal while a cluster is being created.',
    action:
      'Look at the owner: its status carries the real cause. If the owner does not exist, check spec.owner.name.',
  },
  Reconciling: {
    title: 'Being created or updated',
    explanation:
      'ASO is applying the spec in Azure. AKS operations take several minutes.',
    action:
      'Nothing to do. If it lasts much longer than usual, look at the Azure activity log.',
  },
  ReconciliationPostponed: {
    title: 'Postponed',
    explanation: 'ASO has postponed this reconcile and will try again later.',
    action: 'Nothing to do unless it stays here.',
  },
  Deleting: {
    title: 'Being deleted',
    explanation:
      'The object is being deleted. With reconcile-policy manage, ASO deletes the Azure resource too; with skip or ' +
      'detach-on-delete it leaves Azure alone.',
    action:
      'Nothing to do, unless the deletion was not intended: check the reconcile-policy at once.',
  },
  ReconciliationFailedPermanently: {
    title: 'ASO gave up',
    explanation:
      'The request cannot succeed as written (severity Error). ASO will not retry until the spec changes.',
    action:
      'Read the message, fix the spec and apply it. For ASO-managed clusters, change spec.resources of the CAPZ ' +
      'object: CAPZ overwrites direct edits of the ASO object.',
  },
  SubscriptionMismatch: {
    title: 'Wrong subscription',
    explanation:
      'The credential in use is for a different subscription than the one the resource already belongs to. ASO ' +
      'will not move a resource between subscriptions.',
    action:
      'Point serviceoperator.azure.com/credential-from at a credential for the original subscription.',
  },
  ReferenceNotFound: {
    title: 'A referenced resource is missing',
    explanation:
      'The spec references another resource (for example a subnet or an identity) that does not exist in ' +
      'Kubernetes or Azure.',
    action: 'Create the referenced resource, or fix the reference.',
  },
  PostReconciliationFailure: {
    title: 'Follow-up step failed',
    explanation:
      'The Azure resource is in place, but a step ASO runs afterwards (such as exporting secrets) failed.',
    action:
      'Read the message; for a ManagedCluster check spec.operatorSpec.secrets.',
  },
  FailedWritingAdditionalKubernetesObjects: {
    title: 'Could not write exported Secrets or ConfigMaps',
    explanation:
      'ASO could not write the Secrets or ConfigMaps the spec asks it to export, often because one of that name ' +
      'already exists and is owned by something else.',
    action:
      'Check spec.operatorSpec for names that clash with existing Secrets or ConfigMaps.',
  },
  Failed: {
    title: 'Failed',
    explanation: "ASO's catch-all failure: the message says what went wrong.",
    action:
      'Read the message. With severity Warning ASO keeps retrying; with Error it waits for a spec change.',
  },
  BadRequest: {
    title: 'Azure rejected the request',
    explanation:
      'Azure answered 400 Bad Request: the request is not valid as sent.',
    action:
      'Read the message and fix the spec. ASO retries only once the spec changes if the error is terminal.',
  },
  InvalidParameter: {
    title: 'Azure rejected a value',
    explanation:
      'An ARM error: one of the values in the spec is not valid. The message names it.',
    action:
      "Fix that value. For ASO-managed clusters change it in the CAPZ object's spec.resources; remember CAPZ sets " +
      'kubernetesVersion, orchestratorVersion and count itself (from the control plane and MachinePool).',
  },
  OperationNotAllowed: {
    title: 'Azure does not allow this operation',
    explanation:
      'An ARM error: the operation is not allowed now, most often for lack of quota (for example vCPUs in the ' +
      'region) or because AKS cannot change the field in place.',
    action:
      'Read the message: request more quota, or create a new pool instead of changing an immutable field.',
  },
  ResourceGroupNotFound: {
    title: 'The resource group does not exist',
    explanation:
      'An ARM error: the Azure resource group the resource should live in does not exist.',
    action:
      'Check the ResourceGroup object (its azureName and Ready condition) and the subscription.',
  },
  // Reasons set by this module.
  NotFound: {
    title: 'Object not found',
    explanation:
      'Another object references this one, but it does not exist in the management cluster.',
    action:
      'Normal for a few seconds while a cluster is created (CAPZ records a kind before it creates its objects). ' +
      'Otherwise check the name in the reference, or whether it was deleted.',
  },
  NotWatched: {
    title: 'Not watched',
    explanation:
      'The object is of a kind the CAPZ plugin does not watch, so its state is not shown.',
    action: 'Inspect it with kubectl if it matters.',
  },
  NotReconciledYet: {
    title: 'Not reconciled yet',
    explanation:
      'The object is new and its controller has not written a status yet.',
    action: 'Nothing to do; it should change within seconds.',
  },
  NotReconciled: {
    title: 'No status',
    explanation:
      'The object has had no status for a while: its controller may not be running or may not watch it.',
    action:
      'Check that ASO, CAPZ and CAPI are running in the management cluster and that their logs mention it.',
  },
  GenerationNotObserved: {
    title: 'Spec change not processed yet',
    explanation:
      'The spec changed and the controller has not caught up with the latest generation yet.',
    action:
      "Nothing to do; wait for the controller. If it never catches up, check the controller's logs.",
  },
  NotReady: {
    title: 'Not ready yet',
    explanation:
      'Its Azure resources are ready, but CAPZ has not finished its own part (endpoint, kubeconfig, nodes).',
    action: 'Nothing to do; if it lasts, check the CAPZ controller logs.',
  },
  Paused: {
    title: 'Paused',
    explanation:
      'Reconciliation is paused (Cluster.spec.paused or cluster.x-k8s.io/paused). CAPZ has set the ASO objects to ' +
      'reconcile-policy skip, so nothing is changed in Azure; the nodes keep running. A pause is made by hand ' +
      '(Cluster actions) or by a step of a migration job or a clusterctl move.',
    action:
      'If a job or a move paused it, let it finish: it resumes the cluster. Otherwise resume it from Cluster actions ' +
      'when the changes that waited for the pause are written.',
  },
};

/**
 * A rollup reason split into the object that decided it and the bare reason
 * (`ManagedCluster prod: ReconciliationBlocked` → `ManagedCluster prod` and `ReconciliationBlocked`).
 * @public
 */
export function splitReason(reason: string): {
  object?: string;
  reason: string;
} {
  const i = reason.lastIndexOf(': ');
  return i >= 0
    ? { object: reason.slice(0, i), reason: reason.slice(i + 2).trim() }
    : { reason: reason.trim() };
}

const LOCAL_ACCOUNTS_MESSAGE =
  /local accounts|admin credentials|static credential/i;
/**
 * ASO reports a missing credential Secret as a generic `Failed` (its `SecretNotFound` error is not classified):
 * `<ns>/<name> does not exist (credential secret not found: ...)`, or `global credential not configured`
 * (docs/real-controllers.md#findings, finding 6).
 */
const CREDENTIAL_MESSAGE =
  /credential secret not found|does not contain key "AZURE_|global credential not configured/i;

/**
 * A plain-language explanation and suggested action for a reason, or undefined for reasons it does not know.
 * Accepts rollup reasons prefixed with `Kind name: `. The message refines a few: a `BadRequest` or `Failed` about
 * static/admin credentials is the "local accounts disabled" case (docs/capz-aso-facts.md#aso-secret-export); a
 * `Failed` about the credential Secret is the missing-credential case.
 * @public
 */
export function hintFor(
  reason: string | undefined,
  message?: string,
): ReasonHint | undefined {
  if (!reason) return undefined;
  const r = splitReason(reason).reason;
  if (
    (r === 'BadRequest' || r === 'Failed') &&
    message &&
    LOCAL_ACCOUNTS_MESSAGE.test(message)
  ) {
    return { reason: r, ...LOCAL_ACCOUNTS };
  }
  if (r === 'Failed' && message && CREDENTIAL_MESSAGE.test(message))
    return { reason: r, ...HINTS.SecretNotFound };
  const entry = Object.prototype.hasOwnProperty.call(HINTS, r)
    ? HINTS[r]
    : undefined;
  return entry ? { reason: r, ...entry } : undefined;
}

/** The reasons {@link hintFor} knows. @public */
export const HINTED_REASONS: readonly string[] = Object.keys(HINTS);
