/** The regions of a subscription (ARM's subscription locations list), kept per credential for LOCATIONS_TTL_MS. */
import {
  LOCATIONS_TTL_MS,
  type ArmAccess,
  type AzureRegion,
  type CredentialQuery,
  type ResolvedCredential,
} from '../arm/ArmAccess';
import { armGet, armUrl, LOCATIONS_API_VERSION } from '../arm/pipeline';

/**
 * The regions of the Secret's subscription, physical regions only, by display name. Read once per credential and
 * subscription for LOCATIONS_TTL_MS (the Secret itself is read every time).
 */
export async function listLocations(
  arm: ArmAccess,
  q: CredentialQuery,
): Promise<{ subscriptionId: string; items: AzureRegion[] }> {
  const resolved = await arm.resolve(
    q.managementCluster,
    q.namespace,
    q.credentialSecret,
    q.subscriptionId,
  );
  const { entry } = resolved;
  const sub = q.subscriptionId ?? entry.credential.subscriptionId;
  const now = Date.now();
  const kept = entry.locations.get(sub);
  if (kept && now - kept.at < LOCATIONS_TTL_MS) return kept.value;
  const value = readLocations(arm, q, resolved);
  entry.locations.set(sub, { at: now, value });
  value.catch(() => {
    if (entry.locations.get(sub)?.value === value) entry.locations.delete(sub);
  });
  return value;
}

async function readLocations(
  arm: ArmAccess,
  q: CredentialQuery,
  resolved: ResolvedCredential,
): Promise<{ subscriptionId: string; items: AzureRegion[] }> {
  type Locations = {
    value?: Array<{
      name?: unknown;
      displayName?: unknown;
      metadata?: { regionType?: unknown };
    }>;
  };
  const { subscriptionId, result: body } = await arm.call(
    q,
    sub => `listing the regions of subscription ${sub}`,
    ({ client, settings, subscriptionId: sub }) =>
      armGet<Locations>(
        client,
        armUrl(
          settings,
          `/subscriptions/${encodeURIComponent(
            sub,
          )}/locations?api-version=${LOCATIONS_API_VERSION}`,
        ),
      ),
    { resolved },
  );
  const items = (body?.value ?? [])
    .filter(
      l =>
        typeof l.name === 'string' &&
        (l.metadata?.regionType === undefined ||
          l.metadata.regionType === 'Physical'),
    )
    .map(l => ({
      name: l.name as string,
      displayName:
        typeof l.displayName === 'string' ? l.displayName : (l.name as string),
    }))
    .sort((a, b) => a.displayName.localeCompare(b.displayName));
  return { subscriptionId, items };
}
