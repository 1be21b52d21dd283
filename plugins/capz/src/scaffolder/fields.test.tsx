import { discoveryApiRef, fetchApiRef } from '@backstage/frontend-plugin-api';
import {
  CATALOG_FILTER_EXISTS,
  catalogApiRef,
} from '@backstage/plugin-catalog-react';
import { renderInTestApp } from '@backstage/frontend-test-utils';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { useState } from 'react';
import { BASE } from '../__testUtils__/fixtures';
import { capzApiRef } from '../api/CapzApi';
import { client, setupCapzServer } from '../__testUtils__/harness';
import { muiControls } from '../__testUtils__/mui';
import { AdminGroupsField } from './AdminGroupsField';
import { CheckboxField } from './CheckboxField';
import { GitopsRepoPicker } from './GitopsRepoPicker';
import { NodePoolsField } from './NodePoolsField';
import {
  catalogFilterOf,
  CredentialPicker,
  KubernetesVersionPicker,
  ManagementClusterPicker,
  NamespacePicker,
  OwnerPicker,
  RegionPicker,
} from './pickers';
import { TagsField } from './TagsField';
import {
  adminGroupIdError,
  isAdminGroupIdError,
  validateAdminGroups,
  validateClusterName,
  validateGitopsRepo,
  validateNodePools,
  validateOwner,
  validateRegion,
  validateTags,
} from './validation';

const server = setupCapzServer();
const apis: any[] = [
  [discoveryApiRef, { getBaseUrl: async () => BASE }],
  [fetchApiRef, { fetch: (i: any, init: any) => fetch(i, init) }],
  [capzApiRef, client],
];

/** A field as the scaffolder renders it: its value in state, the other fields' values in formContext. */
function Field(props: {
  component: (p: any) => JSX.Element | null;
  parents?: Record<string, string>;
  initial?: unknown;
  onValue?: (v: unknown) => void;
  title?: string;
  /** More of the field's schema (description, default). */
  schema?: Record<string, unknown>;
  uiOptions?: Record<string, unknown>;
  switchTo?: Record<string, string>;
  /** The form's errors of the field, as its last validation left them (rjsf's rawErrors). */
  rawErrors?: string[];
  /** The template's `ui:hideError`: the field says its errors itself. */
  hideError?: boolean;
}) {
  const [value, setValue] = useState<unknown>(props.initial);
  const [parents, setParents] = useState(props.parents ?? {});
  const C = props.component;
  return (
    <>
      <C
        schema={{ title: props.title, ...props.schema }}
        uiSchema={{ 'ui:options': props.uiOptions ?? {} }}
        formData={value}
        formContext={{ formData: { ...parents } }}
        onChange={(v: unknown) => {
          setValue(v);
          props.onValue?.(v);
        }}
        required
        rawErrors={props.rawErrors ?? []}
        hideError={props.hideError}
        errorSchema={{}}
        idSchema={{ $id: 'root' }}
      />
      {props.switchTo && (
        <button onClick={() => setParents(props.switchTo!)}>switch</button>
      )}
      <output data-testid="value">{JSON.stringify(value ?? null)}</output>
    </>
  );
}

const valueShown = () => JSON.parse(screen.getByTestId('value').textContent!);

async function choose(label: RegExp, option: string | RegExp) {
  await waitFor(async () =>
    expect(await screen.findByRole('button', { name: label })).toBeEnabled(),
  );
  await userEvent.click(screen.getByRole('button', { name: label }));
  await userEvent.click(await screen.findByRole('option', { name: option }));
}

describe('CapzManagementClusterPicker', () => {
  it('offers the configured management clusters, an unreachable one disabled', async () => {
    server.use(
      http.get(`${BASE}/management-clusters`, () =>
        HttpResponse.json({
          items: [
            { name: 'east', status: { state: 'connected' } },
            { name: 'west', title: 'West', status: { state: 'connected' } },
            { name: 'north', status: { state: 'unreachable' } },
          ],
        }),
      ),
    );
    await renderInTestApp(
      <Field component={ManagementClusterPicker} title="Management cluster" />,
      { apis },
    );
    await choose(/Management cluster/, 'West');
    expect(valueShown()).toBe('west');
    await userEvent.click(
      screen.getByRole('button', { name: /Management cluster/ }),
    );
    expect(
      await screen.findByRole('option', { name: 'north (unreachable)' }),
    ).toHaveAttribute('aria-disabled', 'true');
    expect(screen.getByTestId('capz-management-cluster-picker')).toBeTruthy();
  });
});

