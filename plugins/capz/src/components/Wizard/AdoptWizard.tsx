import { ResponseError } from '@backstage/errors';
import { useApi } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Combobox,
  Flex,
  Radio,
  RadioGroup,
  Select,
  Skeleton,
  Text,
  TextField,
} from '@backstage/ui';
import type {
  DiscoveredAksCluster,
  JobRequest,
} from '@capz-backstage/plugin-capz-common';
import { useMemo, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import useDebounce from 'react-use/esm/useDebounce';
import { capzApiRef } from '../../api/CapzApi';
import { ErrorAlert, errorMessage } from '../shared/errors';
import { JobReview } from './JobReview';
import { dnsLabelError } from './request';
import { WizardPage } from './WizardPage';
import { WizardStep } from './WizardStep';

/** What to do when listing AKS clusters fails; a 502 here is Azure refusing, not the backend being down. */
function DiscoveryError({ error }: { error: Error }) {
  const status = error instanceof ResponseError ? error.statusCode : undefined;
  let advice = '';
  if (status === 502) {
    advice =
      " Azure refused the request with this credential: check that its identity has at least Reader on the subscription and that the Secret's tenant and client IDs are right.";
  } else if (status === 403) {
    advice = ' Ask a platform engineer for the capz.cluster.adopt permission.';
  }
  return (
    <Alert
      status="danger"
      icon
      title="Could not list the AKS clusters in Azure"
      description={`${errorMessage(error)}${advice}`}
    />
  );
}

const clusterKey = (c: DiscoveredAksCluster) =>
  `${c.subscriptionId}/${c.resourceGroup}/${c.name}`;

function poolText(p: DiscoveredAksCluster['agentPools'][number]) {
  const scale = p.enableAutoScaling
    ? `, autoscaling ${p.minCount ?? '?'}–${p.maxCount ?? '?'}`
    : '';
  return `${p.name} (${p.mode}, ${p.vmSize}, ${p.count} nodes${scale})`;
}

/** One discovered cluster as a radio: already-managed ones are shown but cannot be chosen. */
function ClusterOption({ c }: { c: DiscoveredAksCluster }) {
  const facts = [
    c.resourceGroup,
    c.location,
    c.kubernetesVersion && `Kubernetes ${c.kubernetesVersion}`,
    c.provisioningState,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <Radio value={clusterKey(c)} isDisabled={!!c.managedBy}>
      <span
        data-testid="aks-cluster"
        style={{ display: 'inline-flex', flexDirection: 'column', gap: 2 }}
      >
        <strong>{c.name}</strong>
        <span>{facts}</span>
        {c.managedBy && (
          <span>
            {`Already managed by ManagedCluster ${
              c.managedBy.managementCluster
                ? `${c.managedBy.managementCluster}/`
                : ''
            }${c.managedBy.namespace}/${c.managedBy.name}` +
              `${
                c.managedBy.cluster ? ` (cluster ${c.managedBy.cluster})` : ''
              }: it cannot be adopted twice.`}
          </span>
        )}
        {c.entraOnly && (
          <span>
            Entra ID only (local accounts disabled): adoption writes user
            credentials to the Secret {`${c.name}-user-kubeconfig`}.
          </span>
        )}
        <span>{`Pools: ${
          c.agentPools.length ? c.agentPools.map(poolText).join('; ') : 'none'
        }`}</span>
      </span>
    </Radio>
  );
}

/**
 * /capz/adopt: put an existing AKS cluster under CAPZ management through ASO adoption. Management cluster ->
 * namespace -> credential Secret -> AKS cluster (through ARM with that credential) -> preflight -> plan -> start.
 */
export function AdoptWizard() {
  const api = useApi(capzApiRef);
  const [mc, setMc] = useState<string>();
  const [namespace, setNamespace] = useState('');
  const [debouncedNs, setDebouncedNs] = useState('');
  const [secret, setSecret] = useState<string>();
  const [chosen, setChosen] = useState<string>();
  // A Secret no ASO object names yet is found by name: the backend checks names, it never lists Secrets.
  const [otherSecret, setOtherSecret] = useState('');
  const [debouncedOther, setDebouncedOther] = useState('');
  useDebounce(() => setDebouncedNs(namespace), 300, [namespace]);
  useDebounce(() => setDebouncedOther(otherSecret.trim()), 300, [otherSecret]);

  const nsError = namespace ? dnsLabelError(namespace) : undefined;
  const nsReady =
    !!mc &&
    !!debouncedNs &&
    debouncedNs === namespace &&
    !dnsLabelError(debouncedNs);

  const mcs = useAsync(() => api.listManagementClusters(), [api]);
  // The namespaces offered, as the template's picker offers them; a name not listed (the list failed, or the backend
  // may not list namespaces) can still be typed.
  const namespaces = useAsync(
    async () =>
      mc ? api.listNamespaces({ managementCluster: mc }) : undefined,
    [api, mc],
  );
  const secrets = useAsync(
    async () =>
      mc && nsReady
        ? api.listCredentialSecrets({
            managementCluster: mc,
            namespace: debouncedNs,
            ...(debouncedOther ? { name: debouncedOther } : {}),
          })
        : undefined,
    [api, mc, debouncedNs, nsReady, debouncedOther],
  );
  const discovered = useAsync(
    async () =>
      mc && nsReady && secret
        ? api.discoverAksClusters({
            managementCluster: mc,
            namespace: debouncedNs,
            credentialSecret: secret,
          })
        : undefined,
    [api, mc, debouncedNs, nsReady, secret],
  );

  const cluster = discovered.value?.items.find(
    c => clusterKey(c) === chosen && !c.managedBy,
  );
  const request = useMemo<JobRequest | undefined>(
    () =>
      mc && nsReady && secret && cluster
        ? {
            type: 'adopt',
            params: {
              managementCluster: mc,
              namespace: debouncedNs,
              credentialSecret: secret,
              subscriptionId: cluster.subscriptionId,
              resourceGroup: cluster.resourceGroup,
              clusterName: cluster.name,
            },
          }
        : undefined,
    [mc, nsReady, debouncedNs, secret, cluster],
  );

  return (
    <WizardPage
      title="Adopt an AKS cluster"
      intro="Brings an AKS cluster that already runs in Azure under Cluster API management without recreating it: the job creates ASO objects that adopt the cluster and its pools, then the CAPI Cluster on top. The AKS cluster keeps its name."
    >
      <WizardStep n={1} title="Management cluster">
        {mcs.error && (
          <ErrorAlert
            title="Could not load the management clusters"
            error={mcs.error}
          />
        )}
        {mcs.loading && <Skeleton width={240} height={32} />}
        {mcs.value && (
          <Select
            label="Management cluster"
            style={{ maxWidth: 360 }}
            placeholder="Choose a management cluster"
            value={mc ?? null}
            onChange={key => {
              setMc(key === null ? undefined : String(key));
              setSecret(undefined);
              setChosen(undefined);
            }}
            options={mcs.value.items.map(m => ({
              id: m.name,
              label: `${m.title ?? m.name}${
                m.status.state === 'unreachable' ? ' (unreachable)' : ''
              }`,
              disabled: m.status.state === 'unreachable',
            }))}
          />
        )}
      </WizardStep>

      <WizardStep n={2} title="Namespace">
        <Combobox
          label="Namespace"
          description={`Where the ASO and CAPI objects are created. It must exist and hold the ASO credential Secret${
            namespaces.error
              ? ` (the namespaces could not be listed: ${errorMessage(
                  namespaces.error,
                )}; type its name)`
              : ''
          }.`}
          style={{ maxWidth: 360 }}
          placeholder={
            mc
              ? 'Choose or type a namespace'
              : 'Choose the management cluster first'
          }
          isDisabled={!mc}
          allowsCustomValue
          menuTrigger="focus"
          options={(namespaces.value?.items ?? []).map(n => ({
            id: n.name,
            label: n.name,
          }))}
          search={{
            inputValue: namespace,
            onInputChange: v => {
              setNamespace(v);
              setSecret(undefined);
              setChosen(undefined);
            },
          }}
          validationBehavior="aria"
          validate={() => nsError ?? null}
        />
      </WizardStep>

      <WizardStep n={3} title="Credential">
        {!nsReady && (
          <Text as="p">Choose a management cluster and a namespace first.</Text>
        )}
        {secrets.error && (
          <ErrorAlert
            title="Could not list the credential Secrets"
            error={secrets.error}
          />
        )}
        {nsReady && secrets.loading && <Skeleton width="100%" height={48} />}
        {nsReady && secrets.value && secrets.value.items.length === 0 && (
          <Alert
            status="warning"
            icon
            title={`No ASO credential Secret in ${debouncedNs}`}
            description="Create an ASO credential Secret (for example aso-credential, with AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID plus a secret or workload identity) in this namespace, then come back."
          />
        )}
        {nsReady && secrets.value && secrets.value.items.length > 0 && (
          <RadioGroup
            label="Credential Secret"
            description="ASO and the backend use it to read and adopt the AKS cluster. Only names are shown, never values."
            value={secret ?? null}
            onChange={v => {
              setSecret(v);
              setChosen(undefined);
            }}
          >
            {secrets.value.items.map(s => (
              <Radio key={s.name} value={s.name}>
                {`${s.name}${
                  s.subscriptionId ? ` · subscription ${s.subscriptionId}` : ''
                }${s.authMode ? ` · ${s.authMode}` : ''}`}
              </Radio>
            ))}
          </RadioGroup>
        )}
        {nsReady && (
          <TextField
            label="Another Secret name"
            description="A credential Secret in this namespace that no ASO object uses yet: type its name and it is listed above once found."
            style={{ maxWidth: 360 }}
            value={otherSecret}
            onChange={setOtherSecret}
          />
        )}
      </WizardStep>

      <WizardStep n={4} title="AKS cluster">
        {!secret && <Text as="p">Choose a credential first.</Text>}
        {discovered.error && <DiscoveryError error={discovered.error} />}
        {secret && discovered.loading && (
          <div role="status" aria-label="Reading the AKS clusters from Azure">
            <Skeleton width="100%" height={96} />
          </div>
        )}
        {secret && discovered.value && discovered.value.items.length === 0 && (
          <Text as="p">{`The credential sees no AKS cluster in subscription ${discovered.value.subscriptionId}.`}</Text>
        )}
        {secret && discovered.value && discovered.value.items.length > 0 && (
          <Flex direction="column" gap="2">
            <RadioGroup
              label="AKS cluster to adopt"
              description={`Subscription ${discovered.value.subscriptionId}. Clusters already managed from this management cluster cannot be chosen.`}
              value={chosen ?? null}
              onChange={setChosen}
            >
              {discovered.value.items.map(c => (
                <ClusterOption key={clusterKey(c)} c={c} />
              ))}
            </RadioGroup>
          </Flex>
        )}
      </WizardStep>

      <JobReview request={request} firstStep={5} />
    </WizardPage>
  );
}
