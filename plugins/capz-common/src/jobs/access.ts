/** The permissions a job type needs, for the preflight's SelfSubjectAccessReviews and the RBAC file. */
import { requiredAdoptionAccess } from './adoption';
import { requiredMigrationAccess } from './migration';
import { requiredUpgradeAccess } from './upgrade';
import type {
  AccessRequirement,
  AdoptJobParams,
  JobType,
  MigrateJobParams,
  UpgradeApiVersionJobParams,
} from './types';

/**
 * Every permission the backend needs to run every step of a job of this type with these params (plus `get` for
 * the conditions it reads). The backend answers each with a SelfSubjectAccessReview and passes the answers to the
 * planner; plugins/capz-backend/rbac/jobs.yaml grants exactly their union.
 * @public
 */
export function requiredAccess(
  type: 'adopt',
  params: AdoptJobParams,
): AccessRequirement[];
/** @public */
export function requiredAccess(
  type: 'migrate',
  params: MigrateJobParams,
): AccessRequirement[];
/** @public */
export function requiredAccess(
  type: 'upgrade-api-version',
  params: UpgradeApiVersionJobParams,
): AccessRequirement[];
/** @public */
export function requiredAccess(
  type: JobType,
  params: AdoptJobParams | MigrateJobParams | UpgradeApiVersionJobParams,
): AccessRequirement[];
export function requiredAccess(
  type: JobType,
  params: AdoptJobParams | MigrateJobParams | UpgradeApiVersionJobParams,
): AccessRequirement[] {
  switch (type) {
    case 'adopt':
      return requiredAdoptionAccess(params as AdoptJobParams);
    case 'migrate':
      return requiredMigrationAccess(params as MigrateJobParams);
    case 'upgrade-api-version':
      return requiredUpgradeAccess(params as UpgradeApiVersionJobParams);
    default:
      throw new Error(`unknown job type ${String(type)}`);
  }
}
