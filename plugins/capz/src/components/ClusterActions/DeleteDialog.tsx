import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Button,
  Dialog,
  DialogBody,
  DialogFooter,
  DialogHeader,
  Flex,
  Link,
  Skeleton,
  Text,
  TextField,
} from '@backstage/ui';
import type {
  AzureImpact,
  ClusterPlace,
  Day2GitChange,
  TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef } from '../../api/CapzApi';
import { rootRouteRef } from '../../routes';
import { HealthLabel } from '../shared/health';
import { ActionError } from './errors';
import { GitChangeView } from './GitChangeView';
import { asSentence } from '../shared/text';

function ImpactList({ label, items }: { label: string; items: AzureImpact[] }) {
  return (
    <Flex direction="column" gap="1">
      <Text variant="body-small" weight="bold">
        {label}
      </Text>
      {items.length === 0 ? (
        <Text variant="body-small">Nothing.</Text>
      ) : (
        <ul aria-label={label} style={{ margin: 0, paddingLeft: 20 }}>
          {items.map(i => (
            <li key={`${i.azureType}/${i.azureName}/${i.object.name}`}>
              <Text variant="body-small">
                <strong>{i.azureName}</strong>
                {` (${i.azureType}, ${i.object.kind} ${i.object.namespace}/${i.object.name}): ${i.reason}`}
              </Text>
            </li>
          ))}
        </ul>
      )}
    </Flex>
  );
}

/**
 * Delete the cluster: first what ASO deletes in Azure and what it keeps (and why), then the user types the cluster's
 * name; afterwards the cluster's health follows the deletion live. A cluster Flux applies is deleted through Git: the
 * dialog shows the change of its repository, and the confirm opens the pull request.
 */
export function DeleteDialog(props: {
  cluster: ClusterPlace;
  tree?: TreeNode;
  onClose: () => void;
}) {
  const api = useApi(capzApiRef);
  const root = useRouteRef(rootRouteRef);
  const preview = useAsync(() => api.getDeletePreview(props.cluster), [api]);
  const [typed, setTyped] = useState('');
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);
  const [proposed, setProposed] = useState<Day2GitChange>();
  const [error, setError] = useState<Error>();
  const p = preview.value;
  const throughGit = !!p?.git?.proposable;
  const blocked = !p || p.blockers.length > 0 || (!!p.git && !p.git.proposable);
  const matches = typed === props.cluster.name;

  const remove = async () => {
    setPending(true);
    setError(undefined);
    try {
      const answer = await api.deleteCluster(
        props.cluster,
        typed,
        p?.planDigest,
      );
      setProposed(
        answer.preview.git?.proposed ? answer.preview.git : undefined,
      );
      setDone(true);
    } catch (e) {
      setError(e as Error);
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog
      isOpen
      isDismissable
      onOpenChange={open => !open && props.onClose()}
      width={720}
    >
      <DialogHeader>{`Delete cluster ${props.cluster.name}`}</DialogHeader>
      <DialogBody>
        <Flex direction="column" gap="3">
          {preview.loading && (
            <div role="status" aria-label="Loading what the delete does">
              <Skeleton width="100%" height={120} />
            </div>
          )}
          {preview.error && (
            <ActionError
              title="Could not work out what the delete does in Azure"
              error={preview.error}
              permission="capz.cluster.delete"
            />
          )}
          {p && (
            <>
              {p.blockers.map(b => (
                <Alert key={b} status="warning" icon title={asSentence(b)} />
              ))}
              <ImpactList
                label={
                  throughGit
                    ? 'Deleted in Azure once merged'
                    : 'Deleted in Azure'
                }
                items={p.deletes}
              />
              <ImpactList label="Kept in Azure" items={p.keeps} />
              {p.git && <GitChangeView git={proposed ?? p.git} />}
            </>
          )}
          {p && !done && (
            <TextField
              label={`Type ${props.cluster.name} to confirm`}
              value={typed}
              onChange={setTyped}
              isDisabled={blocked}
            />
          )}
          {error && (
            <ActionError
              title="The cluster was not deleted"
              error={error}
              permission="capz.cluster.delete"
            />
          )}
          {done && !proposed && (
            <Alert
              status="success"
              icon
              title="Deletion started"
              description={
                <Flex direction="column" gap="1">
                  <Flex gap="2" align="center">
                    <Text variant="body-small">Cluster now:</Text>
                    <HealthLabel health={props.tree?.health} />
                  </Flex>
                  {root && <Link href={root()}>All clusters</Link>}
                </Flex>
              }
            />
          )}
        </Flex>
      </DialogBody>
      <DialogFooter>
        <Button variant="secondary" onPress={props.onClose}>
          {done ? 'Done' : 'Cancel'}
        </Button>
        {!done && (
          <Button
            variant="primary"
            destructive
            isDisabled={blocked || !matches}
            isPending={pending}
            onPress={remove}
          >
            {throughGit ? 'Open pull request' : 'Delete the cluster'}
          </Button>
        )}
      </DialogFooter>
    </Dialog>
  );
}
