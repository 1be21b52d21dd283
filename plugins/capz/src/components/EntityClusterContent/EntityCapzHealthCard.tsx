import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { useEntity } from '@backstage/plugin-catalog-react';
import {
  Card,
  CardBody,
  CardHeader,
  Flex,
  Link,
  Skeleton,
  Text,
} from '@backstage/ui';
import { displayKubernetesVersion } from '@capz-backstage/plugin-capz-common';
import { useCallback, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { clusterRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';
import { HealthLabel } from '../shared/health';
import { useLiveRefresh } from '../shared/useLiveRefresh';
import { CAPZ_CLUSTER_ANNOTATION, clusterRefOf } from './annotation';

/**
 * The health of the AKS cluster a catalog entity names (capz.io/cluster), for the entity's Overview: health, why it
 * is not ready, the version, and a link to the cluster's page. Live where the signals plugin is installed.
 * @public
 */
export function EntityCapzHealthCard() {
  const { entity } = useEntity();
  const ref = clusterRefOf(entity);
  const api = useApi(capzApiRef);
  const pageLink = useRouteRef(clusterRouteRef);
  const [refreshKey, setRefreshKey] = useState(0);
  const tree = useAsyncRetry(
    async () => (ref ? api.getClusterTree(ref, { group: 3 }) : undefined),
    [api, ref?.managementCluster, ref?.namespace, ref?.name, refreshKey],
  );
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const uid = tree.value?.summary.uid;
  useLiveRefresh(refresh, s => !!uid && s.clusterUids.includes(uid));
  const summary = tree.value?.summary;
  const title = ref ? `AKS cluster ${ref.name}` : 'AKS cluster';

  return (
    <Card>
      <CardHeader>
        <Text as="h3" variant="title-x-small">
          {title}
        </Text>
      </CardHeader>
      <CardBody>
        {!ref && (
          <Text variant="body-small">
            {`${CAPZ_CLUSTER_ANNOTATION} must be <management cluster>/<namespace>/<cluster name>.`}
          </Text>
        )}
        {ref && tree.error && (
          <ErrorAlert
            title={`Could not load cluster ${ref.namespace}/${ref.name}`}
            error={tree.error}
          />
        )}
        {ref && !tree.error && !summary && (
          <div role="status" aria-label="Loading the cluster's health">
            <Skeleton width="100%" height={48} />
          </div>
        )}
        {ref && summary && (
          <Flex direction="column" gap="2">
            <Flex gap="2" align="center">
              <HealthLabel health={summary.health} />
              {summary.reason && (
                <Text variant="body-small">{summary.reason}</Text>
              )}
            </Flex>
            <Text variant="body-small" color="secondary">
              {[
                `${summary.namespace} · ${summary.managementCluster}`,
                summary.kubernetesVersion &&
                  displayKubernetesVersion(summary.kubernetesVersion),
                summary.location,
              ]
                .filter(Boolean)
                .join(' · ')}
            </Text>
            {pageLink && (
              <Link href={pageLink({ ...ref })}>Open the cluster page</Link>
            )}
          </Flex>
        )}
      </CardBody>
    </Card>
  );
}
