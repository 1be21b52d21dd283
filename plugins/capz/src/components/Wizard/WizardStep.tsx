import { Flex, Text } from '@backstage/ui';
import { ReactNode, useId } from 'react';

/** One numbered step of a wizard: a labelled region with its own heading, so screen readers can jump between steps. */
export function WizardStep({
  n,
  title,
  children,
}: {
  n: number;
  title: string;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <section
      data-testid="wizard-step"
      aria-labelledby={id}
      style={{ borderTop: '1px solid var(--bui-border, #ddd)', paddingTop: 12 }}
    >
      <Flex direction="column" gap="2">
        <Text as="h3" variant="title-small" id={id}>
          {`${n}. ${title}`}
        </Text>
        {children}
      </Flex>
    </section>
  );
}
