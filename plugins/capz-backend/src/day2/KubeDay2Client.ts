import type { LoggerService } from '@backstage/backend-plugin-api';
import type {
  Day2Target,
  KubeObject,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { ClientNode, loadClientNode } from '../cluster/kubeConfig';
import { KubeObjectClient } from '../cluster/KubeObjectClient';

/** What the day-2 routes do on a management cluster: live reads and the plan's writes, each possibly a dry run. */
export interface Day2Client {
  get(t: Day2Target): Promise<ObservedObject | undefined>;
  /** Every object of a kind in a namespace (`apiVersion` and `kind` of `t`; its name is ignored). */
  list(t: Omit<Day2Target, 'name'>): Promise<ObservedObject[]>;
  /** Server-side apply under the product's field manager with force; `metadata.resourceVersion` in it is a precondition. */
  apply(obj: KubeObject, o: { dryRun: boolean }): Promise<ObservedObject>;
  /** JSON merge patch; `resourceVersion` is a precondition. */
  mergePatch(
    t: Day2Target,
    patch: Record<string, unknown>,
    o: { dryRun: boolean; resourceVersion?: string },
  ): Promise<ObservedObject>;
  /** Delete (background propagation, as kubectl); `uid` is a precondition. */
  delete(t: Day2Target, o: { dryRun: boolean; uid?: string }): Promise<void>;
}

/** {@link Day2Client} on a management cluster: its writes take the fields they set (server-side apply with force). */
export class KubeDay2Client implements Day2Client {
  static async create(
    cluster: ManagementClusterConfig,
    logger?: LoggerService,
    load: () => Promise<ClientNode> = loadClientNode,
  ) {
    return new KubeDay2Client(
      await KubeObjectClient.create(cluster, logger, load),
    );
  }

  constructor(private readonly objects: KubeObjectClient) {}

  get(t: Day2Target) {
    return this.objects.get(t);
  }

  list(t: Omit<Day2Target, 'name'>) {
    return this.objects.list(t);
  }

  apply(obj: KubeObject, o: { dryRun: boolean }) {
    return this.objects.apply(obj, { ...o, force: true });
  }

  mergePatch(
    t: Day2Target,
    patch: Record<string, unknown>,
    o: { dryRun: boolean; resourceVersion?: string },
  ) {
    return this.objects.mergePatch(t, patch, o);
  }

  delete(t: Day2Target, o: { dryRun: boolean; uid?: string }) {
    return this.objects.delete(t, o);
  }
}
