/**
 * How to reach a workload cluster: commands only, never a credential (docs/capz-aso-facts.md#day2-connect).
 */
import type { ConnectInfo } from './api';
import type { Day2Cluster } from './snapshot';

const q = (s: string) =>
  /^[A-Za-z0-9._/:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;

/** The connect commands of a cluster read with readDay2Cluster. Pure. @public */
export function connectInfo(
  c: Day2Cluster,
  managementCluster: string,
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
  return { commands, notes };
}
