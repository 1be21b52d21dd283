/**
 * The New AKS cluster template's Cluster page in the scaffolder's own form (Backstage's Stepper: rjsf with ajv-errors,
 * then the fields' validations), as a user meets it: what a missing or malformed value says, and where.
 */
import { discoveryApiRef, fetchApiRef } from '@backstage/frontend-plugin-api';
import {
  createExtensionTester,
  renderInTestApp,
} from '@backstage/frontend-test-utils';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import {
  FormFieldBlueprint,
  Stepper,
} from '@backstage/plugin-scaffolder-react/alpha';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BASE } from '../__testUtils__/fixtures';
import { muiControls } from '../__testUtils__/mui';
import { capzApiRef } from '../api/CapzApi';
import { client, setupCapzServer } from '../__testUtils__/harness';
import { CreateCheckField } from './CreateCheckField';
import { capzFormFields } from './extensions';
import { validateCreateCheck } from './validation';

const server = setupCapzServer();
/** The catalog's groups, as the owner picker asks for them. */
const catalogApi = {
  getEntities: async () => ({
    items: ['payments', 'platform'].map(name => ({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Group',
      metadata: { name, namespace: 'default' },
    })),
  }),
};
const apis: any[] = [
  [discoveryApiRef, { getBaseUrl: async () => BASE }],
  [fetchApiRef, { fetch: (i: any, init: any) => fetch(i, init) }],
  [capzApiRef, client],
  [catalogApiRef, catalogApi],
];

const template = parse(
  readFileSync(
    join(
      __dirname,
      '../../../scaffolder-backend-module-capz/templates/new-aks-cluster/template.yaml',
    ),
    'utf8',
  ),
);
/** A page of the template as the scaffolder backend serves it. */
const page = (title: string) =>
  template.spec.parameters.find((p: any) => p.title === title);

/**
 * The fields the capz plugin registers (its FormFieldBlueprint extensions, loaded as the scaffolder loads them), by
 * name: the form draws the template's pages with these.
 */
async function registeredFields(): Promise<Map<string, any>> {
  const fields = await Promise.all(
    capzFormFields.map(ext =>
      createExtensionTester(ext).get(
        FormFieldBlueprint.dataRefs.formFieldLoader,
      )(),
    ),
  );
  return new Map(fields.map((f: any) => [f.name, f]));
}

/** One page of the template in the scaffolder's form, with the fields the capz plugin registers. */
async function renderStep(
  title: string,
  initialState: Record<string, unknown>,
  onCreate: (values: Record<string, unknown>) => void = () => {},
) {
  await renderInTestApp(
    <Stepper
      manifest={{
        title: 'New AKS cluster',
        steps: [{ title, schema: page(title) }],
      }}
      extensions={[...(await registeredFields()).values()]}
      initialState={initialState as any}
      onCreate={async values => onCreate(values as any)}
    />,
    { apis },
  );
}

async function renderPage(
  initialState: Record<string, unknown>,
  onCreate: (values: Record<string, unknown>) => void = () => {},
) {
  await renderStep('Cluster', initialState, onCreate);
  // The owner picker has the catalog's groups (the pickers have loaded).
  await waitFor(() =>
    expect(screen.getByRole('button', { name: /Owner/ })).toBeEnabled(),
  );
}

const review = () =>
  userEvent.click(screen.getByRole('button', { name: 'Review' }));

