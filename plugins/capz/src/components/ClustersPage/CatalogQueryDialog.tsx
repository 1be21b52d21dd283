/**
 * "Plan from a catalog query": a fleet run's clusters picked by what the catalog knows of them (owner, tags, labels,
 * lifecycle) rather than by the clusters page's filters. The query is read by capz-common's parseCatalogClusterQuery
 * and asked of the catalog as the user (their catalog permissions apply); each cluster entity the catalog module
 * provides names its cluster in its capz.io/cluster annotation. The plan itself is FleetPlanDialog's.
 */
import { useApi } from '@backstage/frontend-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import {
  Button,
  Dialog,
  DialogBody,
  DialogFooter,
  DialogHeader,
  Flex,
  Text,
  TextField,
} from '@backstage/ui';
import {
  CAPZ_CLUSTER_ANNOTATION,
  parseCatalogClusterQuery,
  type ClusterPlace,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import { clusterRefOf } from '../EntityClusterContent/annotation';
import { ErrorAlert } from '../shared/errors';

const placeWords = (p: ClusterPlace) =>
  `${p.managementCluster}/${p.namespace}/${p.name}`;

export function CatalogQueryDialog(props: {
  onPlan: (clusters: ClusterPlace[]) => void;
  onClose: () => void;
}) {
  const catalogApi = useApi(catalogApiRef);
  const [text, setText] = useState('');
  const [found, setFound] = useState<ClusterPlace[]>();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error>();
  const parsed = parseCatalogClusterQuery(text);
  const problem = 'problem' in parsed ? parsed.problem : undefined;

  const find = async () => {
    if (!('filter' in parsed)) return;
    setPending(true);
    setError(undefined);
    setFound(undefined);
    try {
      const { items } = await catalogApi.getEntities({
        filter: parsed.filter,
        fields: ['kind', 'metadata.name', `metadata.annotations`],
      });
      const places = items
        .map(clusterRefOf)
        .filter((p): p is ClusterPlace => Boolean(p));
      // One entity per cluster, but a place named twice is planned once.
      const seen = new Set<string>();
      setFound(
        places.filter(p => {
          const k = placeWords(p);
          return !seen.has(k) && Boolean(seen.add(k));
        }),
      );
    } catch (e) {
      setError(e as Error);
    } finally {
      setPending(false);
    }
  };

  const n = found?.length ?? 0;
  return (
    <Dialog
      isOpen
      isDismissable
      onOpenChange={open => !open && props.onClose()}
      width={640}
    >
      <DialogHeader>Plan from a catalog query</DialogHeader>
      <DialogBody>
        <Flex direction="column" gap="3">
          <Text variant="body-small" color="secondary">
            {`The clusters whose catalog entity matches every key=value (comma-separated; a key given twice matches either value). Each cluster entity names its cluster in its ${CAPZ_CLUSTER_ANNOTATION} annotation.`}
          </Text>
          <TextField
            label="Catalog query"
            placeholder="spec.owner=group:default/payments, metadata.tags=production"
            value={text}
            onChange={v => {
              setText(v);
              setFound(undefined);
            }}
            validationBehavior="aria"
            validate={v => (v.trim() ? problem ?? null : null)}
          />
          {error && (
            <ErrorAlert title="Could not ask the catalog" error={error} />
          )}
          {found && (
            <Text as="p" aria-live="polite">
              {n === 0
                ? 'No cluster entity matches this query.'
                : `${n} cluster${n === 1 ? '' : 's'} match: ${found
                    .slice(0, 10)
                    .map(placeWords)
                    .join(', ')}${n > 10 ? ` and ${n - 10} more` : ''}.`}
            </Text>
          )}
        </Flex>
      </DialogBody>
      <DialogFooter>
        <Button variant="secondary" onPress={props.onClose}>
          Cancel
        </Button>
        <Button
          variant={n ? 'secondary' : 'primary'}
          isDisabled={Boolean(problem)}
          isPending={pending}
          onPress={find}
        >
          Find clusters
        </Button>
        {n > 0 && (
          <Button variant="primary" onPress={() => props.onPlan(found!)}>
            {`Plan ${n} cluster${n === 1 ? '' : 's'}`}
          </Button>
        )}
      </DialogFooter>
    </Dialog>
  );
}
