import { parseAllDocuments } from 'yaml';
import type { ObjectChange } from '../day2/api';
import type { AksAsoClusterParams } from '../manifests/aksAsoCluster';
import { clusterProposal } from '../manifests/clusterProposal';
import { kustomizeBuild } from './kustomizeBuild';
import {
  locateManifest,
  parseFieldPath,
  planManifestEdit,
} from './manifestEdit';
import { unifiedDiff } from './unifiedDiff';

const params: AksAsoClusterParams = {
  name: 'team-a-dev',
  namespace: 'team-a',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  owner: 'group:default/team-a',
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

/** The repository as the template's proposal leaves it once merged: clusters/<namespace>/<name>/{cluster,kustomization}.yaml. */
function templateRepo(): Record<string, string> {
  const p = clusterProposal({ params, managementCluster: 'prod-weu' });
  return {
    'README.md': '# clusters\n',
    ...Object.fromEntries(p.files.map(f => [f.path, f.content])),
  };
}
const CLUSTER_FILE = 'clusters/team-a/team-a-dev/cluster.yaml';
const KUSTOMIZATION_FILE = 'clusters/team-a/team-a-dev/kustomization.yaml';

const MP = 'cluster.x-k8s.io/v1beta2';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta1';
const update = (
  apiVersion: string,
  kind: string,
  name: string,
  fields: ObjectChange['fields'],
  namespace = 'team-a',
): ObjectChange => ({
  apiVersion,
  kind,
  namespace,
  name,
  operation: 'update',
  fields,
});
const scalePool0 = update(MP, 'MachinePool', 'team-a-dev-pool0', [
  { path: 'spec.replicas', before: 2, after: 3 },
]);

/** The documents of a file as objects. */
const objects = (text: string | null) =>
  parseAllDocuments(text ?? '').map(d => d.toJS() as any);

describe('kustomizeBuild', () => {
  it('without a kustomization file at spec.path, takes every YAML file below it, and a directory with its own kustomization as one resource', () => {
    const files = {
      ...templateRepo(),
      // Not a resource of the listed directory: its kustomization.yaml does not list it.
      'clusters/team-a/team-a-dev/notes.yaml':
        'kind: ConfigMap\nmetadata:\n  name: notes\n',
      'clusters/shared/configmap.yml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: flux-system\n',
      'clusters/shared/readme.txt': 'kind: ConfigMap\nmetadata:\n  name: txt\n',
    };
    const build = kustomizeBuild(files, { path: './clusters' });
    expect(build.problems).toEqual([]);
    expect(
      build.resources.map(r => `${r.file}#${r.document} ${r.kind}/${r.name}`),
    ).toEqual([
      'clusters/shared/configmap.yml#0 ConfigMap/shared',
      `${CLUSTER_FILE}#0 Cluster/team-a-dev`,
      `${CLUSTER_FILE}#1 AzureASOManagedControlPlane/team-a-dev`,
      `${CLUSTER_FILE}#2 AzureASOManagedCluster/team-a-dev`,
      `${CLUSTER_FILE}#3 MachinePool/team-a-dev-pool0`,
      `${CLUSTER_FILE}#4 AzureASOManagedMachinePool/team-a-dev-pool0`,
      `${CLUSTER_FILE}#5 MachinePool/team-a-dev-pool1`,
      `${CLUSTER_FILE}#6 AzureASOManagedMachinePool/team-a-dev-pool1`,
    ]);
  });

  it('with a kustomization file, only the resources it lists (files and directories, recursively), and says what it cannot read', () => {
    const files = {
      'apps/kustomization.yaml':
        'resources:\n  - ../clusters/team-a/team-a-dev\n  - extra.yaml\n  - missing.yaml\n  - https://github.com/example/base?ref=v1\n',
      'apps/extra.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n',
      'apps/unlisted.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unlisted\n',
      ...templateRepo(),
    };
    const build = kustomizeBuild(files, { path: 'apps' });
    expect(build.resources.map(r => r.name)).toEqual([
      'team-a-dev',
      'team-a-dev',
      'team-a-dev',
      'team-a-dev-pool0',
      'team-a-dev-pool0',
      'team-a-dev-pool1',
      'team-a-dev-pool1',
      'extra',
    ]);
    expect(build.problems).toEqual([
      'apps/kustomization.yaml lists missing.yaml, which does not exist',
      'apps/kustomization.yaml lists the remote resource https://github.com/example/base?ref=v1, not read',
    ]);
  });
});

describe('locateManifest', () => {
  it("finds the MachinePool's document in the template's cluster file, by API group (another version of it matches too)", () => {
    const at = locateManifest(
      templateRepo(),
      { path: './clusters' },
      {
        apiVersion: 'cluster.x-k8s.io/v1beta1',
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'team-a-dev-pool1',
      },
    );
    expect(at).toMatchObject({ found: true, file: CLUSTER_FILE, document: 5 });
    const other = locateManifest(
      templateRepo(),
      { path: './clusters' },
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'team-a-dev-pool1',
      },
    );
    expect(other).toEqual({
      found: false,
      reason:
        'no document under ./clusters is MachinePool team-a/team-a-dev-pool1',
    });
  });

  it("takes the namespace from the kustomization's namespace field, and the Kustomization's targetNamespace over it", () => {
    const files = {
      'team-b/kustomization.yaml':
        'namespace: team-b\nresources:\n  - pool.yaml\n',
      'team-b/pool.yaml': `apiVersion: ${MP}\nkind: MachinePool\nmetadata:\n  name: p\n  namespace: elsewhere\nspec:\n  replicas: 1\n`,
    };
    const ref = (namespace: string) => ({
      apiVersion: MP,
      kind: 'MachinePool',
      namespace,
      name: 'p',
    });
    expect(locateManifest(files, { path: 'team-b' }, ref('team-b')).found).toBe(
      true,
    );
    expect(
      locateManifest(files, { path: 'team-b' }, ref('elsewhere')).found,
    ).toBe(false);
    expect(
      locateManifest(
        files,
        { path: 'team-b', targetNamespace: 'team-c' },
        ref('team-c'),
      ).found,
    ).toBe(true);
    expect(
      locateManifest(
        files,
        { path: 'team-b', targetNamespace: 'team-c' },
        ref('team-b'),
      ).found,
    ).toBe(false);
  });

  it('adds the name prefix and suffix of the kustomizations on the way, inner first', () => {
    const files = {
      'root/kustomization.yaml': 'namePrefix: outer-\nresources:\n  - base\n',
      'root/base/kustomization.yaml':
        'namePrefix: inner-\nnameSuffix: -x\nresources:\n  - pool.yaml\n',
      'root/base/pool.yaml': `apiVersion: ${MP}\nkind: MachinePool\nmetadata:\n  name: p\n  namespace: ns\n`,
    };
    expect(
      locateManifest(
        files,
        { path: 'root' },
        {
          apiVersion: MP,
          kind: 'MachinePool',
          namespace: 'ns',
          name: 'outer-inner-p-x',
        },
      ),
    ).toMatchObject({ found: true, file: 'root/base/pool.yaml' });
  });

  it('refuses a duplicate, as kustomize does', () => {
    const doc = `apiVersion: ${MP}\nkind: MachinePool\nmetadata:\n  name: p\n  namespace: ns\n`;
    const at = locateManifest(
      { 'a.yaml': doc, 'b/c.yaml': doc },
      {},
      {
        apiVersion: MP,
        kind: 'MachinePool',
        namespace: 'ns',
        name: 'p',
      },
    );
    expect(at).toEqual({
      found: false,
      reason:
        'MachinePool ns/p is written more than once under ./ (a.yaml, b/c.yaml); kustomize refuses a duplicate',
    });
  });
});