describe('CapzNamespacePicker', () => {
  it('waits for the management cluster, lists its namespaces, and resets when it changes', async () => {
    const asked: string[] = [];
    server.use(
      http.get(`${BASE}/pickers/namespaces`, ({ request }) => {
        const mc = new URL(request.url).searchParams.get('managementCluster')!;
        asked.push(mc);
        return HttpResponse.json({
          managementCluster: mc,
          source: 'live',
          items: [
            { name: `${mc}-team` },
            { name: 'default' },
            { name: 'kube-system' },
            { name: 'kube-node-lease' },
          ],
        });
      }),
    );
    await renderInTestApp(
      <Field
        component={NamespacePicker}
        title="Namespace"
        parents={{ managementCluster: 'east' }}
        switchTo={{ managementCluster: 'west' }}
      />,
      { apis },
    );
    await choose(/Namespace/, 'east-team');
    expect(valueShown()).toBe('east-team');
    // Kubernetes' own namespaces and default are not offered for a team's cluster.
    await userEvent.click(screen.getByRole('button', { name: /Namespace/ }));
    expect(
      (await screen.findAllByRole('option')).map(o => o.textContent),
    ).toEqual(['east-team']);
    await userEvent.keyboard('{Escape}');
    fireEvent.click(screen.getByText('switch'));
    await waitFor(() => expect(valueShown()).toBeNull());
    await choose(/Namespace/, 'west-team');
    expect(asked).toEqual(['east', 'west']);
  });

  it('says what to choose first', async () => {
    await renderInTestApp(
      <Field component={NamespacePicker} title="Namespace" />,
      {
        apis,
      },
    );
    expect(
      await screen.findByText('Choose the management cluster first'),
    ).toBeInTheDocument();
  });

  it('takes a new name with allowNew', async () => {
    server.use(
      http.get(`${BASE}/pickers/namespaces`, () =>
        HttpResponse.json({
          managementCluster: 'east',
          source: 'live',
          items: [{ name: 'team-a' }],
        }),
      ),
    );
    await renderInTestApp(
      <Field
        component={NamespacePicker}
        title="Namespace"
        parents={{ managementCluster: 'east' }}
        uiOptions={{ allowNew: true }}
      />,
      { apis },
    );
    await userEvent.type(
      await screen.findByRole('textbox', { name: 'Or a new namespace' }),
      'team-new',
    );
    expect(valueShown()).toBe('team-new');
  });
});

describe('CapzCredentialPicker', () => {
  it("lists the namespace's ASO credential Secrets with their subscription, and takes the only one", async () => {
    server.use(
      http.get(`${BASE}/credential-secrets`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        expect(q.get('managementCluster')).toBe('east');
        expect(q.get('namespace')).toBe('team-a');
        return HttpResponse.json({
          items: [
            {
              namespace: 'team-a',
              name: 'aso-credential',
              subscriptionId: 'sub-1',
              authMode: 'secret',
            },
          ],
        });
      }),
    );
    await renderInTestApp(
      <Field
        component={CredentialPicker}
        title="ASO credential"
        parents={{ managementCluster: 'east', namespace: 'team-a' }}
      />,
      { apis },
    );
    await waitFor(() => expect(valueShown()).toBe('aso-credential'));
    expect(
      screen.getAllByText('aso-credential — subscription sub-1 (secret)')
        .length,
    ).toBeGreaterThan(0);
  });
});

