/**
 * A fleet upgrade's preview and the fleet runs' state as actions of Backstage's actions registry, for AI assistants
 * through the MCP actions backend: POST /fleet-runs/preview and GET /fleet-runs[/:id] on behalf of the caller
 * (routeCall.ts), so the same validation, the same permission decisions and the same words. Read-only: they write
 * nothing.
 */
import type {
  AuthService,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import type { FleetRunRecord } from '@capz-backstage/plugin-capz-common';
import { spec } from '../schema/openapi.generated';
import { getAsCaller, postAsCaller } from './routeCall';

const pattern = (schema: string) =>
  new RegExp(
    (spec.components.schemas as unknown as Record<string, { pattern: string }>)[
      schema
    ].pattern,
  );

/** A run as an assistant needs it: each stage's and cluster's state and why, without the previewed changes. */
const runSummary = (r: FleetRunRecord) => ({
  id: r.id,
  state: r.run.state,
  target: r.run.target,
  createdBy: r.createdBy,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  failures: r.run.failures,
  maxFailures: r.run.maxFailures,
  stages: r.run.stages.map(s => ({
    name: s.name,
    state: s.state,
    ...(s.gate ? { gate: s.gate } : {}),
    ...(s.approvedBy ? { approvedBy: s.approvedBy } : {}),
    clusters: s.clusters.map(c => ({
      managementCluster: c.managementCluster,
      namespace: c.namespace,
      name: c.name,
      state: c.state,
      ...(c.message ? { message: c.message } : {}),
    })),
  })),
});

/** Registers capz:preview-fleet-upgrade and capz:get-fleet-runs on the plugin's actions registry. */
export function registerFleetActions(o: {
  actionsRegistry: ActionsRegistryService;
  auth: AuthService;
  discovery: DiscoveryService;
}): void {
  o.actionsRegistry.register({
    name: 'preview-fleet-upgrade',
    title: 'Preview an upgrade of many AKS clusters in stages',
    description:
      "Plans a Kubernetes upgrade of many AKS clusters (CAPZ) in stages (for example dev, then staging, then production) without changing anything: for each cluster the single-cluster upgrade's plan (the control plane to the target version, then its node pools) or why it is left out (not healthy, CAPZ fighting AKS over the version, a pool too far behind, a version its region does not offer, applied by a GitOps controller whose changes cannot be proposed to Git, not found, or not allowed: capz.cluster.upgrade per cluster); a step Flux applies is planned as a pull request (throughGit). Target: the next minor version's newest patch the region offers ({kind: 'next-minor'}), or one version ({kind: 'version', version: 'v1.34.2'}). capz:list-clusters-needing-attention names the clusters.",
    attributes: { readOnly: true, destructive: false, idempotent: true },
    schema: {
      input: z =>
        z.object({
          target: z
            .union([
              z.object({ kind: z.literal('next-minor') }),
              z.object({
                kind: z.literal('version'),
                version: z.string().describe('e.g. v1.34.2'),
              }),
            ])
            .describe('What every cluster moves to'),
          stages: z
            .array(
              z.object({
                name: z.string().min(1).describe('e.g. dev'),
                clusters: z
                  .array(
                    z.object({
                      managementCluster: z
                        .string()
                        .regex(pattern('ManagementClusterName')),
                      namespace: z.string().regex(pattern('NamespaceName')),
                      name: z.string().regex(pattern('ClusterName')),
                    }),
                  )
                  .min(1),
              }),
            )
            .min(1)
            .describe('In order; a cluster belongs to one stage'),
          concurrency: z
            .number()
            .int()
            .min(1)
            .optional()
            .describe(
              'Clusters of a stage upgraded at the same time (default 1)',
            ),
        }),
      output: z =>
        z.object({
          preview: z
            .record(z.string(), z.unknown())
            .describe(
              "Each stage's clusters with outcome (upgrade, current, refused), from, to, steps (each with its changes) and problems; and the counts",
            ),
        }),
    },
    action: async ({ input, credentials }) => ({
      output: {
        preview: await postAsCaller(
          o,
          credentials,
          '/fleet-runs/preview',
          input,
        ),
      },
    }),
  });

  o.actionsRegistry.register({
    name: 'get-fleet-runs',
    title: 'Read fleet upgrade runs',
    description:
      "The fleet runs (upgrades of many AKS clusters in stages, started from the clusters page) the caller may read, newest first, or one run by its id: each run's state (running, paused, stopping, succeeded, failed, cancelled), and each stage's and cluster's state with why in words (a stage soaking or waiting for approval, a cluster's step, its failure). Read-only.",
    attributes: { readOnly: true, destructive: false, idempotent: true },
    schema: {
      input: z =>
        z.object({
          id: z
            .string()
            .uuid()
            .optional()
            .describe('One run by its id; without it, the newest runs'),
        }),
      output: z =>
        z.object({
          runs: z
            .array(z.record(z.string(), z.unknown()))
            .describe(
              'Each run: id, state, target, createdBy, createdAt, failures, and its stages with their clusters (state, message)',
            ),
        }),
    },
    action: async ({ input, credentials }) => {
      const records = input.id
        ? [
            (await getAsCaller(
              o,
              credentials,
              `/fleet-runs/${encodeURIComponent(input.id)}`,
            )) as unknown as FleetRunRecord,
          ]
        : (
            (await getAsCaller(o, credentials, '/fleet-runs')) as unknown as {
              items: FleetRunRecord[];
            }
          ).items;
      return { output: { runs: records.map(runSummary) } };
    },
  });
}