describe('planManifestEdit', () => {
  it("scales a pool of the template's layout: one line of cluster.yaml changes, every other byte stays", () => {
    const files = templateRepo();
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: [scalePool0],
    });
    expect(r.byHand).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.edited).toEqual([
      {
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'team-a-dev-pool0',
        file: CLUSTER_FILE,
      },
    ]);
    expect(r.files).toHaveLength(1);
    const [f] = r.files;
    expect(f.path).toBe(CLUSTER_FILE);
    expect(f.before).toBe(files[CLUSTER_FILE]);
    const at = files[CLUSTER_FILE].indexOf('  replicas: 2\n');
    expect(f.after).toBe(
      `${files[CLUSTER_FILE].slice(0, at)}  replicas: 3\n${files[
        CLUSTER_FILE
      ].slice(at + '  replicas: 2\n'.length)}`,
    );
    expect(objects(f.after)[3].spec.replicas).toBe(3);
    expect(objects(f.after)[5].spec.replicas).toBe(0);
    const lines = f.diff.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `--- a/${CLUSTER_FILE}`,
      `+++ b/${CLUSTER_FILE}`,
    ]);
    expect(lines.filter(l => /^[-+][^-+]/.test(l))).toEqual([
      '-  replicas: 2',
      '+  replicas: 3',
    ]);
  });

  it('keeps comments, quotes and the other documents when a field is changed in place, added or removed', () => {
    const text = [
      '# Pools of team-a-dev, reviewed by the platform team.',
      `apiVersion: ${MP}`,
      'kind: MachinePool',
      'metadata:',
      '  name: team-a-dev-pool0',
      '  namespace: team-a',
      'spec:',
      '  replicas: 2 # two nodes for HA',
      '  template:',
      '    spec:',
      '      # the version AKS runs',
      '      version: "v1.33.2"',
      '---',
      '# the cluster itself',
      `apiVersion: ${MP}`,
      'kind: Cluster',
      'metadata:',
      '  name: team-a-dev # the name in Azure too',
      '  namespace: team-a',
      'spec:',
      '  controlPlaneRef: {kind: AzureASOManagedControlPlane, name: team-a-dev}',
      '',
    ].join('\n');
    const files = { 'c/pools.yaml': text };
    const r = planManifestEdit({
      files,
      spec: { path: 'c' },
      changes: [
        update(MP, 'MachinePool', 'team-a-dev-pool0', [
          { path: 'spec.replicas', before: 2, after: 4 },
          {
            path: 'spec.template.spec.version',
            before: 'v1.33.2',
            after: 'v1.34.1',
          },
        ]),
        update(MP, 'Cluster', 'team-a-dev', [
          { path: 'spec.paused', after: true },
        ]),
      ],
    });
    expect(r.byHand).toEqual([]);
    const after = r.files[0].after!;
    // In place: the comment after the value and the double quotes stay.
    expect(after).toContain('  replicas: 4 # two nodes for HA\n');
    expect(after).toContain(
      '      # the version AKS runs\n      version: "v1.34.1"\n',
    );
    expect(
      after.startsWith(
        '# Pools of team-a-dev, reviewed by the platform team.\n',
      ),
    ).toBe(true);
    // Added: the Cluster's document is written again with its comments.
    expect(after).toContain('# the cluster itself');
    expect(after).toContain('name: team-a-dev # the name in Azure too');
    expect(objects(after)[1].spec).toEqual({
      controlPlaneRef: {
        kind: 'AzureASOManagedControlPlane',
        name: 'team-a-dev',
      },
      paused: true,
    });
    // The first document is untouched but for its two values.
    const firstBefore = text.slice(0, text.indexOf('---'));
    const firstAfter = after.slice(0, after.indexOf('---'));
    expect(firstAfter).toBe(
      firstBefore
        .replace('replicas: 2', 'replicas: 4')
        .replace('v1.33.2', 'v1.34.1'),
    );

    // And removed (resume): the field goes, its siblings stay.
    const resumed = planManifestEdit({
      files: { 'c/pools.yaml': after },
      spec: { path: 'c' },
      changes: [
        update(MP, 'Cluster', 'team-a-dev', [
          { path: 'spec.paused', before: true },
        ]),
      ],
    });
    expect(objects(resumed.files[0].after)[1].spec).toEqual({
      controlPlaneRef: {
        kind: 'AzureASOManagedControlPlane',
        name: 'team-a-dev',
      },
    });
    expect(resumed.files[0].after).toContain('# the cluster itself');
  });

  it("changes a value in place in a file written in another style than the yaml package's (4-space indent, unindented lists, blank lines, flow maps)", () => {
    const text = [
      '---',
      `apiVersion:   ${MP}`,
      'kind: MachinePool',
      'metadata:',
      '    name: p',
      '    namespace: ns',
      '    labels: {team: a,   tier: "1"}',
      '',
      'spec:',
      '    replicas:    2',
      '    template:',
      '        spec:',
      '            bootstrap: {dataSecretName: ""}',
      '    taints:',
      '    - key: a',
      '      value: b',
      '',
    ].join('\n');
    const r = planManifestEdit({
      files: { 'p.yaml': text },
      spec: {},
      changes: [
        update(
          MP,
          'MachinePool',
          'p',
          [{ path: 'spec.replicas', before: 2, after: 5 }],
          'ns',
        ),
      ],
    });
    expect(r.files[0].after).toBe(
      text.replace('replicas:    2', 'replicas:    5'),
    );
  });

  it('writes an autoscale change into the embedded agent pool (list items by index)', () => {
    const p = 'spec.resources[0].spec';
    const r = planManifestEdit({
      files: templateRepo(),
      spec: { path: './clusters' },
      changes: [
        update(INFRA, 'AzureASOManagedMachinePool', 'team-a-dev-pool1', [
          { path: `${p}.enableAutoScaling`, before: true, after: true },
          { path: `${p}.minCount`, before: 0, after: 1 },
          { path: `${p}.maxCount`, before: 5, after: 7 },
        ]),
      ],
    });
    expect(r.byHand).toEqual([]);
    const pool = objects(r.files[0].after)[6].spec.resources[0].spec;
    expect([pool.enableAutoScaling, pool.minCount, pool.maxCount]).toEqual([
      true,
      1,
      7,
    ]);
    expect(
      r.files[0].diff.split('\n').filter(l => /^[-+][^-+]/.test(l)),
    ).toEqual([
      '-        minCount: 0',
      '-        maxCount: 5',
      '+        minCount: 1',
      '+        maxCount: 7',
    ]);
  });

  it('removes the documents of a removed pool from the multi-document file', () => {
    const files = templateRepo();
    const del = (apiVersion: string, kind: string): ObjectChange => ({
      apiVersion,
      kind,
      namespace: 'team-a',
      name: 'team-a-dev-pool1',
      operation: 'delete',
      fields: [],
    });
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: [
        del(MP, 'MachinePool'),
        del(INFRA, 'AzureASOManagedMachinePool'),
      ],
    });
    expect(r.byHand).toEqual([]);
    expect(
      objects(r.files[0].after).map(o => `${o.kind}/${o.metadata.name}`),
    ).toEqual([
      'Cluster/team-a-dev',
      'AzureASOManagedControlPlane/team-a-dev',
      'AzureASOManagedCluster/team-a-dev',
      'MachinePool/team-a-dev-pool0',
      'AzureASOManagedMachinePool/team-a-dev-pool0',
    ]);
    expect(files[CLUSTER_FILE].startsWith(r.files[0].after!)).toBe(true);
  });

  it("answers by hand, with why and the change, for an object a kustomization's patch changes; a patch of another object does not count", () => {
    const files = templateRepo();
    const withPatches = (patches: string) => ({
      ...files,
      [KUSTOMIZATION_FILE]: `${files[KUSTOMIZATION_FILE]}${patches}`,
    });
    const patched = withPatches(
      'patches:\n  - target:\n      kind: MachinePool\n      name: team-a-dev-pool.*\n    patch: |-\n      - op: replace\n        path: /spec/replicas\n        value: 4\n',
    );
    const r = planManifestEdit({
      files: patched,
      spec: { path: './clusters' },
      changes: [scalePool0],
    });
    expect(r.files).toEqual([]);
    expect(r.byHand).toEqual([
      {
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'team-a-dev-pool0',
        reason: `${CLUSTER_FILE} holds MachinePool team-a/team-a-dev-pool0, but kustomize changes it on the way: patches[0] targets it (${KUSTOMIZATION_FILE})`,
        message: `MachinePool team-a/team-a-dev-pool0 is not written literally in the repository: ${CLUSTER_FILE} holds MachinePool team-a/team-a-dev-pool0, but kustomize changes it on the way: patches[0] targets it (${KUSTOMIZATION_FILE}); make this change by hand: in MachinePool team-a/team-a-dev-pool0, set spec.replicas to 3 (was 2)`,
      },
    ]);

    // A strategic-merge patch file naming the pool.
    const sm = {
      ...withPatches('patchesStrategicMerge:\n  - replicas.yaml\n'),
      'clusters/team-a/team-a-dev/replicas.yaml':
        'kind: MachinePool\nmetadata:\n  name: team-a-dev-pool0\nspec:\n  replicas: 4\n',
    };
    expect(
      planManifestEdit({
        files: sm,
        spec: { path: './clusters' },
        changes: [scalePool0],
      }).byHand[0].reason,
    ).toContain('patchesStrategicMerge[0] patches it');

    // Patches of other objects leave the pool literal.
    const other = withPatches(
      'patches:\n  - target:\n      kind: AzureASOManagedControlPlane\n    patch: |-\n      - op: add\n        path: /metadata/labels\n        value: {a: b}\n  - patch: |-\n      kind: MachinePool\n      metadata:\n        name: team-a-dev-pool1\n      spec:\n        replicas: 1\n',
    );
    const ok = planManifestEdit({
      files: other,
      spec: { path: './clusters' },
      changes: [scalePool0],
    });
    expect(ok.byHand).toEqual([]);
    expect(ok.files.map(f => f.path)).toEqual([CLUSTER_FILE]);
  });

  it("answers by hand for the Flux Kustomization's own patches and for a value Flux substitutes", () => {
    const files = templateRepo();
    const spec = {
      path: './clusters',
      patches: [{ target: { kind: 'MachinePool' }, patch: '[]' }],
    };
    expect(
      planManifestEdit({ files, spec, changes: [scalePool0] }).byHand[0].reason,
    ).toContain(
      "patches[0] targets it (the kustomization kustomize-controller generates for clusters with the Flux Kustomization's spec)",
    );

    const templated = {
      ...files,
      [CLUSTER_FILE]: files[CLUSTER_FILE].replace(
        '  replicas: 2\n',
        '  replicas: ${POOL0_REPLICAS}\n',
      ),
    };
    const r = planManifestEdit({
      files: templated,
      spec: {
        path: './clusters',
        postBuild: { substitute: { POOL0_REPLICAS: '2' } },
      },
      changes: [scalePool0],
    });
    expect(r.files).toEqual([]);
    expect(r.byHand[0].reason).toBe(
      `in ${CLUSTER_FILE}, spec.replicas is \${POOL0_REPLICAS} in Git, a value Flux substitutes (postBuild)`,
    );
  });

  it("says when Git holds another value than the cluster, leaves new objects by hand, and removes a sole document's file", () => {
    const files = templateRepo();
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: [
        update(MP, 'MachinePool', 'team-a-dev-pool0', [
          { path: 'spec.replicas', before: 5, after: 3 },
        ]),
        {
          apiVersion: MP,
          kind: 'MachinePool',
          namespace: 'team-a',
          name: 'team-a-dev-pool2',
          operation: 'create',
          fields: [{ path: 'spec.replicas', after: 1 }],
        },
      ],
    });
    expect(r.notes).toEqual([
      'MachinePool team-a/team-a-dev-pool0: spec.replicas is 2 in Git but 5 in the cluster; the change writes 3',
    ]);
    expect(r.byHand.map(b => b.message)).toEqual([
      'MachinePool team-a/team-a-dev-pool2 is not written literally in the repository: it is a new object, and which file should hold it is yours to choose; make this change by hand: add MachinePool team-a/team-a-dev-pool2 to the repository (set spec.replicas to 1)',
    ]);

    const sole = planManifestEdit({
      files: {
        'p.yaml': `apiVersion: ${MP}\nkind: MachinePool\nmetadata:\n  name: p\n  namespace: ns\n`,
      },
      spec: {},
      changes: [
        {
          apiVersion: MP,
          kind: 'MachinePool',
          namespace: 'ns',
          name: 'p',
          operation: 'delete',
          fields: [],
        },
      ],
    });
    expect(sole.byHand).toEqual([]);
    expect(sole.files.map(f => [f.path, f.after])).toEqual([['p.yaml', null]]);
    expect(sole.files[0].diff).toMatch(/^--- a\/p\.yaml\n\+\+\+ \/dev\/null\n/);
  });
});

