import {
  allow,
  asoManagedCluster,
  legacySnapshotObjects,
} from '../__fixtures__/snapshots';
import { failed, params, snapshot } from '../__fixtures__/upgrade';
import { planApiVersionUpgrade, requiredUpgradeAccess } from '.';

describe('planApiVersionUpgrade', () => {
  describe('refuses', () => {
    it('a cluster already on v1beta1: nothing to upgrade', () => {
      const { cluster, objects } = asoManagedCluster({ name: 'alpha-1' });
      const r = planApiVersionUpgrade(params, {
        cluster,
        objects,
        access: allow(requiredUpgradeAccess(params)),
      });
      expect(failed(r)).toEqual(['api']);
      expect(r.preflight.find(c => c.id === 'api')!.message).toMatch(
        /^Nothing to upgrade/,
      );
      // A failed preflight reads "<title>: <message>" (the backend's 422): the title must not say the opposite.
      const { title, message } = r.preflight.find(c => c.id === 'api')!;
      expect(`${title}: ${message}`).toBe(
        'The AzureASOManaged API version the cluster uses: Nothing to upgrade: Cluster alpha-1 and its AzureASOManaged objects already use infrastructure.cluster.x-k8s.io/v1beta1.',
      );
      expect(r.plan).toEqual([]);
    });

    it('a legacy cluster', () => {
      const { cluster, objects } = legacySnapshotObjects({
        name: 'alpha-1',
        namespace: 'team-a',
      });
      const r = planApiVersionUpgrade(params, {
        cluster,
        objects,
        access: allow(requiredUpgradeAccess(params)),
      });
      expect(r.preflight.find(c => c.id === 'api')).toMatchObject({
        status: 'fail',
        fix: expect.stringMatching(/Migrate/),
      });
    });

    it('a missing cluster', () => {
      expect(
        failed(planApiVersionUpgrade(params, { objects: [], access: [] })),
      ).toEqual(['cluster', 'access']);
    });

    it('objects that can only be read at v1alpha1 (CAPZ not upgraded)', () => {
      const { cluster, objects } = asoManagedCluster({
        name: 'alpha-1',
        capzVersion: 'v1alpha1',
      });
      const r = planApiVersionUpgrade(params, {
        cluster,
        objects,
        access: allow(requiredUpgradeAccess(params)),
      });
      expect(failed(r)).toContain('v1beta1-served');
    });

    it('managedFields without fieldsV1 (read from a cache that strips them)', () => {
      const snap = snapshot();
      for (const o of snap.objects)
        for (const e of (o.metadata.managedFields ?? []) as any[])
          delete e.fieldsV1;
      expect(failed(planApiVersionUpgrade(params, snap))).toEqual([
        'managed-fields',
      ]);
    });
  });
});
