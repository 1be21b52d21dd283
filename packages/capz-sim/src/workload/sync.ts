/**
 * Keeps one Node per VMSS instance of every agent pool of an {@link AzureWorld} on the shared workload API server
 * (docs/real-controllers.md#workload-clusters): on every 'change' of the world it compares each pool's `count` with
 * the pool's Nodes and creates or deletes Nodes; a pool or cluster that is deleting or gone loses its Nodes.
 *
 * The instance ids are the model's (`AgentPool.instanceIds`): as in AKS, a scale-up adds new ids (never reusing one)
 * and a scale-down removes the highest first (the VMSS default scale-in order); the simulated ARM's VMSS routes list
 * the same ids. Nothing here sends heartbeats or renews leases: no node
 * lifecycle controller runs on this server, so a Node stays Ready until the sync deletes it.
 *
 * Several worlds may share the server (one per test file, the demo): each sync touches only Nodes that carry its own
 * {@link OWNER_LABEL}; the consumers (CAPI, CAPZ) tell clusters apart by `kubernetes.azure.com/cluster` and by the
 * providerID, which contains the subscription and the node resource group.
 */
import { randomBytes } from 'node:crypto';
import { apiRequest, type ClusterInfo } from '@internal/mgmt-cluster';
import type { AgentPool, AzureWorld, ManagedCluster } from '../azure/model.ts';
import type { Obj } from '../runtime/types.ts';
import {
  OWNER_LABEL,
  instanceOf,
  kubeletVersion,
  nodeLabels,
  nodeObject,
  taintOf,
  vmssName,
} from './nodes.ts';

type Conn = Pick<ClusterInfo, 'url' | 'caPem' | 'adminToken'>;

export interface NodeSyncOptions {
  world: AzureWorld;
  /** The workload API server, as its own admin (WorkloadApiServer.info). */
  server: Conn;
  /** Value of {@link OWNER_LABEL} on this sync's Nodes: keep it stable across restarts of one world (default random). */
  owner?: string;
  log?: (msg: string) => void;
  /** Delay before a failed pass is retried (default 1 s). */
  retryMs?: number;
}

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** TaintNodesByCondition (on by default) adds this to every Node on create; the node lifecycle controller removes it once the Node is Ready (kubernetes v1.35.4 `plugin/pkg/admission/nodetaint/admission.go`). None runs here, so the sync does. */
const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

const sameTaints = (a: Taint[], b: Taint[]) =>
  a.length === b.length &&
  a.every(
    (t, i) =>
      t.key === b[i].key &&
      (t.value ?? '') === (b[i].value ?? '') &&
      t.effect === b[i].effect,
  );

export class WorkloadNodeSync {
  readonly owner: string;
  /** Requests made to the API server (tests: a settled world costs one list per change). */
  requests = 0;
  /** The last pass's error, cleared by a pass that succeeds. */
  lastError: Error | undefined;
  private readonly world: AzureWorld;
  private readonly conn: Conn;
  private readonly log: (msg: string) => void;
  private readonly retryMs: number;
  private dirty = false;
  private running: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly onChange = () => void this.kick();

  private constructor(opts: NodeSyncOptions) {
    this.world = opts.world;
    this.conn = opts.server;
    this.owner = opts.owner ?? `w-${randomBytes(4).toString('hex')}`;
    this.log =
      opts.log ??
      ((m: string) => process.stderr.write(`[capz-sim workload] ${m}\n`));
    this.retryMs = opts.retryMs ?? 1000;
  }

  /** Starts following the world; resolves after the first pass (which may have failed: see lastError). */
  static async start(opts: NodeSyncOptions): Promise<WorkloadNodeSync> {
    const sync = new WorkloadNodeSync(opts);
    sync.world.on('change', sync.onChange);
    await sync.kick();
    return sync;
  }

  /** Schedules a pass (coalesced with one already waiting); resolves when no pass is pending any more. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.dirty = true;
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves once the Nodes match the world as it is now (a pass started after this call has ended). */
  async settled(): Promise<void> {
    await this.kick();
    if (this.lastError) throw this.lastError;
  }

  stop(): void {
    this.stopped = true;
    this.world.off('change', this.onChange);
    clearTimeout(this.retry);
  }

