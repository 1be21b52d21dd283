import { HEALTH_ORDER, type Health } from '@capz-backstage/plugin-capz-common';
import {
  RiCheckboxCircleFill,
  RiCloseCircleFill,
  RiDeleteBin2Line,
  RiErrorWarningFill,
  RiLoader4Line,
  RiPauseCircleLine,
  RiQuestionLine,
} from '@remixicon/react';
import type { RemixiconComponentType } from '@remixicon/react';

/** Words for each health, as people read them. */
export const HEALTH_LABEL: Record<Health, string> = {
  healthy: 'Healthy',
  progressing: 'Progressing',
  degraded: 'Degraded',
  failed: 'Failed',
  paused: 'Paused',
  deleting: 'Deleting',
  unknown: 'Unknown',
};

/** capz-common's ranking turned worst first: the order the clusters page sorts by and the health filter lists. */
export const HEALTH_WORST_FIRST: readonly Health[] = [
  ...HEALTH_ORDER,
].reverse();

/** BUI colour tokens per health; each state also has its own icon shape, so colour is never the only cue. */
export const HEALTH_COLOR: Record<Health, string> = {
  healthy: 'var(--bui-fg-positive)',
  progressing: 'var(--bui-fg-announcement)', // not --bui-accent-fg: white on the light theme's page (WCAG 1.4.11)
  degraded: 'var(--bui-fg-warning)',
  failed: 'var(--bui-fg-negative)',
  paused: 'var(--bui-fg-secondary)',
  deleting: 'var(--bui-fg-secondary)',
  unknown: 'var(--bui-fg-secondary)',
};

const ICON: Record<Health, RemixiconComponentType> = {
  healthy: RiCheckboxCircleFill,
  progressing: RiLoader4Line,
  degraded: RiErrorWarningFill,
  failed: RiCloseCircleFill,
  paused: RiPauseCircleLine,
  deleting: RiDeleteBin2Line,
  unknown: RiQuestionLine,
};

/** An icon for a health. Decorative unless `labelled`: callers put the word next to it or in an accessible name. */
export function HealthIcon({
  health,
  size = 16,
  labelled,
}: {
  health: Health;
  size?: number;
  labelled?: boolean;
}) {
  const Icon = ICON[health] ?? RiQuestionLine;
  const icon = <Icon size={size} color={HEALTH_COLOR[health]} aria-hidden />;
  if (!labelled) return icon;
  return (
    <span
      role="img"
      aria-label={HEALTH_LABEL[health]}
      title={HEALTH_LABEL[health]}
      style={{ display: 'inline-flex' }}
    >
      {icon}
    </span>
  );
}

/** Icon and word. */
export function HealthLabel({ health }: { health: Health | undefined }) {
  const h = health ?? 'unknown';
  return (
    // The colour is on the icon only: warning-coloured text fails WCAG contrast (caught by the e2e axe check).
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 4 }}>
      <HealthIcon health={h} />
      <span>{HEALTH_LABEL[h]}</span>
    </span>
  );
}
