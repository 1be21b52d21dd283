import { parseAllDocuments, stringify } from 'yaml';
import {
  generateAksAsoClusterManifests,
  type KubeObject,
} from '../manifests/aksAsoCluster';
import { kustomizeBuild, type RepoFiles } from './kustomizeBuild';
import { planManifestReplace, type GitOpsObjectRef } from './manifestEdit';

/** The migrated cluster's new objects: Cluster, AzureASOManagedControlPlane, AzureASOManagedCluster, one pool. */
const NEW: KubeObject[] = generateAksAsoClusterManifests({
  name: 'legacy-1',
  namespace: 'team-legacy-aso',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 2 },
  ],
});

const CAPI = 'cluster.x-k8s.io/v1beta1';
const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta1';
const ref = (
  apiVersion: string,
  kind: string,
  name = 'legacy-1',
): GitOpsObjectRef => ({ apiVersion, kind, namespace: 'team-legacy', name });
const OLD_CLUSTER = ref(CAPI, 'Cluster');
const OLD = [
  OLD_CLUSTER,
  ref(INFRA, 'AzureManagedCluster'),
  ref(INFRA, 'AzureManagedControlPlane'),
  ref(CAPI, 'MachinePool', 'legacy-1-pool0'),
  ref(INFRA, 'AzureManagedMachinePool', 'legacy-1-pool0'),
];

const HEADER = '# Clusters of team A, reviewed by the platform team.\n';
const CLUSTER_DOCS = [
  `---
# legacy-1, the team's first AKS cluster
apiVersion: ${CAPI}
kind: Cluster
metadata:
  name: legacy-1
  namespace: team-legacy
spec:
  controlPlaneRef: {apiVersion: ${INFRA}, kind: AzureManagedControlPlane, name: legacy-1}
  infrastructureRef: {apiVersion: ${INFRA}, kind: AzureManagedCluster, name: legacy-1}
`,
  `---
apiVersion: ${INFRA}
kind: AzureManagedCluster
metadata:
  name: legacy-1
  namespace: team-legacy
`,
  `---
# the control plane: AKS in West Europe
apiVersion: ${INFRA}
kind: AzureManagedControlPlane
metadata:
  name: legacy-1
  namespace: team-legacy
spec:
  location: westeurope
  version: v1.33.2
`,
];
const POOL_DOCS = [
  `---
apiVersion: ${CAPI}
kind: MachinePool
metadata:
  name: legacy-1-pool0
  namespace: team-legacy
spec:
  clusterName: legacy-1
  replicas: 2 # two nodes for HA
`,
  `---
apiVersion: ${INFRA}
kind: AzureManagedMachinePool
metadata:
  name: legacy-1-pool0
  namespace: team-legacy
spec:
  mode: System
  sku: Standard_D2s_v3
`,
];
/** Not the cluster's: stays where it is, with its comment. */
const SETTINGS_DOC = `---
# the team's settings, not part of the cluster
apiVersion: v1
kind: ConfigMap
metadata:
  name: team-settings
  namespace: team-legacy
data:
  owner: team-a
`;

const DIR = 'clusters/team-legacy/legacy-1';
const SPEC = { path: './clusters' };
/** The yaml package's writing of objects, one `---` document each: as planManifestReplace writes them. */
const yamlOf = (objects: KubeObject[]) =>
  objects.map(o => stringify(o)).join('---\n');
const NEW_TEXT = yamlOf(NEW);

const applied = (
  files: RepoFiles,
  r: ReturnType<typeof planManifestReplace>,
) => {
  const after: Record<string, string> = { ...files };
  for (const f of r.files)
    if (f.after === null) delete after[f.path];
    else after[f.path] = f.after;
  return after;
};
const built = (files: RepoFiles) =>
  kustomizeBuild(files, SPEC).resources.map(
    x => `${x.kind} ${x.namespace}/${x.name} ${x.file}#${x.document}`,
  );

