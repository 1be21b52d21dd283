import { useApi } from '@backstage/frontend-plugin-api';
import {
  Button,
  Dialog,
  DialogBody,
  DialogFooter,
  DialogHeader,
  Flex,
  Skeleton,
  Text,
} from '@backstage/ui';
import useAsync from 'react-use/esm/useAsync';
import { capzApiRef, ClusterRef } from '../../api/CapzApi';
import { ActionError } from './errors';

const codeStyle = {
  margin: 0,
  padding: 8,
  overflowX: 'auto' as const,
  fontSize: 12,
  background: 'var(--bui-bg-neutral-2, var(--bui-bg-surface-2))',
  borderRadius: 4,
};

/** How to reach the workload cluster with kubectl: commands and notes, never a credential. */
export function ConnectDialog(props: {
  cluster: ClusterRef;
  onClose: () => void;
}) {
  const api = useApi(capzApiRef);
  const info = useAsync(() => api.getConnectInfo(props.cluster), [api]);
  return (
    <Dialog
      isOpen
      isDismissable
      onOpenChange={open => !open && props.onClose()}
      width={640}
    >
      <DialogHeader>Connect with kubectl</DialogHeader>
      <DialogBody>
        <Flex direction="column" gap="3">
          {info.loading && (
            <div role="status" aria-label="Loading the commands">
              <Skeleton width="100%" height={80} />
            </div>
          )}
          {info.error && (
            <ActionError
              title="Could not load how to connect"
              error={info.error}
              permission="capz.cluster.read"
            />
          )}
          {info.value && (
            <>
              <pre aria-label="Commands" style={codeStyle}>
                {info.value.commands.join('\n')}
              </pre>
              {info.value.notes.map(n => (
                <Text key={n} as="p" variant="body-small">
                  {n}
                </Text>
              ))}
            </>
          )}
        </Flex>
      </DialogBody>
      <DialogFooter>
        <Button variant="secondary" onPress={props.onClose}>
          Done
        </Button>
      </DialogFooter>
    </Dialog>
  );
}
