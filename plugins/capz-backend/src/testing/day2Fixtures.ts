/**
 * What the day-2 tests against the simulated managers (day2.integration.test.ts) and against the real ones
 * (day2.real-controllers.test.ts) share: a cluster as a user writes it, and the delete's end state in Kubernetes and
 * in the simulated Azure; the backend's ServiceAccount with the shipped day-2 RBAC, and its writes in the audit log.
 */
// eslint-disable-next-line @backstage/no-undeclared-imports
import { auditLogEntries } from '@internal/mgmt-cluster';
import {
  generateAksAsoClusterManifests,
  RECONCILE_POLICY_ANNOTATION,
  type DeletePreview,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import type { AzureState } from './jobFixtures';
import type { JobsWorld } from './jobsWorld';
import {
  applyManifest,
  createObjects,
  serviceAccountToken,
  until,
} from './realCluster';

/** A cluster as a user would have written it (client-side apply): pools system (1) and user; `rgPolicy` on its group. */
export async function createDay2Cluster(
  w: JobsWorld,
  o: {
    namespace: string;
    name: string;
    kubernetesVersion: string;
    userReplicas: number;
    rgPolicy?: string;
    /** The Cluster's capz.io/owner (a catalog entity ref); the default owner without it. */
    owner?: string;
  },
): Promise<void> {
  const objects = generateAksAsoClusterManifests({
    name: o.name,
    namespace: o.namespace,
    location: 'westeurope',
    kubernetesVersion: o.kubernetesVersion,
    credentialSecretName: 'aso-credential',
    owner: o.owner,
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
      {
        name: 'user',
        mode: 'User',
        vmSize: 'Standard_D2s_v3',
        replicas: o.userReplicas,
      },
    ],
  });
  if (o.rgPolicy) {
    const infra = objects.find(x => x.kind === 'AzureASOManagedCluster')!;
    const rg = (infra.spec!.resources as ObservedObject[])[0];
    rg.metadata!.annotations = {
      ...rg.metadata!.annotations,
      [RECONCILE_POLICY_ANNOTATION]: o.rgPolicy,
    };
  }
  await createObjects(
    w.info,
    o.namespace,
    objects,
    'kubectl-client-side-apply',
  );
}

/** The delete preview's Azure deletions counted as the simulated Azure counts them. */
export const deletesByType = (p: DeletePreview['deletes']) => {
  const count = (suffix: string) =>
    p.filter(x => x.azureType.endsWith(suffix)).length;
  return {
    resourceGroups: count('/resourceGroups'),
    managedClusters: count('/managedClusters'),
    agentPools: count('/agentPools'),
  };
};

/** True once the Cluster and the ASO objects named after it are gone from the namespace, else what is left. */
export async function clusterObjectsGone(
  w: JobsWorld,
  namespace: string,
  name: string,
): Promise<true | string> {
  const left = (
    await Promise.all(
      (
        [
          'Cluster',
          'ResourceGroup',
          'ManagedCluster',
          'ManagedClustersAgentPool',
        ] as const
      ).map(k => w.c.list(k, namespace)),
    )
  )
    .flat()
    .filter(
      o => o.metadata.name === name || o.metadata.name.startsWith(`${name}-`),
    );
  return left.length
    ? `left: ${left.map(o => `${o.kind}/${o.metadata.name}`).join(', ')}`
    : true;
}

/**
 * What the simulated Azure deleted since `before`, once its counters have not moved for `stableMs` (the simulator
 * persists its state 200 ms after a change).
 */
export async function azureDeletedSince(
  w: JobsWorld,
  before: AzureState['counters']['deleted'],
  stableMs: number,
  timeoutMs: number,
): Promise<Record<string, number>> {
  let last = '';
  let stableSince = Date.now();
  await until(
    'the simulated Azure to settle',
    () => {
      const now = JSON.stringify(w.azure().counters);
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      }
      return Date.now() - stableSince > stableMs;
    },
    timeoutMs,
  );
  const after = w.azure().counters.deleted;
  return Object.fromEntries(
    Object.entries(after).map(([k, v]) => [
      k,
      v - before[k as keyof typeof before],
    ]),
  );
}

/** A mutating request in the API server's audit log. */
export interface AuditedWrite {
  verb: string;
  requestURI: string;
  objectRef?: { resource?: string; name?: string };
}

/**
 * The writes ServiceAccount `capz-system/<serviceAccount>` made from byte `fromByte` of the audit log on (written before
 * each response returns), server-side dry runs left out: they persist nothing.
 */
export function auditedWrites(
  auditLog: string,
  serviceAccount: string,
  fromByte: number,
): AuditedWrite[] {
  return auditedWritesBy(
    auditLog,
    `system:serviceaccount:capz-system:${serviceAccount}`,
    fromByte,
  );
}

/** The writes of the API server's user `username` from byte `fromByte` of the audit log on, dry runs left out. */
export function auditedWritesBy(
  auditLog: string,
  username: string,
  fromByte: number,
): AuditedWrite[] {
  return auditLogEntries<AuditedWrite & { user?: { username?: string } }>(
    auditLog,
    fromByte,
  ).filter(
    e =>
      e.user?.username === username &&
      !['get', 'list', 'watch'].includes(e.verb) &&
      !/[?&]dryRun=All\b/.test(e.requestURI),
  );
}

/**
 * A ServiceAccount in capz-system bound to nothing but rbac/read.yaml and rbac/day2.yaml (so every call of a test
 * proves that RBAC is enough); its token.
 */
export async function day2ServiceAccount(
  w: JobsWorld,
  name: string,
): Promise<string> {
  const clusterRoles = (file: string) =>
    YAML.parseAllDocuments(
      readFileSync(
        resolvePackagePath('@capz-backstage/plugin-capz-backend', 'rbac', file),
        'utf8',
      ),
    )
      .map(d => d.toJS())
      .filter(d => d.kind === 'ClusterRole');
  const binding = (role: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${name}-${role}` },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: role,
    },
    subjects: [{ kind: 'ServiceAccount', name, namespace: 'capz-system' }],
  });
  await applyManifest(w.info, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capz-system' } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace: 'capz-system' },
    },
    ...clusterRoles('read.yaml'),
    ...clusterRoles('day2.yaml'),
    binding('capz-backstage-read'),
    binding('capz-backstage-day2'),
  ]);
  return serviceAccountToken(w.info, 'capz-system', name);
}
