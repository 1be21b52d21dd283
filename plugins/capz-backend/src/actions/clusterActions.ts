/**
 * The cluster reads as actions of Backstage's actions registry, which the MCP actions backend serves to AI assistants
 * (and the scaffolder to templates): the clusters that need attention, and one cluster with why it is not ready. Served
 * from the watch cache like the pages, and filtered by `capz.cluster.read` with the caller's credentials as the routes
 * are (an owner's agent sees the owner's clusters). Read-only: nothing here writes.
 */
import type {
  BackstageCredentials,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { NotFoundError } from '@backstage/errors';
import {
  clusterAttention,
  clusterPagePath,
  type AttentionOptions,
  type ClusterSummary,
  type TreeNode,
} from '@capz-backstage/plugin-capz-common';
import { readFilter } from '../permissions/readAccess';
import type { ClusterOwnerOf } from '../permissions/rules';

/** What the actions read: the pages' views of the watch cache. */
export interface ClusterReads {
  list(): ClusterSummary[];
  tree(
    managementCluster: string,
    namespace: string,
    name: string,
    groupThreshold: number,
  ): { summary: ClusterSummary; tree: TreeNode };
}

/** Why a cluster needs someone, in words: its health, its version's support and skew, its API, a second manager. */
export function attentionReasons(
  c: ClusterSummary,
  today: Date,
  lifecycle: Omit<AttentionOptions, 'today'> = {},
): { severity: 'now' | 'soon'; message: string; fix?: string }[] {
  const out: { severity: 'now' | 'soon'; message: string; fix?: string }[] = [];
  if (
    c.health === 'degraded' ||
    c.health === 'failed' ||
    c.health === 'unknown'
  )
    out.push({
      severity: 'now',
      message: `${c.health}${c.reason ? `: ${c.reason}` : ''}${
        c.message ? ` (${c.message})` : ''
      }`,
    });
  if (c.managedFrom?.length)
    out.push({
      severity: 'now',
      message: `its AKS cluster is also managed from ${c.managedFrom
        .map(m => `${m.managementCluster}/${m.namespace}`)
        .join(', ')}`,
      fix: 'keep one manager: delete the other ManagedCluster with reconcile-policy skip first',
    });
  for (const item of clusterAttention(c, { ...lifecycle, today }).items)
    out.push({
      severity: item.severity,
      message: item.message,
      ...(item.fix ? { fix: item.fix } : {}),
    });
  return out;
}

/** The nodes of a tree that are not healthy, deepest cause first within each branch: what an agent explains. */
export function notReady(tree: TreeNode): {
  kind: string;
  name: string;
  health: string;
  reason?: string;
  message?: string;
  since?: string;
}[] {
  const out: ReturnType<typeof notReady> = [];
  const walk = (n: TreeNode) => {
    for (const c of n.children) walk(c);
    if (n.health !== 'healthy' && n.kind !== 'Workers' && !n.source)
      out.push({
        kind: n.kind,
        name: n.name,
        health: n.health,
        ...(n.reason ? { reason: n.reason } : {}),
        ...(n.message ? { message: n.message } : {}),
        ...(n.since ? { since: n.since } : {}),
      });
  };
  walk(tree);
  return out;
}

const place = (c: ClusterSummary) => ({
  managementCluster: c.managementCluster,
  namespace: c.namespace,
  name: c.name,
});

/** Registers the read actions on the plugin's actions registry. */
export function registerClusterActions(o: {
  actionsRegistry: ActionsRegistryService;
  permissions: PermissionsService;
  views: ClusterReads;
  ownerOf?: ClusterOwnerOf;
  /** Today, for the version's support (tests pass a fixed day). */
  today?: () => Date;
  /** `capz.lifecycle` (soonDays, calendar), as the pages read it. */
  lifecycle?: Omit<AttentionOptions, 'today'>;
}): void {
  const today = o.today ?? (() => new Date());
  const canRead = (credentials: BackstageCredentials) =>
    readFilter(o.permissions, credentials, o.ownerOf);

  o.actionsRegistry.register({
    name: 'list-clusters-needing-attention',
    title: 'AKS clusters that need attention',
    description:
      'Lists the AKS clusters (CAPZ, on the configured management clusters) that the caller may read and that need someone: unhealthy (degraded, failed, unknown) with the reason, a Kubernetes version out of or leaving AKS support, pools outside the version skew, a deprecated API to migrate from, or a second manager of the same AKS cluster. Healthy clusters with nothing to do are left out.',
    attributes: { readOnly: true, destructive: false, idempotent: true },
    schema: {
      input: z =>
        z.object({
          managementCluster: z
            .string()
            .optional()
            .describe('Only this management cluster'),
          namespace: z.string().optional().describe('Only this namespace'),
        }),
      output: z =>
        z.object({
          clusters: z.array(
            z.object({
              managementCluster: z.string(),
              namespace: z.string(),
              name: z.string(),
              health: z.string().optional(),
              kubernetesVersion: z.string().optional(),
              owner: z.string().optional(),
              reasons: z.array(
                z.object({
                  severity: z.enum(['now', 'soon']),
                  message: z.string(),
                  fix: z.string().optional(),
                }),
              ),
            }),
          ),
        }),
    },
    action: async ({ input, credentials }) => {
      const readable = await canRead(credentials);
      const day = today();
      const clusters = o.views
        .list()
        .filter(
          c =>
            (!input.managementCluster ||
              c.managementCluster === input.managementCluster) &&
            (!input.namespace || c.namespace === input.namespace) &&
            readable(place(c)),
        )
        .map(c => ({ c, reasons: attentionReasons(c, day, o.lifecycle) }))
        .filter(x => x.reasons.length > 0)
        .map(({ c, reasons }) => ({
          ...place(c),
          ...(c.health ? { health: c.health } : {}),
          ...(c.kubernetesVersion
            ? { kubernetesVersion: c.kubernetesVersion }
            : {}),
          ...(c.owner ? { owner: c.owner } : {}),
          reasons,
        }));
      return { output: { clusters } };
    },
  });

  o.actionsRegistry.register({
    name: 'get-cluster',
    title: 'An AKS cluster and why it is not ready',
    description:
      "One AKS cluster (CAPZ): its health, version, location and pools, and every object of its resource tree that is not healthy (CAPI Cluster, control plane, ASO ManagedCluster, agent pools, ...) with its condition's reason and message, deepest cause first. Needs read access to the cluster.",
    attributes: { readOnly: true, destructive: false, idempotent: true },
    schema: {
      input: z =>
        z.object({
          managementCluster: z.string().describe('The management cluster'),
          namespace: z.string().describe("The CAPI Cluster's namespace"),
          name: z.string().describe("The CAPI Cluster's name"),
        }),
      output: z =>
        z.object({
          cluster: z.object({
            managementCluster: z.string(),
            namespace: z.string(),
            name: z.string(),
            api: z.string(),
            health: z.string().optional(),
            reason: z.string().optional(),
            message: z.string().optional(),
            kubernetesVersion: z.string().optional(),
            location: z.string().optional(),
            owner: z.string().optional(),
            pools: z
              .object({
                total: z.number(),
                ready: z.number(),
                replicas: z.number(),
              })
              .optional(),
          }),
          notReady: z.array(
            z.object({
              kind: z.string(),
              name: z.string(),
              health: z.string(),
              reason: z.string().optional(),
              message: z.string().optional(),
              since: z.string().optional(),
            }),
          ),
          page: z.string(),
        }),
    },
    action: async ({ input, credentials }) => {
      const readable = await canRead(credentials);
      // The same answer for a cluster that is not there and one the caller may not read: nothing to learn from it.
      const missing = () =>
        new NotFoundError(
          `No cluster ${input.managementCluster}/${input.namespace}/${input.name} that you may read`,
        );
      if (!readable(input)) throw missing();
      let found;
      try {
        found = o.views.tree(
          input.managementCluster,
          input.namespace,
          input.name,
          0,
        );
      } catch (e) {
        if ((e as Error).name === 'NotFoundError') throw missing();
        throw e;
      }
      const { summary: s, tree } = found;
      return {
        output: {
          cluster: {
            ...place(s),
            api: s.api,
            ...(s.health ? { health: s.health } : {}),
            ...(s.reason ? { reason: s.reason } : {}),
            ...(s.message ? { message: s.message } : {}),
            ...(s.kubernetesVersion
              ? { kubernetesVersion: s.kubernetesVersion }
              : {}),
            ...(s.location ? { location: s.location } : {}),
            ...(s.owner ? { owner: s.owner } : {}),
            ...(s.pools
              ? {
                  pools: {
                    total: s.pools.total,
                    ready: s.pools.ready,
                    replicas: s.pools.replicas,
                  },
                }
              : {}),
          },
          notReady: notReady(tree),
          page: clusterPagePath(s),
        },
      };
    },
  });
}
