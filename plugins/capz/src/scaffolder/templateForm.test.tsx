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
import { setupCapzServer } from '../__testUtils__/harness';
import { ClusterNameField } from './ClusterNameField';
import { validateClusterName } from './validation';

const server = setupCapzServer();
const apis: any[] = [
  [discoveryApiRef, { getBaseUrl: async () => BASE }],
  [fetchApiRef, { fetch: (i: any, init: any) => fetch(i, init) }],
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
          /a cluster "payments-dev" already exists in namespace team-payments on east/,
        )
      ).length,
    ).toBeGreaterThan(0);
    expect(screen.queryByRole('button', { name: 'Create' })).toBeNull();
  });
});
