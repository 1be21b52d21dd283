/**
 * The cluster page's day-2 actions as actions of Backstage's actions registry, for AI assistants through the MCP
 * actions backend: a preview (the plan, nothing written) and its confirm. Each is the REST route itself, called on
 * behalf of the caller (the way Backstage's own catalog actions call the catalog): the same OpenAPI validation and
 * messages, the same permission decision for the same user, the same audit event with that user in it, the same
 * notification to the owners. Nothing of the routes is written twice here.
 *
 * The confirm needs a signed-in user's credentials. A service principal (an MCP client's static token, another
 * plugin) passes every permission check unasked (Backstage's ServerPermissionClient allows service principals), so
 * letting it write would let any holder of the token change any cluster; it may preview, which writes nothing, and
 * confirm only where the operator says so (`capz.actions.allowServicePrincipalApply`).
 */
import type {
  AuditorService,
  AuthService,
  BackstageCredentials,
  DiscoveryService,
} from '@backstage/backend-plugin-api';
import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { NotAllowedError } from '@backstage/errors';
import { REFUSED_EVENT_ID } from '../permissions/refusedEvent';
import { postAsCaller } from './routeCall';
import { spec } from '../schema/openapi.generated';

/** The zod (v3) the registry hands to an action's schema functions. */
type Zod = Parameters<
  Parameters<ActionsRegistryService['register']>[0]['schema']['input']
>[0];

type JsonSchema = {
  $ref?: string;
  type?: string;
  enum?: readonly string[];
  pattern?: string;
  maxLength?: number;
  description?: string;
  required?: readonly string[];
  properties?: Record<string, JsonSchema>;
  oneOf?: readonly JsonSchema[];
  items?: JsonSchema;
};

const schemas = spec.components.schemas as unknown as Record<
  string,
  JsonSchema
>;
const byRef = (s: JsonSchema): JsonSchema =>
  s.$ref ? schemas[s.$ref.replace('#/components/schemas/', '')] : s;

/**
 * The day-2 actions in one line each, from openapi.yaml's Day2Action (so this text follows the API): e.g.
 * `scale {pool: string, replicas: number}`; a field with `?` is optional.
 */
export function day2ActionsInWords(): string {
  return (schemas.Day2Action.oneOf ?? [])
    .map(byRef)
    .map(s => {
      const fields = Object.entries(s.properties ?? {})
        .filter(([k]) => k !== 'action' && k !== 'planDigest')
        .map(([k, v]) => {
          const f = byRef(v);
          let type = f.type ?? 'object';
          if (f.enum) type = f.enum.map(e => `"${e}"`).join(' | ');
          else if (f.type === 'array')
            type = `${byRef(f.items ?? {}).type ?? 'object'}[]`;
          return `${k}${s.required?.includes(k) ? '' : '?'}: ${type}`;
        });
      return `${s.properties?.action?.enum?.[0]} {${fields.join(', ')}}`;
    })
    .join('; ');
}

/** A path segment's pattern from openapi.yaml (the same names the routes accept). */
const namePattern = (schema: string) => new RegExp(schemas[schema].pattern!);

/** The config key that lets a service principal confirm day-2 actions (config.d.ts). */
export const ALLOW_SERVICE_PRINCIPAL_APPLY =
  'capz.actions.allowServicePrincipalApply';