describe('planManifestEdit: a cluster deleted through Git', () => {
  /** Every object of the template's cluster file, deleted. */
  const deleteAll = (files: Record<string, string>) =>
    objects(files[CLUSTER_FILE]).map(
      (o): ObjectChange => ({
        apiVersion: o.apiVersion,
        kind: o.kind,
        namespace: o.metadata.namespace,
        name: o.metadata.name,
        operation: 'delete',
        fields: [],
      }),
    );
  const afterOf = (r: {
    files: Array<{ path: string; after: string | null }>;
  }) => Object.fromEntries(r.files.map(f => [f.path, f.after]));

  it("removes the cluster's directory as a whole when nothing else is in it (Flux's generated kustomization above it)", () => {
    const files = {
      ...templateRepo(),
      'clusters/team-b/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: team-b\n',
    };
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: deleteAll(files),
    });
    expect(r.byHand).toEqual([]);
    expect(r.edited).toHaveLength(7);
    expect(afterOf(r)).toEqual({
      [CLUSTER_FILE]: null,
      [KUSTOMIZATION_FILE]: null,
    });
    expect(r.files.every(f => f.diff.includes('+++ /dev/null'))).toBe(true);
  });

  it("keeps the last cluster's kustomization, listing nothing, so that the Kustomization's path still exists", () => {
    const files = templateRepo();
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: deleteAll(files),
    });
    expect(r.byHand).toEqual([]);
    expect(afterOf(r)).toEqual({
      [CLUSTER_FILE]: null,
      [KUSTOMIZATION_FILE]: expect.stringMatching(/^resources: \[\]$/m),
    });
    expect(r.notes).toContain(
      `${KUSTOMIZATION_FILE} stays, listing nothing: it is all that is left under clusters/, the path Kustomization's spec.path names`,
    );
  });

  it('removes its entry from the kustomization above (comments and the other entries kept), and the catalog entity beside it', () => {
    const p = clusterProposal({
      params,
      managementCluster: 'prod-weu',
      includeCatalogEntity: true,
    });
    const parent = 'clusters/kustomization.yaml';
    const files: Record<string, string> = {
      ...Object.fromEntries(p.files.map(f => [f.path, f.content])),
      [parent]:
        'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  # team A\n  - team-a/team-a-dev\n  - team-b/other\n',
      'clusters/team-b/other/kustomization.yaml': 'resources:\n  - cm.yaml\n',
      'clusters/team-b/other/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: team-b\n',
    };
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: deleteAll(files),
    });
    expect(r.byHand).toEqual([]);
    expect(afterOf(r)).toEqual({
      [CLUSTER_FILE]: null,
      [KUSTOMIZATION_FILE]: null,
      'clusters/team-a/team-a-dev/catalog-info.yaml': null,
      [parent]:
        'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  # team A\n  - team-b/other\n',
    });
    expect(r.notes).toContain(
      'clusters/team-a/team-a-dev/catalog-info.yaml, the catalog entity beside the manifests, is removed with clusters/team-a/team-a-dev/',
    );
    const after = { ...files };
    for (const f of r.files)
      if (f.after === null) delete after[f.path];
      else after[f.path] = f.after;
    expect(kustomizeBuild(after, { path: './clusters' })).toMatchObject({
      problems: [],
      resources: [{ kind: 'ConfigMap', name: 'x' }],
    });
  });

  it("keeps a directory that holds other files, its kustomization listing nothing; never removes the Kustomization's own path", () => {
    const files = {
      ...templateRepo(),
      'clusters/team-a/team-a-dev/README.md': '# team-a-dev\n',
    };
    const r = planManifestEdit({
      files,
      spec: { path: './clusters' },
      changes: deleteAll(files),
    });
    expect(afterOf(r)).toEqual({
      [CLUSTER_FILE]: null,
      [KUSTOMIZATION_FILE]: expect.stringMatching(/^resources: \[\]\n/m),
    });

    const atRoot = planManifestEdit({
      files: templateRepo(),
      spec: { path: './clusters/team-a/team-a-dev' },
      changes: deleteAll(files),
    });
    expect(Object.keys(afterOf(atRoot))).toEqual([
      CLUSTER_FILE,
      KUSTOMIZATION_FILE,
    ]);
    expect(afterOf(atRoot)[KUSTOMIZATION_FILE]).not.toBeNull();
  });
});