  private async loop(): Promise<void> {
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      try {
        await this.pass();
        this.lastError = undefined;
      } catch (e) {
        this.lastError = e as Error;
        this.log(`node sync failed, retrying: ${(e as Error).message}`);
        clearTimeout(this.retry);
        this.retry = setTimeout(() => void this.kick(), this.retryMs);
        this.retry.unref();
      }
    }
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<any> {
    this.requests++;
    const res = await apiRequest(this.conn, method, path, body, contentType);
    if (res.status === 404 && method === 'DELETE') return undefined;
    if (res.status >= 400)
      throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body}`);
    return res.body ? JSON.parse(res.body) : undefined;
  }

  private patch(path: string, body: unknown) {
    return this.call('PATCH', path, body, 'application/merge-patch+json');
  }

  /** One comparison of the world with the Nodes, and the writes that close the gap. */
  private async pass(): Promise<void> {
    // The instance ids come from the model (AgentPool.instanceIds via AzureWorld.runningInstances), which the
    // simulated ARM's VMSS `virtualMachines` list answers too: the Nodes and the VMs the legacy CAPZ path lists are
    // the same machines (docs/real-controllers.md#legacy-path). A deleting or stopped cluster or pool has none.
    const desired = new Map<
      string,
      { mc: ManagedCluster; pool: AgentPool; ids: Set<number> }
    >();
    for (const mc of this.world.snapshot().managedClusters) {
      for (const pool of Object.values(mc.agentPools)) {
        const ids = this.world.runningInstances(mc, pool);
        if (ids.length)
          desired.set(vmssName(mc, pool), { mc, pool, ids: new Set(ids) });
      }
    }

    const list = await this.call(
      'GET',
      `/api/v1/nodes?labelSelector=${encodeURIComponent(
        `${OWNER_LABEL}=${this.owner}`,
      )}`,
    );
    const existing = new Map<string, Map<number, Obj>>();
    for (const node of (list?.items ?? []) as Obj[]) {
      const vmss = /^(.*-vmss)[0-9a-z]{6}$/.exec(node.metadata.name)?.[1];
      if (!vmss) continue;
      const id = instanceOf(vmss, node.metadata.name)!;
      if (!existing.has(vmss)) existing.set(vmss, new Map());
      existing.get(vmss)!.set(id, node);
    }

    for (const [vmss, nodes] of existing) {
      if (desired.has(vmss)) continue;
      for (const node of nodes.values()) await this.deleteNode(node);
    }

    for (const [vmss, { mc, pool, ids }] of desired) {
      const nodes = existing.get(vmss) ?? new Map<number, Obj>();
      // Scale-in: the ids the model dropped (highest first there), deleted highest first here too.
      for (const id of [...nodes.keys()].sort((a, b) => b - a))
        if (!ids.has(id)) await this.deleteNode(nodes.get(id)!);
      for (const id of [...ids].sort((a, b) => a - b)) {
        const node = nodes.get(id);
        if (node) await this.update(node, mc, pool, id);
        else await this.create(mc, pool, id);
      }
    }
  }

  private async deleteNode(node: Obj): Promise<void> {
    await this.call('DELETE', `/api/v1/nodes/${node.metadata.name}`);
  }

  private async create(
    mc: ManagedCluster,
    pool: AgentPool,
    id: number,
  ): Promise<void> {
    const node = nodeObject(mc, pool, id, this.owner);
    let created: Obj;
    try {
      created = await this.call('POST', '/api/v1/nodes', node);
    } catch (e) {
      // Already there (an earlier pass whose list did not see it yet): reconcile it instead.
      if (!/HTTP 409/.test((e as Error).message)) throw e;
      created = await this.call('GET', `/api/v1/nodes/${node.metadata.name}`);
    }
    await this.update(created, mc, pool, id);
  }

  /** Brings a Node's labels, taints and kubelet version to the pool's (labels are only added or changed, never removed). */
  private async update(
    node: Obj,
    mc: ManagedCluster,
    pool: AgentPool,
    id: number,
  ): Promise<void> {
    const path = `/api/v1/nodes/${node.metadata.name}`;
    const labels = nodeLabels(mc, pool, node.metadata.name, id, this.owner);
    const labelDiff = Object.fromEntries(
      Object.entries(labels).filter(
        ([k, v]) => node.metadata.labels?.[k] !== v,
      ),
    );
    const taints = pool.nodeTaints.map(taintOf);
    const taintsDiffer = !sameTaints(
      (node.spec?.taints ?? []) as Taint[],
      taints,
    );
    if (Object.keys(labelDiff).length || taintsDiffer) {
      await this.patch(path, {
        metadata: Object.keys(labelDiff).length ? { labels: labelDiff } : {},
        ...(taintsDiffer
          ? { spec: { taints: taints.length ? taints : null } }
          : {}),
      });
    }
    if (node.status?.nodeInfo?.kubeletVersion !== kubeletVersion(pool)) {
      await this.patch(`${path}/status`, {
        status: { nodeInfo: { kubeletVersion: kubeletVersion(pool) } },
      });
    }
  }
}

export { NOT_READY_TAINT };
