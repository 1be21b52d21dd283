import { Alert, Flex, Text } from '@backstage/ui';
import { GitChangeView } from './GitChangeView';
import { asSentence } from '../shared/text';
import {
  type Day2Plan,
  displayKubernetesVersion,
  type ObjectChange,
} from '@capz-backstage/plugin-capz-common';

const OPERATION: Record<ObjectChange['operation'], string> = {
  create: 'Create',
  update: 'Update',
  delete: 'Delete',
};

/** spec.version, spec.template.spec.version, …kubernetesVersion, …orchestratorVersion. */
const VERSION_FIELD = /(^|\.)(version|kubernetesVersion|orchestratorVersion)$/;

/**
 * A field value as one line: strings bare, absent as "(none)", everything else as JSON. A Kubernetes version field's
 * value in the one form the dialogs show versions in (`v1.33.2`, whether the object holds CAPI's or AKS's form).
 */
export function valueText(v: unknown, path = ''): string {
  if (v === undefined || v === null) return '(none)';
  if (typeof v === 'string')
    return VERSION_FIELD.test(path) ? displayKubernetesVersion(v) : v;
  return JSON.stringify(v);
}

const codeStyle = {
  fontFamily: 'var(--bui-font-monospace, monospace)',
  fontSize: 12,
  overflowWrap: 'anywhere' as const,
};

/** One object's changes: `Update MachinePool ns/name`, then each field `path: before → after`. */
function ObjectChangeView({ change }: { change: ObjectChange }) {
  const title = `${OPERATION[change.operation]} ${change.kind} ${
    change.namespace
  }/${change.name}`;
  return (
    <li>
      <Flex direction="column" gap="1">
        <Text variant="body-small">
          <strong>{OPERATION[change.operation]}</strong>{' '}
          {`${change.kind} ${change.namespace}/${change.name}`}
        </Text>
        {change.fields.length > 0 && (
          <ul aria-label={`Fields of ${title}`} style={{ paddingLeft: 20 }}>
            {change.fields.map(f => (
              <li key={f.path}>
                <span style={codeStyle}>
                  {`${f.path}: ${valueText(f.before, f.path)} → ${valueText(
                    f.after,
                    f.path,
                  )}`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Flex>
    </li>
  );
}

/** The changes' heading: proposed to Git (Flux writes them once the pull request is merged), or written live. */
function changesLabel(plan: Day2Plan): string {
  if (plan.git?.proposed) return 'Changes proposed';
  if (plan.git?.proposable) return 'Changes to propose';
  return plan.applied ? 'Changes written' : 'Changes to write';
}

/**
 * What an action changes (preview) or changed (applied): every object and field, the warnings (a warning's style),
 * the notes (information's style: nothing to take care of), and the blockers
 * that refuse its confirm (e.g. Flux or Argo CD applies an object it changes).
 */
export function PlanView({ plan }: { plan: Day2Plan }) {
  const label = changesLabel(plan);
  return (
    <Flex direction="column" gap="2">
      {(plan.blockers ?? []).map(b => (
        <Alert
          key={b}
          status="danger"
          icon
          title="This cannot be confirmed"
          description={asSentence(b)}
        />
      ))}
      {(plan.cautions ?? []).map(w => (
        <Alert key={w} status="warning" icon title={asSentence(w)} />
      ))}
      {(plan.effects ?? []).length > 0 && (
        <>
          <Text variant="body-small" weight="bold">
            In Azure
          </Text>
          <ul aria-label="In Azure" style={{ margin: 0, paddingLeft: 20 }}>
            {plan.effects!.map(e => (
              <li key={e}>
                <Text variant="body-small">{e}</Text>
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.warnings.map(w => (
        <Alert key={w} status="warning" icon title={asSentence(w)} />
      ))}
      {(plan.notes ?? []).map(n => (
        <Alert key={n} status="info" icon title={asSentence(n)} />
      ))}
      {plan.changes.length === 0 ? (
        <Text variant="body-small">
          Nothing to change: the cluster already has these values.
        </Text>
      ) : (
        <>
          <Text variant="body-small" weight="bold">
            {label}
          </Text>
          <ul aria-label={label} style={{ margin: 0, paddingLeft: 20 }}>
            {plan.changes.map(c => (
              <ObjectChangeView
                key={`${c.kind}/${c.namespace}/${c.name}`}
                change={c}
              />
            ))}
          </ul>
        </>
      )}
      {plan.git && <GitChangeView git={plan.git} />}
    </Flex>
  );
}
