/**
 * The notification edge: tells a cluster's owners what they would otherwise learn only by opening its page, through
 * Backstage's notification service. Addressed to the cluster's catalog entity (the Resource the catalog module
 * provides), so the notifications backend resolves its owners (an entity that is not a user or a group goes to its
 * `ownedBy`). One notification per job, updated in place through its scope as the job moves on. Without the
 * notifications backend, or when it fails, the product goes on: the failure is logged, nothing else changes.
 */
import type { LoggerService } from '@backstage/backend-plugin-api';
import type { NotificationService } from '@backstage/plugin-notifications-node';
import {
  clusterEntityName,
  clusterPagePath,
  type ClusterPlace,
  type Day2Action,
  type Job,
} from '@capz-backstage/plugin-capz-common';

/** The topic of the jobs' notifications (a user may switch it off in the notification settings). */
export const JOB_NOTIFICATION_TOPIC = 'capz-jobs';

const JOB_WORDS: Record<Job['type'], string> = {
  adopt: 'Adoption',
  migrate: 'Migration',
  'upgrade-api-version': 'API version upgrade',
};

/** The catalog entity of a cluster, as the catalog module names it. */
export const clusterEntityRef = (c: Job['target']) =>
  `resource:default/${clusterEntityName(c)}`;

/** What the owners are told when a job reaches `state`; undefined for states nobody needs to hear of. */
export function jobNotification(job: Job):
  | {
      title: string;
      description?: string;
      severity: 'high' | 'normal' | 'low';
    }
  | undefined {
  const what = `${JOB_WORDS[job.type] ?? job.type} of ${job.target.namespace}/${
    job.target.name
  }`;
  switch (job.state) {
    case 'succeeded':
      return { title: `${what} succeeded`, severity: 'normal' };
    case 'failed':
      return {
        title: `${what} failed`,
        description: [job.error, job.leftBehind].filter(Boolean).join(' '),
        severity: 'high',
      };
    case 'cancelled':
      return {
        title: `${what} was cancelled`,
        ...(job.leftBehind ? { description: job.leftBehind } : {}),
        severity: 'low',
      };
    case 'paused':
      return {
        title: `${what} is paused`,
        description: 'It waits for someone to resume or cancel it.',
        severity: 'normal',
      };
    default:
      return undefined;
  }
}

/** The topic of the day-2 actions' notifications. */
export const DAY2_NOTIFICATION_TOPIC = 'capz-day2';

const DAY2_WORDS: Record<Day2Action['action'] | 'delete', string> = {
  scale: 'Scale',
  autoscale: 'Autoscaling change',
  upgrade: 'Upgrade',
  addPool: 'New node pool',
  removePool: 'Node pool removal',
  pause: 'Pause',
  resume: 'Resume',
  delete: 'Delete',
};

/**
 * Errors a user meets at once and that change nothing: bad input, a policy's no, a cluster or plan that moved on (404,
 * 409), a request the API server or ARM refused before a write. Their owners need not hear of them.
 */
const REFUSALS = new Set([
  'InputError',
  'NotAllowedError',
  'NotFoundError',
  'ConflictError',
  'AuthenticationError',
  'NotModifiedError',
]);

/** A confirmed day-2 action (or a delete) that was applied, proposed to Git, or failed on the way. */
export interface Day2Outcome {
  place: ClusterPlace;
  action: Day2Action['action'] | 'delete';
  /** Who confirmed it (their entity ref). */
  actor?: string;
  /** What was written: "update MachinePool team-payments/payments-prod-api", ... */
  changes?: string[];
  /** The pull request (or branch) it was proposed as, when Git owns the objects. */
  proposed?: { branch: string; pullRequest?: string };
  error?: Error;
}

/** What the owners are told of a day-2 outcome; undefined for refusals that changed nothing. */
export function day2Notification(o: Day2Outcome):
  | {
      title: string;
      description?: string;
      severity: 'high' | 'normal' | 'low';
      link?: string;
    }
  | undefined {
  const what = `${DAY2_WORDS[o.action] ?? o.action} of ${o.place.namespace}/${
    o.place.name
  }`;
  const by = o.actor ? ` by ${o.actor}` : '';
  if (o.error) {
    if (REFUSALS.has(o.error.name)) return undefined;
    return {
      title: `${what} failed`,
      description: `${o.error.message}${
        o.actor ? ` (confirmed by ${o.actor})` : ''
      }`,
      severity: 'high',
    };
  }
  if (o.proposed)
    return {
      title: `${what} proposed${by}`,
      description: `It waits for its merge: ${
        o.proposed.pullRequest ?? `branch ${o.proposed.branch}`
      }.`,
      severity: 'normal',
      ...(o.proposed.pullRequest ? { link: o.proposed.pullRequest } : {}),
    };
  if (o.action === 'delete')
    return {
      title: `${what} started${by}`,
      ...(o.changes?.length ? { description: o.changes.join('; ') } : {}),
      severity: 'normal',
    };
  return {
    title: `${what} applied${by}`,
    ...(o.changes?.length ? { description: o.changes.join('; ') } : {}),
    severity: 'low',
  };
}

/** The topic of the fleet runs' notifications. */
export const FLEET_RUN_NOTIFICATION_TOPIC = 'capz-fleet-runs';

