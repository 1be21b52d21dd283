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

/** The owners' notifications of the plugin's jobs. */
export interface OwnerNotifications {
  /** A run moved `job` to another state (sent once: by the replica whose fenced write did it). */
  jobStateChanged(job: Job): void;
}

export function ownerNotifications(o: {
  notifications?: NotificationService;
  logger: LoggerService;
}): OwnerNotifications {
  return {
    jobStateChanged(job) {
      const n = jobNotification(job);
      if (!n || !o.notifications) return;
      o.notifications
        .send({
          recipients: {
            type: 'entity',
            entityRef: clusterEntityRef(job.target),
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
