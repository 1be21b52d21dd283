/** A resource group's location and tags, for adoption (docs/azure-facts.md#arm-resource-groups). */
import type { ArmAccess } from '../arm/ArmAccess';
import { armGetAnswer, armUrl, RESOURCES_API_VERSION } from '../arm/pipeline';

export interface ResourceGroupQuery {
  managementCluster: string;
  namespace: string;
  credentialSecret: string;
  subscriptionId: string;
  resourceGroup: string;
}

/** What adoption needs of a resource group: where it is, and the tags its ASO ResourceGroup must carry. */
export interface ResourceGroupInfo {
  location: string;
  /** ARM's tags of the group ({} when it has none); ARM replaces them on PUT, so adoption writes them back. */
  tags: Record<string, string>;
}

/**
 * A resource group's location and tags (ARM's resource group GET), read with the Secret's credential in the given
 * subscription; undefined when the group does not exist (404 ResourceGroupNotFound) or ARM's answer has no location.
 * Any other failure throws AzureServiceError / AzureCredentialError, as the other reads do.
 */
export async function resourceGroup(
  arm: ArmAccess,
  q: ResourceGroupQuery,
): Promise<ResourceGroupInfo | undefined> {
  const { credential, client, settings } = await arm.resolve(
    q.managementCluster,
    q.namespace,
    q.credentialSecret,
    q.subscriptionId,
  );
  const what = `reading resource group ${q.resourceGroup} in subscription ${
    q.subscriptionId
  } with ${arm.describe(q.namespace, q.credentialSecret, credential)}`;
  // Through the AKS client's own pipeline: the same credential, token scope (audience), trusted CAs, retry and
  // error-body policies; only the path and the api-version (Microsoft.Resources', which the pipeline keeps) differ.
  const url = armUrl(
    settings,
    `/subscriptions/${encodeURIComponent(
      q.subscriptionId,
    )}/resourcegroups/${encodeURIComponent(
      q.resourceGroup,
    )}?api-version=${RESOURCES_API_VERSION}`,
  );
  let body: { location?: unknown; tags?: unknown } | undefined;
  try {
    const answer = await armGetAnswer<{ location?: unknown; tags?: unknown }>(
      client,
      url,
    );
    if (answer.status >= 400) {
      if (
        answer.status === 404 &&
        answer.body?.error?.code === 'ResourceGroupNotFound'
      )
        return undefined;
      throw answer.toError();
    }
    body = answer.body;
  } catch (e) {
    throw arm.fail(e, what);
  }
  // As before: an answer without a location is no answer (the planner then warns that the location is unknown).
  return typeof body?.location === 'string' && body.location
    ? { location: body.location, tags: stringMap(body.tags) }
    : undefined;
}

/** ARM's tags object, string values only (ARM's tag values are strings). */
function stringMap(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).filter(
      ([, x]) => typeof x === 'string',
    ),
  ) as Record<string, string>;
}
