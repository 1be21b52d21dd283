import { useApi } from '@backstage/frontend-plugin-api';
import { Alert, Button, Flex, Skeleton, Text } from '@backstage/ui';
import type {
  JobPreview,
  JobRequest,
  PreflightCheck,
} from '@capz-backstage/plugin-capz-common';
import { useCallback, useEffect, useState } from 'react';
import { capzApiRef } from '../../api/CapzApi';
import { ErrorAlert } from '../shared/errors';
import { PlanPreview, PlanSummary } from './PlanPreview';
import { PreflightList } from './PreflightList';
import { StartJob } from './StartJob';
import { WizardStep } from './WizardStep';

/** Why Start is disabled, in words next to the button. */
function startBlockedBy(
  request: JobRequest | undefined,
  preview: JobPreview | undefined,
  failed: boolean,
) {
  if (!request) return 'Complete the steps above first.';
  if (!preview) return 'Run the preflight checks first.';
  if (failed) return 'A preflight check failed.';
  return undefined;
}

/**
 * The last steps of every wizard: preflight (POST /jobs/preview), then the plan's summary with Start beside it and
 * the exact steps below, folded (a migration's plan unfolded is some 7,000 px). A preview belongs to
 * the request it was made for; changing any earlier input discards it, so what is started is what was shown.
 */
export function JobReview(props: {
  /** Undefined while the earlier steps are incomplete. */
  request: JobRequest | undefined;
  /** The first step number these sections take. */
  firstStep: number;
  /** Preview as soon as the request is complete (no inputs to edit, e.g. the upgrade). */
  auto?: boolean;
}) {
  const api = useApi(capzApiRef);
  const key = props.request ? JSON.stringify(props.request) : undefined;
  const [state, setState] = useState<{
    key: string;
    loading: boolean;
    preview?: JobPreview;
    error?: Error;
  }>();
  const [override, setOverride] = useState<{
    key: string;
    checks: PreflightCheck[];
  }>();

  const run = useCallback(async () => {
    if (!props.request || !key) return;
    setState({ key, loading: true });
    try {
      setState({
        key,
        loading: false,
        preview: await api.previewJob(props.request),
      });
    } catch (e) {
      setState({ key, loading: false, error: e as Error });
    }
  }, [api, key, props.request]);

  useEffect(() => {
    if (props.auto && key) run();
    // Only when the request changes; `run` changes with it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.auto, key]);

  const current = state && state.key === key ? state : undefined;
  const preview = current?.preview;
  const checks =
    override && override.key === key
      ? override.checks
      : preview?.preflight ?? [];
  const failed = checks.some(c => c.status === 'fail');
  const emptyPlan = !!preview && preview.plan.length === 0;

  return (
    <>
      <WizardStep n={props.firstStep} title="Preflight checks">
        {!props.request && <Text as="p">Complete the steps above first.</Text>}
        {props.request && !props.auto && (
          <Flex>
            <Button
              variant="secondary"
              onPress={run}
              isPending={current?.loading}
              isDisabled={current?.loading}
            >
              {preview ? 'Check again' : 'Check and preview'}
            </Button>
          </Flex>
        )}
        {props.request && props.auto && preview && (
          <Flex>
            <Button
              variant="secondary"
              onPress={run}
              isPending={current?.loading}
              isDisabled={current?.loading}
            >
              Check again
            </Button>
          </Flex>
        )}
        {current?.loading && (
          <div role="status" aria-label="Running the preflight checks">
            <Skeleton width="100%" height={64} />
          </div>
        )}
        {current?.error && (
          <ErrorAlert
            title="Could not run the preflight checks"
            error={current.error}
          />
        )}
        {preview && !current?.loading && <PreflightList checks={checks} />}
      </WizardStep>
      <WizardStep n={props.firstStep + 1} title="Plan and start">
        {!preview && (
          <Text as="p">The plan appears here after the preflight checks.</Text>
        )}
        {emptyPlan && (
          <Alert
            status="warning"
            icon
            title="No plan"
            description="A failed check makes planning impossible: fix it and check again."
          />
        )}
        {preview && !emptyPlan && (
          <PlanSummary
            type={preview.type}
            plan={preview.plan}
            checks={checks}
          />
        )}
        <StartJob
          request={props.request}
          disabled={
            !props.request ||
            !preview ||
            failed ||
            emptyPlan ||
            !!current?.loading
          }
          disabledReason={startBlockedBy(props.request, preview, failed)}
          onPreflight={c => key && setOverride({ key, checks: c })}
        />
        {preview && !emptyPlan && (
          <Flex direction="column" gap="2" pt="2">
            <Text as="p" variant="body-small">
              <strong>The steps</strong>, exactly as the job runs them. Open a
              step for what it checks first, changes, and waits for.
            </Text>
            <PlanPreview plan={preview.plan} headingLevel={4} />
          </Flex>
        )}
      </WizardStep>
    </>
  );
}
