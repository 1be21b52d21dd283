import { AuthService, DiscoveryService } from '@backstage/backend-plugin-api';
import { ResponseError } from '@backstage/errors';
import { ClustersResponse } from '@capz-backstage/plugin-capz-common';
import { ClusterSource } from './CapzClusterEntityProvider';

/** Reads the clusters list from the capz backend plugin with a service token (plugin-to-plugin auth). */
export class CapzBackendClusterSource implements ClusterSource {
  constructor(
    private readonly deps: { discovery: DiscoveryService; auth: AuthService },
  ) {}

  listClusters() {
    // The CA goes into kubernetes.io/api-server-certificate-authority (the pages' list leaves it out).
    return this.get('include=certificateAuthority');
  }

  clustersWithUids(uids: string[]) {
    return this.get(
      `include=certificateAuthority&uids=${encodeURIComponent(uids.join(','))}`,
    );
  }

  private async get(query: string) {
    const base = await this.deps.discovery.getBaseUrl('capz');
    const { token } = await this.deps.auth.getPluginRequestToken({
      onBehalfOf: await this.deps.auth.getOwnServiceCredentials(),
      targetPluginId: 'capz',
    });
    const res = await fetch(`${base}/clusters?${query}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw await ResponseError.fromResponse(res as any);
    const body = (await res.json()) as ClustersResponse;
    return { items: body.items, listing: body.listing };
  }
}
