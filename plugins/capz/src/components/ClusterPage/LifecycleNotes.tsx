/**
 * The cluster page's lifecycle: its version's support in words, and each reason it needs attention today with the
 * fix (capz-common `clusterAttention`: docs/lifecycle-facts.md).
 */
import { Alert, Flex, Text } from '@backstage/ui';
import type { ClusterSummary } from '@capz-backstage/plugin-capz-common';
import { useAttention } from '../shared/lifecycle';

export function LifecycleNotes({ summary }: { summary: ClusterSummary }) {
  const { items, support } = useAttention(summary);
  if (!support && !items.length) return null;
  return (
    <Flex direction="column" gap="2">
      {support && support.attention === 'none' && (
        <Text variant="body-small" color="secondary">
          {support.message}
        </Text>
      )}
      {items.length > 0 && (
        <ul
          aria-label="Needs attention"
          style={{
            listStyle: 'none',
            padding: 0,
            margin: 0,
            display: 'flex',
            flexDirection: 'column',
            gap: 8,
          }}
        >
          {items.map(i => (
            <li key={`${i.id}:${i.pool ?? ''}`}>
              <Alert
                status={i.severity === 'now' ? 'warning' : 'info'}
                icon
                title={i.message}
                description={i.fix}
              />
            </li>
          ))}
        </ul>
      )}
    </Flex>
  );
}
