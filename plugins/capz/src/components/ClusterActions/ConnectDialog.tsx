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
import { usePermission } from '@backstage/plugin-permission-react';
import {
  capzClusterConnectPermission,
  type ClusterPlace,
} from '@capz-backstage/plugin-capz-common';
import useAsync from 'react-use/esm/useAsync';
import useAsyncFn from 'react-use/esm/useAsyncFn';
import { capzApiRef } from '../../api/CapzApi';
import { ActionError } from './errors';
import { CopyButton } from '../shared/CopyButton';

const codeStyle = {
  margin: 0,
  padding: 8,
  overflowX: 'auto' as const,
  fontSize: 12,
  background: 'var(--bui-bg-neutral-2, var(--bui-bg-surface-2))',
  borderRadius: 4,
};

const REASON_ID = 'capz-kubeconfig-unavailable';

/** Saves text as a file through the browser's download (an object URL on a link, released at once). */
function saveFile(fileName: string, text: string) {
  const url = URL.createObjectURL(
    new Blob([text], { type: 'application/yaml' }),
  );
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/**
 * How to reach the workload cluster with kubectl: commands and notes, and, for users with capz.cluster.connect, the
 * kubeconfig to download (AKS's user kubeconfig; for an Entra ID cluster it signs in through kubelogin and holds no
 * secret). The kubeconfig is never shown on the page. The connect info says in advance whether the backend hands it
 * out (not for a cluster without Entra ID, whose AKS kubeconfig holds a local account's secret, unless the operator
 * allows it): the button is then disabled, with the reason in words.
 */
export function ConnectDialog(props: {
  cluster: ClusterPlace;
  onClose: () => void;
}) {
  const api = useApi(capzApiRef);
  const info = useAsync(() => api.getConnectInfo(props.cluster), [api]);
  const canDownload = usePermission({
    permission: capzClusterConnectPermission,
    // The resourceRef as ClusterActions' clusterResourceRef writes it (imported from there, it would be a cycle).
    resourceRef: `${props.cluster.managementCluster}/${props.cluster.namespace}/${props.cluster.name}`,
  });
  const [download, startDownload] = useAsyncFn(async () => {
    const kc = await api.getKubeconfig(props.cluster);
    saveFile(kc.fileName, kc.kubeconfig);
    return kc;
  }, [api]);
  // Known before asking (GET .../connect): a 409 from the download would only say it later.
  const unavailable =
    info.value?.kubeconfig?.available === false
      ? info.value.kubeconfig.reason ??
        'This Backstage backend does not hand out the kubeconfig of this cluster.'
      : undefined;
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
              context="read"
            />
          )}
          {info.value && (
            <>
              <Flex justify="end">
                <CopyButton
                  text={info.value.commands.join('\n')}
                  label="Copy the commands"
                />
              </Flex>
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
          {download.error && (
            <ActionError
              title="Could not download the kubeconfig"
              error={download.error}
              permission="capz.cluster.connect"
              context="read"
            />
          )}
          {canDownload.allowed && unavailable && (
            <Text
              as="p"
              variant="body-small"
              id={REASON_ID}
              aria-label="Why there is no kubeconfig to download"
            >
              {unavailable}
            </Text>
          )}
          {download.value && (
            <Text as="p" variant="body-small" role="status">
              Saved {download.value.fileName} (server {download.value.server}
              {download.value.auth === 'exec'
                ? ', signs in with your Entra ID account through kubelogin'
                : ', a local account credential: keep it safe'}
              ).
            </Text>
          )}
        </Flex>
      </DialogBody>
      <DialogFooter>
        {canDownload.allowed && (
          <Button
            variant={unavailable ? 'secondary' : 'primary'}
            onPress={() => void startDownload()}
            isDisabled={download.loading || info.loading || !!unavailable}
            aria-describedby={unavailable ? REASON_ID : undefined}
          >
            Download kubeconfig
          </Button>
        )}
        <Button variant="secondary" onPress={props.onClose}>
          Done
        </Button>
      </DialogFooter>
    </Dialog>
  );
}
