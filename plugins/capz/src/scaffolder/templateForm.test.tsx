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
import { screen, waitFor } from '@testing-library/react';
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
const clusterPage = () => page('Cluster');

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

async function renderPage(
  initialState: Record<string, unknown>,
  onCreate: (values: Record<string, unknown>) => void = () => {},
) {
  await renderInTestApp(
    <Stepper
      manifest={{
        title: 'New AKS cluster',
        steps: [{ title: 'Cluster', schema: clusterPage() }],
      }}
      extensions={[...(await registeredFields()).values()]}
      initialState={initialState as any}
      onCreate={async values => onCreate(values as any)}
    />,
    { apis },
  );
  // The owner picker has the catalog's groups (the pickers have loaded).
  await waitFor(() =>
    expect(screen.getByRole('button', { name: /Owner/ })).toBeEnabled(),
  );
}

const review = () =>
  userEvent.click(screen.getByRole('button', { name: 'Review' }));

describe('the New AKS cluster form', () => {
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

  it("says under an admin group the template's words for an id that is not a GUID, and sends the owner, the tags and the groups as the template reads them", async () => {
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
        'Admin group 1 is not an Entra object id (a GUID such as 00000000-0000-0000-0000-000000000000)',
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
});

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