describe('parseFieldPath and unifiedDiff', () => {
  it('parses indexes, named items and quoted keys; refuses what does not parse', () => {
    expect(
      parseFieldPath(
        'metadata.annotations["kustomize.toolkit.fluxcd.io/reconcile"]',
      ),
    ).toEqual([
      'metadata',
      'annotations',
      'kustomize.toolkit.fluxcd.io/reconcile',
    ]);
    for (const bad of ['', '.spec', 'spec..x', 'spec["x]'])
      expect(() => parseFieldPath(bad)).toThrow('does not parse');
    expect(parseFieldPath('spec.resources[0].spec.minCount')).toEqual([
      'spec',
      'resources',
      0,
      'spec',
      'minCount',
    ]);
    expect(parseFieldPath('spec.pools[pool0].count')).toEqual([
      'spec',
      'pools',
      { name: 'pool0' },
      'count',
    ]);
  });

  it('writes hunks with three lines of context, as diff -u', () => {
    const a = `${[
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      '11',
      '12',
    ].join('\n')}\n`;
    const b = `${[
      '1',
      '2',
      'three',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      '11',
      'twelve',
      '13',
    ].join('\n')}\n`;
    expect(unifiedDiff('f.txt', a, b)).toBe(
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,6 +1,6 @@',
        ' 1',
        ' 2',
        '-3',
        '+three',
        ' 4',
        ' 5',
        ' 6',
        '@@ -9,4 +9,5 @@',
        ' 9',
        ' 10',
        ' 11',
        '-12',
        '+twelve',
        '+13',
        '',
      ].join('\n'),
    );
    expect(unifiedDiff('f.txt', a, a)).toBe('');
    expect(unifiedDiff('n.txt', undefined, 'x\n')).toBe(
      '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+x\n',
    );
  });
});
