import type {
  AuditorService,
  BackstageCredentials,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import {
  InputError,
  NotAllowedError,
  ServiceUnavailableError,
} from '@backstage/errors';
import {
  AuthorizeResult,
  type ResourcePermission,
} from '@backstage/plugin-permission-common';
import { createConditionAuthorizer } from '@backstage/plugin-permission-node';
import {
  capzClusterConnectPermission,
  capzClusterDeletePermission,
  capzClusterReadPermission,
  day2ActionPermissions,
  type ClusterPlace,
  type Day2Action,
  type DeleteClusterRequest,
  type DeleteClusterResponse,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { retryAfterHeader } from '../azure/errors';
import { withOwner } from '../permissions/readAccess';
import { capzClusterRules, type ClusterOwnerOf } from '../permissions/rules';
import { capzOpenApiRouter } from './openApiRouter';
import type { ClusterConnect } from '../connect/ClusterConnect';
import type { Day2Service } from '../day2/Day2Service';
import type { OwnerNotifications } from '../notify/ownerNotifications';

export interface Day2RouterOptions {
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  service: Day2Service;
  /** The kubeconfig download (src/connect). */
  connect: Pick<ClusterConnect, 'kubeconfig'>;
  /** The clusters' owners for a policy's IS_CLUSTER_OWNER condition (cluster/clusterOwners.ts). */
  ownerOf?: ClusterOwnerOf;
  /** Tells the cluster's owners how a confirmed action or delete ended (notify/ownerNotifications.ts). */
  notify?: OwnerNotifications['day2Done'];
  /**
   * `capz.actions.allowServicePrincipalApply`: a service principal (a static token) may confirm day-2 actions too.
   * Backstage allows service principals every permission unasked, so this lets any holder of such a token change any
   * cluster; deletes stay with users.
   */
  allowServicePrincipalApply?: boolean;
  validateResponses?: boolean;
}

const conditionAuthorizer = createConditionAuthorizer(capzClusterRules);

/**
 * The day-2 routes of one cluster (openapi.yaml, under `/clusters/{managementCluster}/{namespace}/{name}`). Each
 * authenticates the user, asks the action's permission for this cluster (conditional on management cluster and
 * namespace, like capz.cluster.create), and, for the writes, records an audit event whatever the outcome. The rules
 * and the writes are the service's.
 */
export async function createDay2Router(
  o: Day2RouterOptions,
): Promise<express.Router> {
  const router = await capzOpenApiRouter({
    validateResponses: o.validateResponses,
  });

  const authorize = async (
    req: express.Request,
    permission: ResourcePermission<'capz-cluster'>,
    p: ClusterPlace,
    allow: Array<'user' | 'service'> = ['user'],
  ): Promise<BackstageCredentials> => {
    const credentials = await o.httpAuth.credentials(req, { allow });
    const [decision] = await o.permissions.authorizeConditional(
      [{ permission }],
      { credentials },
    );
    const allowed =
      decision.result === AuthorizeResult.ALLOW ||
      (decision.result === AuthorizeResult.CONDITIONAL &&
        conditionAuthorizer(decision, withOwner(p, o.ownerOf)));
    if (!allowed)
      throw new NotAllowedError(
        `Not allowed to ${permission.name.replace(
          /^capz\.cluster\./,
          '',
        )} cluster ${p.managementCluster}/${p.namespace}/${p.name} (${
          permission.name
        })`,
      );
    return credentials;
  };

  const place = (params: Record<string, string>): ClusterPlace => ({
    managementCluster: params.managementCluster,
    namespace: params.namespace,
    name: params.name,
  });

  const act =
    (apply: boolean) => async (req: express.Request, res: express.Response) => {
      const p = place(req.params);
      const action = req.body as Day2Action;
      const permission =
        day2ActionPermissions[action?.action as Day2Action['action']];
      if (!permission)
        throw new InputError(
          `action: "${String(action?.action)}" is not one of ${Object.keys(
            day2ActionPermissions,
          ).join(', ')}`,
        );
      // A preview writes nothing: a service principal (the actions registry's callers, src/actions) may ask for one;
      // its confirm only where the operator allowed it.
      const credentials = await authorize(
        req,
        permission,
        p,
        apply && !o.allowServicePrincipalApply ? ['user'] : ['user', 'service'],
      );
      const actor = (credentials.principal as { userEntityRef?: string })
        .userEntityRef;
      const audit = await o.auditor.createEvent({
        eventId: 'capz-cluster-day2',
        severityLevel: apply ? 'high' : 'low',
        request: req,
        meta: { target: { ...p }, action, dryRun: !apply },
      });
      try {
        const plan = await o.service.act(p, action, { apply, actor });
        const changes = plan.changes.map(
          c => `${c.operation} ${c.kind} ${c.namespace}/${c.name}`,
        );
        await audit.success({
          meta: {
            changes,
            ...(plan.git?.proposed
              ? {
                  proposed: {
                    branch: plan.git.proposed.branch,
                    commit: plan.git.proposed.commit,
                    pullRequest: plan.git.proposed.pullRequest?.url,
                  },
                }
              : {}),
          },
        });
        if (apply)
          o.notify?.({
            place: p,
            action: action.action,
            actor,
            changes,
            ...(plan.git?.proposed
              ? {
                  proposed: {
                    branch: plan.git.proposed.branch,
                    pullRequest: plan.git.proposed.pullRequest?.url,
                  },
                }
              : {}),
          });
        res.json(plan);
      } catch (e) {
        await audit.fail({ error: e as Error });
        if (apply)
          o.notify?.({
            place: p,
            action: action.action,
            actor,
            error: e as Error,
          });
        throw e;
      }
    };

  const r = router as unknown as express.Router;
  r.post(
    '/clusters/:managementCluster/:namespace/:name/actions/preview',
    act(false),
  );
  r.post('/clusters/:managementCluster/:namespace/:name/actions', act(true));

  r.get(
    '/clusters/:managementCluster/:namespace/:name/upgrades',
    async (req, res) => {
      const p = place(req.params);
      await authorize(req, capzClusterReadPermission, p);
      res.json(await o.service.upgrades(p));
    },
  );

  r.get(
    '/clusters/:managementCluster/:namespace/:name/delete-preview',
    async (req, res) => {
      const p = place(req.params);
      await authorize(req, capzClusterReadPermission, p);
      res.json(await o.service.deletePreviewWithGit(p));
    },
  );

  r.delete(
    '/clusters/:managementCluster/:namespace/:name',
    async (req, res) => {
      const p = place(req.params);
      const credentials = await authorize(req, capzClusterDeletePermission, p);
      const actor = (credentials.principal as { userEntityRef?: string })
        .userEntityRef;
      const audit = await o.auditor.createEvent({
        eventId: 'capz-cluster-delete',
        severityLevel: 'critical',
        request: req,
        meta: { target: { ...p } },
      });
      try {
        const body = (req.body ?? {}) as Partial<DeleteClusterRequest>;
        const preview = await o.service.deleteCluster(
          p,
          String(body.confirmName ?? ''),
          {
            planDigest: body.planDigest,
            actor,
          },
        );
        const proposed = preview.git?.proposed;
        await audit.success({
          meta: {
            ...(proposed
              ? {
                  proposed: {
                    branch: proposed.branch,
                    commit: proposed.commit,
                    pullRequest: proposed.pullRequest?.url,
                  },
                }
              : {}),
            azureDeletes: preview.deletes.map(
              d => `${d.azureType}/${d.azureName}`,
            ),
            azureKeeps: preview.keeps.map(d => `${d.azureType}/${d.azureName}`),
          },
        });
        o.notify?.({
          place: p,
          action: 'delete',
          actor,
          ...(proposed
            ? {
                proposed: {
                  branch: proposed.branch,
                  pullRequest: proposed.pullRequest?.url,
                },
              }
            : {
                changes: preview.deletes.map(
                  d => `deletes ${d.azureType} ${d.azureName}`,
                ),
              }),
        });
        const answer: DeleteClusterResponse = { accepted: true, preview };
        res.status(202).json(answer);
      } catch (e) {
        await audit.fail({ error: e as Error });
        o.notify?.({ place: p, action: 'delete', actor, error: e as Error });
        throw e;
      }
    },
  );

  r.get(
    '/clusters/:managementCluster/:namespace/:name/connect',
    async (req, res) => {
      const p = place(req.params);
      await authorize(req, capzClusterReadPermission, p);
      const audit = await o.auditor.createEvent({
        eventId: 'capz-cluster-connect',
        severityLevel: 'low',
        request: req,
        meta: { target: { ...p } },
      });
      try {
        const info = o.service.connect(p);
        await audit.success();
        res.json(info);
      } catch (e) {
        await audit.fail({ error: e as Error });
        throw e;
      }
    },
  );

  // The kubeconfig itself: its own permission (access information) and an audit event whatever the outcome; the
  // event names the server and how it signs in, never the kubeconfig.
  r.get(
    '/clusters/:managementCluster/:namespace/:name/kubeconfig',
    async (req, res) => {
      const p = place(req.params);
      await authorize(req, capzClusterConnectPermission, p);
      const audit = await o.auditor.createEvent({
        eventId: 'capz-cluster-kubeconfig',
        severityLevel: 'medium',
        request: req,
        meta: { target: { ...p } },
      });
      try {
        const kc = await o.connect.kubeconfig(p);
        await audit.success({ meta: { server: kc.server, auth: kc.auth } });
        res.json(kc);
      } catch (e) {
        await audit.fail({ error: e as Error });
        throw e;
      }
    },
  );

  // A 503 of ARM (throttling, unavailable: the upgrade options, the kubeconfig) says when to try again in its
  // `Retry-After` header (docs/azure-facts.md#arm-throttling).
  r.use(retryAfterHeader());
  // A management cluster that does not answer is a state to show, not a crash: its 503 carries the message alone in
  // every mode (the root error handler adds a stack trace to any error in development).
  r.use(
    (
      err: unknown,
      req: express.Request,
      res: express.Response,
      next: express.NextFunction,
    ) => {
      if (!(err instanceof ServiceUnavailableError) || res.headersSent) {
        next(err);
        return;
      }
      res.status(503).json({
        error: { name: err.name, message: err.message },
        request: { method: req.method, url: req.url },
        response: { statusCode: 503 },
      });
    },
  );

  return r;
}
