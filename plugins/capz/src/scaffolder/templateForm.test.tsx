/**
 * The New AKS cluster template's Cluster page in the scaffolder's own form (Backstage's Stepper: rjsf with ajv-errors,
 * then the fields' validations), as a user meets it: what a missing or malformed value says, and where.
 */
import { discoveryApiRef, fetchApiRef } from '@backstage/frontend-plugin-api';
import { renderInTestApp } from '@backstage/frontend-test-utils';
import { Stepper } from '@backstage/plugin-scaffolder-react/alpha';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BASE } from '../__testUtils__/fixtures';
import { capzApiRef } from '../api/CapzApi';
import { client, setupCapzServer } from '../__testUtils__/harness';
import { ClusterNameField } from './ClusterNameField';
import { CreateCheckField } from './CreateCheckField';
import { validateClusterName, validateCreateCheck } from './validation';

const server = setupCapzServer();
const apis: any[] = [
  [discoveryApiRef, { getBaseUrl: async () => BASE }],
  [fetchApiRef, { fetch: (i: any, init: any) => fetch(i, init) }],
  [capzApiRef, client],
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
/** The Cluster page as the scaffolder backend serves it. */
const clusterPage = () =>
  template.spec.parameters.find((p: any) => p.title === 'Cluster');

/** The page's pickers other than the name (tested in fields.test.tsx): a plain input each, its value as typed. */
const plain = (name: string) => ({
  name,
  component: (props: any) => (
    <input
      aria-label={props.schema.title}
      value={props.formData ?? ''}
      onChange={e => props.onChange(e.target.value || undefined)}
    />
  ),
});

async function renderPage(initialState: Record<string, string>) {
  await renderInTestApp(
    <Stepper
      manifest={{
        title: 'New AKS cluster',
        steps: [{ title: 'Cluster', schema: clusterPage() }],
      }}
      extensions={[
        plain('CapzRegionPicker'),
        plain('CapzKubernetesVersionPicker'),
        plain('OwnerPicker'),
        {
          name: 'CapzClusterNameField',
          component: ClusterNameField as any,
          validation: validateClusterName as any,
        },
      ]}
      initialState={initialState}
      onCreate={async () => {}}
    />,
    { apis },
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
