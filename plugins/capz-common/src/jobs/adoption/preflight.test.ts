import { asoManagedCluster } from '../__fixtures__/snapshots';
import {
  aksCluster,
  creates,
  failed,
  params,
  snapshot,
  step,
} from '../__fixtures__/adoption';
import { planAdoption } from '.';

describe('planAdoption', () => {
  describe('refuses', () => {
    it('a missing namespace, saying to create it and the Secret', () => {
      const r = planAdoption(
        params,
        snapshot({ namespaceExists: false, credentialSecretExists: false }),
      );
      expect(failed(r)).toEqual(['namespace', 'credential-secret']);
      expect(r.preflight[0].fix).toMatch(
        /Create namespace adopt and the ASO credential Secret aso-credential/,
      );
    });

    it('an AKS cluster that is not found, with no plan', () => {
      const r = planAdoption(params, snapshot({ aks: undefined }));
      expect(failed(r)).toEqual(['aks-cluster']);
      expect(r.plan).toEqual([]);
    });

    it('an AKS cluster that is not Succeeded', () => {
      const r = planAdoption(
        params,
        snapshot({ aks: aksCluster({ provisioningState: 'Updating' }) }),
      );
      expect(failed(r)).toEqual(['aks-cluster']);
      expect(r.preflight.find(c => c.id === 'aks-cluster')!.message).toMatch(
        /is Updating, not Succeeded/,
      );
    });

    it('a cluster already managed from this management cluster', () => {
      const r = planAdoption(
        params,
        snapshot({
          aks: aksCluster({
            managedBy: {
              namespace: 'team-a',
              name: 'aks-adopt',
              cluster: 'aks-adopt',
            },
          }),
        }),
      );
      expect(failed(r)).toEqual(['not-managed']);
      expect(r.preflight.find(c => c.id === 'not-managed')!.message).toContain(
        'ManagedCluster team-a/aks-adopt (Cluster aks-adopt)',
      );
    });

    it('a user-assigned identity, which the plan would switch to SystemAssigned', () => {
      expect(
        failed(
          planAdoption(
            params,
            snapshot({ aks: aksCluster({ identityType: 'UserAssigned' }) }),
          ),
        ),
      ).toEqual(['identity']);
    });

    it('a cluster name that normalises to no valid object name', () => {
      const p = { ...params, clusterName: `${'x'.repeat(70)}` };
      const r = planAdoption(
        p,
        snapshot({ aks: aksCluster({ name: p.clusterName }) }, p),
      );
      expect(failed(r)).toEqual(['names']);
      expect(r.preflight.find(c => c.id === 'names')!.message).toMatch(
        /cluster object name .* 70 characters long/,
      );
    });

    it('objects of the same names already in the namespace', () => {
      const { objects } = asoManagedCluster({
        name: 'aks-adopt',
        namespace: 'adopt',
        pools: [{ name: 'apps' }],
      });
      const r = planAdoption(params, snapshot({ objects }));
      expect(failed(r)).toEqual(['no-conflicts']);
      const msg = r.preflight.find(c => c.id === 'no-conflicts')!.message;
      for (const what of [
        'Cluster aks-adopt',
        'AzureASOManagedControlPlane aks-adopt',
        'ManagedCluster aks-adopt',
        'MachinePool aks-adopt-apps',
        'ManagedClustersAgentPool aks-adopt-apps',
      ]) {
        expect(msg).toContain(what);
      }
    });

    it('a ResourceGroup object of the normalised name that points elsewhere', () => {
      const other = {
        apiVersion: 'resources.azure.com/v1api20200601',
        kind: 'ResourceGroup',
        metadata: { name: 'rg-adopt' },
        spec: { azureName: 'rg-something-else' },
      };
      const r = planAdoption(params, snapshot({ objects: [other] }));
      expect(failed(r)).toEqual(['no-conflicts']);
      expect(r.preflight.find(c => c.id === 'no-conflicts')!.message).toContain(
        'ResourceGroup rg-adopt (azureName rg-something-else)',
      );
    });

    it('missing permissions', () => {
      const snap = snapshot();
      snap.access = snap.access.map(a =>
        a.resource === 'managedclustersagentpools' && a.verb === 'create'
          ? { ...a, allowed: false }
          : a,
      );
      const r = planAdoption(params, snap);
      expect(failed(r)).toEqual(['access']);
      expect(r.preflight.find(c => c.id === 'access')!.message).toContain(
        'create managedclustersagentpools.containerservice.azure.com in adopt (for adopt-agent-pools)',
      );
    });
  });

  it('warns when the resource group location is unknown and uses the cluster location', () => {
    const r = planAdoption(
      params,
      snapshot({
        resourceGroupLocation: undefined,
        aks: aksCluster({ location: 'northeurope' }),
      }),
    );
    expect(
      r.preflight.find(c => c.id === 'resource-group-location')?.status,
    ).toBe('warn');
    expect(
      (creates(step(r.plan, 'adopt-resource-group'))[0].spec as any).location,
    ).toBe('northeurope');
  });
});
