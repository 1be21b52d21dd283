import type {
  JobState,
  JobType,
  PreflightStatus,
  StepState,
} from '@capz-backstage/plugin-capz-common';
import {
  RiCheckboxCircleFill,
  RiCloseCircleFill,
  RiErrorWarningFill,
  RiLoader4Line,
  RiPauseCircleLine,
  RiSkipForwardLine,
  RiStopCircleLine,
  RiTimeLine,
} from '@remixicon/react';
import type { RemixiconComponentType } from '@remixicon/react';

/** Words for each job type, as a heading reads. */
export const JOB_TYPE_LABEL: Record<JobType, string> = {
  adopt: 'Adoption',
  migrate: 'Migration to the ASO API',
  'upgrade-api-version': 'API version upgrade (v1alpha1 to v1beta1)',
};

/** A state's word, icon and colour. */
export type Look = {
  label: string;
  icon: RemixiconComponentType;
  color: string;
};

export const POSITIVE = 'var(--bui-fg-positive)';
export const NEGATIVE = 'var(--bui-fg-negative)';
export const WARNING = 'var(--bui-fg-warning)';
// Not --bui-accent-fg: that is the text ON an accent background (white in the light theme), invisible on the page.
export const INFO = 'var(--bui-fg-announcement)';
export const MUTED = 'var(--bui-fg-secondary)';

export const JOB_STATE: Record<JobState, Look> = {
  queued: { label: 'Queued', icon: RiTimeLine, color: MUTED },
  running: { label: 'Running', icon: RiLoader4Line, color: INFO },
  paused: { label: 'Paused', icon: RiPauseCircleLine, color: MUTED },
  succeeded: {
    label: 'Succeeded',
    icon: RiCheckboxCircleFill,
    color: POSITIVE,
  },
  failed: { label: 'Failed', icon: RiCloseCircleFill, color: NEGATIVE },
  cancelled: { label: 'Cancelled', icon: RiStopCircleLine, color: MUTED },
};

export const STEP_STATE: Record<StepState, Look> = {
  pending: { label: 'Pending', icon: RiTimeLine, color: MUTED },
  running: { label: 'Running', icon: RiLoader4Line, color: INFO },
  succeeded: {
    label: 'Succeeded',
    icon: RiCheckboxCircleFill,
    color: POSITIVE,
  },
  failed: { label: 'Failed', icon: RiCloseCircleFill, color: NEGATIVE },
  skipped: { label: 'Skipped', icon: RiSkipForwardLine, color: MUTED },
};

export const PREFLIGHT_STATUS: Record<PreflightStatus, Look> = {
  pass: { label: 'Pass', icon: RiCheckboxCircleFill, color: POSITIVE },
  warn: { label: 'Warning', icon: RiErrorWarningFill, color: WARNING },
  fail: { label: 'Fail', icon: RiCloseCircleFill, color: NEGATIVE },
};

/** A state's icon with its word as the accessible name. Colour is on the icon only (axe colour-contrast). */
export function StateIcon({ look, size = 16 }: { look: Look; size?: number }) {
  const Icon = look.icon;
  return (
    <span
      role="img"
      aria-label={look.label}
      title={look.label}
      style={{ display: 'inline-flex', flexShrink: 0 }}
    >
      <Icon size={size} color={look.color} aria-hidden />
    </span>
  );
}

/** Icon and word, for a job's state in a heading or a banner. */
export function JobStateLabel({
  state,
  testId,
}: {
  state: JobState;
  testId?: string;
}) {
  const look = JOB_STATE[state];
  const Icon = look.icon;
  return (
    <span
      data-testid={testId}
      style={{ display: 'inline-flex', alignItems: 'center', gap: 4 }}
    >
      <Icon size={16} color={look.color} aria-hidden />
      <span>{look.label}</span>
    </span>
  );
}

/** Not final: a user can still pause, resume or cancel it, and it blocks other jobs on the same cluster. */
export const isActive = (state: JobState) =>
  state === 'queued' || state === 'running' || state === 'paused';
