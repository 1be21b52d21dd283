import type {
  DiscoveredAksCluster,
  JobDetails,
  PreflightCheck,
  StepPlan,
} from '@capz-backstage/plugin-capz-common';

export const JOB_ID = '6f1c2b7e-3d4a-4c5b-9e8f-0a1b2c3d4e5f';
export const OTHER_JOB_ID = '0b9a8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d';

export function pool(
  name: string,
  mode: 'System' | 'User' = 'User',
): DiscoveredAksCluster['agentPools'][number] {
  return {
    name,
    mode,
    vmSize: 'Standard_D4s_v5',
    count: 3,
    enableAutoScaling: mode === 'User',
    minCount: 1,
    maxCount: 5,
  };
}

export function aks(
  over: Partial<DiscoveredAksCluster> & { name: string },
): DiscoveredAksCluster {
  return {
    subscriptionId: 'sub-1',
    resourceGroup: `rg-${over.name}`,
    location: 'westeurope',
    kubernetesVersion: '1.33.2',
    provisioningState: 'Succeeded',
    entraOnly: false,
    agentPools: [pool('system', 'System'), pool('work')],
    ...over,
  };
}

export const DISCOVERED: DiscoveredAksCluster[] = [
  aks({ name: 'data-lake' }),
  aks({
    name: 'billing',
    managedBy: {
      namespace: 'team-billing',
      name: 'billing',
      cluster: 'billing',
    },
  }),
  aks({
    name: 'secure-one',
    entraOnly: true,
    agentPools: [pool('sys', 'System')],
  }),
];

export const PREFLIGHT_OK: PreflightCheck[] = [
  {
    id: 'aso-version',
    title: 'ASO version',
    status: 'pass',
    message: 'ASO v2.13.0 serves ManagedCluster v1api20240901',
  },
  {
    id: 'capz-version',
    title: 'CAPZ version',
    status: 'warn',
    message:
      'CAPZ v1.21.0: AzureASOManagedMachinePool scaling through CAPI is supported',
    fix: 'Nothing needed; upgrade CAPZ to v1.22 for the newest fixes.',
  },
];

export const PLAN: StepPlan[] = [
  {
    id: 'create-namespace',
    title: 'Create the namespace',
    description:
      'The ASO and CAPI objects live in team-data (docs/capz-aso-facts.md#legacy-api).',
    preconditions: [
      {
        type: 'allowed',
        verb: 'create',
        group: '',
        resource: 'namespaces',
        description: 'The backend may create namespaces',
      },
    ],
    actions: [
      {
        action: 'create',
        ref: { apiVersion: 'v1', kind: 'Namespace', name: 'team-data' },
        object: {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'team-data' },
        },
        description: 'The namespace of the adopted cluster',
      },
    ],
    waitFor: [
      {
        type: 'exists',
        ref: { apiVersion: 'v1', kind: 'Namespace', name: 'team-data' },
        description: 'Namespace team-data exists',
      },
    ],
    timeoutSeconds: 60,
  },
  {
    id: 'copy-credential',
    title: 'Copy the credential',
    description: 'Each namespace needs its own ASO credential Secret.',
    preconditions: [],
    actions: [
      {
        action: 'copy-secret',
        from: {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'team-old',
          name: 'aso-credential',
        },
        to: {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'team-data',
          name: 'aso-credential',
        },
        description: 'The credential the new objects name',
      },
    ],
    waitFor: [],
    timeoutSeconds: 30,
  },
  {
    id: 'pause',
    title: 'Pause the old cluster',
    description:
      'Stops CAPZ reconciling the old objects (docs/migration-procedure.md#step-1).',
    preconditions: [],
    actions: [
      {
        action: 'merge-patch',
        ref: {
          apiVersion: 'cluster.x-k8s.io/v1beta1',
          kind: 'Cluster',
          namespace: 'team-old',
          name: 'data-lake',
        },
        patch: { spec: { paused: true } },
        description: 'Pause the CAPI Cluster',
      },
    ],
    waitFor: [
      {
        type: 'field',
        ref: {
          apiVersion: 'cluster.x-k8s.io/v1beta1',
          kind: 'Cluster',
          namespace: 'team-old',
          name: 'data-lake',
        },
        path: ['spec', 'paused'],
        value: true,
        description: 'Cluster team-old/data-lake is paused',
      },
    ],
    timeoutSeconds: 600,
  },
];

export function jobDetails(over: Partial<JobDetails> = {}): JobDetails {
  return {
    id: JOB_ID,
    type: 'adopt',
    target: {
      managementCluster: 'local',
      namespace: 'team-data',
      name: 'data-lake',
    },
    params: {
      managementCluster: 'local',
      namespace: 'team-data',
      credentialSecret: 'aso-credential',
      subscriptionId: 'sub-1',
      resourceGroup: 'rg-data-lake',
      clusterName: 'data-lake',
    },
    createdBy: 'user:default/alice',
    state: 'running',
    currentStep: 'copy-credential',
    steps: [
      {
        id: 'create-namespace',
        title: 'Create the namespace',
        state: 'succeeded',
        attempts: 1,
        startedAt: '2026-11-21T10:00:00Z',
        finishedAt: '2026-11-21T10:00:02Z',
      },
      {
        id: 'copy-credential',
        title: 'Copy the credential',
        state: 'running',
        attempts: 2,
        startedAt: '2026-11-21T10:00:03Z',
        message: 'Waiting for Secret team-data/aso-credential',
      },
      {
        id: 'pause',
        title: 'Pause the old cluster',
        state: 'pending',
        attempts: 0,
      },
    ],
    createdAt: '2026-11-21T09:59:59Z',
    updatedAt: '2026-11-21T10:00:03Z',
    plan: PLAN,
    log: [
      {
        at: '2026-11-21T09:59:59Z',
        level: 'info',
        message: 'adopt job created by user:default/alice',
      },
      {
        at: '2026-11-21T10:00:02Z',
        level: 'info',
        step: 'create-namespace',
        message: 'created Namespace team-data',
      },
    ],
    ...over,
  };
}
