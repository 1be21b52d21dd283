/** An AKS cluster's user kubeconfig (docs/capz-aso-facts.md#kubeconfig-download). */
import type {
  ArmAccess,
  ArmCallOptions,
  CredentialQuery,
} from '../arm/ArmAccess';
import { AzureServiceError } from '../errors';

/**
 * `POST …/listClusterUserCredential?format=exec` (what `az aks get-credentials` reads), decoded, with the Secret's
 * credential; it needs the ARM action `Microsoft.ContainerService/managedClusters/listClusterUserCredential/action`. The
 * text may hold a secret (a cluster with local accounts): callers check it, and it is never logged here.
 */
export async function listClusterUserCredential(
  arm: ArmAccess,
  q: CredentialQuery & { resourceGroup: string; name: string },
  opts: ArmCallOptions = {},
): Promise<string> {
  const { result, what } = await arm.call(
    q,
    sub =>
      `reading the user kubeconfig of AKS cluster ${q.resourceGroup}/${q.name} in subscription ${sub}`,
    ({ client }) =>
      client.managedClusters.listClusterUserCredentials(
        q.resourceGroup,
        q.name,
        { format: 'exec' },
      ),
    opts,
  );
  const value = result.kubeconfigs?.[0]?.value;
  if (!value)
    throw new AzureServiceError('ARM', `${what}: ARM returned no kubeconfig`);
  return Buffer.from(value).toString('utf8');
}
