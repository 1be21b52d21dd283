import { clusterOf, edit, world } from './__fixtures__/cluster';
import { computeDeletePreview } from './deleteImpact';
import type { ObservedObject } from '../objects/types';

const preview = (
  objects: ObservedObject[],
  elsewhere: Parameters<typeof computeDeletePreview>[3] = [],
) => computeDeletePreview('mc', clusterOf(objects), objects, elsewhere);
const names = (l: { azureType: string; azureName: string }[]) =>
  l.map(x => `${x.azureType.split('/').pop()}:${x.azureName}`);

describe('delete preview', () => {
  it('a manage cluster: the group, the AKS cluster and each agent pool are deleted', () => {
    const p = preview(world());
    expect(names(p.deletes)).toEqual([
      'resourceGroups:alpha',
      'managedClusters:alpha',
      'agentPools:system',
      'agentPools:user',
    ]);
    expect(p.keeps).toEqual([]);
    expect(p.blockers).toEqual([]);
    expect(p.deletes[0].armId).toBe(
      '/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/alpha',
    );
  });

  it('skip on the group and the AKS cluster (both named alpha) keeps them; manage agent pools still go', () => {
    const p = preview(world({ policies: { alpha: 'skip' } }));
    expect(names(p.keeps)).toEqual([
      'resourceGroups:alpha',
      'managedClusters:alpha',
    ]);
    expect(names(p.deletes)).toEqual(['agentPools:system', 'agentPools:user']);
    expect(p.deletes[0].reason).toMatch(/reconcile-policy is manage/);
  });

  it('everything skip (an adopted cluster): Azure keeps all of it, each with its reason', () => {
    const p = preview(
      world({
        policies: {
          alpha: 'skip',
          'alpha-system': 'skip',
          'alpha-user': 'skip',
        },
      }),
    );
    expect(p.deletes).toEqual([]);
    expect(p.keeps.map(k => k.reason)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /reconcile-policy is skip: ASO lets the object go/,
        ),
      ]),
    );
  });

  it('a manage group deletes a skip AKS cluster inside it, saying so', () => {
    let objects = world();
    objects = edit(objects, 'ManagedCluster', 'alpha', o => {
      o.metadata!.annotations!['serviceoperator.azure.com/reconcile-policy'] =
        'skip';
    });
    const p = preview(objects);
    const mc = p.deletes.find(d => d.azureType.endsWith('managedClusters'));
    expect(mc?.reason).toMatch(
      /in resource group alpha, which Azure deletes with everything in it/,
    );
  });

  it('a group not owned by the cluster stays, with its reason', () => {
    const objects = edit(
      edit(world(), 'AzureASOManagedCluster', 'alpha', o => {
        o.spec!.resources = [];
      }),
      'ResourceGroup',
      'alpha',
      o => {
        o.metadata!.ownerReferences = [];
      },
    );
    const p = preview(objects);
    expect(names(p.keeps)).toEqual(['resourceGroups:alpha']);
    expect(p.keeps[0].reason).toMatch(/not deleted with the cluster/);
    expect(names(p.deletes)).toEqual([
      'managedClusters:alpha',
      'agentPools:system',
      'agentPools:user',
    ]);
  });

  it('names an object elsewhere that still manages a kept group', () => {
    const other: ObservedObject = {
      kind: 'ResourceGroup',
      metadata: { name: 'alpha', namespace: 'other' },
      spec: { location: 'westeurope' },
    };
    const p = preview(world({ policies: { alpha: 'skip' } }), [
      { place: 'mc/other', object: other },
    ]);
    expect(p.keeps[0].reason).toMatch(
      /still managed from ResourceGroup mc\/other\/alpha \(reconcile-policy manage\)/,
    );
  });

  it('blocks the delete while a claimed System pool has lost its ManagedCluster owner reference (C51), with the patch', () => {
    const claimed = (o: ObservedObject) => {
      (o.metadata as { finalizers?: string[] }).finalizers = [
        'serviceoperator.azure.com/finalizer',
      ];
    };
    const dropMc = (o: ObservedObject) => {
      o.metadata!.ownerReferences = o.metadata!.ownerReferences!.filter(
        r => r.kind !== 'ManagedCluster',
      );
    };
    let objects = edit(
      world(),
      'ManagedClustersAgentPool',
      'alpha-system',
      claimed,
    );
    expect(preview(objects).blockers).toEqual([]);
    objects = edit(objects, 'ManagedClustersAgentPool', 'alpha-system', dropMc);
    const [blocker, ...more] = preview(objects).blockers;
    expect(more).toEqual([]);
    expect(blocker).toMatch(
      /^ManagedClustersAgentPool team-a\/alpha-system has lost its owner reference to ManagedCluster alpha .*AKS refuses to delete the last System pool/,
    );
    const patch = JSON.parse(/--type json -p '(.*)'$/.exec(blocker)![1]);
    expect(patch).toEqual([
      {
        op: 'add',
        path: '/metadata/ownerReferences/-',
        value: {
          apiVersion: expect.stringMatching(/^containerservice\.azure\.com\//),
          kind: 'ManagedCluster',
          name: 'alpha',
          uid: 'uid-ManagedCluster-alpha',
        },
      },
    ]);
    // Not claimed by ASO (no finalizer: nothing in Azure to delete), or a User pool (deleted in Azure on its own,
    // as the cluster would): no blocker.
    const unclaimed = edit(
      world(),
      'ManagedClustersAgentPool',
      'alpha-system',
      dropMc,
    );
    expect(preview(unclaimed).blockers).toEqual([]);
    const user = edit(
      edit(world(), 'ManagedClustersAgentPool', 'alpha-user', claimed),
      'ManagedClustersAgentPool',
      'alpha-user',
      dropMc,
    );
    expect(preview(user).blockers).toEqual([]);
  });

  it('blocks the delete of a paused cluster', () => {
    expect(preview(world({ paused: true })).blockers[0]).toMatch(
      /is paused: CAPI does not reconcile/,
    );
  });

  it('blocks the delete of a cluster one of whose objects Flux applies (it would be created again)', () => {
    const p = preview(
      edit(world(), 'MachinePool', 'alpha-user', o => {
        o.metadata!.labels = {
          ...o.metadata!.labels,
          'kustomize.toolkit.fluxcd.io/name': 'clusters',
          'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
          // The live opt-out does not stop Flux creating a deleted object again from Git.
          'kustomize.toolkit.fluxcd.io/reconcile': 'disabled',
        };
      }),
    );
    expect(p.blockers).toEqual([
      "Flux's Kustomization flux-system/clusters applies MachinePool team-a/alpha-user: it would create it again at its next reconcile; remove it from Git instead.",
    ]);
  });
});
