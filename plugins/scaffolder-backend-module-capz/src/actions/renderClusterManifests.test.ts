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
  });

  it('fails with every validation message and outputs nothing', async () => {
    const input = parse(examples[0].example).steps[0].input;
    const ctx = createMockActionContext({
      input: { ...input, name: 'Bad', pools: [] },
    });
    await expect(action.handler(ctx)).rejects.toThrow(
      /Cannot render cluster Bad: name "Bad" must be a lowercase DNS label.*at least one pool must have mode System/,
    );
    expect(ctx.output).not.toHaveBeenCalled();
  });
});
