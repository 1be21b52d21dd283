import type {
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { InputError } from '@backstage/errors';
import {
  capzClusterUpgradePermission,
  fleetRunSpecProblems,
  type FleetRunSpec,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { retryAfterHeader } from '../azure/errors';
import { actionFilter } from '../permissions/readAccess';
import type { ClusterOwnerOf } from '../permissions/rules';
import { capzOpenApiRouter } from './openApiRouter';
import type { FleetPreview } from '../day2/fleetPreview';

export interface FleetRouterOptions {
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  ownerOf?: ClusterOwnerOf;
  fleet: Pick<FleetPreview, 'preview'>;
  /** Tests: check every answer against openapi.yaml too. */
  validateResponses?: boolean;
}

/**
 * The fleet routes (openapi.yaml, `/fleet-runs`): a fleet upgrade's preview, for a user or a service, each cluster under
 * the caller's capz.cluster.upgrade (one decision per request, applied to every cluster). Reads only: nothing here is
 * audited as a change.
 */
export async function createFleetRouter(
  o: FleetRouterOptions,
): Promise<express.Router> {
  const router = await capzOpenApiRouter({
    validateResponses: o.validateResponses,
  });

  // Typed as plain Express: capz-common's plan types are interfaces, which the generated response types (with index
  // signatures) do not take; the response is checked against openapi.yaml by the tests' validateResponses.
  router.post(
    '/fleet-runs/preview',
    async (req: express.Request, res: express.Response) => {
      // A service principal may preview too (it writes nothing): the MCP action's static token (src/actions).
      const credentials = await o.httpAuth.credentials(req, {
        allow: ['user', 'service'],
      });
      const spec = req.body as FleetRunSpec;
      const problems = fleetRunSpecProblems(spec);
      if (problems.length) throw new InputError(problems.join('; '));
      const mayUpgrade = await actionFilter(
        o.permissions,
        credentials,
        capzClusterUpgradePermission,
        o.ownerOf,
      );
      res.json(await o.fleet.preview(spec, mayUpgrade));
    },
  );

  // ARM throttling or unavailable (the versions a region offers): a 503 that says when to try again.
  router.use(retryAfterHeader());
  return router;
}
