import { ResponseError } from '@backstage/errors';
import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Alert, Button, Flex, Link } from '@backstage/ui';
import {
  jobTargetOf,
  type JobRequest,
  type PreflightCheck,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { capzApiRef } from '../../api/CapzApi';
import { jobRouteRef } from '../../routes';
import { errorMessage } from '../shared/errors';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

type Failure = {
  title: string;
  message: string;
  advice?: string;
  runningJob?: string;
};

const PERMISSION: Record<JobRequest['type'], string> = {
  adopt: 'capz.cluster.adopt',
  migrate: 'capz.cluster.migrate',
  'upgrade-api-version': 'capz.cluster.migrate',
};

/**
 * The Start button and what went wrong when starting. On success it opens the job's page (which reads everything
 * from the backend, so a reload there shows the same). A 422 hands the fresh preflight results back to the wizard.
 */
export function StartJob(props: {
  /** Undefined while the wizard is incomplete: the button shows, disabled. */
  request: JobRequest | undefined;
  disabled: boolean;
  disabledReason?: string;
  onPreflight: (checks: PreflightCheck[]) => void;
}) {
  const api = useApi(capzApiRef);
  const jobLink = useRouteRef(jobRouteRef);
  const navigate = useNavigate();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<Failure>();

  const start = async () => {
    const request = props.request;
    if (!request) return;
    setPending(true);
    setFailure(undefined);
    try {
      const job = await api.startJob(request);
      if (jobLink) navigate(jobLink({ id: job.id }));
    } catch (e) {
      setFailure(await describe(request, e as Error));
      setPending(false);
    }
  };

  async function describe(request: JobRequest, error: Error): Promise<Failure> {
    const status =
      error instanceof ResponseError ? error.statusCode : undefined;
    const message = errorMessage(error);
    if (status === 409) {
      // The 409 names the job only in its message; ask the backend for the cluster's active job to link to it.
      let runningJob = message.match(UUID)?.[0];
      try {
        const active = await api.listJobs({
          ...jobTargetOf(request),
          active: true,
        });
        runningJob = active.items[0]?.id ?? runningJob;
      } catch {
        // Keep the id from the message, if any.
      }
      return {
        title: 'This cluster already has a job running',
        message,
        runningJob,
      };
    }
    if (status === 422) {
      const preflight = (error as ResponseError).body as unknown as {
        preflight?: PreflightCheck[];
      };
      if (preflight.preflight) props.onPreflight(preflight.preflight);
      return {
        title: 'A preflight check failed when starting',
        message,
        advice: 'Nothing was changed. See the checks above.',
      };
    }
    if (status === 403) {
      return {
        title: 'You may not start this job',
        message,
        advice: `Ask a platform engineer for the ${
          PERMISSION[request.type]
        } permission.`,
      };
    }
    return { title: 'Could not start the job', message };
  }

  return (
    <Flex direction="column" gap="2">
      {failure && (
        <Alert
          status="danger"
          icon
          role="alert"
          title={failure.title}
          description={
            <>
              {failure.message}
              {failure.advice ? ` ${failure.advice}` : ''}
              {failure.runningJob && jobLink && (
                <>
                  {' '}
                  <Link href={jobLink({ id: failure.runningJob })}>
                    Open the running job
                  </Link>
                </>
              )}
            </>
          }
        />
      )}
      <Flex gap="2" align="center">
        <Button
          variant="primary"
          data-testid="start-job"
          isDisabled={props.disabled || pending}
          isPending={pending}
          onPress={start}
          aria-describedby={
            props.disabled && props.disabledReason
              ? 'start-job-reason'
              : undefined
          }
        >
          Start
        </Button>
        {props.disabled && props.disabledReason && (
          <span id="start-job-reason">{props.disabledReason}</span>
        )}
      </Flex>
    </Flex>
  );
}
