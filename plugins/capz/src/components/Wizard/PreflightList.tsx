import { Flex, Text } from '@backstage/ui';
import type { PreflightCheck } from '@capz-backstage/plugin-capz-common';
import { PREFLIGHT_STATUS, StateIcon } from '../JobPage/jobLabels';
import { Prose } from './Prose';

const ORDER = { fail: 0, warn: 1, pass: 2 } as const;

/**
 * Every preflight check, failures first, each with what to do about it: a command in a fix is folded with a Copy
 * button, docs citations are links or left out (Prose).
 */
export function PreflightList({ checks }: { checks: PreflightCheck[] }) {
  const sorted = [...checks].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  const failed = checks.filter(c => c.status === 'fail').length;
  const warned = checks.filter(c => c.status === 'warn').length;
  return (
    <Flex direction="column" gap="2">
      <Text as="p" variant="body-medium" aria-live="polite">
        {failed
          ? `${failed} of ${checks.length} checks failed: fix them, then check again. Nothing has been changed.`
          : `All ${checks.length} checks passed${
              warned ? `, ${warned} with a warning` : ''
            }.`}
      </Text>
      <ul
        aria-label="Preflight checks"
        style={{
          listStyle: 'none',
          padding: 0,
          margin: 0,
          display: 'grid',
          gap: 8,
        }}
      >
        {sorted.map(c => (
          <li
            key={c.id}
            data-testid="preflight-check"
            data-status={c.status}
            style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}
          >
            <StateIcon look={PREFLIGHT_STATUS[c.status]} />
            <Flex direction="column" gap="1" style={{ minWidth: 0 }}>
              <Text variant="body-medium" weight="bold">
                {c.title}
              </Text>
              <Prose text={c.message} />
              {c.fix && c.status !== 'pass' && (
                <Prose text={c.fix} lead={<strong>Fix:</strong>} />
              )}
            </Flex>
          </li>
        ))}
      </ul>
    </Flex>
  );
}
