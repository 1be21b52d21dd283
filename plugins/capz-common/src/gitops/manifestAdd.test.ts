import { stringify } from 'yaml';
import {
  generateAksAsoClusterManifests,
  type KubeObject,
} from '../manifests/aksAsoCluster';
import { kustomizeBuild, type RepoFiles } from './kustomizeBuild';
import { planManifestAdd } from './manifestAdd';

const cluster = (name: string): KubeObject[] =>
  generateAksAsoClusterManifests({
    name,
    namespace: 'team-pay',
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: [
      { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
    ],
  });
const SIBLING = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Cluster',
  namespace: 'team-pay',
  name: 'pay-prod',
};
const docs = (objects: KubeObject[]) =>
  objects.map(o => stringify(o)).join('---\n');
const OWN_KUSTOMIZATION =
  'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cluster.yaml\n';
const ADOPTED = cluster('adopted');
/** The adopted cluster added beside pay-prod's. */
const addBeside = (
  files: RepoFiles,
  spec: { path: string; namePrefix?: string },
) =>
  planManifestAdd({
    files,
    spec,
    beside: SIBLING,
    name: 'adopted',
    documents: ADOPTED,
  });
/** Every adopted object, in the build of `files`, from `file`. */
const builtFrom = (files: RepoFiles, path: string, file: string) =>
  ADOPTED.every(o =>
    kustomizeBuild(files, { path }).resources.some(
      r => r.kind === o.kind && r.name === o.metadata.name && r.file === file,
    ),
  );
const apply = (files: RepoFiles, r: ReturnType<typeof planManifestAdd>) => {
  const after: Record<string, string> = { ...files };
  for (const f of r.files) after[f.path] = f.after!;
  return after;
};

describe('planManifestAdd: a new cluster beside one the Kustomization applies', () => {
  it("the template's layout under a generated kustomization: a folder of its own, nothing else touched", () => {
    const files: RepoFiles = {
      'clusters/team-pay/pay-prod/cluster.yaml': docs(cluster('pay-prod')),
      'clusters/team-pay/pay-prod/kustomization.yaml': OWN_KUSTOMIZATION,
    };
    const r = addBeside(files, { path: './clusters/team-pay' });
    expect(r.byHand).toEqual([]);
    expect(r.files.map(f => f.path)).toEqual([
      'clusters/team-pay/adopted/cluster.yaml',
      'clusters/team-pay/adopted/kustomization.yaml',
    ]);
    expect(r.files[0].diff).toMatch(
      /^--- \/dev\/null\n\+\+\+ b\/clusters\/team-pay\/adopted\/cluster.yaml/,
    );
    expect(r.edited).toHaveLength(ADOPTED.length);
    expect(
      builtFrom(
        apply(files, r),
        './clusters/team-pay',
        'clusters/team-pay/adopted/cluster.yaml',
      ),
    ).toBe(true);
  });

  it("lists the new folder after the sibling's in the parent kustomization, in its style", () => {
    const parent = `# the team's clusters
resources:
  - ./pay-prod # production
  - ./pay-dev
`;
    const files: RepoFiles = {
      'clusters/team-pay/kustomization.yaml': parent,
      'clusters/team-pay/pay-prod/cluster.yaml': docs(cluster('pay-prod')),
      'clusters/team-pay/pay-prod/kustomization.yaml': OWN_KUSTOMIZATION,
      'clusters/team-pay/pay-dev/cluster.yaml': docs(cluster('pay-dev')),
      'clusters/team-pay/pay-dev/kustomization.yaml': OWN_KUSTOMIZATION,
    };
    const r = addBeside(files, { path: './clusters/team-pay' });
    expect(r.byHand).toEqual([]);
    const listed = r.files.find(
      f => f.path === 'clusters/team-pay/kustomization.yaml',
    );
    expect(listed?.after).toBe(`# the team's clusters
resources:
  - ./pay-prod # production
  - ./adopted
  - ./pay-dev
`);
    expect(
      builtFrom(
        apply(files, r),
        './clusters/team-pay',
        'clusters/team-pay/adopted/cluster.yaml',
      ),
    ).toBe(true);
  });

  it('a flat folder: a file of its own, listed after the sibling file', () => {
    const files: RepoFiles = {
      'team-pay/kustomization.yaml': 'resources:\n- pay-prod.yaml\n',
      'team-pay/pay-prod.yaml': docs(cluster('pay-prod')),
    };
    const r = addBeside(files, { path: './team-pay' });
    expect(r.byHand).toEqual([]);
    expect(r.files.map(f => [f.path, f.after])).toEqual([
      ['team-pay/adopted.yaml', docs(ADOPTED)],
      [
        'team-pay/kustomization.yaml',
        'resources:\n- pay-prod.yaml\n- adopted.yaml\n',
      ],
    ]);
  });

  it('answers by hand, writing nothing, when the sibling is not in the files, the place is taken, or the list is a flow sequence', () => {
    const spec = { path: './clusters/team-pay' };
    const absent = addBeside({}, spec);
    expect(absent.files).toEqual([]);
    expect(absent.byHand).toHaveLength(ADOPTED.length);
    expect(absent.byHand[0].message).toMatch(
      /^Cluster team-pay\/adopted cannot be added to the repository by the job: where the new manifests belong follows Cluster team-pay\/pay-prod, and no document under \.\/clusters\/team-pay is Cluster team-pay\/pay-prod/,
    );

    const taken = addBeside(
      {
        'clusters/team-pay/pay-prod/cluster.yaml': docs(cluster('pay-prod')),
        'clusters/team-pay/adopted/cluster.yaml': '# kept by hand\n',
      },
      spec,
    );
    expect(taken.files).toEqual([]);
    expect(taken.byHand[0].reason).toBe(
      'clusters/team-pay/adopted/cluster.yaml exists already in the repository (another cluster of that name?)',
    );

    const flow = addBeside(
      {
        'clusters/team-pay/kustomization.yaml': 'resources: [pay-prod]\n',
        'clusters/team-pay/pay-prod/cluster.yaml': docs(cluster('pay-prod')),
        'clusters/team-pay/pay-prod/kustomization.yaml': OWN_KUSTOMIZATION,
      },
      spec,
    );
    expect(flow.files).toEqual([]);
    expect(flow.byHand[0].reason).toMatch(/a flow sequence/);
  });

  it('answers by hand when the new file would not be built as written (a namePrefix on the way)', () => {
    const files: RepoFiles = {
      'clusters/team-pay/pay-prod/cluster.yaml': docs(cluster('pay-prod')),
    };
    // The sibling's own name is prefixed too, so it cannot be found as written either: nothing is proposed.
    const r = addBeside(files, {
      path: './clusters/team-pay',
      namePrefix: 'x-',
    });
    expect(r.files).toEqual([]);
    expect(r.byHand.length).toBe(ADOPTED.length);
  });
});
