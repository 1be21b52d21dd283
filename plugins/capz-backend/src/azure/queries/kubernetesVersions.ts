/** The Kubernetes versions AKS offers in a region, and ARM's refusal of a region in the user's words. */
import { compareKubernetesVersions } from '@capz-backstage/plugin-capz-common';
import type { ArmAccess, AzureRegion, CredentialQuery } from '../arm/ArmAccess';
import {
  AzureRequestError,
  AzureServiceError,
  LOCATION_CODES,
} from '../errors';
import { listLocations } from './locations';

/** One Kubernetes version AKS offers for new clusters in a region. */
export interface OfferedKubernetesVersion {
  /** With the leading v, as CAPI writes it (v1.33.2). */
  version: string;
  /** major.minor */
  minor: string;
  /** The latest patch of AKS's default minor version. */
  isDefault: boolean;
  /** AKS support plans of the minor (KubernetesOfficial, AKSLongTermSupport). */
  supportPlans: string[];
}

export interface OfferedKubernetesVersions {
  subscriptionId: string;
  location: string;
  /** Newest first; previews are left out. */
  items: OfferedKubernetesVersion[];
  /** How many preview patch versions were left out. */
  previewsHidden: number;
}

/**
 * `managedClusters.listKubernetesVersions(location)` with the Secret's credential: every patch of every GA minor,
 * newest first, the default minor's newest patch marked.
 */
export async function listKubernetesVersions(
  arm: ArmAccess,
  q: CredentialQuery & { location: string },
): Promise<OfferedKubernetesVersions> {
  let answer;
  try {
    answer = await arm.call(
      q,
      sub =>
        `listing the Kubernetes versions of ${q.location} in subscription ${sub}`,
      ({ client }) => client.managedClusters.listKubernetesVersions(q.location),
    );
  } catch (e) {
    throw await regionRefused(arm, e, q);
  }
  const { subscriptionId, result } = answer;
  const items: OfferedKubernetesVersion[] = [];
  let previewsHidden = 0;
  for (const minor of result.values ?? []) {
    const patches = Object.keys(minor.patchVersions ?? {});
    if (minor.isPreview) {
      previewsHidden += patches.length;
      continue;
    }
    const sorted = [...patches].sort(compareKubernetesVersions).reverse();
    sorted.forEach((patch, i) =>
      items.push({
        version: `v${patch}`,
        minor: minor.version ?? patch.split('.').slice(0, 2).join('.'),
        isDefault: minor.isDefault === true && i === 0,
        supportPlans: [...(minor.capabilities?.supportPlan ?? [])],
      }),
    );
  }
  items.sort((a, b) => compareKubernetesVersions(b.version, a.version));
  return { subscriptionId, location: q.location, items, previewsHidden };
}

/**
 * ARM's refusal of a region (NoRegisteredProviderFound, LocationNotAvailableForResourceType, ...) as the user's
 * mistake: a 400 naming the regions of the subscription (read once per credential, `listLocations`). Any other error
 * passes through.
 */
async function regionRefused(
  arm: ArmAccess,
  e: unknown,
  q: CredentialQuery & { location: string },
): Promise<unknown> {
  if (!(e instanceof AzureServiceError) || !LOCATION_CODES.has(e.code ?? ''))
    return e;
  let regions: AzureRegion[];
  let subscriptionId: string;
  try {
    ({ items: regions, subscriptionId } = await listLocations(arm, q));
  } catch {
    // The regions cannot be read: ARM's own words, which name the supported locations, still say it.
    return new AzureRequestError(e.message, {
      statusCode: 400,
      code: e.code!,
      field: 'location',
    });
  }
  const names = regions.map(r => r.name);
  const known = names.some(n => n === q.location.toLowerCase());
  // A region of the subscription: the provider may not be registered, or not offer the region or the api-version;
  // ARM's message says which (docs/azure-facts.md#arm-error-classes).
  const message = known
    ? `AKS offers no Kubernetes versions in "${
        q.location
      }" of subscription ${subscriptionId}: ${
        e.message
      }. The regions of the subscription are ${names.join(', ')}`
    : `"${
        q.location
      }" is not a region of subscription ${subscriptionId} (ARM: ${
        e.code
      }); its regions are ${names.join(', ')}`;
  return new AzureRequestError(message, {
    statusCode: 400,
    code: e.code!,
    field: 'location',
    offered: names,
  });
}
