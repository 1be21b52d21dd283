import type {
  AuditorService,
  HttpAuthService,
  LoggerService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import {
  ConflictError,
  InputError,
  NotAllowedError,
  ServiceUnavailableError,
} from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { createConditionAuthorizer } from '@backstage/plugin-permission-node';
import {
  capzClusterCreatePermission,
  clusterOwnerRef,
  clusterPagePath,
  generateAksAsoClusterManifests,
  normalizeKubernetesVersion,
  type CreateClusterRequest,
  type CreateClusterResponse,
  type KubeObject,
  type ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import type { AksDiscovery } from '../azure/AksDiscovery';
import { asoCredentialKeyProblem } from '../azure/credentials';
import type { ManagementClusterConfig } from '../config/managementClusters';
import {
  KubeRequestError,
  describeRef,
} from '../cluster/ManagementClusterClient';
import type { ClusterCreateClient } from '../cluster/clientViews';
import {
  createClusterInputErrors,
  embedded,
  offeredVersionCheck,
} from '../create/checks';
import { capzClusterRules } from '../permissions/rules';
import { capzOpenApiRouter } from './openApiRouter';

export interface ClusterCreateRouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  permissions: PermissionsService;
  auditor: AuditorService;
  managementClusters: ManagementClusterConfig[];
  client: (managementCluster: string) => Promise<ClusterCreateClient>;
  /**
   * The owner of a cluster whose request names none (`catalog.providers.capz.defaultOwner`): a policy's
   * IS_CLUSTER_OWNER condition on capz.cluster.create is met by the owner the new cluster will have.
   */
  defaultOwner?: string;
  /**
   * AKS's versions per region through ARM (capz.azureDiscovery), with the request's credential Secret: a region or a
   * subscription ARM does not offer is a 400 naming what it offers. Without it, or when ARM cannot be asked (ARM or
   * Entra ID unreachable, throttling, refusing the credential), the version is not checked and `warnings` says so.
   */
  azure?: Pick<AksDiscovery, 'listKubernetesVersions'>;
  validateResponses?: boolean;
}

const conditionAuthorizer = createConditionAuthorizer(capzClusterRules);

/**
 * `POST /clusters`: renders a new ASO-managed AKS cluster (capz-common's aks-aso manifests) and applies it with
 * server-side apply under the `capz-backstage` field manager, for the calling user (capz.cluster.create, audited).
 * Order: input (400) → permission (403) → management cluster (404) → namespace and credential Secret, which must hold
 * ASO's keys (400) → the region and the Kubernetes version AKS offers there, from ARM (400 naming what ARM offers;
 * skipped with a warning when ARM cannot be asked) → every
 * name free, read live (409) → every object validated by the API server with dryRun=All (400) → applied (201), or,
 * for a dry run, the answer of the validation (200). Nothing is written before every check has passed.
 */
export async function createClusterCreateRouter(
  o: ClusterCreateRouterOptions,
): Promise<express.Router> {
  const router = await capzOpenApiRouter({
    validateResponses: o.validateResponses,
  });
  /** Creates in flight on this replica, by cluster: a second request for the same cluster is refused at once. */
  const inFlight = new Set<string>();

  router.post('/clusters', async (req, res) => {
    const sent = req.body as CreateClusterRequest;
    // `1.33.2` as AKS and people write it is taken for CAPI's `v1.33.2`.
    const body: CreateClusterRequest = {
      ...sent,
      kubernetesVersion: normalizeKubernetesVersion(sent.kubernetesVersion),
    };
    const dryRun = body.dryRun === true;
    const target = {
      managementCluster: body.managementCluster,
      namespace: body.namespace,
      name: body.name,
    };
    const credentials = await o.httpAuth.credentials(req, { allow: ['user'] });
    const [decision] = await o.permissions.authorizeConditional(
      [{ permission: capzClusterCreatePermission }],
      { credentials },
    );
    const allowed =
      decision.result === AuthorizeResult.ALLOW ||
      (decision.result === AuthorizeResult.CONDITIONAL &&
        conditionAuthorizer(decision, {
          ...target,
          owner: clusterOwnerRef(body.owner, o.defaultOwner),
        }));
    if (!allowed) {
      throw new NotAllowedError(
        `Not allowed to create clusters in ${target.managementCluster}/${target.namespace} (capz.cluster.create)`,
      );
    }
    const audit = await o.auditor.createEvent({
      eventId: 'capz-cluster-create',
      severityLevel: dryRun ? 'low' : 'high',
      request: req,
      meta: { target: { ...target }, dryRun },
    });
    const key = `${target.managementCluster}/${target.namespace}/${target.name}`;
    let locked = false;
    try {
      const errors = createClusterInputErrors(body);
      if (errors.length)
        throw new InputError(`Invalid cluster: ${errors.join('; ')}`);
      if (
        !o.managementClusters.some(c => c.name === target.managementCluster)
      ) {
        throw new InputError(
          `managementCluster: no management cluster named "${target.managementCluster}" is configured`,
        );
      }
      if (inFlight.has(key))
        throw new ConflictError(
          `A create of cluster ${key} is already running`,
        );
      inFlight.add(key);
      locked = true;

      const client = await o.client(target.managementCluster);
      if (
        !(await client.get({
          apiVersion: 'v1',
          kind: 'Namespace',
          name: target.namespace,
        }))
      ) {
        throw new InputError(
          `namespace: there is no namespace "${target.namespace}" on management cluster ${target.managementCluster}`,
        );
      }
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: target.namespace,
        name: body.credentialSecretName,
      };
      const credentialSecret = await client.get(secret);
      if (!credentialSecret) {
        throw new InputError(
          `credentialSecretName: there is no Secret "${body.credentialSecretName}" in namespace ${target.namespace} (ASO reads the Azure credential from it)`,
        );
      }
      // What ASO reads from it, by key name only (values are never read here): the CAPI kubeconfig Secret, or any
      // Secret without ASO's required keys, is refused before anything is written (azure/credentials.ts).
      const keyProblem = asoCredentialKeyProblem(
        `${target.namespace}/${body.credentialSecretName}`,
        Object.keys(
          (credentialSecret as { data?: Record<string, unknown> }).data ?? {},
        ),
        (credentialSecret as { type?: string }).type,
      );
      if (keyProblem)
        throw new InputError(`credentialSecretName: ${keyProblem}`);
      // The version against ARM's list for the region, with the request's own credential Secret (read above).
      const offered = await offeredVersionCheck(o.azure, body);
      if (offered.errors.length)
        throw new InputError(`Invalid cluster: ${offered.errors.join('; ')}`);
      const warnings = offered.warning ? [offered.warning] : [];
      for (const w of warnings) o.logger.warn(`cluster ${key}: ${w}`);
      const objects = generateAksAsoClusterManifests(body);
      // Every name first, read live: the rendered objects and the ASO objects CAPZ will create from them.
      const refs: ObjectRef[] = [
        ...objects.map(x => ({
          apiVersion: x.apiVersion,
          kind: x.kind,
          namespace: target.namespace,
          name: x.metadata.name,
        })),
        ...embedded(objects, target.namespace),
      ];
      const existing: string[] = [];
      for (const ref of refs)
        if (
          await client.get(ref).catch(e => {
            throw unanswered(target.managementCluster, e);
          })
        )
          existing.push(describeRef(ref));
      if (existing.length) {
        throw new ConflictError(
          `name: cluster ${
            target.name
          } cannot be created, these objects exist already: ${existing.join(
            ', ',
          )}`,
        );
      }
      // Every object through the API server's validation (CRD schemas, admission) before the first is written.
      const validated: KubeObject[] = [];
      for (const x of objects) {
        try {
          validated.push(await client.apply(x, { dryRun: true }));
        } catch (e) {
          if (
            e instanceof KubeRequestError &&
            (e.statusCode === 400 || e.statusCode === 422)
          )
            throw new InputError(`The API server rejected ${e.message}`);
          throw unanswered(target.managementCluster, e);
        }
      }
      let written: KubeObject[] = validated;
      if (!dryRun) {
        written = [];
        for (const x of objects) {
          try {
            written.push(await client.apply(x, { dryRun: false }));
          } catch (e) {
            // A failure half way (a timeout, an API server restart) says what it wrote: nothing is rolled back.
            const done = written.map(w =>
              describeRef({
                kind: w.kind,
                namespace: w.metadata.namespace,
                name: w.metadata.name,
              }),
            );
            if (e instanceof KubeRequestError && e.noAnswer)
              throw unanswered(target.managementCluster, e, {
                written: done,
                current: describeRef({
                  kind: x.kind,
                  namespace: target.namespace,
                  name: x.metadata.name,
                }),
              });
            throw new Error(
              `${(e as Error).message}; already created: ${
                done.join(', ') || 'nothing'
              }`,
            );
          }
        }
      }
      const answer: CreateClusterResponse = {
        dryRun,
        ...target,
        path: clusterPagePath(target),
        objects: written.map(w => ({
          apiVersion: w.apiVersion,
          kind: w.kind,
          namespace: w.metadata.namespace ?? target.namespace,
          name: w.metadata.name,
          ...(!dryRun && (w.metadata as { uid?: string }).uid
            ? { uid: (w.metadata as { uid?: string }).uid }
            : {}),
        })),
        ...(warnings.length ? { warnings } : {}),
      };
      o.logger.info(
        `${dryRun ? 'validated (dry run)' : 'created'} cluster ${key} (${
          answer.objects.length
        } objects) for ${credentials.principal.userEntityRef}`,
      );
      await audit.success({
        meta: { objects: answer.objects.map(x => describeRef(x)) },
      });
      res.status(dryRun ? 200 : 201).json(answer);
    } catch (e) {
      await audit.fail({ error: e as Error });
      throw e;
    } finally {
      if (locked) inFlight.delete(key);
    }
  });

  return router as unknown as express.Router;
}

/**
 * 503 for a management cluster that did not answer (cluster/unreachable.ts), saying what was created: before the
 * first write nothing; during the writes those made and whether the one in flight may have been applied. Any other
 * error passes through.
 */
function unanswered(
  mc: string,
  e: unknown,
  writing?: { written: string[]; current: string },
): unknown {
  if (!(e instanceof KubeRequestError && e.noAnswer)) return e;
  const why = e.noAnswer.reason;
  if (!writing)
    return new ServiceUnavailableError(
      `Management cluster ${mc} did not answer (${why}), so nothing was created; try again once it answers.`,
    );
  const current = e.noAnswer.maybeSent
    ? `${writing.current} was sent and its answer lost, so it may or may not have been created`
    : `${writing.current} was not created`;
  return new ServiceUnavailableError(
    `Management cluster ${mc} stopped answering while the cluster was created (${why}): already created: ${
      writing.written.join(', ') || 'nothing'
    }; ${current}. Once it answers, look at the namespace before creating again.`,
  );
}
