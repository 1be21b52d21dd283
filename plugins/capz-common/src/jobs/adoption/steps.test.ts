import { evaluateObjectCondition } from '../conditions';
import { JOB_ID_PLACEHOLDER } from '../types';
import { SUB } from '../__fixtures__/snapshots';
import {
  adopt,
  aksCluster,
  azureNamed,
  creates,
  credential,
  failed,
  params,
  snapshot,
  step,
} from '../__fixtures__/adoption';
import { planAdoption, requiredAdoptionAccess } from '.';

describe('planAdoption', () => {
  it('plans resource group, managed cluster, agent pools, available, in that order', () => {
    const r = planAdoption(params, snapshot());
    expect(failed(r)).toEqual([]);
    expect(r.preflight.map(c => c.id)).toEqual([
      'namespace',
      'credential-secret',
      'aks-cluster',
      'not-managed',
      'gitops',
      'names',
      'no-conflicts',
      'access',
    ]);
    expect(r.plan.map(s => s.id)).toEqual([
      'adopt-resource-group',
      'adopt-managed-cluster',
      'adopt-agent-pools',
      'pin-reconcile-policies',
      'wait-available',
    ]);
    expect(r.result?.cluster).toEqual({
      managementCluster: 'mgmt',
      namespace: 'adopt',
      name: 'aks-adopt',
    });
    for (const s of r.plan)
      expect(s.description).toMatch(
        /docs\/(migration-procedure|capz-aso-facts)\.md#/,
      );
  });

  it('creates the ResourceGroup under the normalised name, pointing at the Azure group', () => {
    const s = step(
      planAdoption(params, snapshot()).plan,
      'adopt-resource-group',
    );
    expect(creates(s)).toEqual([
      {
        apiVersion: 'resources.azure.com/v1api20200601',
        kind: 'ResourceGroup',
        // A group CAPZ never owned: skip, so ASO neither PUTs over it nor deletes it with the cluster.
        metadata: {
          name: 'rg-adopt',
          namespace: 'adopt',
          annotations: {
            ...credential,
            'serviceoperator.azure.com/reconcile-policy': 'skip',
            'capz.io/job': JOB_ID_PLACEHOLDER,
          },
        },
        spec: { azureName: 'RG_Adopt', location: 'westeurope' },
      },
    ]);
    expect(s.preconditions).toEqual([
      expect.objectContaining({
        type: 'exists',
        ref: {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'adopt',
          name: 'aso-credential',
        },
      }),
      // Right before the first write: one owner per AKS cluster, read live.
      expect.objectContaining({
        type: 'sole-manager',
        azure: {
          subscriptionId: SUB,
          resourceGroup: 'RG_Adopt',
          name: 'aks-adopt',
        },
        except: [],
      }),
    ]);
    expect(s.waitFor).toEqual([
      expect.objectContaining({
        type: 'ready',
        ref: expect.objectContaining({ name: 'rg-adopt' }),
      }),
    ]);
  });

  it('creates the annotated ManagedCluster with the pools from Azure', () => {
    const s = step(
      planAdoption(params, snapshot()).plan,
      'adopt-managed-cluster',
    );
    expect(creates(s)).toEqual([
      {
        apiVersion: 'containerservice.azure.com/v1api20240901',
        kind: 'ManagedCluster',
        metadata: {
          name: 'aks-adopt',
          namespace: 'adopt',
          annotations: {
            ...credential,
            ...adopt,
            'capz.io/job': JOB_ID_PLACEHOLDER,
          },
        },
        spec: {
          azureName: 'aks-adopt',
          owner: { name: 'rg-adopt' },
          location: 'westeurope',
          dnsPrefix: 'aks-adopt-dns',
          kubernetesVersion: '1.33.2',
          identity: { type: 'SystemAssigned' },
          agentPoolProfiles: [
            {
              name: 'system',
              mode: 'System',
              vmSize: 'Standard_D2s_v3',
              count: 2,
            },
            {
              name: 'apps',
              mode: 'User',
              vmSize: 'Standard_D4s_v3',
              count: 1,
              enableAutoScaling: true,
              minCount: 1,
              maxCount: 5,
            },
          ],
        },
      },
    ]);
    expect(s.preconditions).toEqual([
      expect.objectContaining({ type: 'ready' }),
    ]);
    expect(s.waitFor.map(c => c.type)).toEqual([
      'ready',
      'exists',
      'exists',
      'exists',
      'controlled-by',
      'label',
    ]);
  });

  it('adopts an AKS cluster whose Azure name is no Kubernetes name: normalised object names, the Azure name in spec.azureName', () => {
    const named = azureNamed();
    const r = planAdoption(named.params, named.snapshot);
    expect(failed(r)).toEqual([]);
    expect(r.target.name).toBe('myakscluster');
    expect(r.result?.cluster?.name).toBe('myakscluster');
    expect(r.facts).toMatchObject({
      cluster: 'adopt/myakscluster',
      azureName: 'myAKSCluster',
      resourceGroupObject: 'my-resource-group',
    });
    expect(r.preflight.find(c => c.id === 'names')!.message).toContain(
      'Cluster myakscluster (Azure name myAKSCluster',
    );
    const [rg] = creates(step(r.plan, 'adopt-resource-group'));
    expect(rg.metadata.name).toBe('my-resource-group');
    expect(rg.spec).toMatchObject({ azureName: 'My_Resource_Group' });
    const [mc] = creates(step(r.plan, 'adopt-managed-cluster'));
    expect(mc.metadata.name).toBe('myakscluster');
    expect(mc.spec).toMatchObject({
      azureName: 'myAKSCluster',
      owner: { name: 'my-resource-group' },
    });
    expect(
      creates(step(r.plan, 'adopt-agent-pools')).map(o => [
        o.metadata.name,
        o.spec?.azureName,
        (o.spec?.owner as any).name,
      ]),
    ).toEqual([
      ['myakscluster-system', 'system', 'myakscluster'],
      ['myakscluster-apps', 'apps', 'myakscluster'],
    ]);
    expect(step(r.plan, 'wait-available').waitFor[0]).toMatchObject({
      ref: { kind: 'Cluster', name: 'myakscluster' },
    });
    expect(step(r.plan, 'adopt-resource-group').preconditions[1]).toMatchObject(
      { azure: { resourceGroup: 'My_Resource_Group', name: 'myAKSCluster' } },
    );
  });

  it("pins skip on the group in the AzureASOManagedCluster's spec.resources (CAPZ drops annotations when it embeds it)", () => {
    const s = step(
      planAdoption(params, snapshot()).plan,
      'pin-reconcile-policies',
    );
    expect(s.actions).toEqual([
      expect.objectContaining({
        action: 'set-embedded-annotation',
        ref: {
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          kind: 'AzureASOManagedCluster',
          namespace: 'adopt',
          name: 'aks-adopt',
        },
        resource: { kind: 'ResourceGroup', name: 'rg-adopt' },
        annotation: 'serviceoperator.azure.com/reconcile-policy',
        value: 'skip',
      }),
    ]);
    expect(s.waitFor).toEqual([
      expect.objectContaining({
        type: 'annotation',
        ref: expect.objectContaining({
          kind: 'ResourceGroup',
          name: 'rg-adopt',
        }),
        value: 'skip',
      }),
    ]);
    expect(requiredAdoptionAccess(params)).toContainEqual(
      expect.objectContaining({
        verb: 'patch',
        resource: 'azureasomanagedclusters',
        namespace: 'adopt',
      }),
    );
  });

  it("writes back every field Azure reports, so that ASO's PUT changes nothing: tags, labels, taints, OS, zones", () => {
    const pool = {
      name: 'gpu',
      mode: 'User' as const,
      vmSize: 'Standard_NC6s_v3',
      count: 2,
      osType: 'Linux',
      osSKU: 'AzureLinux',
      orchestratorVersion: '1.33.2',
      availabilityZones: ['1', '2'],
      maxPods: 50,
      osDiskSizeGB: 128,
      nodeLabels: { workload: 'gpu' },
      nodeTaints: ['sku=gpu:NoSchedule'],
      tags: { team: 'ml' },
    };
    const aks = aksCluster({
      tags: { env: 'prod', 'cost-center': '42' },
      agentPools: [
        { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', count: 1 },
        pool,
      ],
    });
    const r = planAdoption(
      params,
      snapshot({ aks, resourceGroupTags: { owner: 'platform' } }),
    );
    expect(creates(step(r.plan, 'adopt-resource-group'))[0].spec).toEqual({
      azureName: 'RG_Adopt',
      location: 'westeurope',
      tags: { owner: 'platform' },
    });
    const [mc] = creates(step(r.plan, 'adopt-managed-cluster'));
    expect(mc.spec?.tags).toEqual({ env: 'prod', 'cost-center': '42' });
    const { name: _n, ...fields } = pool;
    expect((mc.spec?.agentPoolProfiles as any[])[1]).toEqual({
      name: 'gpu',
      ...fields,
    });
    const [, ap] = creates(step(r.plan, 'adopt-agent-pools'));
    expect(ap.spec).toEqual({
      azureName: 'gpu',
      owner: { name: 'aks-adopt' },
      type: 'VirtualMachineScaleSets',
      ...fields,
    });
  });

  it('Entra-only: disableLocalAccounts, aadProfile and userCredentials <name>-user-kubeconfig', () => {
    const aks = aksCluster({
      entraOnly: true,
      aadProfile: {
        managed: true,
        enableAzureRBAC: true,
        adminGroupObjectIDs: ['g1'],
      },
    });
    const [mc] = creates(
      step(
        planAdoption(params, snapshot({ aks })).plan,
        'adopt-managed-cluster',
      ),
    );
    expect(mc.spec).toMatchObject({
      disableLocalAccounts: true,
      aadProfile: {
        managed: true,
        enableAzureRBAC: true,
        adminGroupObjectIDs: ['g1'],
      },
      operatorSpec: {
        secrets: {
          userCredentials: { name: 'aks-adopt-user-kubeconfig', key: 'value' },
        },
      },
    });
    expect(
      (mc.spec as any).operatorSpec.secrets.adminCredentials,
    ).toBeUndefined();
    // Not Entra-only: CAPZ defaults adminCredentials; nothing written.
    const [plain] = creates(
      step(planAdoption(params, snapshot()).plan, 'adopt-managed-cluster'),
    );
    expect((plain.spec as any).operatorSpec).toBeUndefined();
    expect((plain.spec as any).disableLocalAccounts).toBeUndefined();
  });

  it('creates one annotated agent pool per Azure pool, named <cluster>-<pool>, autoscaling kept', () => {
    const s = step(planAdoption(params, snapshot()).plan, 'adopt-agent-pools');
    const pools = creates(s);
    expect(pools.map(p => p.metadata.name)).toEqual([
      'aks-adopt-system',
      'aks-adopt-apps',
    ]);
    expect(pools[1].spec).toEqual({
      azureName: 'apps',
      owner: { name: 'aks-adopt' },
      type: 'VirtualMachineScaleSets',
      mode: 'User',
      vmSize: 'Standard_D4s_v3',
      count: 1,
      enableAutoScaling: true,
      minCount: 1,
      maxCount: 5,
    });
    expect(pools[0].spec).not.toHaveProperty('enableAutoScaling');
    expect(pools[1].metadata.annotations).toEqual({
      ...credential,
      ...adopt,
      'capz.io/job': JOB_ID_PLACEHOLDER,
    });
    // Gated on the control plane controlling the ManagedCluster and being labelled
    // (docs/capz-aso-facts.md#adopt-agent-pool).
    const [controlled, labelled] = s.preconditions;
    const mc = {
      metadata: {
        name: 'aks-adopt',
        ownerReferences: [
          {
            apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
            kind: 'AzureASOManagedControlPlane',
            name: 'aks-adopt',
            controller: true,
          },
        ],
      },
    };
    expect(evaluateObjectCondition(controlled, mc).holds).toBe(true);
    expect(
      evaluateObjectCondition(labelled, { metadata: { name: 'aks-adopt' } })
        .holds,
    ).toBe(false);
    expect(
      evaluateObjectCondition(labelled, {
        metadata: {
          name: 'aks-adopt',
          labels: { 'cluster.x-k8s.io/cluster-name': 'aks-adopt' },
        },
      }).holds,
    ).toBe(true);
  });

  it('reuses an existing ResourceGroup object for the same Azure group instead of creating one', () => {
    const existing = {
      apiVersion: 'resources.azure.com/v1api20200601',
      kind: 'ResourceGroup',
      metadata: { name: 'shared-rg', namespace: 'adopt' },
      spec: { azureName: 'rg_adopt', location: 'westeurope' },
    };
    const r = planAdoption(params, snapshot({ objects: [existing] }));
    expect(failed(r)).toEqual([]);
    const s = step(r.plan, 'adopt-resource-group');
    expect(s.actions).toEqual([]);
    expect(s.waitFor).toEqual([
      expect.objectContaining({
        type: 'ready',
        ref: expect.objectContaining({ name: 'shared-rg' }),
      }),
    ]);
    const [mc] = creates(step(r.plan, 'adopt-managed-cluster'));
    expect((mc.spec as any).owner).toEqual({ name: 'shared-rg' });
  });
});