describe('CapzRegionPicker', () => {
  const parents = {
    managementCluster: 'east',
    namespace: 'team-a',
    credentialSecretName: 'aso-credential',
  };

  it("lists the credential's regions", async () => {
    server.use(
      http.get(`${BASE}/pickers/regions`, ({ request }) => {
        expect(new URL(request.url).searchParams.get('credentialSecret')).toBe(
          'aso-credential',
        );
        return HttpResponse.json({
          subscriptionId: 'sub-1',
          items: [
            { name: 'westeurope', displayName: 'West Europe' },
            { name: 'eastus', displayName: 'East US' },
          ],
        });
      }),
    );
    await renderInTestApp(
      <Field component={RegionPicker} title="Azure region" parents={parents} />,
      { apis },
    );
    await choose(/Azure region/, 'West Europe (westeurope)');
    expect(valueShown()).toBe('westeurope');
  });

  it('lets the region be typed when ARM cannot be asked', async () => {
    server.use(
      http.get(`${BASE}/pickers/regions`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'InputError',
              message: 'Azure discovery is not configured',
            },
          },
          { status: 400 },
        ),
      ),
    );
    await renderInTestApp(
      <Field component={RegionPicker} title="Azure region" parents={parents} />,
      { apis },
    );
    expect(
      await screen.findByText(/Could not list the choices/),
    ).toBeInTheDocument();
    await userEvent.type(
      screen.getByRole('textbox', { name: /Azure region/ }),
      'westeurope',
    );
    expect(valueShown()).toBe('westeurope');
  });
});

describe('CapzKubernetesVersionPicker', () => {
  it("chooses AKS's default version for the region and notes the hidden previews", async () => {
    server.use(
      http.get(`${BASE}/pickers/kubernetes-versions`, ({ request }) => {
        expect(new URL(request.url).searchParams.get('location')).toBe(
          'westeurope',
        );
        return HttpResponse.json({
          subscriptionId: 'sub-1',
          location: 'westeurope',
          previewsHidden: 1,
          items: [
            {
              version: 'v1.33.2',
              minor: '1.33',
              isDefault: true,
              supportPlans: ['KubernetesOfficial'],
            },
            {
              version: 'v1.32.6',
              minor: '1.32',
              isDefault: false,
              supportPlans: ['KubernetesOfficial'],
            },
          ],
        });
      }),
    );
    await renderInTestApp(
      <Field
        component={KubernetesVersionPicker}
        title="Kubernetes version"
        parents={{
          managementCluster: 'east',
          namespace: 'team-a',
          credentialSecretName: 'aso-credential',
          location: 'westeurope',
        }}
      />,
      { apis },
    );
    await waitFor(() => expect(valueShown()).toBe('v1.33.2'));
    expect(
      await screen.findByText('1 preview version(s) not offered.'),
    ).toBeInTheDocument();
    await choose(/Kubernetes version/, 'v1.32.6');
    expect(valueShown()).toBe('v1.32.6');
  });

  it('waits for the region', async () => {
    await renderInTestApp(
      <Field
        component={KubernetesVersionPicker}
        title="Kubernetes version"
        parents={{
          managementCluster: 'east',
          namespace: 'team-a',
          credentialSecretName: 'aso-credential',
        }}
      />,
      { apis },
    );
    expect(
      await screen.findByText('Choose the region first'),
    ).toBeInTheDocument();
  });
});

describe('CapzNodePoolsField', () => {
  beforeEach(() =>
    server.use(
      http.get(`${BASE}/pickers/vm-sizes`, () =>
        HttpResponse.json({
          items: [
            { name: 'Standard_D2s_v3', vCPUs: 2, memoryGiB: 8 },
            { name: 'Standard_D4s_v3', vCPUs: 4, memoryGiB: 16 },
          ],
        }),
      ),
    ),
  );

  it('adds a user pool, turns on autoscaling and removes a pool', async () => {
    const values: any[] = [];
    await renderInTestApp(
      <Field component={NodePoolsField} onValue={v => values.push(v)} />,
      { apis },
    );
    expect(screen.getByRole('textbox', { name: /Pool 1 name/ })).toHaveValue(
      'system',
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Add node pool' }),
    );
    expect(values.at(-1)).toEqual([
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 2,
      },
      { name: 'pool1', mode: 'User', vmSize: 'Standard_D4s_v3', replicas: 1 },
    ]);
    await userEvent.click(
      screen.getByRole('checkbox', { name: 'Pool 2 autoscaling' }),
    );
    expect(values.at(-1)[1].autoscaling).toEqual({ minCount: 0, maxCount: 3 });
    await choose(/Pool 2 OS/, 'Windows');
    expect(values.at(-1)[1].osType).toBe('Windows');
    await userEvent.click(
      screen.getByRole('button', { name: 'Remove pool 2' }),
    );
    expect(values.at(-1)).toHaveLength(1);
  });
});

