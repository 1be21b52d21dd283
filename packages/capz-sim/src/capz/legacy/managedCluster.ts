import { K } from '../../runtime/kinds.ts';
import { controllerOf, label, same } from '../../runtime/meta.ts';
import type { Obj } from '../../runtime/types.ts';
import { CLUSTER_NAME } from '../asoManaged.ts';
import { ensureAso, type Step } from './asoService.ts';
import { machinePoolOf, replicasOf, type LegacyContext } from './context.ts';
import { capzTags, normalize } from './names.ts';
import { legacyPoolFields } from './poolFields.ts';

/** The managedclusters service step: the ManagedCluster as CAPZ's spec builder writes it. */
export async function reconcileManagedCluster(
  ctx: LegacyContext,
  cp: Obj,
  cluster: Obj,
  lastApplied: Record<string, string>,
): Promise<Step> {
  const namespace = cp.metadata.namespace;
  const name = cp.metadata.name;
  const clusterName = cluster.metadata.name;
  const rgName = normalize(cp.spec.resourceGroupName);
  const additionalTags = (cp.spec.additionalTags ?? {}) as Record<
    string,
    string
  >;
  const mcName = normalize(name);
  const mcLive = ctx.cache.get('ManagedCluster', namespace, mcName);
  const aad = cp.spec.aadProfile;
  // Service CIDR from the Cluster when it names exactly one (managedcontrolplane.go lines 585–590), DNS IP its .10
  // (managedclusters/spec.go `calculateDNSServiceIP` lines 565–574).
  const services = cluster.spec?.clusterNetwork?.services?.cidrBlocks ?? [];
  const pods = cluster.spec?.clusterNetwork?.pods?.cidrBlocks ?? [];
  const serviceCidr: string | undefined =
    services.length === 1 ? services[0] : undefined;
  const dnsServiceIP =
    cp.spec.dnsServiceIP ??
    (serviceCidr
      ? serviceCidr.split('/')[0].split('.').slice(0, 3).concat('10').join('.')
      : undefined);
  const sshKey = cp.spec.sshPublicKey
    ? Buffer.from(cp.spec.sshPublicKey, 'base64').toString('utf8')
    : undefined;
  const oidc = cp.spec.oidcIssuerProfile;
  // azure/services/managedclusters/spec.go `Parameters` lines 411–452: basic properties (lines 486–507: owner,
  // identity, location, nodeResourceGroup, enableRBAC, dnsPrefix, version, servicePrincipalProfile msi), network
  // profile (lines 510–542), linux profile (577–599), operator spec (602–611, 614–640), AAD, SKU (661–671) and
  // OIDC issuer (731–748); docs/real-controllers.md#findings, finding 14.
  const mcSpec: Record<string, unknown> = {
    azureName: name,
    owner: { name: rgName },
    location: cp.spec.location,
    nodeResourceGroup: cp.spec.nodeResourceGroupName,
    dnsPrefix: cp.spec.dnsPrefix ?? name,
    kubernetesVersion: String(cp.spec.version).replace(/^v/, ''),
    identity: { type: 'SystemAssigned' },
    enableRBAC: true,
    servicePrincipalProfile: { clientId: 'msi' },
    tags: capzTags(clusterName, name, additionalTags),
    networkProfile: {
      ...(cp.spec.networkPlugin
        ? { networkPlugin: cp.spec.networkPlugin }
        : {}),
      ...(cp.spec.loadBalancerSKU
        ? { loadBalancerSku: String(cp.spec.loadBalancerSKU).toLowerCase() }
        : {}),
      ...(cp.spec.networkPolicy
        ? { networkPolicy: cp.spec.networkPolicy }
        : {}),
      ...(cp.spec.networkPluginMode
        ? { networkPluginMode: cp.spec.networkPluginMode }
        : {}),
      ...(pods.length === 1 ? { podCidr: pods[0] } : {}),
      ...(serviceCidr ? { serviceCidr, dnsServiceIP } : {}),
      ...(cp.spec.outboundType ? { outboundType: cp.spec.outboundType } : {}),
    },
    ...(sshKey
      ? {
          linuxProfile: {
            adminUsername: 'azureuser',
            ssh: { publicKeys: [{ keyData: sshKey }] },
          },
        }
      : {}),
    ...(aad
      ? {
          aadProfile: {
            managed: aad.managed,
            enableAzureRBAC: aad.managed,
            adminGroupObjectIDs: aad.adminGroupObjectIDs,
          },
        }
      : {}),
    ...(aad && cp.spec.disableLocalAccounts !== undefined
      ? { disableLocalAccounts: cp.spec.disableLocalAccounts }
      : {}),
    ...(cp.spec.sku ? { sku: { name: 'Base', tier: cp.spec.sku.tier } } : {}),
    ...(oidc ? { oidcIssuerProfile: { enabled: oidc.enabled } } : {}),
    operatorSpec: {
      ...(oidc?.enabled
        ? {
            configMaps: {
              oidcIssuerProfile: {
                name: `${clusterName}-aso-oidc-issuer-profile`,
                key: 'oidc-issuer-profile-url',
              },
            },
          }
        : {}),
      secrets: aad?.managed
        ? {
            userCredentials: {
              name: `${clusterName}-user-aso-kubeconfig`,
              key: 'value',
            },
          }
        : {
            adminCredentials: {
              name: `${clusterName}-aso-kubeconfig`,
              key: 'value',
            },
          },
    },
  };
  // The spec builder sends the pools only while the AKS cluster does not exist yet
  // (docs/capz-aso-facts.md#legacy-agent-pool-profiles, `configureAgentPoolProfiles` looks at the existing Azure
  // resource, not at the Kubernetes object): so until ASO reports the cluster (status.id) the ASO spec follows the
  // AzureManagedMachinePools. A control plane reconciled before its pools are labelled first sends none (AKS refuses:
  // a cluster needs a pool) and sends them once they appear.
  const inAzure = Boolean(mcLive?.status?.id);
  const pools = ctx.cache
    .list('AzureManagedMachinePool', namespace)
    .filter(p => label(p, CLUSTER_NAME) === clusterName)
    .map(p => ({
      name: p.spec.name ?? p.metadata.name,
      ...legacyPoolFields(
        p,
        replicasOf(ctx, p),
        cp,
        machinePoolOf(ctx, p)?.spec?.template?.spec?.version,
      ),
    }));
  if (!inAzure) mcSpec.agentPoolProfiles = pools;
  const step = await ensureAso(
    ctx,
    'ManagedCluster',
    cp,
    clusterName,
    mcName,
    mcSpec,
    true,
    lastApplied,
  );
  const mc = step.live;
  if (
    mc &&
    !inAzure &&
    pools.length &&
    !same(mc.spec?.agentPoolProfiles ?? [], pools) &&
    controllerOf(mc)?.uid === cp.metadata.uid
  ) {
    await ctx.kube.mergePatch(K.ManagedCluster, namespace, mcName, {
      spec: { agentPoolProfiles: pools },
    });
    return { live: mc, settled: false, changed: true };
  }
  if (
    mc &&
    mc.spec?.agentPoolProfiles !== undefined &&
    (mc.status?.agentPoolProfiles ?? []).length
  ) {
    await ctx.kube.mergePatch(K.ManagedCluster, namespace, mcName, {
      spec: { agentPoolProfiles: null },
    });
    return { live: mc, settled: false, changed: true };
  }
  return step;
}
