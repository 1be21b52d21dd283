import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import { Alert, Flex, Link, Skeleton, Text } from '@backstage/ui';
import type {
  JobDetails,
  JobLogLine,
  ManifestToChange,
} from '@capz-backstage/plugin-capz-common';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { capzApiRef } from '../../api/CapzApi';
import { clusterRouteRef, jobsRouteRef, rootRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';
import { LiveStatus } from '../shared/LiveStatus';
import { absoluteTime } from '../shared/time';
import { PlanPreview } from '../Wizard/PlanPreview';
import { JobControls } from './JobControls';
import {
  JOB_TYPE_LABEL,
  JobStateLabel,
  STEP_STATE,
  StateIcon,
} from './jobLabels';
import { useJobSignal } from './useJobSignal';

const cell = {
  textAlign: 'left' as const,
  padding: '4px 8px',
  borderBottom: '1px solid var(--bui-border, #ddd)',
};

function Steps({ job }: { job: JobDetails }) {
  return (
    <ol
      aria-label="Steps"
      style={{
        listStyle: 'none',
        margin: 0,
        padding: 0,
        display: 'grid',
        gap: 8,
      }}
    >
      {job.steps.map((s, i) => (
        <li
          key={s.id}
          data-testid="job-step"
          data-state={s.state}
          aria-current={job.currentStep === s.id ? 'step' : undefined}
          style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}
        >
          <StateIcon look={STEP_STATE[s.state]} />
          <Flex direction="column" gap="1">
            <Text
              variant="body-medium"
              weight={job.currentStep === s.id ? 'bold' : 'regular'}
            >
              {`${i + 1}. ${s.title}`}
            </Text>
            <Text variant="body-small" color="secondary">
              {[
                STEP_STATE[s.state].label,
                s.attempts > 1 ? `${s.attempts} attempts` : undefined,
                s.startedAt && `started ${absoluteTime(s.startedAt)}`,
                s.finishedAt && `finished ${absoluteTime(s.finishedAt)}`,
              ]
                .filter(Boolean)
                .join(' · ')}
            </Text>
            {s.message && <Text variant="body-small">{s.message}</Text>}
          </Flex>
        </li>
      ))}
    </ol>
  );
}

const logLine = (l: JobLogLine) =>
  `${absoluteTime(l.at)}  ${l.level.toUpperCase().padEnd(5)} ${
    l.step ? `[${l.step}] ` : ''
  }${l.message}`;

function Log({ lines }: { lines: JobLogLine[] }) {
  const ref = useRef<HTMLPreElement>(null);
  // Follow the newest line, as a terminal would.
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [lines.length]);
  return (
    <pre
      ref={ref}
      data-testid="job-log"
      role="log"
      aria-label="Job log"
      // It scrolls: keyboard users must be able to focus it to scroll (axe scrollable-region-focusable).
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
      tabIndex={0}
      style={{
        margin: 0,
        padding: 8,
        maxHeight: 360,
        overflow: 'auto',
        fontSize: 12,
        background: 'var(--bui-bg-neutral-2, var(--bui-bg-surface-2))',
        borderRadius: 4,
      }}
    >
      {lines.length ? lines.map(logLine).join('\n') : 'No log lines yet.'}
    </pre>
  );
}

