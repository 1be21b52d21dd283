/**
 * Connecting to a workload cluster: the kubeconfig a user downloads. It is AKS's own user
 * credential (`listClusterUserCredential?format=exec`, what `az aks get-credentials` writes), read with the cluster's
 * ASO credential Secret: for an Entra ID cluster an exec (kubelogin) user with no secret inside, so the download grants
 * nothing by itself (Azure RBAC decides what the user's own Entra identity may do). A kubeconfig that holds a secret
 * (a cluster with local accounts: AKS's user credential is then a client certificate and token) is refused unless the
 * operator sets `capz.connect.allowLocalAccountKubeconfig` (docs/capz-aso-facts.md#kubeconfig-download). The
 * kubeconfig is never logged. Authorization and audit are the router's.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, ServiceUnavailableError } from '@backstage/errors';
import {
  kubeconfigCluster,
  kubeconfigSecrets,
  type ClusterKubeconfig,
  type ClusterPlace,
  type Day2Cluster,
} from '@capz-backstage/plugin-capz-common';
import YAML from 'yaml';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { AzureServiceError } from '../azure/errors';

/** The config key that lets local-account kubeconfigs (with a secret inside) be downloaded. */
export const ALLOW_LOCAL_ACCOUNT_KUBECONFIG =
  'capz.connect.allowLocalAccountKubeconfig';

/** ASO's default credential Secret in a namespace when an object names none (docs/capz-aso-facts.md#aso-credential-scope). */
const DEFAULT_ASO_CREDENTIAL = 'aso-credential';

export interface ClusterConnectOptions {
  logger: LoggerService;
  /** The cluster from the watch cache (Day2Service.cluster): its AKS name, group, subscription, credential. */
  cluster: (p: ClusterPlace) => Day2Cluster;
  /** ARM through the cluster's ASO credential (capz.azureDiscovery); without it no kubeconfig. */
  azure?: Pick<AksDiscovery, 'listClusterUserCredential'>;
  /** `capz.connect.allowLocalAccountKubeconfig` (default false). */
  allowLocalAccountKubeconfig: boolean;
}

/** The parsed kubeconfig, or ARM's answer is unusable (502: ARM's fault, not the user's). */
export function parseKubeconfig(text: string, what: string): unknown {
  try {
    return YAML.parse(text);
  } catch {
    // The parser's message may quote the text: never passed on.
    throw new AzureServiceError(
      'ARM',
      `${what}: ARM returned a kubeconfig that is not YAML`,
    );
  }
}

export class ClusterConnect {
  constructor(private readonly o: ClusterConnectOptions) {}

  /** The kubeconfig a user may download, or the reason there is none (409 naming what to change). */
  async kubeconfig(p: ClusterPlace): Promise<ClusterKubeconfig> {
    const c = this.o.cluster(p);
    const where = `cluster ${p.managementCluster}/${p.namespace}/${p.name}`;
    if (!c.azureName || !c.resourceGroup)
      throw new ConflictError(
        `The AKS cluster of ${where} is not known yet (its ManagedCluster has not reported its resource group and name): no kubeconfig can be read`,
      );
    if (!this.o.azure)
      throw new ServiceUnavailableError(
        'Azure discovery is not configured on this backend (capz.azureDiscovery): no kubeconfig can be read',
      );
    const text = await this.o.azure.listClusterUserCredential({
      managementCluster: p.managementCluster,
      namespace: p.namespace,
      credentialSecret: c.credentialSecret ?? DEFAULT_ASO_CREDENTIAL,
      ...(c.subscriptionId ? { subscriptionId: c.subscriptionId } : {}),
      resourceGroup: c.resourceGroup,
      name: c.azureName,
    });
    const what = `the user kubeconfig of AKS cluster ${c.resourceGroup}/${c.azureName}`;
    const parsed = parseKubeconfig(text, what);
    const cluster = kubeconfigCluster(parsed);
    if (!cluster)
      throw new AzureServiceError('ARM', `${what} names no https API server`);
    const secrets = kubeconfigSecrets(parsed);
    if (secrets.length && !this.o.allowLocalAccountKubeconfig)
      throw new ConflictError(
        `${where} does not use Entra ID: AKS's user kubeconfig for it is a local account credential (it holds ${secrets.join(
          ', ',
        )}), which this backend does not hand out. Use az aks get-credentials with your own Azure access, turn on Entra ID for the cluster, or ask the operator to set ${ALLOW_LOCAL_ACCOUNT_KUBECONFIG}: true`,
      );
    const auth = secrets.length ? 'local-account' : 'exec';
    // What was handed out, never the kubeconfig itself.
    this.o.logger.info(
      `kubeconfig of ${where} (${auth}, server ${cluster.server}) handed out`,
    );
    return {
      fileName: `${p.name}.kubeconfig`,
      kubeconfig: text,
      server: cluster.server,
      auth,
    };
  }
}
