import { useApi } from '@backstage/frontend-plugin-api';
import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { Alert, Button, Flex, Text } from '@backstage/ui';
import { useEffect, useMemo, useState } from 'react';
import { capzApiRef } from '../api/CapzApi';
import { FieldGroup } from './FieldFrame';
import {
  CreateCheck,
  createCheckError,
  createCheckSummary,
  createRequestOf,
  runCreateCheck,
} from './createCheck';
import { parentValue, PickerProps } from './formData';

/**
 * CapzCreateCheck: the form's last page runs the create dry run on everything chosen so far and lists the objects the
 * management cluster accepted, or says why it refuses them (an existing cluster or ASO object of those names, a
 * version AKS does not offer, the credential, …). Its value is the one-line verdict the Review shows; the field's
 * validation (`validateCreateCheck`) runs the check again when the user asks for Review, and a refusal keeps them
 * here.
 */
export function CreateCheckField(props: FieldExtensionComponentProps<string>) {
  const api = useApi(capzApiRef);
  const picker = props as unknown as PickerProps<string>;
  const options = picker.uiSchema?.['ui:options'];
  const formData = picker.formContext?.formData;
  const onChange = props.onChange as (v: string | undefined) => void;
  // The request, not the whole form: the field's own value changing must not start another check.
  const key = JSON.stringify(createRequestOf(formData, options));
  const delivery = parentValue(formData, options, 'deliveryField');
  const [check, setCheck] = useState<CreateCheck>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setCheck(undefined);
    // A value while the check runs: the form's validation runs only for fields that have one.
    onChange('Checking');
    runCreateCheck(api, formData, options)
      .then(c => {
        if (!live) return;
        setCheck(c);
        onChange(createCheckSummary(c));
      })
      .catch(() => {});
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, key, attempt]);

  const error = check && createCheckError(check, delivery);
  const body = useMemo(() => {
    if (!check)
      return (
        <Alert
          status="info"
          isPending
          title="Checking the cluster with the management cluster (a dry run: nothing is written)…"
        />
      );
    switch (check.state) {
      case 'accepted':
        return (
          <Flex direction="column" gap="2">
            <Alert
              status="success"
              icon
              title={`${check.managementCluster} accepts the cluster: ${check.objects.length} objects would be created`}
              description="A dry run: every check of the create ran and the API server validated each object; nothing was written."
            />
            <ul
              aria-label="Objects to create"
              data-testid="capz-create-objects"
            >
              {check.objects.map(o => (
                <li key={`${o.kind}/${o.name}`}>
                  <Text>
                    {o.kind} <code>{o.name}</code>
                  </Text>
                </li>
              ))}
            </ul>
            {check.warnings.map(w => (
              <Alert
                key={w}
                status="warning"
                icon
                title={`Not checked: ${w}`}
              />
            ))}
          </Flex>
        );
      case 'not-allowed':
        return (
          <Alert
            status={error ? 'danger' : 'info'}
            icon
            title={
              error ??
              'Not checked on the management cluster: you may not create clusters there. The proposal is checked when it is applied.'
            }
            description={error ? undefined : check.message}
          />
        );
      case 'unknown':
        return (
          <Alert
            status="warning"
            icon
            title="Could not check the cluster now; the create step checks again"
            description={check.message}
          />
        );
      default:
        return <Alert status="danger" icon role="alert" title={error} />;
    }
  }, [check, error]);

  return (
    <FieldGroup field={props} testId="capz-create-check">
      <Flex direction="column" gap="2" aria-live="polite">
        {body}
        {check && (
          <div>
            <Button
              variant="secondary"
              size="small"
              onPress={() => setAttempt(a => a + 1)}
            >
              Check again
            </Button>
          </div>
        )}
      </Flex>
    </FieldGroup>
  );
}