describe('field validation (capz-common rules, before Review)', () => {
  const collect = () => {
    const errors: string[] = [];
    return {
      errors,
      field: { addError: (m: string) => errors.push(m) } as any,
    };
  };

  it('checks every pool rule and the <cluster>-<pool> names', () => {
    const { errors, field } = collect();
    validateNodePools(
      [
        {
          name: 'windows1',
          mode: 'User',
          osType: 'Windows',
          vmSize: 'Standard_D2s_v3',
          replicas: 1,
        },
      ],
      field,
      { formData: { name: 'ok' } },
    );
    expect(errors).toEqual([
      'pools: at least one pool must be a System pool (AKS requires one)',
      'pools[0].name: pool "windows1": a Windows pool name is 1 to 6 lowercase letters or digits, starting with a letter',
    ]);
  });

  it('says under the name, not the region, that the region makes the node resource group too long', async () => {
    const { errors, field } = collect();
    await validateClusterName('a'.repeat(33), field, {
      formData: { location: 'westeurope' },
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/node resource group .* 81 characters/);
    const ok = collect();
    await validateClusterName('a'.repeat(32), ok.field, {
      formData: { location: 'westeurope' },
    });
    expect(ok.errors).toEqual([]);
    const region = collect();
    validateRegion('westeurope', region.field);
    expect(region.errors).toEqual([]);
  });

  it('refuses the name of a cluster that exists in the namespace, and asks nothing while the name breaks a rule', async () => {
    const asked: string[] = [];
    server.use(
      http.get(`${BASE}/clusters/:mc/:ns/:name/tree`, ({ params }) => {
        asked.push(`${params.mc}/${params.ns}/${params.name}`);
        return params.name === 'payments-dev'
          ? HttpResponse.json({ name: 'payments-dev' })
          : HttpResponse.json(
              { error: { name: 'NotFoundError' } },
              { status: 404 },
            );
      }),
    );
    const apiHolder = {
      get: (ref: any) => new Map(apis as any).get(ref),
    } as any;
    const formData = { managementCluster: 'east', namespace: 'team-payments' };
    const taken = collect();
    await validateClusterName('payments-dev', taken.field, {
      formData,
      apiHolder,
    });
    expect(taken.errors).toEqual([
      'A cluster "payments-dev" already exists in namespace team-payments on east: choose another name',
    ]);
    const free = collect();
    await validateClusterName('payments-new', free.field, {
      formData,
      apiHolder,
    });
    expect(free.errors).toEqual([]);
    const bad = collect();
    await validateClusterName('Payments', bad.field, { formData, apiHolder });
    expect(bad.errors).toHaveLength(1);
    expect(asked).toEqual([
      'east/team-payments/payments-dev',
      'east/team-payments/payments-new',
    ]);
  });
});

describe('CapzGitopsRepoPicker', () => {
  const config = {
    app: { baseUrl: 'http://localhost:3000' },
    backend: { baseUrl: 'http://localhost:7007' },
    integrations: {
      github: [{ host: 'github.com' }],
      gitea: [{ host: '127.0.0.1:3000', baseUrl: 'http://127.0.0.1:3000' }],
      bitbucketServer: [{ host: 'bitbucket.example.com' }],
      azure: [{ host: 'dev.azure.com' }],
    },
  };

  it("offers the configured integrations' hosts of the forges with a pull request, and writes RepoUrlPicker's value", async () => {
    await renderInTestApp(
      <Field
        component={GitopsRepoPicker}
        title="GitOps repository"
        schema={{ description: 'The repository the pull request is opened on' }}
      />,
      { apis, config },
    );
    await waitFor(async () =>
      expect(
        await screen.findByRole('button', { name: /GitOps repository: host/ }),
      ).toBeEnabled(),
    );
    expect(
      screen.getByRole('button', { name: /GitOps repository: host/ }),
    ).toHaveAccessibleDescription(
      'The repository the pull request is opened on',
    );
    await userEvent.click(
      screen.getByRole('button', { name: /GitOps repository: host/ }),
    );
    expect(
      (await screen.findAllByRole('option')).map(o => o.textContent),
    ).toEqual([
      'github.com (github)',
      'bitbucket.example.com (bitbucketServer)',
      '127.0.0.1:3000 (gitea)',
    ]);
    await userEvent.click(
      screen.getByRole('option', { name: '127.0.0.1:3000 (gitea)' }),
    );
    await userEvent.type(
      screen.getByRole('textbox', { name: 'Owner' }),
      'capz',
    );
    await userEvent.type(
      screen.getByRole('textbox', { name: 'Repository' }),
      'gitops',
    );
    expect(valueShown()).toBe('127.0.0.1:3000?owner=capz&repo=gitops');
  });

  it('asks for the host, the owner and the repository', () => {
    const errors: string[] = [];
    const field = { addError: (m: string) => errors.push(m) } as any;
    validateGitopsRepo('github.com?owner=o&repo=r', field);
    validateGitopsRepo('bitbucket.example.com?project=P&repo=r', field);
    expect(errors).toEqual([]);
    validateGitopsRepo('github.com?owner=o', field);
    validateGitopsRepo(undefined as any, field);
    expect(errors.length).toBe(2);
  });
});

describe('CapzOwnerPicker', () => {
  const group = (name: string, namespace: string, title?: string) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Group',
    metadata: { name, namespace, ...(title ? { title } : {}) },
  });

  it("lists the catalog's groups by title or name (the template's catalogFilter) and writes the group's entity reference, as Backstage's OwnerPicker does", async () => {
    const asked: any[] = [];
    const catalogApi = {
      getEntities: async (request: any) => {
        asked.push(request);
        return {
          items: [
            group('platform', 'default'),
            group('team-payments', 'default', 'Payments team'),
            group('search', 'ops'),
          ],
        };
      },
    };
    await renderInTestApp(
      <Field
        component={OwnerPicker}
        title="Owner"
        schema={{ description: 'The catalog group that owns the cluster' }}
        uiOptions={{ catalogFilter: { kind: 'Group' } }}
      />,
      { apis: [...apis, [catalogApiRef, catalogApi]] },
    );
    await choose(/Owner/, 'Payments team');
    expect(valueShown()).toBe('group:default/team-payments');
    expect(asked[0].filter).toEqual({ kind: 'Group' });
    // A BUI select named by the title (the e2e test's locators: the button, then the listbox named by it).
    const select = screen.getByRole('button', { name: /Owner/ });
    expect(select.closest('.bui-Select')).not.toBeNull();
    expect(select).toHaveAccessibleDescription(
      'The catalog group that owns the cluster',
    );
    await userEvent.click(select);
    const listbox = await screen.findByRole('listbox', { name: /Owner/ });
    expect(
      within(listbox)
        .getAllByRole('option')
        .map(o => o.textContent),
    ).toEqual(['ops/search', 'Payments team', 'platform']);
    // Many groups: a search box narrows them.
    await userEvent.type(
      screen.getByRole('searchbox', { name: 'Search the groups' }),
      'plat',
    );
    await waitFor(() =>
      expect(
        within(screen.getByRole('listbox', { name: /Owner/ }))
          .getAllByRole('option')
          .map(o => o.textContent),
      ).toEqual(['platform']),
    );
    await userEvent.click(screen.getByRole('option', { name: 'platform' }));
    expect(valueShown()).toBe('group:default/platform');
    expect(muiControls(screen.getByTestId('capz-owner-picker'))).toEqual([]);
  });

  it("reads a template's catalogFilter as Backstage's OwnerPicker does, and groups without one", () => {
    expect(catalogFilterOf(undefined)).toEqual({ kind: 'Group' });
    expect(
      catalogFilterOf([
        { kind: ['Group', 'User'] },
        { kind: 'Group', 'spec.type': { exists: true } },
      ]),
    ).toEqual([
      { kind: ['Group', 'User'] },
      { kind: 'Group', 'spec.type': CATALOG_FILTER_EXISTS },
    ]);
  });
});

