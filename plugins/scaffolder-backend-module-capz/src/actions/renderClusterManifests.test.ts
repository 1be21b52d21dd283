import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { mockServices } from '@backstage/backend-test-utils';
import { ScmIntegrations } from '@backstage/integration';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { createRenderClusterManifestsAction } from './renderClusterManifests';
import { examples } from './renderClusterManifests.examples';

describe('capz:cluster:render', () => {
  const action = createRenderClusterManifestsAction();

  it('renders the example into seven objects', async () => {
    const input = parse(examples[0].example).steps[0].input;
    const ctx = createMockActionContext({ input });
    await action.handler(ctx);
    const [[name, yaml]] = (ctx.output as jest.Mock).mock.calls.filter(
      ([n]) => n === 'manifests',
    );
    expect(name).toBe('manifests');
    const docs = parseAllDocuments(yaml).map(d => d.toJS());
    expect(docs.map(d => d.kind)).toEqual([
      'Cluster',
      'AzureASOManagedControlPlane',
      'AzureASOManagedCluster',
      'MachinePool',
      'AzureASOManagedMachinePool',
      'MachinePool',
      'AzureASOManagedMachinePool',
    ]);
    expect(ctx.output).toHaveBeenCalledWith('objectCount', 7);
    // The example's Entra-only control plane, owner, tags and autoscaled pool.
    expect(docs[0].metadata.annotations).toEqual({
      'capz.io/owner': 'group:default/team-a',
    });
    const mc = docs[1].spec.resources[0].spec;
    expect(mc).toMatchObject({
      aadProfile: { managed: true, enableAzureRBAC: true },
      disableLocalAccounts: true,
      operatorSpec: {
        secrets: { userCredentials: { name: 'team-a-dev-user-kubeconfig' } },
      },
      tags: { environment: 'dev', 'cost-center': 'team-a' },
    });
    expect(mc).not.toHaveProperty('kubernetesVersion');
    const apps = docs[6].spec.resources[0].spec;
    expect(apps).toMatchObject({
      azureName: 'pool1',
      enableAutoScaling: true,
      minCount: 0,
      maxCount: 5,
    });
    expect(apps).not.toHaveProperty('count');
  });

  it('takes kubernetesVersion 1.33.2 for v1.33.2, the version CAPI accepts', async () => {
    const input = {
      ...parse(examples[0].example).steps[0].input,
      kubernetesVersion: '1.33.2',
    };
    const ctx = createMockActionContext({ input });
    await action.handler(ctx);
    const [[, yaml]] = (ctx.output as jest.Mock).mock.calls.filter(
      ([n]) => n === 'manifests',
    );
    const docs = parseAllDocuments(yaml).map(d => d.toJS());
    const versions = docs
      .filter(d => d.kind === 'MachinePool')
      .map(d => d.spec.template.spec.version);
    expect(versions).toEqual(['v1.33.2', 'v1.33.2']);
    expect(docs[1].spec.version).toBe('v1.33.2');
  });

  it('describes every parameter of the form in its input schema', () => {
    const props = (action.schema?.input as any)?.properties ?? {};
    for (const key of [
      'owner',
      'tags',
      'entraOnly',
      'adminGroupObjectIDs',
      'pools',
    ])
      expect(props).toHaveProperty(key);
    // Rendering touches no cluster: the management cluster only names a proposal's files.
    expect(action.schema?.input as any).not.toMatchObject({
      required: expect.arrayContaining(['managementCluster']),
    });
    const pool = props.pools.items.properties;
    expect(Object.keys(pool)).toEqual(
      expect.arrayContaining(['osType', 'autoscaling']),
    );
  });

  it('fails with every validation message and outputs nothing', async () => {
    const input = parse(examples[0].example).steps[0].input;
    const ctx = createMockActionContext({
      input: { ...input, name: 'Bad', pools: [] },
    });
    await expect(action.handler(ctx)).rejects.toThrow(
      /Cannot render cluster Bad: name: "Bad" must be lowercase letters.*pools: at least one node pool is required/,
    );
    expect(ctx.output).not.toHaveBeenCalled();
  });
});

