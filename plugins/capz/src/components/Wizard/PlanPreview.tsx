import { Flex, Text } from '@backstage/ui';
import type {
  ObjectRef,
  PlannedAction,
  PlannedCondition,
  StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { stringify } from 'yaml';

/** `kind namespace/name`, as kubectl names an object. */
export const refText = (ref: ObjectRef) =>
  `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;

const VERB: Record<PlannedAction['action'], string> = {
  create: 'Create',
  'merge-patch': 'Patch',
  delete: 'Delete',
  'copy-secret': 'Copy',
  'set-embedded-annotation': 'Annotate',
};

const codeStyle = {
  margin: 0,
  padding: 8,
  overflowX: 'auto' as const,
  fontSize: 12,
  background: 'var(--bui-bg-neutral-2, var(--bui-bg-surface-2))',
  borderRadius: 4,
};

function ActionItem({ action }: { action: PlannedAction }) {
  let what =
    action.action === 'copy-secret'
      ? `Secret ${refText(action.from)} to ${refText(action.to)}`
      : refText(action.ref);
  if (action.action === 'set-embedded-annotation')
    what = `${action.resource.kind} ${action.resource.name} in ${what} spec.resources`;
  const label = `${VERB[action.action]} ${what}`;
  return (
    <li>
      <Flex direction="column" gap="1">
        <Text variant="body-small">
          <strong>{VERB[action.action]}</strong> {what}
          {action.action === 'merge-patch' && action.ifExists
            ? ' (if it exists)'
            : ''}
        </Text>
        <Text variant="body-small" color="secondary">
          {action.description}
        </Text>
        {action.action === 'create' && (
          <details>
            <summary>Object as YAML</summary>
            <pre aria-label={`YAML of ${label}`} style={codeStyle}>
              {stringify(action.object)}
            </pre>
          </details>
        )}
        {action.action === 'merge-patch' && (
          <details>
            <summary>Merge patch as YAML</summary>
            <pre aria-label={`Patch of ${label}`} style={codeStyle}>
              {stringify(action.patch)}
            </pre>
          </details>
        )}
        {action.action === 'copy-secret' && (
          <Text variant="body-small">
            The Secret's data is copied at run time and never shown or stored.
          </Text>
        )}
      </Flex>
    </li>
  );
}

function Conditions({
  title,
  items,
}: {
  title: string;
  items: PlannedCondition[];
}) {
  if (!items.length) return null;
  return (
    <Flex direction="column" gap="1">
      <Text variant="body-small" weight="bold">
        {title}
      </Text>
      <ul aria-label={title} style={{ margin: 0, paddingLeft: 20 }}>
        {items.map((c, i) => (
          <li key={i}>
            <Text variant="body-small">{c.description}</Text>
          </li>
        ))}
      </ul>
    </Flex>
  );
}

function minutes(seconds: number) {
  return seconds >= 120
    ? `${Math.round(seconds / 60)} minutes`
    : `${seconds} seconds`;
}

/** The exact steps the job will run: what each checks first, does, and waits for. */
export function PlanPreview({
  plan,
  headingLevel = 4,
}: {
  plan: StepPlan[];
  headingLevel?: 3 | 4;
}) {
  const H = `h${headingLevel}` as const;
  return (
    <ol
      aria-label="Plan"
      style={{ margin: 0, paddingLeft: 24, display: 'grid', gap: 16 }}
    >
      {plan.map(step => (
        <li key={step.id} data-testid="plan-step" data-step={step.id}>
          <Flex direction="column" gap="2">
            <Text as={H} variant="title-x-small">
              {step.title}
            </Text>
            <Text as="p" variant="body-small">
              {step.description}
            </Text>
            <Conditions
              title={`Before “${step.title}”, checks`}
              items={step.preconditions}
            />
            {step.actions.length > 0 ? (
              <Flex direction="column" gap="1">
                <Text variant="body-small" weight="bold">
                  Changes
                </Text>
                <ul
                  aria-label={`Changes of “${step.title}”`}
                  style={{
                    margin: 0,
                    paddingLeft: 20,
                    display: 'grid',
                    gap: 6,
                  }}
                >
                  {step.actions.map((a, i) => (
                    <ActionItem key={i} action={a} />
                  ))}
                </ul>
              </Flex>
            ) : (
              <Text variant="body-small">Changes nothing.</Text>
            )}
            <Conditions
              title={`Then waits up to ${minutes(step.timeoutSeconds)} until`}
              items={step.waitFor}
            />
          </Flex>
        </li>
      ))}
    </ol>
  );
}
