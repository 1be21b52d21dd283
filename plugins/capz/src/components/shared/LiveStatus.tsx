import { Button, Text } from '@backstage/ui';
import { RiRefreshLine } from '@remixicon/react';

/**
 * "Live" (or "Updating…") where pushed updates arrive; a Refresh button where they cannot (no signals plugin), so a
 * page never silently goes stale.
 */
export function LiveStatus(props: {
  live: boolean;
  loading: boolean;
  onRefresh: () => void;
  what: string;
}) {
  const { live, loading, onRefresh, what } = props;
  if (!live) {
    return (
      <Button
        size="small"
        variant="secondary"
        iconStart={<RiRefreshLine size={16} aria-hidden />}
        onPress={onRefresh}
      >
        Refresh
      </Button>
    );
  }
  return (
    <Text
      variant="body-small"
      color="secondary"
      title={`The page updates when the ${what} changes`}
    >
      {loading ? 'Updating…' : 'Live'}
    </Text>
  );
}
