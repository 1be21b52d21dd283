import { stringifyEntityRef } from '@backstage/catalog-model';
import { useApi } from '@backstage/frontend-plugin-api';
import {
  CATALOG_FILTER_EXISTS,
  catalogApiRef,
} from '@backstage/plugin-catalog-react';
import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { isSystemNamespace } from '@capz-backstage/plugin-capz-common';
import { useCallback, useMemo } from 'react';
import { fieldDescription } from './FieldFrame';
import { PickerProps, useParents, useResetOnChange } from './formData';
import { usePickerApi } from './pickerApi';
import { PickerOption, PickerSelect } from './PickerSelect';

type Props = FieldExtensionComponentProps<string>;

/** What every picker takes from the scaffolder's props. */
function common(props: Props, fallbackLabel: string) {
  return {
    label: props.schema.title ?? fallbackLabel,
    description: fieldDescription(props),
    required: props.required,
    disabled: props.disabled || props.readonly,
    rawErrors: props.rawErrors,
    value: props.formData || undefined,
  };
}

/** The first missing parent's words, or undefined when every parent has a value. */
const waitingFor = (...parents: Array<[string | undefined, string]>) =>
  parents.find(([v]) => !v)?.[1];

const asPicker = (props: Props) => props as unknown as PickerProps<string>;

/** CapzManagementClusterPicker: the configured management clusters, with their connection state. */
export function ManagementClusterPicker(props: Props) {
  const api = usePickerApi();
  const { onChange } = props;
  return (
    <PickerSelect
      {...common(props, 'Management cluster')}
      testId="capz-management-cluster-picker"
      onChange={onChange as (v: string | undefined) => void}
      deps={[]}
      load={async () =>
        (await api.managementClusters()).items.map(m => ({
          id: m.name,
          label: `${m.title ?? m.name}${
            m.status.state === 'unreachable' ? ' (unreachable)' : ''
          }`,
          disabled: m.status.state === 'unreachable',
        }))
      }
      preferred={o =>
        o.filter(x => !x.disabled).length === 1
          ? o.find(x => !x.disabled)!.id
          : undefined
      }
    />
  );
}

/** CapzNamespacePicker: the management cluster's namespaces (not `default` or `kube-*`); with `ui:options.allowNew`, a new name can be typed. */
export function NamespacePicker(props: Props) {
  const api = usePickerApi();
  const [mc] = useParents(asPicker(props), 'managementClusterField');
  const onChange = props.onChange as (v: string | undefined) => void;
  useResetOnChange([mc], onChange, !!props.formData);
  const allowNew = props.uiSchema?.['ui:options']?.allowNew === true;
  return (
    <PickerSelect
      {...common(props, 'Namespace')}
      testId="capz-namespace-picker"
      onChange={onChange}
      waitingFor={mc ? undefined : 'management cluster'}
      deps={[mc]}
      load={async () =>
        (await api.namespaces({ managementCluster: mc! })).items
          .filter(n => !isSystemNamespace(n.name))
          .map(n => ({ id: n.name, label: n.name }))
      }
      typeNewLabel={allowNew ? 'Or a new namespace' : undefined}
    />
  );
}

/** CapzCredentialPicker: the ASO credential Secrets of the namespace (names, subscription and auth mode, never values). */
export function CredentialPicker(props: Props) {
  const api = usePickerApi();
  const [mc, ns] = useParents(
    asPicker(props),
    'managementClusterField',
    'namespaceField',
  );
  const onChange = props.onChange as (v: string | undefined) => void;
  useResetOnChange([mc, ns], onChange, !!props.formData);
  return (
    <PickerSelect
      {...common(props, 'ASO credential')}
      testId="capz-credential-picker"
      onChange={onChange}
      waitingFor={waitingFor([mc, 'management cluster'], [ns, 'namespace'])}
      deps={[mc, ns]}
      load={async () =>
        (
          await api.credentialSecrets({
            managementCluster: mc!,
            namespace: ns!,
          })
        ).items.map(s => ({
          id: s.name,
          label: `${s.name}${
            s.subscriptionId ? ` — subscription ${s.subscriptionId}` : ''
          }${s.authMode ? ` (${s.authMode})` : ''}`,
        }))
      }
      preferred={o => (o.length === 1 ? o[0].id : undefined)}
    />
  );
}

