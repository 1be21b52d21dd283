import { ConflictError, CustomErrorBase } from '@backstage/errors';
import type {
  ClusterPlace,
  Job,
  PreflightCheck,
} from '@capz-backstage/plugin-capz-common';
import { describeClaimKey } from './claims';

/** The key of a cluster's one active job (`management cluster/namespace/name`). */
export const activeKey = (t: ClusterPlace) =>
  `${t.managementCluster}/${t.namespace}/${t.name}`;

/** Why a second job on a cluster is refused, naming the job that holds it. */
export const activeJobMessage = (
  target: ClusterPlace,
  active: Pick<Job, 'id' | 'state' | 'type'>,
) =>
  `${activeKey(target)} already has a ${active.state} ${active.type} job (${
    active.id
  }); finish, resume or cancel it first`;

/** Why a job is refused because another one holds a claim on the same Azure resource, naming that job. */
export const claimMessage = (
  key: string,
  holder: Pick<Job, 'id' | 'state' | 'type' | 'target'>,
) =>
  `${describeClaimKey(key)} is claimed by the ${holder.state} ${
    holder.type
  } job ${holder.id} on ${activeKey(holder.target)}: ` +
  'one job at a time may adopt or migrate an AKS cluster; let that job finish, or cancel it, first';

/**
 * A 409 caused by a job: the job in the way of a new one, or the job whose state refuses an action. Its `jobId` is
 * serialized with the error and answered at the top of the body too (the wizard links to that job).
 */
export class JobConflictError extends ConflictError {
  constructor(message: string, readonly jobId: string) {
    super(message);
  }
}

/** A 422: a preflight check failed and nothing was stored; the body carries every check (`preflight`). */
export class PreflightFailedError extends CustomErrorBase {
  name = 'PreflightFailedError' as const;

  constructor(readonly preflight: PreflightCheck[]) {
    super(
      `Preflight failed: ${preflight
        .filter(c => c.status === 'fail')
        .map(c => `${c.title}: ${c.message}`)
        .join('; ')}`,
    );
  }

  /** What Backstage's error handler answers with (not serialized: it lives on the prototype). */
  get statusCode(): number {
    return 422;
  }
}