describe('capz:cluster:render with writeFiles (the pull-request delivery)', () => {
  const example = parse(examples[0].example).steps[0].input;
  const integrations = ScmIntegrations.fromConfig(
    mockServices.rootConfig({
      data: {
        integrations: {
          github: [{ host: 'github.com', token: 'x' }],
          gitlab: [
            {
              host: 'gitlab.example.com',
              apiBaseUrl: 'https://gitlab.example.com/api/v4',
              token: 'y',
            },
          ],
          bitbucketServer: [
            {
              host: 'bitbucket.example.com',
              apiBaseUrl: 'https://bitbucket.example.com/rest/api/1.0',
              token: 'z',
            },
          ],
          azure: [{ host: 'dev.azure.com' }],
          gitea: [{ host: 'gitea.example.com', username: 'u', password: 'p' }],
        },
      },
    }),
  );
  const withIntegrations = createRenderClusterManifestsAction({
    integrations,
  });
  const outputsOf = (ctx: { output: unknown }) =>
    Object.fromEntries((ctx.output as jest.Mock).mock.calls);

  it('writes the files into the workspace under path, and outputs the pull request and the forge', async () => {
    const ctx = createMockActionContext({
      input: {
        ...example,
        managementCluster: 'prod-weu',
        writeFiles: true,
        path: 'fleet/team-a-dev/',
        includeCatalogEntity: true,
        repoUrl: 'github.com?owner=platform&repo=clusters',
        pullRequest: true,
      },
    });
    await withIntegrations.handler(ctx);
    const out = outputsOf(ctx);
    expect(out).toMatchObject({
      path: 'fleet/team-a-dev',
      files: [
        'fleet/team-a-dev/cluster.yaml',
        'fleet/team-a-dev/kustomization.yaml',
        'fleet/team-a-dev/catalog-info.yaml',
      ],
      branchName: 'capz/new-cluster-team-a-team-a-dev',
      title: 'Add AKS cluster team-a/team-a-dev (management cluster prod-weu)',
      forge: 'github',
      pullRequestAction: 'publish:github:pull-request',
    });
    expect(out.description).toContain(
      '- resource group team-a-dev in westeurope',
    );
    expect(readdirSync(ctx.workspacePath, { recursive: true }).sort()).toEqual([
      'fleet',
      'fleet/team-a-dev',
      'fleet/team-a-dev/catalog-info.yaml',
      'fleet/team-a-dev/cluster.yaml',
      'fleet/team-a-dev/kustomization.yaml',
    ]);
    expect(
      readFileSync(
        join(ctx.workspacePath, 'fleet/team-a-dev/cluster.yaml'),
        'utf8',
      ),
    ).toBe(out.manifests);
  });

  it.each([
    [
      'gitlab.example.com?owner=platform&repo=clusters',
      'gitlab',
      'publish:gitlab:merge-request',
    ],
    [
      'bitbucket.example.com?project=PLAT&repo=clusters',
      'bitbucketServer',
      'publish:bitbucketServer:pull-request',
    ],
    // Gitea: capz:cluster:propose opens it through Gitea's API (Backstage's Gitea module has no such action).
    [
      'gitea.example.com?owner=platform&repo=clusters',
      'gitea',
      'capz:cluster:propose',
    ],
    [
      'dev.azure.com?organization=o&project=p&repo=clusters',
      'azure',
      undefined,
    ],
    ['http://127.0.0.1:8080/clusters.git', 'git', undefined],
  ])('names the forge of %s: %s', async (repoUrl, forge, action) => {
    const ctx = createMockActionContext({ input: { ...example, repoUrl } });
    await withIntegrations.handler(ctx);
    expect(outputsOf(ctx).forge).toBe(forge);
    expect(outputsOf(ctx).pullRequestAction).toBe(action);
  });

  it('refuses a pull request on a forge without a pull-request action, and a path out of the workspace, writing nothing', async () => {
    for (const [input, message] of [
      [
        {
          repoUrl: 'dev.azure.com?organization=o&project=p&repo=r',
          pullRequest: true,
        },
        'Backstage has no pull-request action for azure (the host dev.azure.com)',
      ],
      [
        { repoUrl: 'http://127.0.0.1:8080/clusters.git', pullRequest: true },
        '127.0.0.1:8080 has no integrations entry',
      ],
      [{ path: '../outside' }, 'path "../outside" must be a directory inside'],
      [{ managementCluster: undefined }, 'writeFiles needs managementCluster'],
    ] as const) {
      const ctx = createMockActionContext({
        input: {
          ...example,
          managementCluster: 'prod-weu',
          writeFiles: true,
          ...input,
        },
      });
      await expect(withIntegrations.handler(ctx)).rejects.toThrow(message);
      // (the mock context makes the workspace directory on the first write)
      expect(
        existsSync(ctx.workspacePath) ? readdirSync(ctx.workspacePath) : [],
      ).toEqual([]);
      expect(ctx.output).not.toHaveBeenCalled();
    }
  });
});
