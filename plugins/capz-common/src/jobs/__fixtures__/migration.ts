/** The migration planner tests' parameters, snapshot and plan readers. */
import { requiredMigrationAccess, type MigrationSnapshot } from '../migration';
import type {
  JobPlanResult,
  MigrateJobParams,
  PlannedAction,
  StepPlan,
} from '../types';
import { RECONCILE_POLICY_ANNOTATION } from '../../vocabulary';
import { allow, legacySnapshotObjects, type Obj } from './snapshots';

export const POLICY = RECONCILE_POLICY_ANNOTATION;
export const params: MigrateJobParams = {
  managementCluster: 'mgmt',
  namespace: 'team-legacy',
  name: 'legacy-1',
  targetNamespace: 'team-legacy-aso',
};

export function snapshot(
  opts: Parameters<typeof legacySnapshotObjects>[0] = {},
  p: MigrateJobParams = params,
): Omit<MigrationSnapshot, 'objects'> & { objects: Obj[] } {
  const { cluster, objects } = legacySnapshotObjects(opts);
  return {
    cluster,
    objects,
    targetNamespaceExists: false,
    credentialSecretExists: true,
    access: allow(requiredMigrationAccess(p)),
  };
}

export const step = (plan: StepPlan[], id: string) => {
  const s = plan.find(x => x.id === id);
  if (!s) throw new Error(`no step ${id}`);
  return s;
};
export const creates = (s: StepPlan) =>
  s.actions
    .filter(
      (a): a is Extract<PlannedAction, { action: 'create' }> =>
        a.action === 'create',
    )
    .map(a => a.object);
export const failed = (r: JobPlanResult) =>
  r.preflight.filter(c => c.status === 'fail').map(c => c.id);
