/**
 * How to reach a workload cluster: commands only, never a credential (docs/capz-aso-facts.md#day2-connect).
 */
import type { ConnectInfo } from './api';
import type { Day2Cluster } from './snapshot';

const q = (s: string) =>
  /^[A-Za-z0-9._/:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

/** What the backend can do about a kubeconfig download, for {@link connectInfo}. @public */
export interface KubeconfigDownloadConfig {
  /** ARM is reachable (capz.azureDiscovery): AKS's user credential can be read. */
  azure: boolean;
  /** `capz.connect.allowLocalAccountKubeconfig`: a kubeconfig with a local account's secret may be handed out. */
  allowLocalAccountKubeconfig: boolean;
}

/**
 * Why the backend will not hand out a cluster's kubeconfig, in the user's words, or undefined when it will: known
 * before asking, from the cluster's objects (AKS-managed Entra ID or not) and the backend's configuration. Pure.
 * @public
 */
export function kubeconfigUnavailableReason(
  c: Day2Cluster,
  config: KubeconfigDownloadConfig,
): string | undefined {
  if (!c.azureName || !c.resourceGroup)
    return "The AKS cluster's resource group or name is not known yet (its ManagedCluster has not reported them), so its kubeconfig cannot be read.";
  if (!config.azure)
    return 'This Backstage backend has no Azure access configured (capz.azureDiscovery), so it cannot read the kubeconfig from AKS.';
  if (!c.entraId && !config.allowLocalAccountKubeconfig)
    return "This cluster does not use Entra ID: AKS's kubeconfig for it holds a local account's secret, which this Backstage backend does not hand out. Use az aks get-credentials with your own Azure access (the first command above).";
  return undefined;
}

/**
 * The connect commands of a cluster read with readDay2Cluster, and, given the backend's configuration, whether the
 * kubeconfig download is available (and why not). Pure. @public
 */
export function connectInfo(
  c: Day2Cluster,
  managementCluster: string,
  download?: KubeconfigDownloadConfig,
): ConnectInfo {
  const commands: string[] = [];
  const notes: string[] = [];
  const file = `${c.name}.kubeconfig`;
  if (c.azureName && c.resourceGroup) {
    commands.push(
      `az aks get-credentials --resource-group ${q(c.resourceGroup)} --name ${q(
        c.azureName,
      )}${
        c.subscriptionId ? ` --subscription ${q(c.subscriptionId)}` : ''
      } --file ${q(file)}`,
    );
    if (c.entraOnly) {
      commands.push(
        `kubelogin convert-kubeconfig -l azurecli --kubeconfig ${q(file)}`,
      );
      notes.push(
        'Local accounts are disabled (Entra ID only): az aks get-credentials writes a kubeconfig that signs in with your own Entra identity through kubelogin; your access is what Azure RBAC grants you.',
      );
    } else {
      notes.push(
        'az aks get-credentials signs you in with your own Azure identity: you need access to the AKS cluster in Azure (Azure Kubernetes Service Cluster User Role or better).',
      );
    }
  } else {
    notes.push(
      "The AKS cluster's resource group or name is not known yet (the ManagedCluster has not reported them): az aks get-credentials needs both.",
    );
  }
  // CAPZ's kubeconfig Secret on the management cluster (docs/capz-aso-facts.md#entra-only-kubeconfig): an admin
  // credential (with an Entra token for Entra-only clusters) for those allowed to read Secrets there.
  commands.push(
    `clusterctl get kubeconfig ${q(c.name)} --namespace ${q(c.namespace)} > ${q(
      file,
    )}`,
    `kubectl --namespace ${q(c.namespace)} get secret ${q(
      `${c.name}-kubeconfig`,
    )} -o jsonpath='{.data.value}' | base64 -d > ${q(file)}`,
  );
  notes.push(
    `The clusterctl and kubectl commands run against management cluster ${managementCluster} and read the Secret ${
      c.namespace
    }/${c.name}-kubeconfig that CAPZ writes: it holds ${
      c.entraOnly
        ? 'a short-lived Entra ID token'
        : "the cluster's admin credential"
    }, so they need read access to Secrets in ${c.namespace}.`,
    'This page never shows a credential: run the commands where you are signed in.',
  );
  if (!download) return { commands, notes };
  const reason = kubeconfigUnavailableReason(c, download);
  return {
    commands,
    notes,
    kubeconfig: reason ? { available: false, reason } : { available: true },
  };
}
