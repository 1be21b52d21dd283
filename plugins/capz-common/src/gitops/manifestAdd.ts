/**
 * Where the manifests of a cluster new to a repository go: beside a cluster the same Flux Kustomization already applies
 * from it, in the same layout (docs/flux-facts.md#git-add-beside). Used when a job adopts an AKS cluster into a namespace
 * whose clusters Flux applies from Git. Pure: no I/O.
 */
import { parse, stringify } from 'yaml';
import type { KubeObject } from '../manifests/aksAsoCluster';
import {
  apiGroupOf,
  baseOf,
  dirOf,
  kustomizationFileOf,
  kustomizeBuild,
  normalizeKustomizationPath,
  type FluxKustomizationBuildSpec,
  type RepoFiles,
} from './kustomizeBuild';
import {
  locateManifest,
  type GitOpsObjectRef,
  type ManifestByHand,
  type ManifestEditResult,
  type ManifestFileEdit,
} from './manifestEdit';
import { unifiedDiff } from './unifiedDiff';

const describe = (o: { kind: string; namespace?: string; name: string }) =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** The entry of `resources` that names `entry` (`x`, `./x`, `x/`), as written. */
function resourceEntry(text: string, entry: string): string | undefined {
  let k: unknown;
  try {
    k = parse(text);
  } catch {
    return undefined;
  }
  const resources = (k as { resources?: unknown } | null)?.resources;
  if (!Array.isArray(resources)) return undefined;
  const norm = (s: string) => s.replace(/^\.\//, '').replace(/\/$/, '');
  return resources.find(
    (r): r is string => typeof r === 'string' && norm(r) === entry,
  );
}

/**
 * `text` with `added` listed in `resources` right after the line of `beside`, in that line's own style (indent, quotes,
 * `./`); undefined when `beside` is not written on a line of its own (a flow sequence).
 */
function addResourceLine(
  text: string,
  beside: string,
  besideEntry: string,
  added: string,
): string | undefined {
  const lines = text.split('\n');
  const escaped = besideEntry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const at = lines.findIndex(l =>
    new RegExp(`^\\s*-\\s+(['"]?)${escaped}\\1\\s*(#.*)?$`).test(l),
  );
  if (at < 0) return undefined;
  const line = lines[at].replace(/\s*#.*$/, '');
  lines.splice(at + 1, 0, line.replace(beside, added));
  return lines.join('\n');
}

/**
 * The files that add `documents` (one new cluster, named `name`) to the repository beside `beside`, a Cluster the
 * Kustomization applies as written:
 * - in its own folder (`<dir>/<beside>/<file>`, the template's `clusters/<namespace>/<name>/cluster.yaml`): a new
 *   folder `<dir>/<name>/` with the same file name and, when the sibling's folder has one, a kustomization listing it;
 * - otherwise a new file `<name>.yaml` in the sibling's folder.
 * Where a kustomization lists the sibling, the new folder or file is listed after it, in its style. The repository is
 * built again with the change: every document must then be applied as written, or the change is `byHand`.
 * @public
 */
export function planManifestAdd(input: {
  files: RepoFiles;
  spec: FluxKustomizationBuildSpec;
  beside: GitOpsObjectRef;
  name: string;
  documents: readonly KubeObject[];
}): ManifestEditResult {
  const { files, spec, beside, name, documents } = input;
  if (!documents.length)
    throw new Error('planManifestAdd: no documents to add');
  const added: GitOpsObjectRef[] = documents.map(o => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace ?? 'default',
    name: o.metadata.name,
  }));
  const byHandAll = (reason: string): ManifestEditResult => ({
    files: [],
    edited: [],
    byHand: added.map(r => ({
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      reason,
      message: `${describe(
        r,
      )} cannot be added to the repository by the job: ${reason}; add it by hand where the Kustomization applies it as written`,
    })),
    notes: [],
  });
  const at = locateManifest(files, spec, beside);
  if (!at.found)
    return byHandAll(
      `where the new manifests belong follows ${describe(beside)}, and ${
        at.reason
      }`,
    );
  const dir = dirOf(at.file);
  const ownFolder = baseOf(dir) === beside.name && dir !== '';
  const edits: Array<{ path: string; before?: string; after: string }> = [];
  const text = documents.map(d => stringify(d)).join('---\n');
  let listedIn: string | undefined;
  let entry: { beside: string; added: string };
  if (ownFolder) {
    const parent = dirOf(dir);
    const newDir = join(parent, name);
    edits.push({ path: join(newDir, baseOf(at.file)), after: text });
    const own = kustomizationFileOf(files, dir);
    if (own)
      edits.push({
        path: join(newDir, baseOf(own)),
        after: stringify({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: [baseOf(at.file)],
        }),
      });
    listedIn = kustomizationFileOf(files, parent);
    entry = { beside: beside.name, added: name };
  } else {
    edits.push({ path: join(dir, `${name}.yaml`), after: text });
    listedIn = kustomizationFileOf(files, dir);
    entry = { beside: baseOf(at.file), added: `${name}.yaml` };
  }
  const taken = edits.find(e => e.path in files);
  if (taken)
    return byHandAll(
      `${taken.path} exists already in the repository (another cluster of that name?)`,
    );
  if (listedIn) {
    const written = resourceEntry(files[listedIn], entry.beside);
    if (written) {
      const after = addResourceLine(
        files[listedIn],
        entry.beside,
        written,
        entry.added,
      );
      if (after === undefined)
        return byHandAll(
          `${listedIn} lists ${written} in a form the job does not edit (a flow sequence)`,
        );
      edits.push({ path: listedIn, before: files[listedIn], after });
    }
    // Not listed there: the sibling is built through another entry; the check below says whether the new one is.
  }

  const after: Record<string, string> = { ...files };
  for (const e of edits) after[e.path] = e.after;
  const build = kustomizeBuild(after, spec);
  const byHand: ManifestByHand[] = [];
  const edited: ManifestEditResult['edited'] = [];
  for (const r of added) {
    const where = locateManifest(after, spec, r);
    if (where.found && where.file === edits[0].path) {
      edited.push({ ...r, file: where.file });
      continue;
    }
    const reason = where.found
      ? `after the change it is built from ${where.file}`
      : `after the change, ${where.reason}`;
    byHand.push({
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      reason,
      message: `${describe(
        r,
      )} cannot be added to the repository by the job: ${reason}; add it by hand where the Kustomization ${
        normalizeKustomizationPath(spec.path) || '(the root)'
      } applies it as written`,
    });
  }
  const files_: ManifestFileEdit[] = edits.map(e => ({
    path: e.path,
    before: e.before ?? '',
    after: e.after,
    diff: unifiedDiff(e.path, e.before, e.after),
  }));
  const notes = build.problems.length
    ? [`Not read by the job: ${build.problems.join('; ')}`]
    : [];
  // The documents' API groups, for the reader: the new folder holds CAPI and CAPZ objects only.
  const groups = [...new Set(added.map(r => apiGroupOf(r.apiVersion)))];
  notes.push(
    `${edits[0].path} holds ${added.length} object${
      added.length === 1 ? '' : 's'
    } (${groups.join(', ')}), beside ${describe(beside)} in ${at.file}.`,
  );
  return { files: files_, edited, byHand, notes };
}
