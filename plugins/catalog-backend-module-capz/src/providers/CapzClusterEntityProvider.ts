import {
  LoggerService,
  SchedulerServiceTaskRunner,
} from '@backstage/backend-plugin-api';
import {
  EntityProvider,
  EntityProviderConnection,
} from '@backstage/plugin-catalog-node';
import { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { clusterToEntity } from './clusterEntity';

/** Where the provider gets clusters from: the capz backend in production, a stub in tests. */
export interface ClusterSource {
  listClusters(): Promise<ClusterSummary[]>;
}

/** Keeps one catalog Resource per CAPZ cluster, replacing the whole set on every refresh. */
export class CapzClusterEntityProvider implements EntityProvider {
  private connection?: EntityProviderConnection;

  constructor(
    private readonly deps: {
      source: ClusterSource;
      logger: LoggerService;
      taskRunner: SchedulerServiceTaskRunner;
      defaultOwner: string;
    },
  ) {}

  getProviderName(): string {
    return 'capz-clusters';
  }

  async connect(connection: EntityProviderConnection): Promise<void> {
    this.connection = connection;
    await this.deps.taskRunner.run({
      id: `${this.getProviderName()}:refresh`,
      fn: () => this.refresh(),
    });
  }

  async refresh(): Promise<void> {
    if (!this.connection)
      throw new Error('CapzClusterEntityProvider is not connected');
    const clusters = await this.deps.source.listClusters();
    const entities = clusters.map(c =>
      clusterToEntity(c, {
        providerName: this.getProviderName(),
        defaultOwner: this.deps.defaultOwner,
      }),
    );
    await this.connection.applyMutation({
      type: 'full',
      entities: entities.map(entity => ({
        entity,
        locationKey: this.getProviderName(),
      })),
    });
    this.deps.logger.info(`capz: ${entities.length} cluster entities`);
  }
}
