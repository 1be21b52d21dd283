import { allow, asoManagedCluster, find } from '../__fixtures__/snapshots';
import { failed, params, snapshot, step } from '../__fixtures__/migration';
import { planMigration, requiredMigrationAccess } from '.';

describe('planMigration', () => {
  describe('refuses', () => {
    it('a missing cluster, with no plan', () => {
      const r = planMigration(
        { ...params, name: 'nope' },
        { ...snapshot(), cluster: undefined },
      );
      expect(failed(r)).toEqual(['cluster']);
      expect(r.plan).toEqual([]);
    });

    it('a cluster on the ASO API', () => {
      const { cluster, objects } = asoManagedCluster({
        name: 'aso-1',
        namespace: 'team-legacy',
      });
      const r = planMigration(
        { ...params, name: 'aso-1' },
        { ...snapshot(), cluster, objects },
      );
      expect(r.preflight.find(c => c.id === 'cluster')).toMatchObject({
        status: 'fail',
        message: expect.stringContaining('AzureASOManaged'),
      });
      expect(r.plan).toEqual([]);
    });

    it.each([
      [
        'an existing target namespace',
        { targetNamespaceExists: true },
        params,
        /already exists/,
      ],
      [
        'the source namespace as target',
        {},
        { ...params, targetNamespace: 'team-legacy' },
        /must differ/,
      ],
      [
        'an invalid target namespace',
        {},
        { ...params, targetNamespace: 'Team_New' },
        /contains "T", "_".*no uppercase/,
      ],
      [
        'a too long target namespace',
        {},
        { ...params, targetNamespace: 'x'.repeat(64) },
        /64 characters long; at most 63/,
      ],
    ])('%s', (_what, over, p, message) => {
      const r = planMigration(p, { ...snapshot({}, p), ...over });
      expect(failed(r)).toEqual(['target-namespace']);
      expect(r.preflight.find(c => c.id === 'target-namespace')).toMatchObject({
        message: expect.stringMatching(message),
        fix: expect.any(String),
      });
    });

    it('an unhealthy pool, naming it and its reason', () => {
      const snap = snapshot();
      const ammp = find(
        snap.objects,
        'AzureManagedMachinePool',
        'legacy-1-pool1',
      );
      ammp.status.conditions = [
        {
          type: 'Ready',
          status: 'False',
          severity: 'Warning',
          reason: 'Failed',
          message: 'quota exceeded',
        },
      ];
      const r = planMigration(params, snap);
      expect(failed(r)).toEqual(['healthy']);
      expect(r.preflight.find(c => c.id === 'healthy')!.message).toContain(
        'AzureManagedMachinePool legacy-1-pool1 (Ready=False, Failed: quota exceeded)',
      );
    });

    it('a cluster that is not Available, and an ASO object that is not Ready', () => {
      const snap = snapshot();
      snap.cluster!.status!.conditions = [
        { type: 'Available', status: 'False', reason: 'NotAvailable' },
      ];
      find(snap.objects, 'ManagedCluster', 'legacy-1').status.conditions = [
        { type: 'Ready', status: 'False', reason: 'Reconciling' },
      ];
      const msg = planMigration(params, snap).preflight.find(
        c => c.id === 'healthy',
      )!.message;
      expect(msg).toContain(
        'Cluster legacy-1 is not Available (False, NotAvailable)',
      );
      expect(msg).toContain(
        'ManagedCluster legacy-1 (Ready=False, Reconciling)',
      );
    });

    it('a pool being deleted', () => {
      const snap = snapshot();
      find(
        snap.objects,
        'AzureManagedMachinePool',
        'legacy-1-pool0',
      ).metadata.deletionTimestamp = '2026-11-21T11:00:00Z';
      const r = planMigration(params, snap);
      expect(failed(r)).toEqual(['not-deleting']);
      expect(r.preflight.find(c => c.id === 'not-deleting')!.message).toContain(
        'AzureManagedMachinePool legacy-1-pool0',
      );
    });

    it('a ManagedCluster without status.agentPoolProfiles', () => {
      const snap = snapshot();
      delete find(snap.objects, 'ManagedCluster', 'legacy-1').status
        .agentPoolProfiles;
      expect(failed(planMigration(params, snap))).toEqual([
        'agent-pool-profiles',
      ]);
    });

    it('a missing credential Secret', () => {
      const r = planMigration(params, {
        ...snapshot(),
        credentialSecretExists: false,
      });
      expect(failed(r)).toEqual(['credential-secret']);
      expect(
        r.preflight.find(c => c.id === 'credential-secret')!.message,
      ).toContain('team-legacy/legacy-1-aso-secret');
    });

    it('missing permissions, listing each', () => {
      const snap = snapshot();
      snap.access = snap.access.map(a =>
        (a.verb === 'create' && a.resource === 'managedclusters') ||
        (a.verb === 'delete' && a.resource === 'clusters')
          ? { ...a, allowed: false }
          : a,
      );
      const r = planMigration(params, snap);
      expect(failed(r)).toEqual(['access']);
      const msg = r.preflight.find(c => c.id === 'access')!.message;
      expect(msg).toContain(
        'create managedclusters.containerservice.azure.com in team-legacy-aso (for adopt-managed-cluster)',
      );
      expect(msg).toContain(
        'delete clusters.cluster.x-k8s.io in team-legacy (for delete-old)',
      );
      expect(msg).toMatch(/lacks 2 permission/);
    });

    it('unanswered permissions as missing', () => {
      expect(
        failed(planMigration(params, { ...snapshot(), access: [] })),
      ).toEqual(['access']);
    });
  });

  it("warns when the new Cluster takes another name (the ManagedCluster's, after the control plane)", () => {
    const snap = snapshot();
    // A Cluster "prod" whose control plane is legacy-1: the legacy ManagedCluster, and so the new Cluster, is legacy-1.
    snap.cluster!.metadata!.name = 'prod';
    for (const mp of snap.objects.filter(o => o.kind === 'MachinePool'))
      mp.spec.clusterName = 'prod';
    const p = { ...params, name: 'prod' };
    const r = planMigration(p, {
      ...snap,
      access: allow(requiredMigrationAccess(p)),
    });
    expect(failed(r)).toEqual([]);
    expect(r.preflight.find(c => c.id === 'new-name')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('named legacy-1'),
    });
    expect(r.result?.cluster?.name).toBe('legacy-1');
    expect(step(r.plan, 'pause').actions[0]).toMatchObject({
      ref: { name: 'prod' },
    });
  });
});
