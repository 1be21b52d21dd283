import { useApi } from '@backstage/frontend-plugin-api';
import {
  Button,
  Dialog,
  DialogBody,
  DialogFooter,
  DialogHeader,
  Flex,
  Text,
} from '@backstage/ui';
import type { Job } from '@capz-backstage/plugin-capz-common';
import { RiPauseLine, RiPlayLine, RiStopCircleLine } from '@remixicon/react';
import { useState } from 'react';
import { capzApiRef, JobControl } from '../../api/CapzApi';
import { ErrorAlert } from '../shared/errors';

/**
 * Pause, Resume (Retry for a failed job) and Cancel, offered as the job's state allows. Pause and cancel take effect
 * at the next step boundary; the backend answers 409 if the state changed meanwhile, shown as is.
 */
export function JobControls({
  job,
  onChanged,
}: {
  job: Job;
  onChanged: () => void;
}) {
  const api = useApi(capzApiRef);
  const [pending, setPending] = useState<JobControl>();
  const [error, setError] = useState<{ action: JobControl; error: Error }>();
  const [confirming, setConfirming] = useState(false);

  const act = async (action: JobControl) => {
    setPending(action);
    setError(undefined);
    try {
      await api.controlJob(job.id, action);
      onChanged();
    } catch (e) {
      setError({ action, error: e as Error });
    } finally {
      setPending(undefined);
    }
  };

  const canPause =
    (job.state === 'running' || job.state === 'queued') && !job.requested;
  const canResume = job.state === 'paused' || job.state === 'failed';
  const canCancel =
    ['queued', 'running', 'paused', 'failed'].includes(job.state) &&
    job.requested !== 'cancel';
  if (!canPause && !canResume && !canCancel) return null;

  return (
    <Flex direction="column" gap="2">
      {error && (
        <ErrorAlert
          title={`Could not ${error.action} the job`}
          error={error.error}
        />
      )}
      <Flex gap="2" role="group" aria-label="Job controls">
        {canPause && (
          <Button
            variant="secondary"
            iconStart={<RiPauseLine size={16} aria-hidden />}
            isPending={pending === 'pause'}
            isDisabled={!!pending}
            onPress={() => act('pause')}
          >
            Pause
          </Button>
        )}
        {canResume && (
          <Button
            variant="primary"
            iconStart={<RiPlayLine size={16} aria-hidden />}
            isPending={pending === 'resume'}
            isDisabled={!!pending}
            onPress={() => act('resume')}
          >
            {job.state === 'failed' ? 'Retry' : 'Resume'}
          </Button>
        )}
        {canCancel && (
          <Button
            variant="secondary"
            destructive
            iconStart={<RiStopCircleLine size={16} aria-hidden />}
            isPending={pending === 'cancel'}
            isDisabled={!!pending}
            onPress={() => setConfirming(true)}
          >
            Cancel job
          </Button>
        )}
      </Flex>
      <Dialog isOpen={confirming} onOpenChange={setConfirming} isDismissable>
        <DialogHeader>Cancel this job?</DialogHeader>
        <DialogBody>
          <Text as="p">
            The job stops at the next step boundary and cannot be resumed.
            Whatever the finished steps changed stays on the cluster; the page
            then says what was left behind and what is safe to do.
          </Text>
        </DialogBody>
        <DialogFooter>
          <Button variant="secondary" onPress={() => setConfirming(false)}>
            Keep the job
          </Button>
          <Button
            variant="primary"
            destructive
            onPress={() => {
              setConfirming(false);
              act('cancel');
            }}
          >
            Cancel the job
          </Button>
        </DialogFooter>
      </Dialog>
    </Flex>
  );
}
