import {
  Accordion,
  AccordionPanel,
  AccordionTrigger,
  Flex,
  Text,
} from '@backstage/ui';
import type {
  JobType,
  ObjectRef,
  PlannedAction,
  PlannedCondition,
  PreflightCheck,
  StepPlan,
} from '@capz-backstage/plugin-capz-common';
import { stringify } from 'yaml';
import { Prose } from './Prose';

/** `kind namespace/name`, as kubectl names an object. */
export const refText = (ref: ObjectRef) =>
  `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;

const VERB: Record<PlannedAction['action'], string> = {
  create: 'Create',
  'merge-patch': 'Patch',
  delete: 'Delete',
  'copy-secret': 'Copy',
  'set-embedded-annotation': 'Annotate',
  'propose-git-change': 'Propose',
  'record-generations': 'Note',
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
  let what: string;
  if (action.action === 'copy-secret')
    what = `Secret ${refText(action.from)} to ${refText(action.to)}`;
  else if (action.action === 'propose-git-change')
    what = `a pull request to the repository of Kustomization ${action.kustomization.namespace}/${action.kustomization.name}`;
  else if (action.action === 'record-generations')
    what = `the generation of ${action.refs.length} objects`;
  else what = refText(action.ref);
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
        <Prose text={action.description} color="secondary" />
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
        {action.action === 'propose-git-change' &&
          (action.replace ? (
            <Text variant="body-small">
              Removes {action.remove.map(refText).join(', ')}; writes{' '}
              {action.add.map(refText).join(', ')} in place of{' '}
              {refText(action.replace)}, as the cluster has them then.
            </Text>
          ) : (
            <Text variant="body-small">
              Adds {action.add.map(refText).join(', ')}
              {action.beside ? ` beside ${refText(action.beside)}` : ''}, as the
              cluster has them then.
            </Text>
          ))}
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
            <Prose text={c.description} />
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

/**
 * The exact steps the job will run, one line each (its title); a step opens to what it checks first, does, and
 * waits for. Folded: a migration's plan unfolded is some 7,000 px, too long to read before Start.
 */
export function PlanPreview({
  plan,
  headingLevel = 4,
}: {
  plan: StepPlan[];
  headingLevel?: 3 | 4;
}) {
  return (
    <ol
      aria-label="Plan"
      style={{ margin: 0, paddingLeft: 24, display: 'grid', gap: 0 }}
    >
      {plan.map(step => (
        <li key={step.id} data-testid="plan-step" data-step={step.id}>
          <Accordion style={{ paddingBlock: 6 }}>
            <AccordionTrigger level={headingLevel} title={step.title} />
            <AccordionPanel>
              <Flex direction="column" gap="2" pt="2">
                <Prose text={step.description} />
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
                  title={`Then waits up to ${minutes(
                    step.timeoutSeconds,
                  )} until`}
                  items={step.waitFor}
                />
              </Flex>
            </AccordionPanel>
          </Accordion>
        </li>
      ))}
    </ol>
  );
}

/** What a job does in Azure: the jobs change only Kubernetes objects (docs/job-guarantees.md). */
const IN_AZURE: Record<JobType, string> = {
  adopt:
    'Nothing is created or deleted. New Kubernetes objects adopt the AKS cluster and its pools as Azure reports them.',
  migrate:
    'Nothing is created or deleted. The old Kubernetes objects let go of the AKS cluster and new ones adopt the same cluster and pools.',
  'upgrade-api-version':
    'Nothing changes. Only the Kubernetes objects are rewritten.',
};

/** When the job is done, what is left for the user. */
const AFTERWARDS: Partial<Record<JobType, string>> = {
  migrate:
    ' When it is done, the cluster lives in the target namespace: update anything that refers to it by namespace.',
  'upgrade-api-version':
    ' When it is done, its page lists the manifests kept elsewhere (Git, GitOps) that still say v1alpha1: change them.',
};

/** How many distinct Kubernetes objects the plan creates, changes and deletes. */
export function planCounts(plan: StepPlan[]) {
  const sets = {
    creates: new Set<string>(),
    changes: new Set<string>(),
    deletes: new Set<string>(),
  };
  for (const a of plan.flatMap(s => s.actions)) {
    if (a.action === 'copy-secret') sets.creates.add(refText(a.to));
    else if (a.action === 'create') sets.creates.add(refText(a.ref));
    else if (a.action === 'delete') sets.deletes.add(refText(a.ref));
    else if (
      a.action === 'merge-patch' ||
      a.action === 'set-embedded-annotation'
    )
      sets.changes.add(refText(a.ref));
  }
  return {
    creates: sets.creates.size,
    changes: sets.changes.size,
    deletes: sets.deletes.size,
  };
}

function countsText(plan: StepPlan[]) {
  const c = planCounts(plan);
  const parts = (['creates', 'changes', 'deletes'] as const)
    .filter(k => c[k] > 0)
    .map(k => `${k} ${c[k]}`);
  if (!parts.length) return 'changes no Kubernetes object';
  const list =
    parts.length === 1
      ? parts[0]
      : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `${list} Kubernetes object${
    Math.max(c.creates, c.changes, c.deletes) === 1 && parts.length === 1
      ? ''
      : 's'
  }`;
}

/**
 * The plan in three lines, read before Start: what changes in Azure, how many steps and what they change on the
 * management cluster, and what the user has to do.
 */
export function PlanSummary({
  type,
  plan,
  checks,
}: {
  type: JobType;
  plan: StepPlan[];
  checks: PreflightCheck[];
}) {
  const warnings = checks.filter(c => c.status === 'warn').length;
  const read = warnings
    ? `Read the ${
        warnings === 1 ? 'warning' : `${warnings} warnings`
      } above, then Start. `
    : 'Start; ';
  return (
    <ul
      aria-label="Summary of the plan"
      data-testid="plan-summary"
      style={{ margin: 0, paddingLeft: 20, display: 'grid', gap: 4 }}
    >
      <li>
        <Text variant="body-medium">
          <strong>In Azure:</strong> {IN_AZURE[type]}
        </Text>
      </li>
      <li>
        <Text variant="body-medium">
          <strong>On the management cluster:</strong>{' '}
          {`${plan.length} step${
            plan.length === 1 ? '' : 's'
          }; the job ${countsText(
            plan,
          )}. Each step checks the live cluster first and changes nothing if a check does not hold.`}
        </Text>
      </li>
      <li>
        <Text variant="body-medium">
          <strong>You:</strong>{' '}
          {`${read}${
            warnings ? 'The' : 'the'
          } job runs on its own; you can pause or cancel it between steps.${
            AFTERWARDS[type] ?? ''
          }`}
        </Text>
      </li>
    </ul>
  );
}
