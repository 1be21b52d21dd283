import type {
  AuditorService,
  BackstageCredentials,
  BackstageUserPrincipal,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError, NotFoundError } from '@backstage/errors';
import {
  AuthorizeResult,
  type PolicyDecision,
} from '@backstage/plugin-permission-common';
import {
  capzClusterMigratePermission,
  capzClusterUpgradePermission,
  capzFleetRunApprovePermission,
  fleetRunSpecProblems,
  type ClusterPlace,
  type FleetRunCommand,
  type FleetRunOptions,
  type FleetRunSpec,
  type FleetRunTarget,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import { retryAfterHeader } from '../azure/errors';
import {
  clusterDecision,
  decisionFilter,
  readDecision,
  readFilter,
  type ReadFilter,
} from '../permissions/readAccess';
import type { ClusterOwnerOf } from '../permissions/rules';
import { capzOpenApiRouter } from './openApiRouter';
import type { FleetPreview } from '../day2/fleetPreview';
import type { FleetRuns } from '../day2/fleetRuns';
import type { StoredFleetRun } from '../day2/fleetRunStore';

export interface FleetRouterOptions {
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  ownerOf?: ClusterOwnerOf;
  fleet: Pick<FleetPreview, 'preview'>;
  runs: Pick<FleetRuns, 'create' | 'get' | 'list' | 'command'>;
  /** Tests: check every answer against openapi.yaml too. */
  validateResponses?: boolean;
}

const clustersOf = (r: StoredFleetRun): ClusterPlace[] =>
  r.run.stages.flatMap(s =>
    s.clusters.map(c => ({
      managementCluster: c.managementCluster,
      namespace: c.namespace,
      name: c.name,
    })),
  );

const samePlace = (a: ClusterPlace, b: ClusterPlace) =>
  a.managementCluster === b.managementCluster &&
  a.namespace === b.namespace &&
  a.name === b.name;

/**
 * The clusters of a run (or the one named) for which `allowed` holds neither at the place the run names nor, once a
 * migration wave moved it, at its new place: after a move the old place is empty, and a policy by owner finds the
 * cluster's owner only where it now is.
 */
const deniedIn = (
  r: StoredFleetRun,
  allowed: (p: ClusterPlace) => boolean,
  only?: ClusterPlace,
): ClusterPlace[] =>
  r.run.stages
    .flatMap(s => s.clusters)
    .filter(c => !only || samePlace(c, only))
    .filter(c => !allowed(c) && !(c.movedTo && allowed(c.movedTo)))
    .map(c => ({
      managementCluster: c.managementCluster,
      namespace: c.namespace,
      name: c.name,
    }));

/** The permission a run's target needs on each of its clusters: a migration wave migrates, the others upgrade. */
const permissionOf = (t: FleetRunTarget) =>
  t.kind === 'migrate'
    ? capzClusterMigratePermission
    : capzClusterUpgradePermission;

/** A run as the routes answer it (its row's version and its creator's policy decision stay inside the backend). */
const recordOf = ({
  version: _version,
  decision: _decision,
  ...r
}: StoredFleetRun) => r;

/**
 * The fleet routes (openapi.yaml, `/fleet-runs`): a fleet upgrade's preview, for a user or a service, each cluster under
 * the caller's capz.cluster.upgrade (one decision per request, applied to every cluster); the runs, started and
 * commanded by users only and audited, seen by whoever may read every cluster of a run.
 */
/** The largest fleet-run body the routes take (express.json's limit). */
export const FLEET_BODY_LIMIT = '4mb';

export async function createFleetRouter(
  o: FleetRouterOptions,
): Promise<express.Router> {
  const router = await capzOpenApiRouter({
    validateResponses: o.validateResponses,
    // A run names its clusters: "Plan an upgrade of these" over a view of 10,000 is ~1 MB of places, past
    // body-parser's default 100 kB (about 1,300 clusters). 4 MB holds ~40,000 at the usual name lengths.
    bodyLimit: FLEET_BODY_LIMIT,
  });

  /**
   * Which clusters the caller may act on for the target: capz.cluster.upgrade per cluster; for a migration wave the
   * jobs API's rule, capz.cluster.migrate and read access to the cluster (routers/jobsAccess.ts). `decision` is the
   * per-cluster part as the policy gave it, which a run keeps and applies again before each of its writes.
   */
  const mayActOn = async (
    credentials: BackstageCredentials,
    target: FleetRunTarget,
  ): Promise<{ filter: ReadFilter; decision: PolicyDecision }> => {
    let decision: PolicyDecision;
    if (target.kind !== 'migrate')
      decision = await clusterDecision(
        o.permissions,
        credentials,
        capzClusterUpgradePermission,
      );
    else {
      const [migrate] = await o.permissions.authorize(
        [{ permission: capzClusterMigratePermission }],
        { credentials },
      );
      decision =
        migrate.result === AuthorizeResult.ALLOW
          ? await readDecision(o.permissions, credentials)
          : { result: AuthorizeResult.DENY };
    }
    return { filter: decisionFilter(decision, o.ownerOf), decision };
  };

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
      const { filter } = await mayActOn(credentials, spec.target);
      res.json(await o.fleet.preview(spec, filter));
    },
  );

  const user = async (req: express.Request) =>
    o.httpAuth.credentials(req, { allow: ['user'] });
  const userRef = (c: BackstageCredentials<BackstageUserPrincipal>) =>
    c.principal.userEntityRef;
  /** The run, or 404 in the same words when the caller may not read one of its clusters. */
  const readable = async (
    req: express.Request,
    credentials: BackstageCredentials,
  ) => {
    const id = String(req.params.id);
    const mayRead = await readFilter(o.permissions, credentials, o.ownerOf);
    const r = await o.runs.get(id).catch(() => undefined);
    if (!r || deniedIn(r, mayRead).length)
      throw new NotFoundError(`No fleet run ${id}`);
    return r;
  };

  router.get(
    '/fleet-runs',
    async (req: express.Request, res: express.Response) => {
      const credentials = await o.httpAuth.credentials(req);
      const mayRead = await readFilter(o.permissions, credentials, o.ownerOf);
      const items = (await o.runs.list()).filter(
        r => !deniedIn(r, mayRead).length,
      );
      res.json({ items: items.map(recordOf) });
    },
  );

  router.get(
    '/fleet-runs/:id',
    async (req: express.Request, res: express.Response) => {
      res.json(
        recordOf(await readable(req, await o.httpAuth.credentials(req))),
      );
    },
  );

  router.post(
    '/fleet-runs',
    async (req: express.Request, res: express.Response) => {
      const credentials = await user(req);
      const { spec, options = {} } = req.body as {
        spec: FleetRunSpec;
        options?: FleetRunOptions;
      };
      const problems = fleetRunSpecProblems(spec);
      if (problems.length) throw new InputError(problems.join('; '));
      const access = await mayActOn(credentials, spec.target);
      const audit = await o.auditor.createEvent({
        eventId: 'capz-fleet-run',
        severityLevel: 'high',
        request: req,
        meta: { command: 'create', target: { ...spec.target } },
      });
      try {
        const created = await o.runs.create(
          spec,
          options,
          access.filter,
          userRef(credentials),
          access.decision,
        );
        await audit.success({ meta: { run: created.id } });
        res.status(201).json(recordOf(created));
      } catch (e) {
        await audit.fail({ error: e as Error });
        throw e;
      }
    },
  );

  router.post(
    '/fleet-runs/:id/commands',
    async (req: express.Request, res: express.Response) => {
      const credentials = await user(req);
      const run = await readable(req, credentials);
      const cmd = req.body as FleetRunCommand;
      if (cmd.command === 'approve') {
        const [decision] = await o.permissions.authorize(
          [{ permission: capzFleetRunApprovePermission }],
          { credentials },
        );
        if (decision.result !== AuthorizeResult.ALLOW)
          throw new NotAllowedError(
            "Not allowed to approve a fleet run's stage (capz.fleet.run.approve)",
          );
      } else {
        const permission = permissionOf(run.run.target);
        const { filter: mayUpgrade } = await mayActOn(
          credentials,
          run.run.target,
        );
        const named =
          cmd.command === 'skip' || cmd.command === 'retry'
            ? cmd.cluster
            : undefined;
        // A cluster the run does not name is judged where the command says (the run then answers it in words).
        const denied =
          named && !clustersOf(run).some(c => samePlace(c, named))
            ? [named].filter(c => !mayUpgrade(c))
            : deniedIn(run, mayUpgrade, named);
        if (denied.length)
          throw new NotAllowedError(
            `Not allowed to ${cmd.command} this run: ${
              permission.name
            } is not allowed on ${denied
              .map(c => `${c.namespace}/${c.name}`)
              .join(', ')}`,
          );
      }
      const audit = await o.auditor.createEvent({
        eventId: 'capz-fleet-run',
        severityLevel: 'high',
        request: req,
        meta: { run: run.id, command: JSON.parse(JSON.stringify(cmd)) },
      });
      try {
        const after = await o.runs.command(run.id, cmd, userRef(credentials));
        await audit.success();
        res.json(recordOf(after));
      } catch (e) {
        await audit.fail({ error: e as Error });
        throw e;
      }
    },
  );

  // ARM throttling or unavailable (the versions a region offers): a 503 that says when to try again.
  router.use(retryAfterHeader());
  return router;
}
