import { Flex, Text } from '@backstage/ui';
import type { PreflightCheck } from '@capz-backstage/plugin-capz-common';
import { PREFLIGHT_STATUS, StateIcon } from '../JobPage/jobLabels';
import { Prose } from './Prose';

const ORDER = { fail: 0, warn: 1, pass: 2 } as const;

const listStyle = {
  listStyle: 'none',
  padding: 0,
  margin: 0,
  display: 'grid',
  gap: 8,
} as const;

function CheckItem({ c }: { c: PreflightCheck }) {
  return (
    <li
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
  );
}

/**
 * Every preflight check, failures first, each with what to do about it: a command in a fix is folded with a Copy
 * button, docs citations are links or left out (Prose). The passed checks are folded under one line: what needs
 * reading comes first, and Start stays near.
 */
export function PreflightList({ checks }: { checks: PreflightCheck[] }) {
  const sorted = [...checks].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  const open = sorted.filter(c => c.status !== 'pass');
  const passed = sorted.filter(c => c.status === 'pass');
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
      {open.length > 0 && (
        <ul aria-label="Preflight checks to read" style={listStyle}>
          {open.map(c => (
            <CheckItem key={c.id} c={c} />
          ))}
        </ul>
      )}
      {passed.length > 0 && (
        <details data-testid="passed-checks">
          <summary>
            {`Show the ${passed.length} passed check${
              passed.length === 1 ? '' : 's'
            }`}
          </summary>
          <ul
            aria-label="Passed checks"
            style={{ ...listStyle, paddingTop: 8 }}
          >
            {passed.map(c => (
              <CheckItem key={c.id} c={c} />
            ))}
          </ul>
        </details>
      )}
    </Flex>
  );
}
