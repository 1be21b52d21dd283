import { useApi } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Button,
  Dialog,
  DialogBody,
  DialogFooter,
  DialogHeader,
  Flex,
} from '@backstage/ui';
import { ResponseError } from '@backstage/errors';
import type {
  ClusterPlace,
  Day2Action,
  Day2Plan,
} from '@capz-backstage/plugin-capz-common';
import { ReactNode, useState } from 'react';
import { capzApiRef } from '../../api/CapzApi';
import { errorMessage } from '../shared/errors';
import { asSentence } from '../shared/text';
import type { ProgressOf } from './ActionProgress';
import { ActionError } from './errors';
import { actionTitle, followAction } from './followedActions';
import { PlanView } from './PlanView';

type Step =
  | { step: 'edit' }
  | { step: 'previewing' }
  | { step: 'preview'; plan: Day2Plan; key: string }
  | { step: 'applying'; plan: Day2Plan; key: string }
  | { step: 'applied'; plan: Day2Plan };

/** The title of a refused confirm (409). */
function staleTitle(message: string): string {
  if (/changed since the preview/.test(message))
    return 'Nothing was applied: the cluster changed since the preview';
  if (/not the previewed one/.test(message))
    return 'Nothing was proposed: the repository changed since the preview';
  return 'Nothing was applied';
}

/**
 * One day-2 action: its inputs, checked by capz-common's rules (`problems`); Preview asks the backend what it would
 * write (dryRun=All) and shows every change; Confirm sends the preview's planDigest, so that the backend writes exactly
 * the previewed plan or nothing (409 when the cluster changed since: the dialog then offers "Preview again");
 * afterwards the dialog shows what was written and the live progress, and "Done" once the new state is observed.
 */
export function ActionDialog({
  cluster,
  title,
  permission,
  action,
  problems,
  children,
  onClose,
  progress,
  confirmLabel = 'Confirm',
  destructive,
}: {
  cluster: ClusterPlace;
  title: string;
  /** The permission's name, for a 403's advice. */
  permission: string;
  /** The action the inputs describe; undefined while they are incomplete. */
  action?: Day2Action;
  problems: string[];
  children: ReactNode;
  onClose: () => void;
  /** The live progress to show once applied, and whether it is done. */
  progress?: ProgressOf;
  confirmLabel?: string;
  /** The confirm deletes something in Azure: its button says so by its colour. */
  destructive?: boolean;
}) {
  const api = useApi(capzApiRef);
  const [state, setState] = useState<Step>({ step: 'edit' });
  const [error, setError] = useState<{
    title: string;
    error: Error;
    /** The confirm found the cluster changed since the preview: the next step is a new preview. */
    stale?: boolean;
  }>();
  const key = action ? JSON.stringify(action) : '';
  // A preview belongs to the inputs it was made for: editing them takes the user back to Preview.
  const current =
    (state.step === 'preview' || state.step === 'applying') && state.key !== key
      ? ({ step: 'edit' } as const)
      : state;

  const preview = async () => {
    if (!action) return;
    setError(undefined);
    setState({ step: 'previewing' });
    try {
      const plan = await api.previewClusterAction(cluster, action);
      setState({ step: 'preview', plan, key });
    } catch (e) {
      setError({ title: 'The preview failed', error: e as Error });
      setState({ step: 'edit' });
    }
  };
  const apply = async () => {
    if (!action || current.step !== 'preview') return;
    setError(undefined);
    setState({ step: 'applying', plan: current.plan, key });
    try {
      const plan = await api.applyClusterAction(cluster, {
        ...action,
        planDigest: current.plan.planDigest,
      });
      setState({ step: 'applied', plan });
      // The page keeps showing its progress once the dialog is closed (a change proposed to Git has none yet).
      if (!plan.git?.proposed) followAction(cluster, plan);
    } catch (e) {
      if (e instanceof ResponseError && e.statusCode === 409) {
        // The previewed plan is not what the cluster would get now (or another action is being applied): it is
        // dropped, and Preview again shows what the action does now.
        setError({
          title: staleTitle(errorMessage(e)),
          error: e,
          stale: true,
        });
        setState({ step: 'edit' });
        return;
      }
      setError({ title: 'Nothing was applied', error: e as Error });
      setState({ step: 'preview', plan: current.plan, key });
    }
  };

  const applied = current.step === 'applied';
  const proposed = applied && !!current.plan.git?.proposed;
  const shown = applied && !proposed ? progress?.(current.plan) : undefined;
  const previewed =
    current.step === 'preview' || current.step === 'applying'
      ? current.plan
      : undefined;
  // A preview that changes nothing has nothing to confirm: the action is already in effect.
  const confirmable =
    !!previewed && !previewed.blockers?.length && previewed.changes.length > 0;
  return (
    <Dialog
      isOpen
      isDismissable
      onOpenChange={open => !open && onClose()}
      width={640}
    >
      <DialogHeader>{title}</DialogHeader>
      <DialogBody>
        <Flex direction="column" gap="3">
          {!applied && children}
          {!applied && problems.length > 0 && (
            <Alert
              status="warning"
              icon
              title="Fix these before the preview"
              description={
                <ul
                  aria-label="Problems"
                  style={{ margin: 0, paddingLeft: 20 }}
                >
                  {problems.map(p => (
                    <li key={p}>{asSentence(p)}</li>
                  ))}
                </ul>
              }
            />
          )}
          {error && (
            <ActionError
              title={error.title}
              error={error.error}
              permission={permission}
              context={error.stale ? 'confirm' : 'action'}
            />
          )}
          {previewed && <PlanView plan={previewed} />}
          {proposed && <PlanView plan={current.plan} />}
          {applied && !proposed && (
            <>
              {shown?.done ? (
                <Alert
                  role="status"
                  status="success"
                  icon
                  title={`Done: ${actionTitle(current.plan.action)}`}
                  description="The controllers report the state asked for."
                />
              ) : (
                <Alert
                  role="status"
                  status="info"
                  icon
                  isPending
                  title="Applied: the controllers are working on it"
                />
              )}
              <PlanView plan={current.plan} />
              {shown?.view}
            </>
          )}
        </Flex>
      </DialogBody>
      <DialogFooter>
        <Button variant="secondary" onPress={onClose}>
          {applied ? 'Done' : 'Cancel'}
        </Button>
        {!applied && !previewed && (
          <Button
            variant="primary"
            isDisabled={!action || problems.length > 0}
            isPending={current.step === 'previewing'}
            onPress={preview}
          >
            {error?.stale ? 'Preview again' : 'Preview'}
          </Button>
        )}
        {confirmable && (
          <Button
            variant="primary"
            destructive={destructive}
            isPending={current.step === 'applying'}
            onPress={apply}
          >
            {previewed?.git?.proposable ? 'Open pull request' : confirmLabel}
          </Button>
        )}
      </DialogFooter>
    </Dialog>
  );
}
