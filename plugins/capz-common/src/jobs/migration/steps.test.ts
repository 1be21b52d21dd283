import { evaluateObjectCondition } from '../conditions';
import type { KubeObject } from '../../manifests/aksAsoCluster';
import type { ObservedObject } from '../../objects/types';
import { JOB_ID_PLACEHOLDER, type PlannedCondition } from '../types';
import { find, mergePatch, SUB } from '../__fixtures__/snapshots';
import {
  creates,
  failed,
  params,
  POLICY,
  snapshot,
  step,
} from '../__fixtures__/migration';
import { planMigration } from '.';

describe('planMigration', () => {
  it('plans the documented procedure, in order, when every check passes', () => {
    const r = planMigration(params, snapshot());
    expect(failed(r)).toEqual([]);
    expect(r.preflight.map(c => c.id)).toEqual([
      'target-namespace',
      'cluster',
      'healthy',
      'not-deleting',
      'gitops',
      'names',
      'agent-pool-profiles',
      'credential-secret',
      'subscription',
      'access',
    ]);
    expect(r.plan.map(s => s.id)).toEqual([
      'pause',
      'wait-block-move',
      'disarm',
      'create-namespace',
      'copy-credential-secret',
      'adopt-resource-group',
      'adopt-managed-cluster',
      'adopt-agent-pools',
      'wait-available',
      'delete-old',
      'verify',
    ]);
    expect(r.target).toEqual({
      managementCluster: 'mgmt',
      namespace: 'team-legacy',
      name: 'legacy-1',
    });
    expect(r.result?.cluster).toEqual({
      managementCluster: 'mgmt',
      namespace: 'team-legacy-aso',
      name: 'legacy-1',
    });
    for (const s of r.plan) {
      expect(s.description).toMatch(
        /docs\/(migration-procedure|capz-aso-facts)\.md#/,
      );
      for (const c of [...s.preconditions, ...s.waitFor])
        expect(c.description.length).toBeGreaterThan(5);
      for (const a of s.actions)
        expect(a.description.length).toBeGreaterThan(5);
    }
    expect(step(r.plan, 'adopt-managed-cluster').timeoutSeconds).toBe(900);
    expect(step(r.plan, 'wait-available').timeoutSeconds).toBe(900);
  });

  it('pauses the Cluster with a merge patch at v1beta2 and waits for spec.paused', () => {
    const s = step(planMigration(params, snapshot()).plan, 'pause');
    expect(s.actions).toEqual([
      expect.objectContaining({
        action: 'merge-patch',
        ref: {
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          namespace: 'team-legacy',
          name: 'legacy-1',
        },
        patch: { spec: { paused: true } },
      }),
    ]);
    expect(s.waitFor).toEqual([
      expect.objectContaining({
        type: 'field',
        path: ['spec', 'paused'],
        value: true,
      }),
    ]);
  });

  it('waits for block-move to go from the control plane and every machine pool, and for skip on the old ASO objects', () => {
    const s = step(planMigration(params, snapshot()).plan, 'wait-block-move');
    const blockMove = s.waitFor.filter(
      c =>
        c.type === 'annotation' &&
        c.annotation === 'clusterctl.cluster.x-k8s.io/block-move',
    );
    expect(
      blockMove.map(c => [
        c.type === 'annotation' && c.ref.kind,
        c.type === 'annotation' && c.ref.name,
        c.type === 'annotation' && c.value,
      ]),
    ).toEqual([
      ['AzureManagedControlPlane', 'legacy-1', null],
      ['AzureManagedMachinePool', 'legacy-1-pool0', null],
      ['AzureManagedMachinePool', 'legacy-1-pool1', null],
    ]);
    const skip = s.waitFor.filter(
      c => c.type === 'annotation' && c.annotation === POLICY,
    );
    expect(
      skip.map(c =>
        c.type === 'annotation' ? `${c.ref.kind}/${c.ref.name}=${c.value}` : '',
      ),
    ).toEqual([
      'ManagedClustersAgentPool/legacy-1-pool0=skip',
      'ManagedClustersAgentPool/legacy-1-pool1=skip',
      'ManagedCluster/legacy-1=skip',
      'ResourceGroup/rg-legacy-1=skip',
    ]);
  });

  it('disarms agent pools, ManagedCluster and ResourceGroup with the documented patch, and the patch makes its waits hold', () => {
    const snap = snapshot();
    const s = step(planMigration(params, snap).plan, 'disarm');
    expect(
      s.actions.map(a =>
        a.action === 'merge-patch' ? `${a.ref.kind}/${a.ref.name}` : a.action,
      ),
    ).toEqual([
      'ManagedClustersAgentPool/legacy-1-pool0',
      'ManagedClustersAgentPool/legacy-1-pool1',
      'ManagedCluster/legacy-1',
      'ResourceGroup/rg-legacy-1',
    ]);
    for (const a of s.actions)
      expect(a).toMatchObject({
        action: 'merge-patch',
        patch: {
          metadata: { annotations: { [POLICY]: 'skip' }, finalizers: null },
        },
      });
    // The ASO objects are addressed at the version the cache holds them.
    expect(s.actions.map(a => (a as any).ref.apiVersion)).toEqual([
      'containerservice.azure.com/v1api20240901',
      'containerservice.azure.com/v1api20240901',
      'containerservice.azure.com/v1api20240901',
      'resources.azure.com/v1api20200601',
    ]);
    // Before: the waits do not hold (ASO finalizer, policy manage); after the patch: they do.
    const live = (kind: string, name: string) =>
      snap.objects.find(
        o => o.kind === kind && o.metadata.name === name,
      ) as ObservedObject;
    expect(
      s.waitFor.every(
        c =>
          evaluateObjectCondition(
            c,
            live((c as any).ref.kind, (c as any).ref.name),
          ).holds,
      ),
    ).toBe(false);
    const patched = new Map<string, ObservedObject>();
    for (const a of s.actions)
      if (a.action === 'merge-patch')
        patched.set(
          `${a.ref.kind}/${a.ref.name}`,
          mergePatch(live(a.ref.kind, a.ref.name), a.patch) as ObservedObject,
        );
    for (const c of s.waitFor) {
      const ref = (c as any).ref;
      expect(
        evaluateObjectCondition(c, patched.get(`${ref.kind}/${ref.name}`)),
      ).toMatchObject({ holds: true });
    }
  });

  it('creates the namespace and copies the credential Secret without owner references', () => {
    const plan = planMigration(params, snapshot()).plan;
    expect(creates(step(plan, 'create-namespace'))).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: 'team-legacy-aso',
          annotations: { 'capz.io/job': JOB_ID_PLACEHOLDER },
        },
      },
    ]);
    const copy = step(plan, 'copy-credential-secret');
    expect(copy.actions).toEqual([
      expect.objectContaining({
        action: 'copy-secret',
        from: {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'team-legacy',
          name: 'legacy-1-aso-secret',
        },
        to: {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'team-legacy-aso',
          name: 'legacy-1-aso-secret',
        },
      }),
    ]);
    const noOwners = copy.waitFor.find(c => c.type === 'field')!;
    expect(noOwners).toMatchObject({
      path: ['metadata', 'ownerReferences'],
      value: null,
      orAbsent: false,
    });
    expect(
      evaluateObjectCondition(noOwners, {
        metadata: {
          name: 'legacy-1-aso-secret',
          ownerReferences: [
            {
              kind: 'AzureManagedControlPlane',
              name: 'legacy-1',
              controller: true,
            },
          ],
        },
      }).holds,
    ).toBe(false);
    expect(
      evaluateObjectCondition(noOwners, {
        metadata: { name: 'legacy-1-aso-secret' },
      }).holds,
    ).toBe(true);
    expect(evaluateObjectCondition(noOwners, undefined).holds).toBe(false);
  });

  it('creates the ResourceGroup pointing at the existing group, with credential-from', () => {
    const s = step(
      planMigration(params, snapshot()).plan,
      'adopt-resource-group',
    );
    expect(creates(s)).toEqual([
      {
        apiVersion: 'resources.azure.com/v1api20200601',
        kind: 'ResourceGroup',
        metadata: {
          name: 'rg-legacy-1',
          namespace: 'team-legacy-aso',
          annotations: {
            'serviceoperator.azure.com/credential-from': 'legacy-1-aso-secret',
            'capz.io/job': JOB_ID_PLACEHOLDER,
          },
        },
        spec: { azureName: 'RG_legacy-1', location: 'westeurope' },
      },
    ]);
    expect(s.waitFor).toEqual([
      expect.objectContaining({
        type: 'ready',
        ref: expect.objectContaining({
          namespace: 'team-legacy-aso',
          name: 'rg-legacy-1',
        }),
      }),
    ]);
  });

  it('creates the ManagedCluster with agentPoolProfiles from the old status, owner the new group, and the adopt annotation', () => {
    const snap = snapshot();
    const s = step(planMigration(params, snap).plan, 'adopt-managed-cluster');
    const [mc] = creates(s) as KubeObject[];
    expect(mc.apiVersion).toBe('containerservice.azure.com/v1api20240901');
    expect(mc.metadata).toEqual({
      name: 'legacy-1',
      namespace: 'team-legacy-aso',
      annotations: {
        'serviceoperator.azure.com/credential-from': 'legacy-1-aso-secret',
        'sigs.k8s.io/cluster-api-provider-azure-adopt': 'true',
        'capz.io/job': JOB_ID_PLACEHOLDER,
      },
    });
    const spec = mc.spec as any;
    expect(
      find(snap.objects, 'ManagedCluster', 'legacy-1').spec.agentPoolProfiles,
    ).toBeUndefined();
    expect(spec.owner).toEqual({ name: 'rg-legacy-1' });
    expect(spec.agentPoolProfiles).toEqual([
      {
        name: 'pool0',
        type: 'VirtualMachineScaleSets',
        count: 2,
        vmSize: 'Standard_D2s_v3',
        mode: 'System',
        osType: 'Linux',
        orchestratorVersion: '1.32.5',
        enableAutoScaling: false,
        vnetSubnetReference: {
          armId: expect.stringContaining('/subnets/nodes'),
        },
      },
      {
        name: 'pool1',
        type: 'VirtualMachineScaleSets',
        count: 3,
        vmSize: 'Standard_D4s_v3',
        mode: 'User',
        osType: 'Linux',
        orchestratorVersion: '1.32.5',
        enableAutoScaling: true,
        minCount: 1,
        maxCount: 5,
        vnetSubnetReference: {
          armId: expect.stringContaining('/subnets/nodes'),
        },
      },
    ]);
    // The rest of the old spec is kept; the legacy adminCredentials name cannot clash with <name>-kubeconfig.
    expect(spec).toMatchObject({
      azureName: 'legacy-1',
      location: 'westeurope',
      kubernetesVersion: '1.32.5',
      dnsPrefix: 'legacy-1-dns',
      networkProfile: { serviceCidr: '10.0.0.0/16' },
    });
    expect(spec.operatorSpec).toEqual({
      secrets: {
        adminCredentials: { name: 'legacy-1-aso-kubeconfig', key: 'value' },
      },
    });
    expect(s.preconditions).toEqual([
      expect.objectContaining({
        type: 'ready',
        ref: expect.objectContaining({
          kind: 'ResourceGroup',
          name: 'rg-legacy-1',
        }),
      }),
    ]);
    expect(s.waitFor.map(c => `${c.type} ${(c as any).ref.kind}`)).toEqual([
      'ready ManagedCluster',
      'exists Cluster',
      'exists AzureASOManagedCluster',
      'exists AzureASOManagedControlPlane',
      'controlled-by ManagedCluster',
      'label AzureASOManagedControlPlane',
    ]);
    expect(s.waitFor[4]).toMatchObject({
      ownerKind: 'AzureASOManagedControlPlane',
      ownerName: 'legacy-1',
    });
    expect(s.waitFor[5]).toMatchObject({
      label: 'cluster.x-k8s.io/cluster-name',
      value: 'legacy-1',
    });
  });

  it('writes userCredentials <name>-user-kubeconfig and no adminCredentials for an Entra-only cluster', () => {
    const [mc] = creates(
      step(
        planMigration(params, snapshot({ entraOnly: true })).plan,
        'adopt-managed-cluster',
      ),
    );
    expect((mc.spec as any).operatorSpec).toEqual({
      secrets: {
        userCredentials: { name: 'legacy-1-user-kubeconfig', key: 'value' },
      },
    });
    expect((mc.spec as any).disableLocalAccounts).toBe(true);
    expect((mc.spec as any).aadProfile).toEqual({
      managed: true,
      enableAzureRBAC: true,
    });
  });

  it('creates one annotated agent pool per old pool, same name, spec kept with the new owner (autoscaling too)', () => {
    const s = step(planMigration(params, snapshot()).plan, 'adopt-agent-pools');
    const pools = creates(s);
    expect(pools.map(p => p.metadata.name)).toEqual([
      'legacy-1-pool0',
      'legacy-1-pool1',
    ]);
    expect(pools[1]).toEqual({
      apiVersion: 'containerservice.azure.com/v1api20240901',
      kind: 'ManagedClustersAgentPool',
      metadata: {
        name: 'legacy-1-pool1',
        namespace: 'team-legacy-aso',
        annotations: {
          'serviceoperator.azure.com/credential-from': 'legacy-1-aso-secret',
          'sigs.k8s.io/cluster-api-provider-azure-adopt': 'true',
          'capz.io/job': JOB_ID_PLACEHOLDER,
        },
      },
      spec: {
        azureName: 'pool1',
        owner: { name: 'legacy-1' },
        mode: 'User',
        vmSize: 'Standard_D4s_v3',
        count: 3,
        type: 'VirtualMachineScaleSets',
        orchestratorVersion: '1.32.5',
        osType: 'Linux',
        enableAutoScaling: true,
        minCount: 1,
        maxCount: 5,
      },
    });
    expect(s.preconditions.map(c => c.type)).toEqual([
      'controlled-by',
      'label',
    ]);
    expect(
      s.waitFor.map(
        c => `${c.type} ${(c as any).ref.kind} ${(c as any).ref.name}`,
      ),
    ).toEqual([
      'exists MachinePool legacy-1-pool0',
      'exists AzureASOManagedMachinePool legacy-1-pool0',
      'field AzureASOManagedMachinePool legacy-1-pool0',
      'exists MachinePool legacy-1-pool1',
      'exists AzureASOManagedMachinePool legacy-1-pool1',
      'field AzureASOManagedMachinePool legacy-1-pool1',
    ]);
    expect(s.waitFor[2]).toMatchObject({
      path: ['status', 'ready'],
      value: true,
    });
  });

  it('deletes the old objects, then clears finalizers in the documented order, only once the new cluster is Available', () => {
    const s = step(planMigration(params, snapshot()).plan, 'delete-old');
    expect(
      s.actions.map(
        a =>
          `${a.action} ${(a as any).ref.kind}/${(a as any).ref.name}${
            a.action === 'merge-patch' && a.ifExists ? ' ifExists' : ''
          }`,
      ),
    ).toEqual([
      // ASO re-adds its finalizer whatever the policy: removed once more right before the deletes
      // (docs/migration-procedure.md#step-3).
      'merge-patch ManagedClustersAgentPool/legacy-1-pool0 ifExists',
      'merge-patch ManagedClustersAgentPool/legacy-1-pool1 ifExists',
      'merge-patch ManagedCluster/legacy-1 ifExists',
      'merge-patch ResourceGroup/rg-legacy-1 ifExists',
      'delete Cluster/legacy-1',
      'delete AzureManagedCluster/legacy-1',
      'delete AzureManagedControlPlane/legacy-1',
      'delete MachinePool/legacy-1-pool0',
      'delete MachinePool/legacy-1-pool1',
      'delete AzureManagedMachinePool/legacy-1-pool0',
      'delete AzureManagedMachinePool/legacy-1-pool1',
      'merge-patch AzureManagedMachinePool/legacy-1-pool0 ifExists',
      'merge-patch AzureManagedMachinePool/legacy-1-pool1 ifExists',
      'merge-patch MachinePool/legacy-1-pool0 ifExists',
      'merge-patch MachinePool/legacy-1-pool1 ifExists',
      'merge-patch AzureManagedControlPlane/legacy-1 ifExists',
      'merge-patch Cluster/legacy-1 ifExists',
    ]);
    expect(
      s.actions
        .filter(a => a.action === 'merge-patch')
        .map(a => (a as any).patch),
    ).toEqual(Array(10).fill({ metadata: { finalizers: null } }));
    expect(s.preconditions[0]).toMatchObject({
      type: 'condition',
      condition: 'Available',
      status: 'True',
      ref: { namespace: 'team-legacy-aso', name: 'legacy-1' },
    });
    const asoGates = s.preconditions.slice(1);
    expect(asoGates).toHaveLength(4);
    for (const c of asoGates)
      expect(c).toMatchObject({
        type: 'annotation',
        annotation: POLICY,
        value: 'skip',
        orAbsent: true,
      });
    // Undisarmed old objects refuse the step; skip with ASO's finalizer back passes (real ASO re-adds it); gone ones pass.
    const mc = find(snapshot().objects, 'ManagedCluster', 'legacy-1');
    const [mcGate] = asoGates.filter(
      c => (c as any).ref.kind === 'ManagedCluster',
    );
    expect(evaluateObjectCondition(mcGate, mc).holds).toBe(false);
    const skippedWithFinalizer = mergePatch(mc, {
      metadata: {
        annotations: { [POLICY]: 'skip' },
        finalizers: ['serviceoperator.azure.com/finalizer'],
      },
    }) as ObservedObject;
    expect(evaluateObjectCondition(mcGate, skippedWithFinalizer).holds).toBe(
      true,
    );
    expect(evaluateObjectCondition(mcGate, undefined).holds).toBe(true);
  });

  it('disarm waits for skip only: ASO puts its finalizer back whatever the policy (generic_reconciler.go claimResource)', () => {
    const snap = snapshot();
    const s = step(planMigration(params, snap).plan, 'disarm');
    expect(s.waitFor.map(c => c.type)).toEqual([
      'annotation',
      'annotation',
      'annotation',
      'annotation',
    ]);
    const mc = find(snap.objects, 'ManagedCluster', 'legacy-1');
    const back = mergePatch(mc, {
      metadata: {
        annotations: { [POLICY]: 'skip' },
        finalizers: ['serviceoperator.azure.com/finalizer'],
      },
    }) as ObservedObject;
    const mcWait = s.waitFor.find(
      c => (c as any).ref.kind === 'ManagedCluster',
    )!;
    expect(evaluateObjectCondition(mcWait, back).holds).toBe(true);
  });

  it('the new objects keep the lifecycle the old ones had before the job: policies from the pre-pause annotation, else their own', () => {
    const snap = snapshot();
    const rg = find(snap.objects, 'ResourceGroup', 'rg-legacy-1');
    const pool1 = find(
      snap.objects,
      'ManagedClustersAgentPool',
      'legacy-1-pool1',
    );
    // A group CAPZ never owned (legacy CAPZ keeps it on skip), seen while the Cluster is already paused: CAPZ saved skip.
    (rg.metadata as any).annotations = {
      [POLICY]: 'skip',
      'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy':
        'skip',
    };
    // A pool whose own policy is manage, seen paused: the saved policy counts, not the pause's skip.
    (pool1.metadata as any).annotations = {
      [POLICY]: 'skip',
      'sigs.k8s.io/cluster-api-provider-azure-pre-pause-reconcile-policy':
        'manage',
    };
    const r = planMigration(params, snap);
    const [newRg] = creates(step(r.plan, 'adopt-resource-group'));
    expect(newRg.metadata.annotations?.[POLICY]).toBe('skip');
    const [newMc] = creates(step(r.plan, 'adopt-managed-cluster'));
    expect(newMc.metadata.annotations?.[POLICY]).toBeUndefined();
    expect(
      creates(step(r.plan, 'adopt-agent-pools')).map(
        p => p.metadata.annotations?.[POLICY],
      ),
    ).toEqual([undefined, undefined]);
    expect(r.facts?.reconcilePolicies).toBe(
      'ResourceGroup rg-legacy-1: skip, ManagedCluster legacy-1: manage, ManagedClustersAgentPool legacy-1-pool0: manage, ManagedClustersAgentPool legacy-1-pool1: manage',
    );
    // The group on skip is pinned in the new AzureASOManagedCluster's spec.resources; nothing else is on skip.
    const pin = step(r.plan, 'pin-reconcile-policies');
    expect(
      pin.actions.map(a =>
        a.action === 'set-embedded-annotation'
          ? `${a.ref.kind}/${a.ref.namespace}/${a.ref.name} ${a.resource.kind}/${a.resource.name} ${a.value}`
          : a.action,
      ),
    ).toEqual([
      'AzureASOManagedCluster/team-legacy-aso/legacy-1 ResourceGroup/rg-legacy-1 skip',
    ]);
    expect(r.plan.map(s => s.id).slice(-4)).toEqual([
      'pin-reconcile-policies',
      'wait-available',
      'delete-old',
      'verify',
    ]);
    // detach-on-delete is kept as it is, but cannot be pinned (CAPZ accepts only skip in spec.resources): a warning.
    (rg.metadata as any).annotations = { [POLICY]: 'detach-on-delete' };
    const detached = planMigration(params, snap);
    expect(
      creates(step(detached.plan, 'adopt-resource-group'))[0].metadata
        .annotations?.[POLICY],
    ).toBe('detach-on-delete');
    expect(detached.plan.map(s => s.id)).not.toContain(
      'pin-reconcile-policies',
    );
    expect(
      detached.preflight.find(c => c.id === 'detach-on-delete'),
    ).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(
        'ResourceGroup rg-legacy-1 is on detach-on-delete',
      ),
    });
  });

  it('keeps every Azure field: group and cluster tags (ARM replaces tags on PUT), names and azureNames', () => {
    const snap = snapshot();
    const rg = find(snap.objects, 'ResourceGroup', 'rg-legacy-1');
    const mc = find(snap.objects, 'ManagedCluster', 'legacy-1');
    // The group's tags are known only from ASO's status (CAPZ wrote none in its spec); the cluster's from its spec.
    Object.assign(rg.status ?? ((rg as any).status = {}), {
      tags: { 'cost-center': 'data', owner: 'data-team' },
    });
    mc.spec.tags = { env: 'prod' };
    // On a group the legacy controllers keep on skip, the spec's CAPZ tags never reached Azure: Azure's count.
    rg.spec.tags = {
      'sigs.k8s.io_cluster-api-provider-azure_cluster_legacy-1': 'owned',
      'sigs.k8s.io_cluster-api-provider-azure_role': 'common',
    };
    // A ManagedCluster whose Azure name differs from its object name.
    mc.spec.azureName = 'Legacy_AKS_1';
    const r = planMigration(params, snap);
    const [newRg] = creates(step(r.plan, 'adopt-resource-group'));
    expect(newRg.spec).toEqual({
      azureName: 'RG_legacy-1',
      location: 'westeurope',
      tags: { 'cost-center': 'data', owner: 'data-team' },
    });
    const [newMc] = creates(step(r.plan, 'adopt-managed-cluster'));
    expect(newMc.metadata.name).toBe('legacy-1');
    expect(newMc.spec).toMatchObject({
      azureName: 'Legacy_AKS_1',
      tags: { env: 'prod' },
    });
    const verify = step(r.plan, 'verify').waitFor.find(
      c => c.type === 'azure-cluster-exists',
    );
    expect(verify).toMatchObject({
      resourceGroup: 'RG_legacy-1',
      name: 'Legacy_AKS_1',
    });
    expect(step(r.plan, 'pause').preconditions[1]).toMatchObject({
      type: 'sole-manager',
      azure: {
        subscriptionId: SUB,
        resourceGroup: 'RG_legacy-1',
        name: 'Legacy_AKS_1',
      },
    });
  });

  it('checks one owner per AKS cluster right before its first write, the old objects excepted', () => {
    const s = step(planMigration(params, snapshot()).plan, 'pause');
    const sole = s.preconditions.find(
      c => c.type === 'sole-manager',
    ) as Extract<PlannedCondition, { type: 'sole-manager' }>;
    expect(sole.except.map(r => `${r.kind}/${r.namespace}/${r.name}`)).toEqual([
      'ManagedClustersAgentPool/team-legacy/legacy-1-pool0',
      'ManagedClustersAgentPool/team-legacy/legacy-1-pool1',
      'ManagedCluster/team-legacy/legacy-1',
      'ResourceGroup/team-legacy/rg-legacy-1',
    ]);
  });

  it('create-namespace accepts the namespace its own create left behind (a crash before the step was recorded)', () => {
    const s = step(planMigration(params, snapshot()).plan, 'create-namespace');
    expect(s.preconditions).toEqual([
      expect.objectContaining({ type: 'absent-or-ours' }),
    ]);
    const [ns] = creates(s);
    const ours = {
      ...ns,
      metadata: { ...ns.metadata, annotations: { 'capz.io/job': 'job-1' } },
    } as ObservedObject;
    expect(
      evaluateObjectCondition(s.preconditions[0], undefined, 'job-1').holds,
    ).toBe(true);
    expect(
      evaluateObjectCondition(s.preconditions[0], ours, 'job-1').holds,
    ).toBe(true);
    expect(
      evaluateObjectCondition(s.preconditions[0], ours, 'job-2').holds,
    ).toBe(false);
    expect(
      evaluateObjectCondition(
        s.preconditions[0],
        { metadata: { name: 'team-legacy-aso' } },
        'job-1',
      ),
    ).toEqual({
      holds: false,
      observed: 'Namespace team-legacy-aso: present, not created by a job',
    });
  });

  it('states what finished steps established, for a resumed job to re-check: still paused, still skip', () => {
    const plan = planMigration(params, snapshot()).plan;
    const pause = step(plan, 'pause').invariants!;
    expect(pause).toEqual([
      expect.objectContaining({
        type: 'field',
        path: ['spec', 'paused'],
        value: true,
        orAbsent: true,
      }),
    ]);
    const cluster = snapshot().cluster!;
    expect(
      evaluateObjectCondition(
        pause[0],
        mergePatch(cluster, { spec: { paused: false } }) as ObservedObject,
      ).holds,
    ).toBe(false);
    expect(evaluateObjectCondition(pause[0], undefined).holds).toBe(true);
    expect(
      step(plan, 'disarm').invariants!.map(c => (c as any).ref.kind),
    ).toEqual([
      'ManagedClustersAgentPool',
      'ManagedClustersAgentPool',
      'ManagedCluster',
      'ResourceGroup',
    ]);
    expect(
      step(plan, 'disarm').invariants!.every(
        c => c.type === 'annotation' && c.value === 'skip' && c.orAbsent,
      ),
    ).toBe(true);
  });

  it('verifies the old objects are gone and the AKS cluster remains, read with the copied credential', () => {
    const s = step(planMigration(params, snapshot()).plan, 'verify');
    const absent = s.waitFor
      .filter(c => c.type === 'absent')
      .map(c => `${(c as any).ref.kind}/${(c as any).ref.name}`);
    expect(absent).toEqual(
      expect.arrayContaining([
        'Cluster/legacy-1',
        'AzureManagedControlPlane/legacy-1',
        'ManagedCluster/legacy-1',
        'ResourceGroup/rg-legacy-1',
        'ManagedClustersAgentPool/legacy-1-pool1',
      ]),
    );
    expect(absent).toHaveLength(7 + 4);
    expect(s.waitFor.find(c => c.type === 'azure-cluster-exists')).toEqual(
      expect.objectContaining({
        subscriptionId: SUB,
        resourceGroup: 'RG_legacy-1',
        name: 'legacy-1',
        agentPools: ['pool0', 'pool1'],
        credential: {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'team-legacy-aso',
          name: 'legacy-1-aso-secret',
        },
      }),
    );
  });

  it('puts the placeholder job annotation on every object it creates', () => {
    const plan = planMigration(params, snapshot()).plan;
    const created = plan.flatMap(creates);
    expect(created).toHaveLength(1 + 1 + 1 + 2);
    for (const o of created)
      expect(o.metadata.annotations?.['capz.io/job']).toBe('${JOB_ID}');
  });
});