describe('CapzCheckboxField', () => {
  it("is a BUI checkbox named by the field's title, checked as the default says, described by its description, and writes a boolean", async () => {
    await renderInTestApp(
      <Field
        component={CheckboxField}
        title="Entra ID only"
        schema={{
          type: 'boolean',
          default: true,
          description:
            'Local accounts disabled; ASO writes the Entra kubeconfig to `<name>-user-kubeconfig`',
        }}
      />,
      { apis },
    );
    const box = screen.getByRole('checkbox', { name: 'Entra ID only' });
    expect(box).toBeChecked();
    expect(box.closest('.bui-Checkbox')).not.toBeNull();
    expect(box).toHaveAccessibleDescription(
      'Local accounts disabled; ASO writes the Entra kubeconfig to <name>-user-kubeconfig',
    );
    expect(screen.getByText('<name>-user-kubeconfig').tagName).toBe('CODE');
    await userEvent.click(box);
    expect(valueShown()).toBe(false);
    expect(box).not.toBeChecked();
    await userEvent.click(box);
    expect(valueShown()).toBe(true);
  });
});

describe('CapzAdminGroupsField', () => {
  const guid = '0f6b8a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b';
  const otherGuid = '6f2c1a4e-1b0f-4c1e-9d8a-3f0c2b1a0e9d';
  const row = (n: number) =>
    screen.getByRole('textbox', { name: `Admin group ${n}` });

  it('adds, edits and removes object ids, and says nothing under an id before the form checks it', async () => {
    await renderInTestApp(
      <Field
        component={AdminGroupsField}
        title="Entra admin groups"
        schema={{ description: 'Object ids of the Entra groups' }}
        initial={[]}
      />,
      { apis },
    );
    const group = screen.getByRole('group', { name: 'Entra admin groups' });
    expect(group).toHaveAccessibleDescription('Object ids of the Entra groups');
    await userEvent.click(
      screen.getByRole('button', { name: 'Add admin group' }),
    );
    await userEvent.type(row(1), ` ${guid} `);
    await userEvent.click(
      screen.getByRole('button', { name: 'Add admin group' }),
    );
    await userEvent.type(row(2), 'not-a-guid');
    expect(valueShown()).toEqual([guid, 'not-a-guid']);
    expect(row(2)).not.toHaveAttribute('aria-invalid');
    await userEvent.click(
      screen.getByRole('button', { name: 'Remove admin group 1' }),
    );
    expect(valueShown()).toEqual(['not-a-guid']);
    expect(muiControls(screen.getByTestId('capz-admin-groups-field'))).toEqual(
      [],
    );
  });

  it("once the form has said an id is wrong, says under each row what is wrong with its id until it is fixed or removed, and the field's other errors once", async () => {
    const ids = ['not-a-guid', 'also-bad', guid];
    await renderInTestApp(
      <Field
        component={AdminGroupsField}
        title="Entra admin groups"
        initial={ids}
        hideError
        rawErrors={[
          adminGroupIdError(ids[0], 0)!,
          adminGroupIdError(ids[1], 1)!,
          'Admin groups apply to Entra-only clusters: check Entra ID only, or remove them',
        ]}
      />,
      { apis },
    );
    const said = (id: string, n: number) =>
      `Admin group ${n}: "${id}" is not a GUID (the group's object ID in Entra, such as 00000000-0000-0000-0000-000000000000)`;
    expect(row(1)).toHaveAttribute('aria-invalid', 'true');
    expect(row(1)).toHaveAccessibleDescription(said('not-a-guid', 1));
    expect(row(2)).toHaveAccessibleDescription(said('also-bad', 2));
    expect(row(3)).not.toHaveAttribute('aria-invalid');
    // The field's other error under it; an id's error only under its row.
    expect(
      screen.getAllByText(
        'Admin groups apply to Entra-only clusters: check Entra ID only, or remove them',
      ),
    ).toHaveLength(1);
    expect(screen.getAllByText(said('not-a-guid', 1))).toHaveLength(1);

    // Still not a GUID: still said, in its new words.
    await userEvent.type(row(1), '-x');
    expect(row(1)).toHaveAccessibleDescription(said('not-a-guid-x', 1));
    // Removed: its error goes with it; the next row is said by its new number.
    await userEvent.click(
      screen.getByRole('button', { name: 'Remove admin group 1' }),
    );
    expect(valueShown()).toEqual(['also-bad', guid]);
    expect(row(1)).toHaveAccessibleDescription(said('also-bad', 1));
    expect(row(2)).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText(/not-a-guid/)).toBeNull();
    // Fixed: said no more.
    await userEvent.clear(row(1));
    await userEvent.type(row(1), otherGuid);
    expect(row(1)).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByText(/is not a GUID/)).toBeNull();
  });
});

