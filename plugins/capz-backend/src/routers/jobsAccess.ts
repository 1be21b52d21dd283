import type {
  AuditorService,
  AuditorServiceCreateEventOptions,
  AuditorServiceEvent,
  BackstageCredentials,
  BackstageUserPrincipal,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import { NotAllowedError } from '@backstage/errors';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  capzClusterAdoptPermission,
  capzClusterMigratePermission,
  type ClusterPlace,
  type JobType,
} from '@capz-backstage/plugin-capz-common';
import type express from 'express';
import type { ClusterOwnerOf } from '../permissions/rules';
import { readFilter, type ReadFilter } from '../permissions/readAccess';

/** An audit event's meta (Backstage's AuditMeta). */
type AuditMeta = NonNullable<AuditorServiceCreateEventOptions['meta']>;

const permissionFor = (type: JobType) =>
  type === 'adopt' ? capzClusterAdoptPermission : capzClusterMigratePermission;

/**
 * Who may do what with jobs, and the audit trail of what they did. Every jobs route authenticates a user; reading
 * needs capz.cluster.read (a policy may limit it by management cluster and namespace); every mutation needs
 * capz.cluster.adopt (adoption) or capz.cluster.migrate (migration, upgrade) and read access to its target, and is
 * audited as `capz-job`.
 */
export class JobsAccess {
  constructor(
    private readonly o: {
      httpAuth: HttpAuthService;
      permissions: PermissionsService;
      auditor: AuditorService;
      ownerOf?: ClusterOwnerOf;
    },
  ) {}

  credentials(
    req: express.Request,
  ): Promise<BackstageCredentials<BackstageUserPrincipal>> {
    return this.o.httpAuth.credentials(req, { allow: ['user'] });
  }

  /** The clusters the caller may read (a 403 when none). */
  async readable(req: express.Request): Promise<ReadFilter> {
    return readFilter(
      this.o.permissions,
      await this.credentials(req),
      this.o.ownerOf,
    );
  }

  /** Read access to a management cluster's namespace, or a 403. */
  async authorizeNamespace(
    req: express.Request,
    managementCluster: string,
    namespace: string,
  ): Promise<void> {
    const allowed = await this.readable(req);
    if (!allowed({ managementCluster, namespace, name: '' }))
      throw new NotAllowedError(
        `Not allowed to read clusters in ${managementCluster}/${namespace}`,
      );
  }

  /** The job permission, and read access to the target (a policy may limit management clusters and namespaces). */
  async authorizeJob(
    req: express.Request,
    type: JobType,
    target: ClusterPlace,
  ): Promise<BackstageCredentials<BackstageUserPrincipal>> {
    const credentials = await this.credentials(req);
    const [decision] = await this.o.permissions.authorize(
      [{ permission: permissionFor(type) }],
      { credentials },
    );
    if (decision.result !== AuthorizeResult.ALLOW) {
      throw new NotAllowedError(
        `Not allowed to ${
          type === 'adopt'
            ? 'adopt clusters (capz.cluster.adopt)'
            : 'migrate clusters (capz.cluster.migrate)'
        }`,
      );
    }
    const allowed = await readFilter(
      this.o.permissions,
      credentials,
      this.o.ownerOf,
    );
    if (!allowed(target))
      throw new NotAllowedError(
        `Not allowed to read clusters in ${target.managementCluster}/${target.namespace}`,
      );
    return credentials;
  }

  /**
   * Runs a mutation as one `capz-job` audit event: a success with the meta `fn` returns, or a failure with what it
   * threw (thrown on).
   */
  async audited(
    req: express.Request,
    meta: AuditMeta,
    fn: () => Promise<AuditMeta | void>,
  ): Promise<void> {
    const audit: AuditorServiceEvent = await this.o.auditor.createEvent({
      eventId: 'capz-job',
      severityLevel: 'high',
      request: req,
      meta,
    });
    let done: AuditMeta | void;
    try {
      done = await fn();
    } catch (e) {
      await audit.fail({ error: e as Error });
      throw e;
    }
    await audit.success(done ? { meta: done } : undefined);
  }
}
