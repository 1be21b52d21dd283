import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
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
    expect(props).not.toHaveProperty('managementCluster');
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