/** CapzRegionPicker: the regions of the credential's subscription. */
export function RegionPicker(props: Props) {
  const api = usePickerApi();
  const [mc, ns, cred] = useParents(
    asPicker(props),
    'managementClusterField',
    'namespaceField',
    'credentialField',
  );
  const onChange = props.onChange as (v: string | undefined) => void;
  useResetOnChange([mc, ns, cred], onChange, !!props.formData);
  return (
    <PickerSelect
      {...common(props, 'Azure region')}
      testId="capz-region-picker"
      onChange={onChange}
      waitingFor={!mc || !ns || !cred ? 'credential' : undefined}
      deps={[mc, ns, cred]}
      load={async () =>
        (
          await api.regions({
            managementCluster: mc!,
            namespace: ns!,
            credentialSecret: cred!,
          })
        ).items.map(r => ({
          id: r.name,
          label: `${r.displayName} (${r.name})`,
        }))
      }
    />
  );
}

/** CapzKubernetesVersionPicker: the GA versions AKS offers in the region; AKS's default is chosen unless changed. */
export function KubernetesVersionPicker(props: Props) {
  const api = usePickerApi();
  const [mc, ns, cred, location] = useParents(
    asPicker(props),
    'managementClusterField',
    'namespaceField',
    'credentialField',
    'locationField',
  );
  const onChange = props.onChange as (v: string | undefined) => void;
  useResetOnChange([mc, ns, cred, location], onChange, !!props.formData);
  const preferred = useCallback(
    (o: PickerOption[]) => o.find(x => x.label.includes('(default)'))?.id,
    [],
  );
  const previews = useMemo(() => ({ hidden: 0 }), []);
  return (
    <PickerSelect
      {...common(props, 'Kubernetes version')}
      testId="capz-kubernetes-version-picker"
      onChange={onChange}
      waitingFor={waitingFor(
        [mc && ns && cred, 'credential'],
        [location, 'region'],
      )}
      deps={[mc, ns, cred, location]}
      load={async () => {
        const res = await api.kubernetesVersions({
          managementCluster: mc!,
          namespace: ns!,
          credentialSecret: cred!,
          location: location!,
        });
        previews.hidden = res.previewsHidden;
        return res.items.map(v => ({
          id: v.version,
          label: `${v.version}${v.isDefault ? ' (default)' : ''}${
            v.supportPlans.includes('AKSLongTermSupport')
              ? ' (LTS available)'
              : ''
          }`,
        }));
      }}
      preferred={preferred}
      note={() =>
        previews.hidden
          ? `${previews.hidden} preview version(s) not offered.`
          : undefined
      }
    />
  );
}

/** A template's `catalogFilter`, as Backstage's OwnerPicker reads it: values, lists of values, `{ exists: true }`. */
type SchemaFilter = Record<string, string | string[] | { exists: true }>;

/** The catalog API's filter for a template's `catalogFilter` (one, or several for "any of"); Groups when none. */
export function catalogFilterOf(
  filter: SchemaFilter | SchemaFilter[] | undefined,
) {
  const one = (f: SchemaFilter) =>
    Object.fromEntries(
      Object.entries(f).map(([k, v]) => [
        k,
        typeof v === 'object' && !Array.isArray(v) ? CATALOG_FILTER_EXISTS : v,
      ]),
    );
  if (!filter) return { kind: 'Group' };
  return Array.isArray(filter) ? filter.map(one) : one(filter);
}

/**
 * CapzOwnerPicker: the catalog's groups (the field's `ui:options.catalogFilter`, Groups by default), shown by title
 * or name; the value is the group's entity reference, as Backstage's OwnerPicker writes it (`group:default/payments`).
 */
export function OwnerPicker(props: Props) {
  const catalogApi = useApi(catalogApiRef);
  const onChange = props.onChange as (v: string | undefined) => void;
  const filter = props.uiSchema?.['ui:options']?.catalogFilter as
    | SchemaFilter
    | SchemaFilter[]
    | undefined;
  const filterKey = JSON.stringify(filter ?? null);
  return (
    <PickerSelect
      {...common(props, 'Owner')}
      testId="capz-owner-picker"
      onChange={onChange}
      searchLabel="Search the groups"
      deps={[filterKey]}
      load={async () => {
        const { items } = await catalogApi.getEntities({
          filter: catalogFilterOf(filter),
          fields: [
            'kind',
            'metadata.name',
            'metadata.namespace',
            'metadata.title',
          ],
        });
        return items
          .map(e => {
            const ns = e.metadata.namespace ?? 'default';
            return {
              id: stringifyEntityRef(e),
              label:
                e.metadata.title ??
                (ns === 'default'
                  ? e.metadata.name
                  : `${ns}/${e.metadata.name}`),
            };
          })
          .sort((a, b) => a.label.localeCompare(b.label));
      }}
    />
  );
}
