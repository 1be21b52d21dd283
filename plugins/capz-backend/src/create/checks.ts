/**
 * What a new cluster is checked against before anything is written (routers/clusterCreateRouter.ts runs them in
 * order): its parameters and the names derived from them, the objects CAPZ will create beside it, and the region and
 * Kubernetes version AKS offers.
 */
import {
  generateAksAsoClusterManifests,
  MAX_DNS_PREFIX,
  offeredKubernetesVersionErrors,
  validateAksAsoClusterParams,
  validateDnsLabel,
  type CreateClusterRequest,
  type KubeObject,
  type ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { AzureRequestError } from '../azure/errors';

/**
 * Every problem with a request, each naming its field (`field: message`): the parameter rules of capz-common's
 * clusterRules (the scaffolder form runs the same ones), then, as a second line of defence, the names the rendered
 * objects derive from them, measured on the objects themselves (so a change of derivation is measured too).
 */
export function createClusterInputErrors(p: CreateClusterRequest): string[] {
  const errors = validateAksAsoClusterParams(p);
  if (errors.length) return errors;
  const objects = generateAksAsoClusterManifests(p);
  for (const o of objects) {
    if (validateDnsLabel(o.metadata.name)) {
      const pool = p.pools.findIndex(
        pl => o.metadata.name === `${p.name}-${pl.name}`,
      );
      const field = pool >= 0 ? `pools[${pool}].name` : 'name';
      errors.push(
        `${field}: the ${o.kind} name "${o.metadata.name}" (${o.metadata.name.length} characters) must be a DNS label of at most 63 characters`,
      );
    }
    for (const r of ((o.spec?.resources ?? []) as KubeObject[]).filter(
      x => x.kind === 'ManagedCluster',
    )) {
      const dnsPrefix = String(
        (r.spec as { dnsPrefix?: unknown } | undefined)?.dnsPrefix ?? '',
      );
      if (dnsPrefix.length > MAX_DNS_PREFIX) {
        errors.push(
          `name: "${p.name}" is ${p.name.length} characters; it is the ManagedCluster's dnsPrefix, which CAPZ limits to ${MAX_DNS_PREFIX}`,
        );
      }
    }
  }
  return [...new Set(errors)];
}

/** The objects CAPZ will create from the embedded ASO resources (names it will use in the same namespace). */
export const embedded = (
  objects: KubeObject[],
  namespace: string,
): ObjectRef[] =>
  objects.flatMap(o =>
    ((o.spec?.resources ?? []) as KubeObject[]).map(r => ({
      apiVersion: r.apiVersion,
      kind: r.kind,
      namespace,
      name: r.metadata.name,
    })),
  );

/**
 * The region and version against what AKS offers: the fields' errors when ARM answered (a version it does not offer
 * in the region; a region that is not the subscription's or where AKS is not offered, with the regions; the Secret's
 * subscription ARM does not know), or a warning saying why they could not be checked (no discovery, a credential
 * the backend cannot use or ARM refuses, ARM unreachable or throttling). Existing deployments without
 * capz.azureDiscovery keep creating clusters; AKS then refuses an unoffered version itself, after the write
 * (docs/capz-aso-facts.md#create-offered-version).
 */
export async function offeredVersionCheck(
  azure: Pick<AksDiscovery, 'listKubernetesVersions'> | undefined,
  body: CreateClusterRequest,
): Promise<{ errors: string[]; warning?: string }> {
  const unchecked = (why: string) => ({
    errors: [],
    warning: `kubernetesVersion: ${body.kubernetesVersion} was not checked against the versions AKS offers in ${body.location}: ${why}. AKS refuses a version it does not offer (AgentPoolK8sVersionNotSupported) only after the objects are written.`,
  });
  if (!azure)
    return unchecked(
      'Azure discovery is not configured on this backend (capz.azureDiscovery)',
    );
  let offered: string[];
  try {
    offered = (
      await azure.listKubernetesVersions({
        managementCluster: body.managementCluster,
        namespace: body.namespace,
        credentialSecret: body.credentialSecretName,
        location: body.location,
      })
    ).items.map(i => i.version);
  } catch (e) {
    if (e instanceof AzureRequestError) {
      // The Secret's AZURE_SUBSCRIPTION_ID is what names the subscription here.
      const field =
        e.field === 'location' ? 'location' : 'credentialSecretName';
      return { errors: [`${field}: ${e.message}`] };
    }
    // Everything else means ARM could not be asked: ARM or Entra ID unreachable or throttling, a credential they
    // refuse (the backend may use another identity than ASO: capz.azureDiscovery.credential), or one this backend
    // cannot use (workload identity, PKCS#12: AzureCredentialError; its keys were checked on the Secret above).
    return unchecked((e as Error).message);
  }
  return {
    errors: offeredKubernetesVersionErrors(body, offered).map(
      x => `${x.field}: ${x.message}`,
    ),
  };
}
