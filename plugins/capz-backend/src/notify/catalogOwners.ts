/**
 * Whom a cluster's notification reaches, asked of the catalog for many clusters at once: a scan that finds 10,000
 * clusters to tell asks it 20 times (one `getEntitiesByRefs` per 500), not 10,000 (one `getEntityByRef` each, each an
 * HTTP request on the event loop the page views share).
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { clusterEntityRef } from './ownerNotifications';
import { inSlices } from './batches';

/**
 * What the catalog holds of the given entities, in their order: each one's owner (the target of its first `ownedBy`
 * relation, the one the notifications backend's default recipient resolver follows; undefined when it has none), or
 * undefined when the catalog does not hold the entity.
 */
export type CatalogOwners = (
  entityRefs: readonly string[],
) => Promise<({ owner?: string } | undefined)[]>;

/** How many entities one catalog request asks for. */
export const CATALOG_BATCH = 500;

/**
 * Where one cluster's notification stands: not yet (the catalog does not hold its entity: a new cluster, a backend
 * just started; a notification addressed to it would reach nobody, so the caller asks again later), or ready, with
 * `owner` saying whose notifications it can share: its entity's owner, else (no owner, or the catalog could not be
 * asked: the owners are told anyway, and the log says why) the cluster's own entity.
 */
export type Addressees = { held: false } | { held: true; owner: string };

/** The addressees of each cluster, in their order; without `owners`, each cluster on its own. */
export async function clusterAddressees(
  clusters: readonly Pick<
    ClusterPlace,
    'managementCluster' | 'namespace' | 'name'
  >[],
  o: { owners?: CatalogOwners; logger: LoggerService },
): Promise<Addressees[]> {
  const refs = clusters.map(clusterEntityRef);
  const own = (ref: string): Addressees => ({ held: true, owner: ref });
  if (!o.owners) return refs.map(own);
  const out: Addressees[] = [];
  await inSlices(refs, CATALOG_BATCH, async batch => {
    try {
      const found = await o.owners!(batch);
      batch.forEach((ref, j) => {
        const entity = found[j];
        out.push(
          entity ? { held: true, owner: entity.owner ?? ref } : { held: false },
        );
      });
    } catch (e) {
      o.logger.warn(
        `could not ask the catalog for ${
          batch.length
        } cluster entities (telling their owners anyway): ${
          (e as Error).message
        }`,
      );
      out.push(...batch.map(own));
    }
  });
  return out;
}
