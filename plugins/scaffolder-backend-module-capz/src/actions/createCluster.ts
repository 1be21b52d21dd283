import type {
  AuthService,
  DiscoveryService,
  RootConfigService,
} from '@backstage/backend-plugin-api';
import {
  createTemplateAction,
  type TemplateActionOptions,
} from '@backstage/plugin-scaffolder-node';
import type {
  CreateClusterRequest,
  CreateClusterResponse,
} from '@capz-backstage/plugin-capz-common';
import { examples } from './createCluster.examples';

/** What `capz:cluster:create` needs from the backend. @public */
export interface CreateClusterActionOptions {
  auth: AuthService;
  discovery: DiscoveryService;
  /** `app.baseUrl` makes the output link absolute; without it the link is the app-relative path. */
  config?: RootConfigService;
}

/** The zod the scaffolder passes to an action's schema functions (zod/v3). */
type Zod = Parameters<
  NonNullable<NonNullable<TemplateActionOptions['schema']>['input']>[string]
>[0];

/**
 * The parameters of a new cluster, as the template passes them: `capz:cluster:create` takes exactly these, and
 * `capz:cluster:propose` takes them plus where to propose the manifests.
 */
export const clusterInputSchema = {
  managementCluster: (z: Zod) =>
    z.string().describe('Management cluster (capz.managementClusters[].name)'),
  name: (z: Zod) =>
    z
      .string()
      .describe(
        "Cluster name (lowercase DNS label; at most 54 characters, the dnsPrefix limit, and less where AKS's node resource group MC_<name>_<name>_<location> would pass 80)",
      ),
  namespace: (z: Zod) =>
    z.string().describe('Existing namespace on the management cluster'),
  location: (z: Zod) => z.string().describe('Azure region, e.g. westeurope'),
  kubernetesVersion: (z: Zod) =>
    z
      .string()
      .describe(
        'Kubernetes version, e.g. v1.33.2 (1.33.2 is taken as v1.33.2)',
      ),
  credentialSecretName: (z: Zod) =>
    z.string().describe('ASO credential Secret in the same namespace'),
  pools: (z: Zod) =>
    z
      .array(
        z.object({
          name: z
            .string()
            .describe(
              'Agent pool name: lowercase letters and digits, at most 12 (Linux) or 6 (Windows)',
            ),
          mode: z.enum(['System', 'User']),
          osType: z
            .enum(['Linux', 'Windows'])
            .optional()
            .describe('Default Linux; a System pool runs Linux'),
          vmSize: z.string(),
          replicas: z
            .number()
            .int()
            .describe('Nodes (with autoscaling: the initial count)'),
          autoscaling: z
            .object({
              minCount: z.number().int(),
              maxCount: z.number().int(),
            })
            .optional()
            .describe('Cluster autoscaler bounds'),
        }),
      )
      .min(1)
      .describe('Agent pools; at least one System pool'),
  owner: (z: Zod) =>
    z
      .string()
      .optional()
      .describe(
        "Catalog owner (entity ref, e.g. group:default/platform), written as the Cluster's capz.io/owner annotation",
      ),
  tags: (z: Zod) =>
    z
      .record(z.string(), z.string())
      .optional()
      .describe('Azure tags of the resource group, cluster and pools'),
  entraOnly: (z: Zod) =>
    z
      .boolean()
      .optional()
      .describe(
        'Entra ID only: managed Entra integration, Azure RBAC, local accounts disabled; the Entra kubeconfig goes to <name>-user-kubeconfig',
      ),
  adminGroupObjectIDs: (z: Zod) =>
    z
      .array(z.string())
      .optional()
      .describe('Entra groups made cluster admins (Entra-only clusters)'),
};

/** The message of a Backstage error body (`{error: {message}}`), else the status and raw text. */
async function errorOf(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const message = JSON.parse(text)?.error?.message;
    if (message) return `${res.status}: ${message}`;
  } catch {
    /* not JSON */
  }
  return `${res.status} ${res.statusText}${
    text ? `: ${text.slice(0, 500)}` : ''
  }`;
}

/**
 * `capz:cluster:create`: asks the capz backend (`POST /api/capz/clusters`) to render and apply a new ASO-managed AKS
 * cluster on a management cluster, as the user who runs the template (their credentials, so the backend checks
 * capz.cluster.create for them and audits it under their name). In a template dry run the backend applies with
 * `dryRun=All`: the real CRDs validate every object and nothing is written.
 *
 * @public
 */
export function createCreateClusterAction(o: CreateClusterActionOptions) {
  return createTemplateAction({
    id: 'capz:cluster:create',
    description:
      'Creates a new AKS cluster (CAPZ aks-aso flavor) on a management cluster through the capz backend, as the user who runs the template',
    examples,
    supportsDryRun: true,
    schema: {
      input: clusterInputSchema,
      output: {
        clusterUrl: z =>
          z
            .string()
            .describe(
              "The new cluster's page (absolute when app.baseUrl is configured)",
            ),
        clusterPath: z =>
          z.string().describe("The new cluster's page, relative to the app"),
        objects: z =>
          z
            .array(z.string())
            .describe(
              'The objects created (or validated, in a dry run) as Kind/name',
            ),
      },
    },
    async handler(ctx) {
      const credentials = await ctx.getInitiatorCredentials();
      const { token } = await o.auth.getPluginRequestToken({
        onBehalfOf: credentials,
        targetPluginId: 'capz',
      });
      const baseUrl = await o.discovery.getBaseUrl('capz');
      const dryRun = ctx.isDryRun === true;
      const request: CreateClusterRequest = { ...ctx.input, dryRun };
      const target = `${ctx.input.managementCluster}/${ctx.input.namespace}/${ctx.input.name}`;
      ctx.logger.info(
        `${
          dryRun ? 'Validating (dry run, nothing is written)' : 'Creating'
        } cluster ${target}`,
      );
      const res = await fetch(`${baseUrl}/clusters`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(request),
      });
      if (!res.ok)
        throw new Error(
          `Cannot create cluster ${target}: ${await errorOf(res)}`,
        );
      const answer = (await res.json()) as CreateClusterResponse;
      const objects = answer.objects.map(x => `${x.kind}/${x.name}`);
      // What the backend could not check (the version against ARM, when ARM cannot be asked): shown in the run's log.
      for (const w of answer.warnings ?? []) ctx.logger.warn(w);
      ctx.logger.info(
        `${dryRun ? 'The API server accepted' : 'Created'} ${
          objects.length
        } objects: ${objects.join(', ')}`,
      );
      const appBaseUrl = o.config
        ?.getOptionalString('app.baseUrl')
        ?.replace(/\/+$/, '');
      ctx.output('clusterPath', answer.path);
      ctx.output(
        'clusterUrl',
        appBaseUrl ? `${appBaseUrl}${answer.path}` : answer.path,
      );
      ctx.output('objects', objects);
    },
  });
}
