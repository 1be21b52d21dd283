/** The three legacy controllers: what each watches (and which objects a watched change maps to), and its reconcile. */
import type { AzureWorld } from '../../azure/model.ts';
import type { Cache } from '../../runtime/cache.ts';
import { Controller, keyOf } from '../../runtime/controller.ts';
import type { Kube } from '../../runtime/kube.ts';
import { controllerOf, label } from '../../runtime/meta.ts';
import type { Obj } from '../../runtime/types.ts';
import { CLUSTER_NAME } from '../asoManaged.ts';
import { reconcileCluster } from './azureManagedCluster.ts';
import type { LegacyContext, LegacyIdentity } from './context.ts';
import { reconcileControlPlane } from './controlPlane.ts';
import { reconcileMachinePool } from './machinePool.ts';

export class LegacyControllers {
  readonly controllers: Controller[];
  private readonly ctx: LegacyContext;

  constructor(
    kube: Kube,
    cache: Cache,
    identity: LegacyIdentity,
    world: AzureWorld,
    log: (m: string) => void,
  ) {
    this.ctx = {
      kube,
      cache,
      identity,
      world,
      deleteNotBefore: new Map<string, number>(),
    };
    const ownedBy = (kind: string) => (o: Obj) => {
      const c = controllerOf(o);
      return c?.kind === kind ? [`${o.metadata.namespace}/${c.name}`] : [];
    };
    const sameCluster =
      (
        kind:
          | 'AzureManagedControlPlane'
          | 'AzureManagedMachinePool'
          | 'AzureManagedCluster',
      ) =>
      (o: Obj) =>
        cache
          .list(kind, o.metadata.namespace)
          .filter(
            x =>
              label(x, CLUSTER_NAME) &&
              label(x, CLUSTER_NAME) ===
                (o.kind === 'Cluster'
                  ? o.metadata.name
                  : label(o, CLUSTER_NAME)),
          )
          .map(keyOf);
    this.controllers = [
      new Controller(
        {
          name: 'capz-legacy-controlplane',
          kind: 'AzureManagedControlPlane',
          watches: [
            { kind: 'ResourceGroup', map: ownedBy('AzureManagedControlPlane') },
            {
              kind: 'ManagedCluster',
              map: ownedBy('AzureManagedControlPlane'),
            },
            {
              kind: 'VirtualNetwork',
              map: ownedBy('AzureManagedControlPlane'),
            },
            {
              kind: 'VirtualNetworksSubnet',
              map: ownedBy('AzureManagedControlPlane'),
            },
            { kind: 'Cluster', map: sameCluster('AzureManagedControlPlane') },
            {
              kind: 'AzureManagedMachinePool',
              map: sameCluster('AzureManagedControlPlane'),
            },
            {
              kind: 'MachinePool',
              map: sameCluster('AzureManagedControlPlane'),
            },
            {
              kind: 'Secret',
              map: o =>
                cache
                  .list('AzureManagedControlPlane', o.metadata.namespace)
                  .map(keyOf),
            },
          ],
          reconcile: k => reconcileControlPlane(this.ctx, k),
        },
        cache,
        log,
      ),
      new Controller(
        {
          name: 'capz-legacy-machinepool',
          kind: 'AzureManagedMachinePool',
          watches: [
            {
              kind: 'ManagedClustersAgentPool',
              map: ownedBy('AzureManagedMachinePool'),
            },
            { kind: 'Cluster', map: sameCluster('AzureManagedMachinePool') },
            {
              kind: 'ManagedCluster',
              map: o =>
                cache
                  .list('AzureManagedMachinePool', o.metadata.namespace)
                  .map(keyOf),
            },
            {
              kind: 'MachinePool',
              map: o =>
                cache
                  .list('AzureManagedMachinePool', o.metadata.namespace)
                  .filter(
                    x =>
                      x.metadata.name ===
                      o.spec?.template?.spec?.infrastructureRef?.name,
                  )
                  .map(keyOf),
            },
          ],
          reconcile: k => reconcileMachinePool(this.ctx, k),
        },
        cache,
        log,
      ),
      new Controller(
        {
          name: 'capz-legacy-cluster',
          kind: 'AzureManagedCluster',
          watches: [
            {
              kind: 'AzureManagedControlPlane',
              map: sameCluster('AzureManagedCluster'),
            },
            { kind: 'Cluster', map: sameCluster('AzureManagedCluster') },
          ],
          reconcile: k => reconcileCluster(this.ctx, k),
        },
        cache,
        log,
      ),
    ];
  }
}