/** A field's description as the page says it: the template's `code` spans without their backquotes. */
const said = (description: string) => description.replace(/`/g, '');

/** How many times the page says `text`. */
const timesSaid = (text: string) =>
  document.body.textContent!.split(text).length - 1;

/** The control (or the group of controls) a capz field draws, found by the field's title. */
function controlOf(property: any): HTMLElement {
  const title: string = property.title;
  switch (property['ui:field']) {
    case 'CapzClusterNameField':
      return screen.getByRole('textbox', { name: title });
    case 'CapzCheckboxField':
      return screen.getByRole('checkbox', { name: title });
    case 'CapzAdminGroupsField':
    case 'CapzTagsField':
    case 'CapzNodePoolsField':
    case 'CapzCreateCheck':
      return screen.getByRole('group', { name: title });
    default:
      // A picker: a BUI select, a button named by its value and its label.
      return screen.getByRole('button', { name: new RegExp(`${title}$`) });
  }
}

/** The scaffolder's frame of a field on the page (rjsf's field: the field's own controls and its error list). */
const fieldFrameOf = (control: HTMLElement) =>
  control.closest<HTMLElement>('.form-group')!;

const GUID = '0f6b8a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b';
const OTHER_GUID = '6f2c1a4e-1b0f-4c1e-9d8a-3f0c2b1a0e9d';
/** The Cluster page's values but the admin groups, valid. */
const clusterValues = {
  name: 'payments-prod',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  owner: 'group:default/payments',
};

async function addAdminGroup(id: string) {
  await userEvent.click(
    screen.getByRole('button', { name: 'Add admin group' }),
  );
  const rows = screen.getAllByRole('textbox', { name: /^Admin group \d+$/ });
  await userEvent.type(rows[rows.length - 1], id);
}

/** Every value of the earlier pages, as the form holds them when the user reaches its last page. */
const chosen = {
  managementCluster: 'east',
  namespace: 'team-payments',
  credentialSecretName: 'aso-credential',
  name: 'payments-new',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  owner: 'group:default/team-payments',
  entraOnly: true,
  adminGroupObjectIDs: [],
  tags: {},
  pools: [
    { name: 'system', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
  ],
  delivery: 'apply',
};

describe('the New AKS cluster form', () => {
  it.each(['Where', 'Cluster', 'Node pools', 'Check'])(
    'the %s page: every capz field shows its label, and its description once, as the description of its control',
    async title => {
      server.use(
        http.get(`${BASE}/pickers/namespaces`, () =>
          HttpResponse.json({
            managementCluster: 'local',
            source: 'live',
            items: [{ name: 'team-payments' }],
          }),
        ),
        http.get(`${BASE}/pickers/vm-sizes`, () =>
          HttpResponse.json({
            items: [{ name: 'Standard_D2s_v3', vCPUs: 2, memoryGiB: 8 }],
          }),
        ),
        http.post(`${BASE}/clusters`, () =>
          HttpResponse.json({
            dryRun: true,
            managementCluster: 'east',
            namespace: 'team-payments',
            name: 'payments-new',
            path: '/capz/clusters/east/team-payments/payments-new',
            objects: [],
          }),
        ),
      );
      await renderStep(title, title === 'Check' ? chosen : {});
      const fields = Object.entries<any>(page(title).properties).filter(
        ([, p]) => String(p['ui:field']).startsWith('Capz'),
      );
      expect(fields.length).toBeGreaterThan(0);
      for (const [key, property] of fields) {
        const control = await waitFor(() => controlOf(property));
        if (!property.description) continue;
        expect(control).toHaveAccessibleDescription(said(property.description));
        expect(`${key}: ${timesSaid(said(property.description))}`).toBe(
          `${key}: 1`,
        );
      }
    },
  );

  it('says what is missing in words, not the schema', async () => {
    await renderPage({});
    await review();
    for (const words of [
      'Give the cluster a name',
      'Choose the Azure region',
      'Choose the Kubernetes version',
      'Choose the group that owns the cluster',
    ])
      expect((await screen.findAllByText(words)).length).toBeGreaterThan(0);
    expect(screen.queryByText(/must have required property/)).toBeNull();
  });

  it('says what a name may hold, not its pattern', async () => {
    await renderPage({ location: 'westeurope' });
    await userEvent.type(
      await screen.findByRole('textbox', { name: /Name/ }),
      'MyCluster',
    );
    await review();
    expect(
      (await screen.findAllByText(/may hold only lowercase letters/)).length,
    ).toBeGreaterThan(0);
    expect(screen.queryByText(/must match pattern/)).toBeNull();
  });

  it('refuses, under the name, a name the region makes too long and a cluster that exists', async () => {
    server.use(
      http.get(`${BASE}/clusters/:mc/:ns/:name/tree`, ({ params }) =>
        params.name === 'payments-dev'
          ? HttpResponse.json({ name: 'payments-dev' })
          : HttpResponse.json({}, { status: 404 }),
      ),
    );
    await renderPage({
      managementCluster: 'east',
      namespace: 'team-payments',
      location: 'westeurope',
      kubernetesVersion: 'v1.33.2',
      owner: 'group:default/team-payments',
    });
    const name = await screen.findByRole('textbox', { name: /Name/ });
    await userEvent.type(name, 'a'.repeat(33));
    await review();
    // The form's error list names the field an error belongs to: the name, not the region.
    expect(
      await screen.findByText(
        /^'Name' "a{33}" makes AKS's node resource group .* 81 characters/,
      ),
    ).toBeInTheDocument();
    await userEvent.clear(name);
    await userEvent.type(name, 'payments-dev');
    await review();
    expect(
      (
        await screen.findAllByText(
          /A cluster "payments-dev" already exists in namespace team-payments on east/,
        )
      ).length,
    ).toBeGreaterThan(0);
    expect(screen.queryByRole('button', { name: 'Create' })).toBeNull();
  });

  it("draws the Where and Cluster pages with the capz plugin's fields only: no MUI control beside Backstage UI's", async () => {
    const registered = await registeredFields();
    for (const title of ['Where', 'Cluster'])
      for (const [key, property] of Object.entries<any>(page(title).properties))
        expect(`${key}: ${registered.has(property['ui:field'])}`).toBe(
          `${key}: true`,
        );
    await renderPage({});
    expect(
      screen.getByRole('checkbox', { name: 'Entra ID only' }),
    ).toBeChecked();
    expect(
      screen.getByRole('group', { name: 'Entra admin groups' }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('group', { name: 'Azure tags' }),
    ).toBeInTheDocument();
    expect(muiControls(document.querySelector('form')!)).toEqual([]);
  });

  it('says under an admin group, in words, that its id is not a GUID, and sends the owner, the tags and the groups as the template reads them', async () => {
    const created: Array<Record<string, unknown>> = [];
    await renderPage(
      { location: 'westeurope', kubernetesVersion: 'v1.33.2' },
      values => created.push(values),
    );
    await userEvent.type(
      await screen.findByRole('textbox', { name: /Name/ }),
      'payments-prod',
    );
    await userEvent.click(screen.getByRole('button', { name: /Owner/ }));
    await userEvent.click(
      await screen.findByRole('option', { name: 'payments' }),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Add tag' }));
    await userEvent.type(
      screen.getByRole('textbox', { name: 'Tag 1 name' }),
      'team',
    );
    await userEvent.type(
      screen.getByRole('textbox', { name: 'Tag 1 value' }),
      'payments',
    );
    await userEvent.click(
      screen.getByRole('button', { name: 'Add admin group' }),
    );
    const group = screen.getByRole('textbox', { name: 'Admin group 1' });
    await userEvent.type(group, 'not-a-guid');
    await review();
    await waitFor(() =>
      expect(group).toHaveAccessibleDescription(
        `Admin group 1: "not-a-guid" is not a GUID (the group's object ID in Entra, such as 00000000-0000-0000-0000-000000000000)`,
      ),
    );
    expect(group).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText(/must match pattern/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Create' })).toBeNull();

    await userEvent.clear(group);
    await userEvent.type(group, '0f6b8a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b');
    await review();
    await userEvent.click(
      await screen.findByRole('button', { name: 'Create' }),
    );
    await waitFor(() => expect(created).toHaveLength(1));
    expect(created[0]).toEqual({
      name: 'payments-prod',
      location: 'westeurope',
      kubernetesVersion: 'v1.33.2',
      owner: 'group:default/payments',
      entraOnly: true,
      adminGroupObjectIDs: ['0f6b8a3c-1d2e-4f50-8a9b-0c1d2e3f4a5b'],
      tags: { team: 'payments' },
    });
  });

  it("names a bad admin group in the form's error list in the user's words, not by the schema's path", async () => {
    await renderPage(clusterValues);
    await addAdminGroup('not-a-guid');
    await review();
    expect(
      await screen.findByText(
        /^'Entra admin groups' Admin group 1: "not-a-guid" is not a GUID/,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Admin Group Object I Ds/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Create' })).toBeNull();
  });

  it('clears the error under an admin group as soon as its id is a GUID, or its row is removed, before the next Review', async () => {
    await renderPage(clusterValues);
    await addAdminGroup('not-a-guid');
    await addAdminGroup(GUID);
    await review();
    const row = (n: number) =>
      screen.getByRole('textbox', { name: `Admin group ${n}` });
    const frame = fieldFrameOf(
      screen.getByRole('group', { name: 'Entra admin groups' }),
    );
    await waitFor(() => expect(row(1)).toHaveAttribute('aria-invalid', 'true'));
    // Still not a GUID: still said.
    await userEvent.type(row(1), '-2');
    expect(row(1)).toHaveAttribute('aria-invalid', 'true');
    // Removed: its error goes with it, and the id after it (a GUID) is not blamed for it.
    await userEvent.click(
      screen.getByRole('button', { name: 'Remove admin group 1' }),
    );
    expect(row(1)).toHaveValue(GUID);
    expect(row(1)).not.toHaveAttribute('aria-invalid');
    expect(within(frame).queryByText(/is not a/)).toBeNull();

    await addAdminGroup(OTHER_GUID.slice(0, 8));
    await review();
    await waitFor(() => expect(row(2)).toHaveAttribute('aria-invalid', 'true'));
    // Fixed: said no more, neither under the id nor under the field.
    await userEvent.type(row(2), OTHER_GUID.slice(8));
    expect(row(2)).toHaveValue(OTHER_GUID);
    expect(row(2)).not.toHaveAttribute('aria-invalid');
    expect(within(frame).queryByText(/is not a/)).toBeNull();
  });
});

