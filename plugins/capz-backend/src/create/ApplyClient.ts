/**
 * The management-cluster client of a new cluster (routers/clusterCreateRouter.ts): live reads of the names it will
 * take, and server-side apply.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  CAPZ_FIELD_MANAGER,
  type KubeObject,
  type ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import { type ClientNode, loadClientNode } from '../cluster/kubeConfig';
import { KubeObjectClient } from '../cluster/KubeObjectClient';
import type { ManagementClusterConfig } from '../config/managementClusters';

/** What creating a cluster does on a management cluster: live reads and server-side apply. */
export interface ApplyClient {
  get(ref: ObjectRef): Promise<KubeObject | undefined>;
  /** Server-side apply under {@link CAPZ_FIELD_MANAGER}, without force; `dryRun` sends `dryRun=All`. */
  apply(obj: KubeObject, o: { dryRun: boolean }): Promise<KubeObject>;
}

/** {@link ApplyClient} on a management cluster: server-side apply without force (a create takes no field from another manager). */
export class KubeApplyClient implements ApplyClient {
  static async create(
    cluster: ManagementClusterConfig,
    logger?: LoggerService,
    load: () => Promise<ClientNode> = loadClientNode,
  ) {
    return new KubeApplyClient(
      await KubeObjectClient.create(cluster, logger, load),
    );
  }

  constructor(private readonly objects: KubeObjectClient) {}

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    return (await this.objects.get(ref)) as KubeObject | undefined;
  }

  async apply(obj: KubeObject, o: { dryRun: boolean }): Promise<KubeObject> {
    return (await this.objects.apply(obj, {
      ...o,
      force: false,
    })) as KubeObject;
  }
}
