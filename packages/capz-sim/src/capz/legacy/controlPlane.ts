/** The legacy AzureManagedControlPlane controller: CAPZ's services in order, the credential and kubeconfig Secrets, status. */
import { K } from '../../runtime/kinds.ts';
import { splitKey } from '../../runtime/controller.ts';
import {
  b64,
  getCondition,
  isDeleting,
  ownerRef,
  label,
  same,
  setCondition,
  unb64,
} from '../../runtime/meta.ts';
import type { Condition, Obj } from '../../runtime/types.ts';
import { CLUSTER_NAME } from '../asoManaged.ts';
import { ensureAso, putStatus, type Cond, type Step } from './asoService.ts';
import {
  clusterOf,
  isPaused,
  type LegacyContext,
  type LegacyReconcile,
} from './context.ts';
import { beginReconcile, deleteOwned, pause } from './lifecycle.ts';
import { reconcileManagedCluster } from './managedCluster.ts';
import {
  AMCP_FINALIZER,
  CP_ASO_KINDS,
  LAST_APPLIED_TAGS,
  OWNED_TAG,
  capzTags,
  normalize,
} from './names.ts';
import { controlPlaneDefaults } from './webhookDefaults.ts';

export const reconcileControlPlane: LegacyReconcile = async (ctx, key) => {
  const { namespace, name } = splitKey(key);
  const cp = ctx.cache.get('AzureManagedControlPlane', namespace, name);
  if (!cp) return;
  const cluster = clusterOf(ctx, cp);
  if (!cluster) return; // waiting for CAPI to label and own it
  // The simulation runs no admission webhooks: CAPZ's defaulting webhook would have added these on admission, so the
  // controller adds them before anything else (as the simulated ASO adds its webhook's operator-namespace, finding 8).
  const defaults = isDeleting(cp) ? undefined : controlPlaneDefaults(cp);
  if (defaults) {
    await ctx.kube.mergePatch(K.AzureManagedControlPlane, namespace, name, {
      spec: defaults,
    });
    return;
  }
  if (isPaused(cp, cluster)) return pause(ctx, cp, CP_ASO_KINDS);
  // Deleted in reverse order of creation, one service at a time (CAPZ v1.26.0
  // controllers/azuremanagedcontrolplane_reconciler.go `Delete` lines 108–121; azure/services/aso/aso.go
  // `DeleteResource` returns "operation not done" until the object is gone): the ManagedCluster, the subnet, the
  // VNet, then the ResourceGroup.
  if (isDeleting(cp))
    return deleteOwned(ctx, cp, AMCP_FINALIZER, [
      ['ManagedCluster'],
      ['VirtualNetworksSubnet'],
      ['VirtualNetwork'],
      ['ResourceGroup'],
    ]);
  await beginReconcile(ctx, cp, AMCP_FINALIZER, CP_ASO_KINDS);
  const clusterName = cluster.metadata.name;

  // The ASO credential Secret, owned by the control plane: `controller: true` and no blockOwnerDeletion (CAPZ
  // v1.26.0 controllers/asosecret_controller.go lines 236–242; docs/real-controllers.md#findings, finding 13).
  const secretName = `${clusterName}-aso-secret`;
  if (!ctx.cache.get('Secret', namespace, secretName)) {
    const { blockOwnerDeletion: _omitted, ...owner } = ownerRef(cp);
    await ctx.kube.createIfAbsent(K.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretName,
        namespace,
        labels: { [clusterName]: 'owned' },
        ownerReferences: [owner],
      },
      type: 'Opaque',
      data: {
        AZURE_SUBSCRIPTION_ID: b64(cp.spec.subscriptionID ?? ''),
        AZURE_TENANT_ID: b64(ctx.identity.tenantId),
        AZURE_CLIENT_ID: b64(ctx.identity.clientId),
        ...(ctx.identity.clientSecret
          ? { AZURE_CLIENT_SECRET: b64(ctx.identity.clientSecret) }
          : { AUTH_MODE: b64('workloadidentity') }),
      },
    });
  }
  const additionalTags = (cp.spec.additionalTags ?? {}) as Record<
    string,
    string
  >;
  // tags.go `reconcileTags`: the JSON of the additional tags CAPZ applied (Go marshals map keys sorted), on the
  // ResourceGroup and the ManagedCluster, the two specs with `GetAdditionalTags` (groups/spec.go,
  // managedclusters/spec.go); docs/real-controllers.md#findings, finding 14.
  const lastApplied = {
    [LAST_APPLIED_TAGS]: JSON.stringify(
      Object.fromEntries(
        Object.entries(additionalTags).sort(([a], [b]) =>
          a < b ? -1 : a > b ? 1 : 0,
        ),
      ),
    ),
  };

  // CAPZ's services in order (azuremanagedcontrolplane_reconciler.go lines 59–66), each reached only when the one
  // before is done (`Reconcile` lines 73–88 stop at the first error, and a service whose object is not Ready yet
  // errs); each writes its condition (`UpdatePutStatus`, azure/scope/managedcontrolplane.go lines 887–897).
  const conds: Cond[] = [];
  const step = (type: string, service: string, r: Step) => {
    conds.push(putStatus(type, service, r));
    return r.settled;
  };

  const rgName = normalize(cp.spec.resourceGroupName);
  const rgLive = ctx.cache.get('ResourceGroup', namespace, rgName);
  const rgOwnedTag = rgLive?.status?.tags?.[OWNED_TAG(clusterName)] === 'owned';
  const rgStep = await ensureAso(
    ctx,
    'ResourceGroup',
    cp,
    clusterName,
    rgName,
    {
      azureName: cp.spec.resourceGroupName,
      location: cp.spec.location,
      tags: capzTags(clusterName, cp.spec.resourceGroupName, additionalTags),
    },
    rgOwnedTag,
    lastApplied,
  );

  // The VNet and its subnet (finding 10): azure/scope/managedcontrolplane.go `VNetSpec` lines 298–307 and
  // `SubnetSpecs` lines 341–354; azure/services/virtualnetworks/spec.go `Parameters` lines 53–80 (CAPZ's owned tags
  // on create, owner the VNet's group) and `WasManaged` line 84 (the owned tag in Azure); azure/services/subnets/
  // spec.go `ResourceRef` line 53 (`<vnet>-<subnet>`), `Parameters` lines 59–75, `WasManaged` line 112 (the VNet's).
  const vn = cp.spec.virtualNetwork;
  const vnetName = normalize(vn.name);
  const vnetLive = ctx.cache.get('VirtualNetwork', namespace, vnetName);
  const vnetManaged =
    vnetLive?.status?.tags?.[OWNED_TAG(clusterName)] === 'owned';
  const subnetName = normalize(`${vn.name}-${vn.subnet.name.toLowerCase()}`);

  let mc: Obj | undefined;
  if (step('ResourceGroupReady', 'groups', rgStep)) {
    const vnetStep = await ensureAso(
      ctx,
      'VirtualNetwork',
      cp,
      clusterName,
      vnetName,
      {
        azureName: vn.name,
        owner: { name: normalize(vn.resourceGroup) },
        location: cp.spec.location,
        addressSpace: { addressPrefixes: [vn.cidrBlock] },
        tags: capzTags(clusterName, vn.name, additionalTags),
      },
      vnetManaged,
    );
    if (step('VNetReady', 'virtualnetworks', vnetStep)) {
      const subnetStep = await ensureAso(
        ctx,
        'VirtualNetworksSubnet',
        cp,
        clusterName,
        subnetName,
        {
          azureName: vn.subnet.name,
          owner: { name: vnetName },
          addressPrefixes: [vn.subnet.cidrBlock],
          addressPrefix: vn.subnet.cidrBlock,
        },
        vnetManaged,
      );
      if (step('SubnetsReady', 'subnets', subnetStep)) {
        const mcStep = await reconcileManagedCluster(
          ctx,
          cp,
          cluster,
          lastApplied,
        );
        mc = mcStep.live;
        // Private endpoints, fleet membership and AKS extensions: none asked for, so their services succeed with
        // nothing to do (privateendpoints.go line 39, fleetsmembers.go line 44, aksextensions.go line 51).
        if (step('ManagedClusterRunning', 'managedclusters', mcStep))
          for (const type of [
            'PrivateEndpointsReady',
            'FleetReady',
            'AKSExtensionsReady',
          ])
            conds.push({ type, status: 'True', severity: '' });
      }
    }
  }
  mc ??= ctx.cache.get('ManagedCluster', namespace, normalize(name));

  // Status: v1beta1 conditions (the steps not reached keep their last value, as CAPZ leaves them), endpoint,
  // kubeconfig and CA.
  const mcReady = getCondition(mc, 'Ready');
  const host = mcReady?.status === 'True' ? mc?.status?.fqdn : undefined;
  if (host && cp.spec.controlPlaneEndpoint?.host !== host) {
    await ctx.kube.mergePatch(K.AzureManagedControlPlane, namespace, name, {
      spec: { controlPlaneEndpoint: { host, port: 443 } },
    });
  }
  if (host && mc) await writeKubeconfig(ctx, cp, clusterName, mc);
  let conditions = cp.status?.conditions as Condition[] | undefined;
  for (const c of conds) conditions = setCondition(conditions, c);
  // v1beta1 `SetSummary` (scope.PatchObject, managedcontrolplane.go line 239): Ready mirrors the most severe
  // condition that is not True.
  const rank = (c: Condition) =>
    (({ Error: 0, Warning: 1, Info: 2 } as Record<string, number>)[
      c.severity ?? ''
    ] ?? 3);
  const failing = (conditions ?? [])
    .filter(c => c.type !== 'Ready' && c.status !== 'True')
    .sort((a, b) => rank(a) - rank(b))[0];
  const { lastTransitionTime: _t, ...summary } = failing ?? {
    type: 'Ready',
    status: 'True',
    severity: '',
    lastTransitionTime: '',
  };
  conditions = setCondition(conditions, { ...summary, type: 'Ready' });
  const status = {
    ...(cp.status ?? {}),
    conditions,
    ready: !!host,
    initialized: !!host,
    ...(mc?.status?.currentKubernetesVersion
      ? { version: `v${mc.status.currentKubernetesVersion}` }
      : {}),
  };
  if (!same(cp.status, status))
    await ctx.kube.mergePatch(
      K.AzureManagedControlPlane,
      namespace,
      name,
      { status },
      'status',
    );
};