const checkPage = () =>
  template.spec.parameters.find((p: any) => p.title === 'Check');

async function renderCheck(initialState: Record<string, unknown>) {
  await renderInTestApp(
    <Stepper
      manifest={{
        title: 'New AKS cluster',
        steps: [{ title: 'Check', schema: checkPage() }],
      }}
      extensions={[
        {
          name: 'CapzCreateCheck',
          component: CreateCheckField as any,
          validation: validateCreateCheck as any,
        },
      ]}
      initialState={initialState as any}
      onCreate={async () => {}}
    />,
    { apis },
  );
}

describe("the New AKS cluster form's last page: the create dry run", () => {
  it('lists the objects the management cluster accepts, sends what the create step sends, and Review shows the verdict', async () => {
    const bodies: any[] = [];
    server.use(
      http.post(`${BASE}/clusters`, async ({ request }) => {
        const body = (await request.json()) as any;
        bodies.push(body);
        return HttpResponse.json({
          dryRun: true,
          managementCluster: 'east',
          namespace: 'team-payments',
          name: 'payments-new',
          path: '/capz/clusters/east/team-payments/payments-new',
          objects: [
            ['Cluster', 'payments-new'],
            ['AzureASOManagedCluster', 'payments-new'],
            ['AzureASOManagedControlPlane', 'payments-new'],
            ['MachinePool', 'payments-new-system'],
            ['AzureASOManagedMachinePool', 'payments-new-system'],
          ].map(([kind, name]) => ({
            apiVersion: 'x/v1',
            kind,
            name,
            namespace: 'team-payments',
          })),
        });
      }),
    );
    await renderCheck(chosen);
    expect(
      await screen.findByText(
        'east accepts the cluster: 5 objects would be created',
      ),
    ).toBeInTheDocument();
    expect(screen.getAllByRole('listitem').map(li => li.textContent)).toContain(
      'AzureASOManagedControlPlane payments-new',
    );
    // The create step's request, as a dry run: the template's parameters through unchanged, nothing else.
    const { delivery: _delivery, ...create } = chosen;
    expect(bodies[0]).toEqual({ ...create, dryRun: true });
    await review();
    expect(
      await screen.findByText(
        /^5 objects accepted by east \(dry run, nothing written\): Cluster payments-new, AzureASOManagedCluster payments-new/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create' })).toBeEnabled();
    // Asked again for Review: the verdict is the management cluster's at that moment.
    expect(bodies).toHaveLength(2);
  });

  it('says why the management cluster refuses, and keeps the user there', async () => {
    server.use(
      http.post(`${BASE}/clusters`, () =>
        HttpResponse.json(
          {
            error: {
              name: 'ConflictError',
              message:
                'ManagedCluster payments-new exists in namespace team-payments (created outside this cluster)',
            },
            response: { statusCode: 409 },
          },
          { status: 409 },
        ),
      ),
    );
    await renderCheck(chosen);
    expect(
      await screen.findByText(
        /^The management cluster refuses this cluster: ManagedCluster payments-new exists/,
      ),
    ).toBeInTheDocument();
    await review();
    expect(
      (
        await screen.findAllByText(
          /The management cluster refuses this cluster: ManagedCluster payments-new exists/,
        )
      ).length,
    ).toBeGreaterThan(1);
    expect(screen.queryByRole('button', { name: 'Create' })).toBeNull();
  });

  it('lets a Git proposal go on when the user may not create on the management cluster, and not an apply', async () => {
    server.use(
      http.post(`${BASE}/clusters`, () =>
        HttpResponse.json(
          {
            error: { name: 'NotAllowedError', message: 'Unauthorized' },
            response: { statusCode: 403 },
          },
          { status: 403 },
        ),
      ),
    );
    await renderCheck({ ...chosen, delivery: 'git' });
    expect(
      await screen.findByText(/The proposal is checked when it is applied/),
    ).toBeInTheDocument();
    await review();
    expect(
      await screen.findByRole('button', { name: 'Create' }),
    ).toBeInTheDocument();
  });

  it('refuses an apply the user may not make', async () => {
    server.use(
      http.post(`${BASE}/clusters`, () =>
        HttpResponse.json(
          {
            error: { name: 'NotAllowedError', message: 'Unauthorized' },
            response: { statusCode: 403 },
          },
          { status: 403 },
        ),
      ),
    );
    await renderCheck(chosen);
    expect(
      (await screen.findAllByText(/You may not create clusters there/)).length,
    ).toBeGreaterThan(0);
    await review();
    expect(screen.queryByRole('button', { name: 'Create' })).toBeNull();
  });
});