/** A fleet run's notice (capz-common FleetRunNotice), with the run it is about. */
export type FleetRunNoticeOf = { runId: string; createdBy: string } & (
  | { kind: 'approval-needed'; stage: string }
  | { kind: 'person-needed'; cluster: ClusterPlace; message: string }
  | { kind: 'cluster-failed'; cluster: ClusterPlace; message: string }
  | { kind: 'run-finished'; state: 'succeeded' | 'failed' | 'cancelled' }
);

/**
 * Who is told what of a fleet run: its creator of a stage waiting for approval and of the run's end (one notification
 * per run, replaced as it moves on); a cluster's owners and the creator of that cluster's step waiting for a person
 * (its job's pull request to merge) and of its failure (one notification per cluster, replaced).
 */
export function fleetRunNotification(n: FleetRunNoticeOf): {
  entityRefs: string[];
  title: string;
  description?: string;
  severity: 'high' | 'normal' | 'low';
  scope: string;
} {
  const run = `Fleet run ${n.runId.slice(0, 8)}`;
  switch (n.kind) {
    case 'approval-needed':
      return {
        entityRefs: [n.createdBy],
        title: `${run}: stage ${n.stage} waits for approval`,
        description: `Its clusters are upgraded and passed their soak. Someone with capz.fleet.run.approve approves it to start the next stage.`,
        severity: 'high',
        scope: `capz:fleet-run:${n.runId}`,
      };
    case 'person-needed':
      // Whoever reviews the cluster's changes must act (a pull request to merge): its owners, and the run's creator.
      return {
        entityRefs: [clusterEntityRef(n.cluster), n.createdBy],
        title: `${run}: ${n.cluster.namespace}/${n.cluster.name} waits for a person`,
        description: n.message,
        severity: 'normal',
        scope: `capz:fleet-run:${n.runId}:${clusterEntityName(n.cluster)}`,
      };
    case 'cluster-failed':
      return {
        entityRefs: [clusterEntityRef(n.cluster), n.createdBy],
        title: `${run}: the upgrade of ${n.cluster.namespace}/${n.cluster.name} failed`,
        description: n.message,
        severity: 'high',
        scope: `capz:fleet-run:${n.runId}:${clusterEntityName(n.cluster)}`,
      };
    default:
      return {
        entityRefs: [n.createdBy],
        title: `${run} ${n.state}`,
        severity: n.state === 'succeeded' ? 'normal' : 'high',
        scope: `capz:fleet-run:${n.runId}`,
      };
  }
}

/** The owners' notifications of the plugin's jobs and day-2 actions. */
export interface OwnerNotifications {
  /** A fleet run's notice (sent once: by the replica whose write made it). */
  fleetRun(notice: FleetRunNoticeOf): void;
  /** A run moved `job` to another state (sent once: by the replica whose fenced write did it). */
  jobStateChanged(job: Job): void;
  /** A confirmed day-2 action or delete ended (sent by the replica that served it, once). */
  day2Done(outcome: Day2Outcome): void;
}

export function ownerNotifications(o: {
  notifications?: NotificationService;
  logger: LoggerService;
}): OwnerNotifications {
  return {
    fleetRun(notice) {
      if (!o.notifications) return;
      const { entityRefs, scope, ...payload } = fleetRunNotification(notice);
      o.notifications
        .send({
          recipients: { type: 'entity', entityRef: entityRefs },
          payload: {
            ...payload,
            link: `/capz/fleet-runs/${encodeURIComponent(notice.runId)}`,
            topic: FLEET_RUN_NOTIFICATION_TOPIC,
            scope,
          },
        })
        .catch(e =>
          o.logger.warn(
            `could not tell fleet run ${notice.runId}'s ${notice.kind}: ${
              (e as Error).message
            }`,
          ),
        );
    },
    day2Done(outcome) {
      const n = day2Notification(outcome);
      if (!n || !o.notifications) return;
      const { place } = outcome;
      o.notifications
        .send({
          recipients: { type: 'entity', entityRef: clusterEntityRef(place) },
          payload: {
            link: clusterPagePath(place),
            ...n,
            topic: DAY2_NOTIFICATION_TOPIC,
          },
        })
        .catch(e =>
          o.logger.warn(
            `could not notify the owners of ${place.namespace}/${
              place.name
            } of a ${outcome.action}: ${(e as Error).message}`,
          ),
        );
    },
    jobStateChanged(job) {
      const n = jobNotification(job);
      if (!n || !o.notifications) return;
      o.notifications
        .send({
          // The cluster's owners, and whoever started the job: an adoption's cluster has no catalog entity before
          // it succeeds, nor has a cluster the catalog has not read yet (a backend just started), and the notifications
          // backend drops an entity it cannot find. It sends a user named twice (as owner and starter) once.
          recipients: {
            type: 'entity',
            entityRef: [clusterEntityRef(job.target), job.createdBy],
          },
          payload: {
            ...n,
            link: `/capz/jobs/${encodeURIComponent(job.id)}`,
            topic: JOB_NOTIFICATION_TOPIC,
            // One notification per job: each state replaces the last (and marks it unread again).
            scope: `capz:job:${job.id}`,
          },
        })
        .catch(e =>
          o.logger.warn(
            `could not notify the owners of ${job.target.namespace}/${
              job.target.name
            } that job ${job.id} is ${job.state}: ${(e as Error).message}`,
          ),
        );
    },
  };
}