/** Registers the day-2 preview and its confirm on the plugin's actions registry. */
export function registerDay2Actions(o: {
  actionsRegistry: ActionsRegistryService;
  auth: AuthService;
  discovery: DiscoveryService;
  auditor: AuditorService;
  /** `capz.actions.allowServicePrincipalApply` (the routes take such a confirm then too: routers/day2Router.ts). */
  allowServicePrincipalApply?: boolean;
}): void {
  const place = (z: Zod) => ({
    managementCluster: z
      .string()
      .regex(namePattern('ManagementClusterName'))
      .describe(
        'The management cluster (capz:list-clusters-needing-attention names it)',
      ),
    namespace: z
      .string()
      .regex(namePattern('NamespaceName'))
      .describe("The CAPI Cluster's namespace"),
    name: z
      .string()
      .regex(namePattern('ClusterName'))
      .describe("The CAPI Cluster's name"),
  });
  const actions = day2ActionsInWords();

  /** The day-2 route, on behalf of the caller (routeCall.ts). */
  const call = async (
    credentials: BackstageCredentials,
    input: {
      managementCluster: string;
      namespace: string;
      name: string;
      request: Record<string, unknown>;
    },
    confirm: boolean,
  ): Promise<Record<string, unknown>> => {
    const path = [input.managementCluster, input.namespace, input.name]
      .map(encodeURIComponent)
      .join('/');
    return postAsCaller(
      o,
      credentials,
      `/clusters/${path}/actions${confirm ? '' : '/preview'}`,
      input.request,
    );
  };

  const requestField = (z: Zod, confirm: boolean) =>
    z
      .object({ action: z.string() })
      .passthrough()
      .describe(
        `The action as the cluster page sends it, one of: ${actions}.${
          confirm
            ? ' Add the preview\'s planDigest: {"action": ..., ..., "planDigest": "<from the preview>"}.'
            : ''
        }`,
      );

  /** Both actions take the cluster and the request; both answer the plan (described per action). */
  const schemaOf = (confirm: boolean, planWords: string) => ({
    input: (z: Zod) =>
      z.object({ ...place(z), request: requestField(z, confirm) }),
    output: (z: Zod) =>
      z.object({
        plan: z.record(z.string(), z.unknown()).describe(planWords),
      }),
  });

  o.actionsRegistry.register({
    name: 'preview-cluster-action',
    title: 'Preview a day-2 action on an AKS cluster',
    description: `Plans a day-2 action on one AKS cluster (CAPZ) and answers what it would change, without changing anything: every object it would write with each field before and after, warnings, what Azure would do, and who else applies those objects (Flux, Argo CD), with its planDigest. The actions: ${actions}. Needs the action's permission on the cluster (capz.cluster.scale, .upgrade, .nodepool, .pause). To carry it out, show the plan to the user and call capz:apply-cluster-action with the same request and the planDigest.`,
    attributes: { readOnly: true, destructive: false, idempotent: true },
    schema: schemaOf(
      false,
      'The plan (openapi.yaml Day2Plan): changes, warnings, effects, cautions, appliedBy, blockers, planDigest',
    ),
    action: async ({ input, credentials }) => ({
      output: { plan: await call(credentials, input, false) },
    }),
  });

  o.actionsRegistry.register({
    name: 'apply-cluster-action',
    title: 'Carry out a previewed day-2 action on an AKS cluster',
    description: `Carries out the day-2 action a user previewed with capz:preview-cluster-action: the request must carry that preview's planDigest, and the backend writes exactly that plan or nothing (a 409 when the cluster changed since the preview: preview again). Where Git owns the objects (Flux), the change is proposed as a pull request instead. ${
      o.allowServicePrincipalApply
        ? "Needs the action's permission (this backend also takes a service token's confirm)"
        : "Needs a signed-in user's credentials (not a service token) and the action's permission"
    }; audited with the caller, and the cluster's owners are notified.`,
    attributes: { readOnly: false, destructive: true, idempotent: false },
    schema: schemaOf(true, 'The plan as applied (openapi.yaml Day2Plan)'),
    action: async ({ input, credentials }) => {
      if (
        !o.auth.isPrincipal(credentials, 'user') &&
        !o.allowServicePrincipalApply
      ) {
        const error = new NotAllowedError(
          'Carrying out a day-2 action needs a signed-in user: these credentials are a service principal (such as an MCP client with a static token), which may preview but not change a cluster. Nothing was written.',
        );
        // Refused before any request, so the routes' refusal audit does not see it: the same event, here. The
        // auditor names the actor from a request only; the caller's subject goes in the event's meta.
        const event = await o.auditor.createEvent({
          eventId: REFUSED_EVENT_ID,
          severityLevel: 'medium',
          meta: {
            action: 'capz:apply-cluster-action',
            principal: o.auth.isPrincipal(credentials, 'service')
              ? credentials.principal.subject
              : 'none',
            target: {
              managementCluster: input.managementCluster,
              namespace: input.namespace,
              name: input.name,
            },
          },
        });
        await event.fail({ error });
        throw error;
      }
      return { output: { plan: await call(credentials, input, true) } };
    },
  });
}