export async function writeKubeconfig(
  ctx: LegacyContext,
  cp: Obj,
  clusterName: string,
  mc: Obj,
): Promise<void> {
  const src =
    mc.spec?.operatorSpec?.secrets?.adminCredentials ??
    mc.spec?.operatorSpec?.secrets?.userCredentials;
  const value = src
    ? unb64(
        ctx.cache.get('Secret', cp.metadata.namespace, src.name)?.data?.[
          src.key
        ],
      )
    : undefined;
  if (!value) return;
  // `<cluster>-kubeconfig` with no type, so Opaque (CAPZ v1.26.0 azure/scope/managedcontrolplane.go
  // `MakeEmptyKubeConfigSecret` lines 767–777, written by azuremanagedcontrolplane_reconciler.go lines 133–154).
  await writeSecret(ctx, cp, `${clusterName}-kubeconfig`, {
    labels: { [CLUSTER_NAME]: clusterName },
    data: { value: b64(value) },
  });
  // `<cluster>-ca`: the kubeconfig's CA as tls.crt and the literal `foo` as tls.key, controller-owned by the control
  // plane (azuremanagedcontrolplane_reconciler.go lines 157–174, `MakeClusterCA` lines 801–811); finding 13.
  const ca = /certificate-authority-data:\s*(\S+)/.exec(value)?.[1] ?? '';
  await writeSecret(ctx, cp, `${clusterName}-ca`, {
    data: { 'tls.crt': ca, 'tls.key': b64('foo') },
  });
}