describe('CapzTagsField', () => {
  it('writes the rows of a name and a value as an object, leaves out empty rows, and says when a name repeats', async () => {
    const values: any[] = [];
    await renderInTestApp(
      <Field
        component={TagsField}
        title="Azure tags"
        initial={{ team: 'payments' }}
        onValue={v => values.push(v)}
      />,
      { apis },
    );
    expect(screen.getByRole('group', { name: 'Azure tags' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Tag 1 name' })).toHaveValue(
      'team',
    );
    expect(screen.getByRole('textbox', { name: 'Tag 1 value' })).toHaveValue(
      'payments',
    );
    // An empty row changes nothing.
    await userEvent.click(screen.getByRole('button', { name: 'Add tag' }));
    expect(values).toEqual([]);
    const name2 = screen.getByRole('textbox', { name: 'Tag 2 name' });
    await userEvent.type(name2, 'team');
    expect(name2).toHaveAttribute('aria-invalid', 'true');
    expect(name2).toHaveAccessibleDescription(
      'Tag 2 has the name of tag 1: give it another name or remove it',
    );
    expect(valueShown()).toEqual({ team: 'payments' });
    await userEvent.clear(name2);
    await userEvent.type(name2, 'env');
    await userEvent.type(
      screen.getByRole('textbox', { name: 'Tag 2 value' }),
      'prod',
    );
    expect(name2).not.toHaveAttribute('aria-invalid');
    expect(valueShown()).toEqual({ team: 'payments', env: 'prod' });
    await userEvent.click(screen.getByRole('button', { name: 'Remove tag 1' }));
    expect(valueShown()).toEqual({ env: 'prod' });
    expect(screen.getByRole('textbox', { name: 'Tag 1 name' })).toHaveValue(
      'env',
    );
    expect(muiControls(screen.getByTestId('capz-tags-field'))).toEqual([]);
  });
});

describe('the Cluster page fields validation', () => {
  const collect = () => {
    const errors: string[] = [];
    return {
      errors,
      field: { addError: (m: string) => errors.push(m) } as any,
    };
  };

  it("refuses an owner that is not an entity reference, ARM's tag rules, an admin group that is not a GUID or given twice, and admin groups without Entra ID only", () => {
    const owner = collect();
    validateOwner('group:default/payments', owner.field);
    validateOwner(undefined as any, owner.field);
    expect(owner.errors).toEqual([]);
    validateOwner('payments', owner.field);
    expect(owner.errors).toEqual([
      '"payments" is not a catalog entity reference (e.g. group:default/platform)',
    ]);

    const tags = collect();
    validateTags({ team: 'payments' }, tags.field);
    expect(tags.errors).toEqual([]);
    validateTags({ 'a/b': 'x', '': 'y' }, tags.field);
    expect(tags.errors).toEqual([
      'Tag name "a/b" must be 1 to 512 characters without < > % & \\ ? /',
      'Tag name "" must be 1 to 512 characters without < > % & \\ ? /',
    ]);

    const guid = '0f6b8a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b';
    const ids = collect();
    validateAdminGroups(['not-a-guid', '', guid.toUpperCase()], ids.field, {
      formData: { entraOnly: true },
    });
    expect(ids.errors).toEqual([
      'Admin group 1: "not-a-guid" is not a GUID (the group\'s object ID in Entra, such as 00000000-0000-0000-0000-000000000000)',
      "Admin group 2: give the group's object ID (a GUID), or remove it",
    ]);
    expect(ids.errors.every(isAdminGroupIdError)).toBe(true);

    const groups = collect();
    validateAdminGroups([guid], groups.field, {
      formData: { entraOnly: true },
    });
    expect(groups.errors).toEqual([]);
    validateAdminGroups([guid, guid], groups.field, {
      formData: { entraOnly: false },
    });
    expect(groups.errors).toEqual([
      `${guid} is given more than once`,
      'Admin groups apply to Entra-only clusters: check Entra ID only, or remove them',
    ]);
    expect(groups.errors.some(isAdminGroupIdError)).toBe(false);
  });
});
