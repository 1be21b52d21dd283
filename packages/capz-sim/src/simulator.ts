/**
 * The simulated world on a real management cluster: Azure (in process), the ASO controller, the CAPZ controllers
 * (adoption, AzureASOManaged*, legacy AzureManaged*) and the CAPI controllers, all talking to the real API server.
 * The plugins never import this; they see only what these controllers write, as they would in production.
 */
import { adminKubeConfig, type ClusterInfo } from '@internal/mgmt-cluster';
import { AsoSimulator } from './aso/controller.ts';
import { SIM_SERVICE_PRINCIPAL } from './azure/credential.ts';
import type { AzureWorld } from './azure/model.ts';
import { CapiControllers } from './capi/controllers.ts';
import { AdoptionControllers } from './capz/adopt.ts';
import { AsoManagedControllers } from './capz/asoManaged.ts';
import { LegacyControllers, type LegacyIdentity } from './capz/legacy/index.ts';
import { Cache } from './runtime/cache.ts';
import type { Controller } from './runtime/controller.ts';
import type { KindName } from './runtime/kinds.ts';
import { Kube } from './runtime/kube.ts';

export interface SimulatorOptions {
  cluster: Pick<ClusterInfo, 'name' | 'url' | 'caPem' | 'adminToken'>;
  world: AzureWorld;
  /** Namespace of ASO's global `aso-controller-settings` Secret. */
  operatorNamespace?: string;
  /** What the legacy controllers write into `<cluster>-aso-secret`. */
  identity?: LegacyIdentity;
  /** Only these namespaces are simulated (tests); default all. */
  namespaces?: (ns: string) => boolean;
  log?: (msg: string) => void;
}

const KINDS: KindName[] = [
  'Secret',
  'Cluster',
  'MachinePool',
  'AzureASOManagedCluster',
  'AzureASOManagedControlPlane',
  'AzureASOManagedMachinePool',
  'AzureManagedCluster',
  'AzureManagedControlPlane',
  'AzureManagedMachinePool',
  'ResourceGroup',
  'ManagedCluster',
  'ManagedClustersAgentPool',
  'VirtualNetwork',
  'VirtualNetworksSubnet',
];

export class Simulator {
  readonly kube: Kube;
  readonly cache: Cache;
  readonly world: AzureWorld;
  readonly aso: AsoSimulator;
  readonly adoption: AdoptionControllers;
  private readonly controllers: Controller[];

  private constructor(opts: SimulatorOptions) {
    const log =
      opts.log ?? ((m: string) => process.stderr.write(`[capz-sim] ${m}\n`));
    this.world = opts.world;
    this.kube = new Kube(opts.cluster);
    const accept = opts.namespaces;
    this.cache = new Cache(
      this.kube,
      adminKubeConfig(opts.cluster),
      KINDS,
      ns => ns === undefined || !accept || accept(ns),
    );
    this.aso = new AsoSimulator({
      kube: this.kube,
      cache: this.cache,
      world: this.world,
      opts: { operatorNamespace: opts.operatorNamespace ?? 'capz-system', log },
    });
    this.adoption = new AdoptionControllers(this.kube, this.cache, log);
    const identity = opts.identity ?? SIM_SERVICE_PRINCIPAL;
    this.controllers = [
      ...this.aso.controllers,
      ...this.adoption.controllers,
      ...new AsoManagedControllers(this.kube, this.cache, log).controllers,
      ...new LegacyControllers(this.kube, this.cache, identity, this.world, log)
        .controllers,
      ...new CapiControllers(this.kube, this.cache, log).controllers,
    ];
  }

  static async start(opts: SimulatorOptions): Promise<Simulator> {
    const sim = new Simulator(opts);
    await sim.cache.start();
    for (const c of sim.controllers) {
      c.start();
      c.enqueueAll(sim.cache);
    }
    return sim;
  }

  async stop(): Promise<void> {
    for (const c of this.controllers) c.stop();
    await this.cache.stop();
    this.world.close();
  }
}
