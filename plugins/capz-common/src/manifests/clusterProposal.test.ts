import { parse } from 'yaml';
import {
  generateAksAsoClusterManifests,
  type AksAsoClusterParams,
} from './aksAsoCluster';
import {
  PULL_REQUEST_ACTIONS,
  clusterEntityName,
  clusterProposal,
  manifestsYaml,
  normalizeProposalDir,
} from './clusterProposal';

const params: AksAsoClusterParams = {
  name: 'team-a-dev',
  namespace: 'team-a',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  owner: 'group:default/team-a',
  entraOnly: true,
  tags: { environment: 'dev' },
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
    {
      name: 'pool1',
      mode: 'User',
      vmSize: 'Standard_D4s_v3',
      replicas: 0,
      autoscaling: { minCount: 0, maxCount: 5 },
    },
  ],
};

describe('clusterProposal', () => {
  it('has the cluster file and a kustomization under clusters/<namespace>/<name>, and the branch of the cluster', () => {
    const p = clusterProposal({ params, managementCluster: 'prod-weu' });
    expect(p.dir).toBe('clusters/team-a/team-a-dev');
    expect(p.branch).toBe('capz/new-cluster-team-a-team-a-dev');
    expect(p.files.map(f => f.path)).toEqual([
      'clusters/team-a/team-a-dev/cluster.yaml',
      'clusters/team-a/team-a-dev/kustomization.yaml',
    ]);
    expect(p.files[0].content).toBe(
      manifestsYaml(generateAksAsoClusterManifests(params)),
    );
    expect(p.files[0].content).toBe(p.manifests);
    expect(p.files[1].content).toBe(
      `# The AKS cluster team-a/team-a-dev for management cluster prod-weu, proposed from Backstage.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - cluster.yaml
`,
    );
  });

  it("adds the cluster's catalog entity when asked, outside the kustomization", () => {
    const p = clusterProposal({
      params,
      managementCluster: 'prod-weu',
      path: './fleet/team-a-dev/',
      includeCatalogEntity: true,
    });
    expect(p.files.map(f => f.path)).toEqual([
      'fleet/team-a-dev/cluster.yaml',
      'fleet/team-a-dev/kustomization.yaml',
      'fleet/team-a-dev/catalog-info.yaml',
    ]);
    expect(parse(p.files[1].content).resources).toEqual(['cluster.yaml']);
    expect(parse(p.files[2].content)).toEqual({
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Resource',
      metadata: {
        name: 'prod-weu-team-a-team-a-dev',
        title: 'team-a-dev',
        description:
          'AKS cluster team-a/team-a-dev on management cluster prod-weu',
        annotations: { 'capz.io/cluster': 'prod-weu/team-a/team-a-dev' },
        labels: { 'capz.io/management-cluster': 'prod-weu' },
      },
      spec: { type: 'kubernetes-cluster', owner: 'group:default/team-a' },
    });
  });

  it('describes what merging creates in Azure and how to check it, and the commit message says the same', () => {
    const p = clusterProposal({
      params,
      managementCluster: 'prod-weu',
      requester: 'user:default/ada',
      clusterPageUrl:
        'http://localhost:3000/capz/clusters/prod-weu/team-a/team-a-dev',
    });
    expect(p.title).toBe(
      'Add AKS cluster team-a/team-a-dev (management cluster prod-weu)',
    );
    const lines = p.description.split('\n');
    for (const line of [
      'Region: westeurope',
      'Kubernetes: v1.33.2',
      'Node pools: pool0 (System, Standard_D2s_v3 x 2), pool1 (User, Standard_D4s_v3 x 0, autoscaling 0-5)',
      'Entra ID only: yes',
      'Azure tags: environment=dev',
      '- resource group team-a-dev in westeurope (tags environment=dev)',
      "- managed cluster team-a-dev (AKS, Kubernetes v1.33.2, DNS prefix team-a-dev, Entra ID with Azure RBAC, local accounts disabled) and AKS's node resource group MC_team-a-dev_team-a-dev_westeurope",
      '- agent pool pool1 (User, Standard_D4s_v3 x 0, autoscaling 0-5) (MachinePool team-a-dev-pool1)',
      "- the cluster's page in Backstage: http://localhost:3000/capz/clusters/prod-weu/team-a/team-a-dev",
      'Proposed from Backstage by user:default/ada; merging it lets the GitOps controller create the cluster.',
    ])
      expect(lines).toContain(line);
    for (const start of [
      '- kubectl get cluster,azureasomanagedcontrolplane,azureasomanagedcluster -n team-a team-a-dev: ',
      '- kubectl get machinepool,azureasomanagedmachinepool -n team-a team-a-dev-pool0 team-a-dev-pool1: ',
    ])
      expect(lines.some(l => l.startsWith(start))).toBe(true);
    expect(p.commitMessage).toBe(`${p.title}\n\n${p.description}`);
  });

  it('refuses invalid parameters and a directory outside the repository', () => {
    expect(() =>
      clusterProposal({
        params: { ...params, name: 'Bad' },
        managementCluster: 'prod-weu',
      }),
    ).toThrow(/name: "Bad" must be/);
    expect(() =>
      clusterProposal({ params, managementCluster: 'x', path: '../up' }),
    ).toThrow('path "../up" must be a directory inside the repository');
  });
});

describe('normalizeProposalDir', () => {
  it.each([
    ['clusters/a/b/', 'clusters/a/b'],
    ['./clusters//a', 'clusters/a'],
    ['fleet\\a', 'fleet/a'],
  ])('takes %j for %j', (path, dir) =>
    expect(normalizeProposalDir(path)).toBe(dir),
  );
  it.each(['', '.', '/etc/x', '../x', 'a/../../x', 'a/..', '.git/hooks'])(
    'refuses %j',
    path => expect(() => normalizeProposalDir(path)).toThrow(/must be/),
  );
});

it('names the entity as the capz entity provider does, and the pull-request action of each forge', () => {
  expect(
    clusterEntityName({
      managementCluster: 'prod/weu',
      namespace: 'team-a',
      name: 'x'.repeat(60),
    }),
  ).toBe(`prod-weu-team-a-${'x'.repeat(47)}`);
  expect(PULL_REQUEST_ACTIONS).toEqual({
    github: 'publish:github:pull-request',
    gitlab: 'publish:gitlab:merge-request',
    bitbucketServer: 'publish:bitbucketServer:pull-request',
    gitea: 'capz:cluster:propose',
  });
});