describe('planManifestReplace', () => {
  it("replaces the old cluster's documents of one file by the new cluster's five, in place of the old Cluster; the file's other comments and documents stay byte for byte", () => {
    const files = {
      [`${DIR}/cluster.yaml`]: `${HEADER}${CLUSTER_DOCS.join(
        '',
      )}${POOL_DOCS.join('')}${SETTINGS_DOC}`,
      [`${DIR}/kustomization.yaml`]:
        '# legacy-1\nresources:\n  - cluster.yaml\n',
    };
    const r = planManifestReplace({
      files,
      spec: SPEC,
      remove: OLD,
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(r.byHand).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.files.map(f => f.path)).toEqual([`${DIR}/cluster.yaml`]);
    const [f] = r.files;
    // The file's header stays, the Cluster's document (its comment with it) becomes the five new ones, the old
    // cluster's other documents go, and the ConfigMap stays as written.
    expect(f.after).toBe(`${HEADER}---\n${NEW_TEXT}${SETTINGS_DOC}`);
    expect(parseAllDocuments(f.after!).map(d => d.toJS())).toEqual([
      ...NEW,
      expect.objectContaining({ kind: 'ConfigMap' }),
    ]);
    expect(f.diff).toContain(
      `--- a/${DIR}/cluster.yaml\n+++ b/${DIR}/cluster.yaml\n`,
    );
    expect(f.diff).toContain('-  replicas: 2 # two nodes for HA\n');
    expect(f.diff).not.toMatch(/^[-+]# Clusters of team A/m);
    expect(f.diff).not.toMatch(/^[-+]# the team's settings/m);
    expect(built(applied(files, r))).toEqual([
      `Cluster team-legacy-aso/legacy-1 ${DIR}/cluster.yaml#0`,
      `AzureASOManagedControlPlane team-legacy-aso/legacy-1 ${DIR}/cluster.yaml#1`,
      `AzureASOManagedCluster team-legacy-aso/legacy-1 ${DIR}/cluster.yaml#2`,
      `MachinePool team-legacy-aso/legacy-1-pool0 ${DIR}/cluster.yaml#3`,
      `AzureASOManagedMachinePool team-legacy-aso/legacy-1-pool0 ${DIR}/cluster.yaml#4`,
      `ConfigMap team-legacy/team-settings ${DIR}/cluster.yaml#5`,
    ]);
    const file = `${DIR}/cluster.yaml`;
    expect(r.edited).toEqual([
      { kind: 'Cluster', namespace: 'team-legacy', name: 'legacy-1', file },
      {
        kind: 'AzureManagedCluster',
        namespace: 'team-legacy',
        name: 'legacy-1',
        file,
      },
      {
        kind: 'AzureManagedControlPlane',
        namespace: 'team-legacy',
        name: 'legacy-1',
        file,
      },
      {
        kind: 'MachinePool',
        namespace: 'team-legacy',
        name: 'legacy-1-pool0',
        file,
      },
      {
        kind: 'AzureManagedMachinePool',
        namespace: 'team-legacy',
        name: 'legacy-1-pool0',
        file,
      },
      ...NEW.map(o => ({
        kind: o.kind,
        namespace: 'team-legacy-aso',
        name: o.metadata.name,
        file,
      })),
    ]);

    // `replace` not listed in `remove`: the same change.
    const without = planManifestReplace({
      files,
      spec: SPEC,
      remove: OLD.slice(1),
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(without.files).toEqual(r.files);
    expect(without.edited).toEqual(r.edited);
  });

  it("keeps the replaced document's file and its kustomization entry when every other document goes; a first document without `---` is replaced from its first line", () => {
    const files = {
      [`${DIR}/cluster.yaml`]: `${CLUSTER_DOCS.join('').replace(
        /^---\n/,
        '',
      )}${POOL_DOCS.join('')}`,
      [`${DIR}/kustomization.yaml`]: 'resources:\n  - cluster.yaml\n',
      'clusters/team-b/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: team-b\n',
    };
    const r = planManifestReplace({
      files,
      spec: SPEC,
      remove: OLD,
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(r.byHand).toEqual([]);
    expect(r.files.map(f => [f.path, f.after])).toEqual([
      [`${DIR}/cluster.yaml`, NEW_TEXT],
    ]);
  });

  it("removes a file of old objects with its kustomization entry (its comment with it, the file's other comments and entries kept), and replaces in the other", () => {
    const files = {
      [`${DIR}/cluster.yaml`]: CLUSTER_DOCS.join(''),
      [`${DIR}/pools.yaml`]: POOL_DOCS.join(''),
      [`${DIR}/settings.yaml`]: SETTINGS_DOC,
      [`${DIR}/kustomization.yaml`]:
        '# legacy-1 and its settings\nresources:\n  - cluster.yaml\n  - pools.yaml # the pools\n  - settings.yaml\n',
    };
    const r = planManifestReplace({
      files,
      spec: SPEC,
      remove: OLD,
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(r.byHand).toEqual([]);
    expect(Object.fromEntries(r.files.map(f => [f.path, f.after]))).toEqual({
      [`${DIR}/cluster.yaml`]: `---\n${NEW_TEXT}`,
      [`${DIR}/pools.yaml`]: null,
      [`${DIR}/kustomization.yaml`]:
        '# legacy-1 and its settings\nresources:\n  - cluster.yaml\n  - settings.yaml\n',
    });
    expect(r.files.find(f => f.after === null)!.diff).toMatch(
      /^--- a\/clusters\/team-legacy\/legacy-1\/pools\.yaml\n\+\+\+ \/dev\/null\n/,
    );
    expect(r.edited.map(e => `${e.kind} ${e.file}`)).toEqual([
      `Cluster ${DIR}/cluster.yaml`,
      `AzureManagedCluster ${DIR}/cluster.yaml`,
      `AzureManagedControlPlane ${DIR}/cluster.yaml`,
      `MachinePool ${DIR}/pools.yaml`,
      `AzureManagedMachinePool ${DIR}/pools.yaml`,
      ...NEW.map(o => `${o.kind} ${DIR}/cluster.yaml`),
    ]);
    const after = applied(files, r);
    expect(kustomizeBuild(after, SPEC).problems).toEqual([]);
    expect(built(after)).toHaveLength(6);
  });

  it("answers by hand when a kustomization's namespace (or the Kustomization's targetNamespace) would move the new documents", () => {
    const files = {
      [`${DIR}/cluster.yaml`]: `${CLUSTER_DOCS.join('')}${POOL_DOCS.join('')}`,
      [`${DIR}/kustomization.yaml`]:
        'namespace: team-legacy\nresources:\n  - cluster.yaml\n',
    };
    const r = planManifestReplace({
      files,
      spec: SPEC,
      remove: OLD,
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(r.byHand.map(b => `${b.kind} ${b.namespace}/${b.name}`)).toEqual(
      NEW.map(o => `${o.kind} team-legacy-aso/${o.metadata.name}`),
    );
    expect(r.byHand[0].reason).toBe(
      `written in ${DIR}/cluster.yaml, it is built as Cluster team-legacy/legacy-1: a kustomization's namespace (or the Flux Kustomization's targetNamespace) on the way sets its namespace`,
    );
    expect(r.byHand[0].message).toBe(
      `Cluster team-legacy-aso/legacy-1 is not written literally in the repository: after the change, ${r.byHand[0].reason}; make this change by hand: write Cluster team-legacy-aso/legacy-1 where the Kustomization applies it as written, with its own namespace and name`,
    );

    // The Flux Kustomization's own targetNamespace, and a name prefix.
    const plain = {
      ...files,
      [`${DIR}/kustomization.yaml`]: 'resources:\n  - cluster.yaml\n',
    };
    const target = planManifestReplace({
      files: plain,
      spec: { ...SPEC, targetNamespace: 'team-legacy' },
      remove: OLD,
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(target.byHand).toHaveLength(5);
    const prefixed = planManifestReplace({
      files: {
        ...plain,
        [`${DIR}/kustomization.yaml`]:
          'namePrefix: x-\nresources:\n  - cluster.yaml\n',
      },
      spec: SPEC,
      remove: OLD.map(o => ({ ...o, name: `x-${o.name}` })),
      replace: { ...OLD_CLUSTER, name: 'x-legacy-1' },
      documents: NEW,
    });
    expect(prefixed.byHand.map(b => b.reason)).toContain(
      `written in ${DIR}/cluster.yaml, it is built as Cluster team-legacy-aso/x-legacy-1: a namePrefix or nameSuffix on the way (a kustomization's or the Flux Kustomization's) renames it`,
    );
  });

  it('answers by hand for an old object the repository does not hold, for a replaced object it does not hold, and for a new object it already holds elsewhere', () => {
    const files = {
      [`${DIR}/cluster.yaml`]: `${CLUSTER_DOCS.join('')}${POOL_DOCS.join('')}`,
      [`${DIR}/kustomization.yaml`]: 'resources:\n  - cluster.yaml\n',
    };
    const pool1 = ref(INFRA, 'AzureManagedMachinePool', 'legacy-1-pool1');
    const r = planManifestReplace({
      files,
      spec: SPEC,
      remove: [...OLD, pool1],
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(r.byHand).toEqual([
      {
        kind: 'AzureManagedMachinePool',
        namespace: 'team-legacy',
        name: 'legacy-1-pool1',
        reason:
          'no document under ./clusters is AzureManagedMachinePool team-legacy/legacy-1-pool1',
        message:
          'AzureManagedMachinePool team-legacy/legacy-1-pool1 is not written literally in the repository: no document under ./clusters is AzureManagedMachinePool team-legacy/legacy-1-pool1; make this change by hand: remove AzureManagedMachinePool team-legacy/legacy-1-pool1 from the repository',
      },
    ]);
    // The rest is written.
    expect(r.files.map(f => f.path)).toEqual([`${DIR}/cluster.yaml`]);

    // The Cluster to replace is not there: the new documents have no place; the old ones found are still removed.
    const noCluster = planManifestReplace({
      files,
      spec: SPEC,
      remove: OLD,
      replace: ref(CAPI, 'Cluster', 'legacy-2'),
      documents: NEW,
    });
    expect(noCluster.byHand).toEqual([
      {
        kind: 'Cluster',
        namespace: 'team-legacy',
        name: 'legacy-2',
        reason: 'no document under ./clusters is Cluster team-legacy/legacy-2',
        message: `Cluster team-legacy/legacy-2 is not written literally in the repository: no document under ./clusters is Cluster team-legacy/legacy-2; make this change by hand: replace Cluster team-legacy/legacy-2 in the repository by ${NEW.map(
          o => `${o.kind} team-legacy-aso/${o.metadata.name}`,
        ).join(', ')}, in a file the Kustomization applies as written`,
      },
    ]);
    expect(noCluster.edited.some(e => e.namespace === 'team-legacy-aso')).toBe(
      false,
    );

    // A new object someone already wrote elsewhere: kustomize would refuse the duplicate.
    const twice = planManifestReplace({
      files: {
        ...files,
        'clusters/team-legacy-aso/cp.yaml': yamlOf([NEW[1]]),
      },
      spec: SPEC,
      remove: OLD,
      replace: OLD_CLUSTER,
      documents: NEW,
    });
    expect(twice.byHand.map(b => [b.kind, b.reason])).toEqual([
      [
        'AzureASOManagedControlPlane',
        `AzureASOManagedControlPlane team-legacy-aso/legacy-1 is written more than once under ./clusters (${DIR}/cluster.yaml, clusters/team-legacy-aso/cp.yaml); kustomize refuses a duplicate`,
      ],
    ]);
  });

  it('refuses to replace by nothing', () => {
    expect(() =>
      planManifestReplace({
        files: {},
        spec: SPEC,
        remove: [],
        replace: OLD_CLUSTER,
        documents: [],
      }),
    ).toThrow('no documents to write in place of Cluster team-legacy/legacy-1');
  });
});