/** controllerutil.CreateOrUpdate of an Opaque Secret controller-owned by the control plane (data and labels). */
export async function writeSecret(
  ctx: LegacyContext,
  cp: Obj,
  name: string,
  want: { labels?: Record<string, string>; data: Record<string, string> },
): Promise<void> {
  const ns = cp.metadata.namespace;
  let current = ctx.cache.get('Secret', ns, name);
  if (current && (current.type ?? 'Opaque') !== 'Opaque') {
    // A Secret's type is immutable: one an older simulation wrote as `cluster.x-k8s.io/secret` is replaced.
    await ctx.kube.delete(K.Secret, ns, name);
    current = undefined;
  }
  if (
    current &&
    same(current.data, want.data) &&
    Object.entries(want.labels ?? {}).every(([k, v]) => label(current, k) === v)
  )
    return;
  const secret: Obj = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: ns,
      ...(want.labels ? { labels: want.labels } : {}),
      ownerReferences: [ownerRef(cp)],
    },
    type: 'Opaque',
    data: want.data,
  };
  if (current)
    await ctx.kube.replace(K.Secret, {
      ...secret,
      metadata: {
        ...current.metadata,
        labels: { ...(current.metadata.labels ?? {}), ...want.labels },
      },
    });
  else await ctx.kube.createIfAbsent(K.Secret, secret);
}