function ManifestsToChange({ items }: { items: ManifestToChange[] }) {
  return (
    <Flex direction="column" gap="2">
      <Text as="h3" variant="title-small">
        Manifests to change
      </Text>
      <Text as="p" variant="body-small">
        These objects were last written at v1alpha1 by a tool other than the
        controllers. Change the manifests you keep for them (Git, GitOps), or
        the next apply writes v1alpha1 again.
      </Text>
      <table
        aria-label="Manifests to change"
        style={{ width: '100%', borderCollapse: 'collapse' }}
      >
        <thead>
          <tr>
            <th style={cell}>Kind</th>
            <th style={cell}>Object</th>
            <th style={cell}>Written by</th>
            <th style={cell}>Change</th>
          </tr>
        </thead>
        <tbody>
          {items.map(m => (
            <tr key={`${m.kind}/${m.namespace}/${m.name}`}>
              <td style={cell}>{m.kind}</td>
              <td style={cell}>{`${m.namespace}/${m.name}`}</td>
              <td style={cell}>{m.manager}</td>
              <td style={cell}>
                <code>{m.change}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Flex>
  );
}

/** What merging does, by the job's kind of Git steps (capz-common jobs/gitMode.ts). */
const waitingWords = (job: JobDetails) =>
  job.type === 'adopt'
    ? "The cluster already is what it says: merging changes nothing live. Flux's Kustomization then applies it as it applies the namespace's other clusters, and the job checks that its first apply changes nothing."
    : "The cluster already is what it says: merging changes nothing live. Flux's Kustomization stays suspended until Flux's source holds the merge; then the job resumes it.";

/** A job in Git mode: its pull request, shown from the moment it is opened, with what to do while it waits. */
function GitProposal({ job }: { job: JobDetails }) {
  const p = job.result?.gitProposal;
  if (!p) return null;
  const waiting =
    job.currentStep === 'wait-merge' &&
    (job.state === 'running' || job.state === 'queued');
  const what = p.pullRequest
    ? `pull request #${p.pullRequest.number}`
    : `branch ${p.branch}`;
  return (
    <section aria-label="Pull request">
      <Alert
        status={waiting ? 'warning' : 'info'}
        icon
        title={
          waiting
            ? `Waiting for ${what} to be merged`
            : `Proposed to Git as ${what}`
        }
        description={
          <Flex direction="column" gap="1">
            <Text variant="body-small">
              {p.pullRequest ? (
                <Link href={p.pullRequest.url} target="_blank">
                  {p.pullRequest.url}
                </Link>
              ) : (
                `Open a pull request from ${p.branch} into ${p.base} of ${p.url}.`
              )}
            </Text>
            <Text variant="body-small">
              {`Into ${p.base} of ${p.url}; changes ${p.files
                .map(f => f.path)
                .join(', ')}. `}
              {waiting ? waitingWords(job) : ''}
            </Text>
          </Flex>
        }
      />
    </section>
  );
}

function Outcome({ job }: { job: JobDetails }) {
  const clusterLink = useRouteRef(clusterRouteRef);
  const result = job.result?.cluster;
  return (
    <>
      <GitProposal job={job} />
      {job.state === 'failed' && (
        <Alert
          status="danger"
          icon
          title="The job failed"
          description={job.error ?? 'See the failed step and the log below.'}
        />
      )}
      {(job.state === 'failed' || job.state === 'cancelled') &&
        job.leftBehind && (
          <div data-testid="job-left-behind">
            <Alert
              status="warning"
              icon
              title="What the job left behind"
              description={
                <span style={{ whiteSpace: 'pre-wrap' }}>{job.leftBehind}</span>
              }
            />
          </div>
        )}
      {job.state === 'succeeded' && (
        <Alert
          status="success"
          icon
          title="The job is done"
          description={
            result && clusterLink ? (
              <Link
                href={clusterLink({ ...result })}
              >{`Open cluster ${result.namespace}/${result.name}`}</Link>
            ) : undefined
          }
        />
      )}
      {job.state === 'succeeded' &&
        job.result?.manifestsToChange &&
        job.result.manifestsToChange.length > 0 && (
          <ManifestsToChange items={job.result.manifestsToChange} />
        )}
      {job.state === 'succeeded' &&
        job.type === 'upgrade-api-version' &&
        job.result?.manifestsToChange?.length === 0 && (
          <Text as="p">
            No manifest outside the controllers still writes v1alpha1: nothing
            else to change.
          </Text>
        )}
    </>
  );
}

/** /capz/jobs/:id: a job's steps, log and controls, live through the jobs signal channel. */
export function JobPage() {
  const { id = '' } = useParams();
  const api = useApi(capzApiRef);
  const root = useRouteRef(rootRouteRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  const jobsLink = useRouteRef(jobsRouteRef);
  // A signal must always cause a fresh read: useAsyncRetry's retry() does nothing while a read is in flight, so the
  // job's last signal (e.g. succeeded, right after the step before) could be dropped and the page stay on a stale
  // state, since it never polls. A new key starts a new read; the newest answer wins (as in ClusterView).
  const [refreshKey, setRefreshKey] = useState(0);
  const {
    value: job,
    error,
    loading,
    retry,
  } = useAsyncRetry(() => api.getJob(id), [api, id, refreshKey]);
  const refresh = useCallback(() => setRefreshKey(k => k + 1), []);
  const { live } = useJobSignal(refresh, s => s.jobId === id);

  if (error && !job)
    return (
      <Flex direction="column" gap="3" p="4">
        <ErrorAlert title={`Could not load job ${id}`} error={error} />
        {jobsLink && (
          <Text as="p" variant="body-small">
            <Link href={jobsLink()}>See every job</Link>
            {root ? (
              <>
                {' or '}
                <Link href={root()}>go back to the clusters</Link>
              </>
            ) : null}
            .
          </Text>
        )}
      </Flex>
    );
  if (!job) {
    return (
      <div role="status" aria-label="Loading the job" style={{ padding: 16 }}>
        <Skeleton width="100%" height={200} />
      </div>
    );
  }

  const t = job.target;
  // An adoption's target exists only once the job has created it.
  const targetLink =
    clusterLink && (job.type !== 'adopt' || job.state === 'succeeded')
      ? clusterLink({ ...t })
      : undefined;
  const requested =
    job.requested && !['succeeded', 'failed', 'cancelled'].includes(job.state)
      ? `${job.requested === 'pause' ? 'Pause' : 'Cancel'} requested: ${
          job.state === 'queued'
            ? // A cancel that still writes (it resumes the Kustomization the job suspended) waits for a runner.
              'takes effect as soon as a runner takes the job.'
            : 'takes effect when the running step reaches a safe boundary.'
        }`
      : undefined;

  return (
    <Flex
      direction="column"
      gap="4"
      p="4"
      style={{ maxWidth: 1100 }}
      data-testid="job-page"
    >
      <nav aria-label="Breadcrumb">
        <Flex gap="2">
          {root && <Link href={root()}>All clusters</Link>}
          {targetLink && (
            <>
              <span aria-hidden>/</span>
              <Link href={targetLink}>{t.name}</Link>
            </>
          )}
        </Flex>
      </nav>
      <Flex
        justify="between"
        align="start"
        gap="3"
        style={{ flexWrap: 'wrap' }}
      >
        <Flex direction="column" gap="1">
          <Text as="h2" variant="title-medium">
            {`${JOB_TYPE_LABEL[job.type]}: ${t.namespace}/${t.name}`}
          </Text>
          <Text variant="body-small" color="secondary">
            {`Job ${job.id} · ${t.managementCluster} · started by ${
              job.createdBy
            } on ${absoluteTime(job.createdAt)}` +
              `${
                job.finishedAt
                  ? ` · finished ${absoluteTime(job.finishedAt)}`
                  : ''
              }`}
          </Text>
          <Flex gap="2" align="center" aria-live="polite">
            <JobStateLabel state={job.state} testId="job-state" />
            {requested && <Text variant="body-small">{requested}</Text>}
          </Flex>
        </Flex>
        <LiveStatus
          live={live}
          loading={loading}
          onRefresh={retry}
          what="job"
        />
      </Flex>

      {error && <ErrorAlert title="Could not refresh the job" error={error} />}
      <Outcome job={job} />
      <JobControls job={job} onChanged={refresh} />

      <section aria-labelledby="job-steps-heading">
        <Flex direction="column" gap="2">
          <Text as="h3" variant="title-small" id="job-steps-heading">
            Steps
          </Text>
          <Steps job={job} />
        </Flex>
      </section>

      <section aria-labelledby="job-log-heading">
        <Flex direction="column" gap="2">
          <Text as="h3" variant="title-small" id="job-log-heading">
            Log
          </Text>
          <Log lines={job.log} />
        </Flex>
      </section>

      {job.plan.length > 0 && (
        <details>
          <summary>
            The plan: what each step checks, changes and waits for
          </summary>
          <div style={{ paddingTop: 8 }}>
            <PlanPreview plan={job.plan} />
          </div>
        </details>
      )}
    </Flex>
  );
}
