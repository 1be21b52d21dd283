/**
 * Which YAML documents of a repository a Flux Kustomization applies, and which of them kustomize changes on the way,
 * read as kustomize-controller builds `spec.path` (docs/flux-facts.md#flux-build-entry,
 * docs/flux-facts.md#flux-generated-kustomization, docs/flux-facts.md#kustomize-resources,
 * docs/flux-facts.md#kustomize-transformers). No kustomize here: only enough of its rules to tell whether an
 * object is written literally in one document of one file, so that a change to it can be made in that document.
 */
import { parseAllDocuments, parse } from 'yaml';
import { isObj } from '../objects/read';

/** Repository files by repository-relative path (`/`-separated, no leading `./`), as read at one revision. @public */
export type RepoFiles = Readonly<Record<string, string>>;

/**
 * The parts of a Flux Kustomization's `spec` that decide what its build holds and how kustomize changes it
 * (docs/flux-facts.md#flux-build-entry). `path` is relative to the repository root; default the root.
 * @public
 */
export interface FluxKustomizationBuildSpec {
  path?: string;
  targetNamespace?: string;
  namePrefix?: string;
  nameSuffix?: string;
  patches?: unknown[];
  patchesStrategicMerge?: unknown[];
  patchesJson6902?: unknown[];
  images?: unknown[];
  components?: string[];
  postBuild?: unknown;
}

/** One document of the build: where it is written, what it becomes, and why it is not applied as written. @public */
export interface BuiltResource {
  file: string;
  /** Index of the document in the file (0-based, as `parseAllDocuments` counts them). */
  document: number;
  group: string;
  kind: string;
  /** The name and namespace after kustomize's prefix, suffix and namespace transformers. */
  name: string;
  namespace?: string;
  /** The name as written in the file. */
  writtenName: string;
  /** What changes the document on its way to the cluster (a patch, a component...): empty when applied as written. */
  notLiteral: string[];
}

/** The build: its documents, and what could not be read (a remote base, a missing file). @public */
export interface KustomizeBuild {
  resources: BuiltResource[];
  problems: string[];
  /** Whether Flux substitutes `${var}` in the build (spec.postBuild). */
  substitutes: boolean;
}

/** The file names kustomize recognises, in its order (docs/flux-facts.md#flux-generated-kustomization). @public */
export const KUSTOMIZATION_FILE_NAMES = [
  'kustomization.yaml',
  'kustomization.yml',
  'Kustomization',
] as const;

/** The API group of an apiVersion: `cluster.x-k8s.io/v1beta2` → `cluster.x-k8s.io`, `v1` → the empty string (core). @public */
export const apiGroupOf = (apiVersion: string | undefined) =>
  apiVersion?.includes('/') ? apiVersion.split('/')[0] : '';

/** A repository-relative path, normalised; undefined when it leaves the repository. */
export function joinRepoPath(dir: string, rel: string): string | undefined {
  const parts = rel.startsWith('/') ? [] : dir.split('/').filter(Boolean);
  for (const s of rel.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (!parts.length) return undefined;
      parts.pop();
    } else parts.push(s);
  }
  return parts.join('/');
}

/** A repository path's folder (`''` at the root) and its last part. */
export const dirOf = (path: string) =>
  path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
export const baseOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

const inDir = (dir: string, path: string) =>
  dir === '' ? true : path.startsWith(`${dir}/`);
const isDir = (files: RepoFiles, dir: string) =>
  Object.keys(files).some(p => inDir(dir, p) && p !== dir);
/** The kustomization file of a folder, in kustomize's order of names; undefined when it has none. */
export const kustomizationFileOf = (files: RepoFiles, dir: string) =>
  KUSTOMIZATION_FILE_NAMES.map(n => (dir ? `${dir}/${n}` : n)).find(
    p => p in files,
  );
const isRemote = (r: string) =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(r) ||
  r.startsWith('git@') ||
  /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(r) ||
  r.includes('?ref=');

/** The documents of a file that name an object (apiVersion, kind, metadata.name). */
function documentsOf(
  file: string,
  text: string,
  problems: string[],
): BuiltResource[] {
  const out: BuiltResource[] = [];
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return out; // an empty stream
  docs.forEach((d, i) => {
    if (d.errors.length) {
      problems.push(`${file} does not parse: ${d.errors[0].message}`);
      return;
    }
    const o = d.toJS();
    if (!isObj(o) || typeof o.kind !== 'string') return;
    const meta = isObj(o.metadata) ? o.metadata : {};
    if (typeof meta.name !== 'string') return;
    out.push({
      file,
      document: i,
      group: apiGroupOf(typeof o.apiVersion === 'string' ? o.apiVersion : ''),
      kind: o.kind,
      name: meta.name,
      writtenName: meta.name,
      ...(typeof meta.namespace === 'string'
        ? { namespace: meta.namespace }
        : {}),
      notLiteral: [],
    });
  });
  return out;
}

/** A kustomize selector (`patches[].target`, `replacements[].targets[].select`): may it select `r`? */
function mayMatch(sel: unknown, r: BuiltResource): boolean {
  if (!isObj(sel)) return true;
  const re = (v: unknown, s: string) => {
    if (typeof v !== 'string' || v === '') return true;
    try {
      return new RegExp(`^(?:${v})$`).test(s);
    } catch {
      return true;
    }
  };
  // A label or annotation selector is not evaluated here: it may select it.
  return (
    re(sel.group, r.group) &&
    re(sel.kind, r.kind) &&
    re(sel.name, r.name) &&
    re(sel.namespace, r.namespace ?? '')
  );
}

/** The objects a strategic-merge patch (or a patch without target) names: its documents' kind and name. */
function namedBy(
  text: string,
): Array<{ kind?: string; name?: string; namespace?: string }> {
  try {
    return parseAllDocuments(text)
      .map(d => d.toJS())
      .filter(isObj)
      .map(o => ({
        kind: typeof o.kind === 'string' ? o.kind : undefined,
        name: isObj(o.metadata) ? (o.metadata.name as string) : undefined,
        namespace: isObj(o.metadata)
          ? (o.metadata.namespace as string | undefined)
          : undefined,
      }));
  } catch {
    return [{}];
  }
}

const names = (
  r: BuiltResource,
  n: { kind?: string; name?: string; namespace?: string },
) =>
  (!n.kind || n.kind === r.kind) &&
  (!n.name || n.name === r.name) &&
  (!n.namespace || !r.namespace || n.namespace === r.namespace);

type Kus = Record<string, unknown>;

/**
 * Marks what a kustomization's transformers change (they run after its resources are gathered, patches first, then
 * namespace, prefix and suffix: docs/flux-facts.md#kustomize-transformers), and renames and re-namespaces.
 */
function transform(
  kus: Kus,
  where: string,
  dir: string,
  files: RepoFiles,
  resources: BuiltResource[],
) {
  const list = (k: string) =>
    Array.isArray(kus[k]) ? (kus[k] as unknown[]) : [];
  const fileText = (p: string) => {
    const path = joinRepoPath(dir, p);
    return path !== undefined ? files[path] : undefined;
  };
  for (const r of resources) {
    const mark = (why: string) => r.notLiteral.push(`${why} (${where})`);
    list('patches').forEach((p, i) => {
      if (!isObj(p)) return;
      if (p.target !== undefined) {
        if (mayMatch(p.target, r)) mark(`patches[${i}] targets it`);
        return;
      }
      let text: string | undefined;
      if (typeof p.patch === 'string') text = p.patch;
      else if (typeof p.path === 'string') text = fileText(p.path);
      if (text === undefined || namedBy(text).some(n => names(r, n)))
        mark(`patches[${i}] patches it`);
    });
    list('patchesStrategicMerge').forEach((p, i) => {
      // A file of the repository, or the patch inline (a string of YAML, or an object).
      const text = typeof p === 'string' ? fileText(p) ?? p : undefined;
      const named = isObj(p)
        ? [
            {
              kind: p.kind as string | undefined,
              name: isObj(p.metadata) ? (p.metadata.name as string) : undefined,
            },
          ]
        : namedBy(text ?? '');
      if (named.some(n => names(r, n)))
        mark(`patchesStrategicMerge[${i}] patches it`);
    });
    list('patchesJson6902').forEach((p, i) => {
      if (isObj(p) && mayMatch(p.target, r))
        mark(`patchesJson6902[${i}] targets it`);
    });
    list('replacements').forEach((p, i) => {
      const targets =
        isObj(p) && Array.isArray(p.targets) ? p.targets : undefined;
      if (!targets || targets.some(t => !isObj(t) || mayMatch(t.select, r)))
        mark(`replacements[${i}] may replace fields of it`);
    });
    list('replicas').forEach((p, i) => {
      if (isObj(p) && (p.name === r.name || p.name === r.writtenName))
        mark(`replicas[${i}] sets its replicas`);
    });
    // Images only touch containers' image fields: only a document that has one is changed.
    if (
      (list('images').length || list('imageTags').length) &&
      /(^|\s)image:/m.test(files[r.file] ?? '')
    )
      mark('images may set its images');
    if (list('components').length)
      mark(`components (${list('components').join(', ')}) may patch it`);
    if (list('transformers').length) mark('transformers may change it');
    if (list('vars').length) mark('vars may substitute $(VAR) in it');
  }
  if (typeof kus.namespace === 'string' && kus.namespace)
    for (const r of resources) r.namespace = kus.namespace;
  const prefix = typeof kus.namePrefix === 'string' ? kus.namePrefix : '';
  const suffix = typeof kus.nameSuffix === 'string' ? kus.nameSuffix : '';
  if (prefix || suffix)
    for (const r of resources) r.name = `${prefix}${r.name}${suffix}`;
}

/** One kustomization directory, built: its listed resources (files, directories), then its transformers. */
function buildDir(
  files: RepoFiles,
  dir: string,
  problems: string[],
  seen: Set<string>,
  root?: FluxKustomizationBuildSpec,
): BuiltResource[] {
  if (seen.has(dir)) {
    problems.push(`${dir || '.'} is reached twice (a cycle)`);
    return [];
  }
  seen.add(dir);
  // The first of kustomize's file names that exists (docs/flux-facts.md#kustomize-resources).
  const kfile = kustomizationFileOf(files, dir);
  let kus: Kus;
  let resources: BuiltResource[] = [];
  let where: string;
  if (kfile) {
    where = kfile;
    try {
      const parsed = parse(files[kfile]);
      kus = isObj(parsed) ? { ...parsed } : {};
    } catch (e) {
      problems.push(`${kfile} does not parse: ${(e as Error).message}`);
      return [];
    }
    const listed = [
      ...(Array.isArray(kus.resources) ? kus.resources : []),
      ...(Array.isArray(kus.bases) ? kus.bases : []),
    ].filter((x): x is string => typeof x === 'string');
    for (const entry of listed) {
      if (isRemote(entry)) {
        problems.push(`${kfile} lists the remote resource ${entry}, not read`);
        continue;
      }
      const path = joinRepoPath(dir, entry);
      if (path === undefined) {
        problems.push(`${kfile} lists ${entry}, outside the repository`);
      } else if (path in files) {
        resources.push(...documentsOf(path, files[path], problems));
      } else if (isDir(files, path)) {
        if (!kustomizationFileOf(files, path))
          problems.push(
            `${kfile} lists the directory ${entry}, which has no kustomization file (kustomize refuses it)`,
          );
        else resources.push(...buildDir(files, path, problems, seen));
      } else problems.push(`${kfile} lists ${entry}, which does not exist`);
    }
  } else if (root) {
    // No kustomization file at spec.path: kustomize-controller generates one from every .yaml/.yml file below it,
    // a sub-directory with its own kustomization file counting as one resource (docs/flux-facts.md#flux-generated-kustomization).
    where = `the kustomization kustomize-controller generates for ${
      dir || '.'
    }`;
    kus = {};
    resources = scan(files, dir, problems, seen);
  } else {
    problems.push(`${dir} has no kustomization file`);
    return [];
  }
  if (root) {
    // kustomize-controller writes the Kustomization's own fields into the root kustomization (docs/flux-facts.md#flux-build-entry).
    const fromSpec: Kus = { ...kus };
    if (root.targetNamespace) fromSpec.namespace = root.targetNamespace;
    if (root.namePrefix) fromSpec.namePrefix = root.namePrefix;
    if (root.nameSuffix) fromSpec.nameSuffix = root.nameSuffix;
    const add = (k: keyof FluxKustomizationBuildSpec & string) => {
      const v = root[k];
      if (Array.isArray(v) && v.length)
        fromSpec[k] = [
          ...(Array.isArray(kus[k]) ? (kus[k] as unknown[]) : []),
          ...v,
        ];
    };
    add('patches');
    add('patchesStrategicMerge');
    add('patchesJson6902');
    add('images');
    add('components');
    transform(
      fromSpec,
      `${where} with the Flux Kustomization's spec`,
      dir,
      files,
      resources,
    );
  } else transform(kus, where, dir, files, resources);
  return resources;
}

/** The generated kustomization's resources: the walk in lexical order, as Go's filepath.Walk does. */
function scan(
  files: RepoFiles,
  dir: string,
  problems: string[],
  seen: Set<string>,
): BuiltResource[] {
  const children = new Map<string, boolean>(); // name -> is a directory
  for (const p of Object.keys(files)) {
    if (!inDir(dir, p)) continue;
    const rest = dir ? p.slice(dir.length + 1) : p;
    const [first, ...more] = rest.split('/');
    children.set(first, (children.get(first) ?? false) || more.length > 0);
  }
  const out: BuiltResource[] = [];
  for (const name of [...children.keys()].sort()) {
    const path = dir ? `${dir}/${name}` : name;
    if (children.get(name)) {
      if (name === '.git') continue;
      out.push(
        ...(kustomizationFileOf(files, path)
          ? buildDir(files, path, problems, seen)
          : scan(files, path, problems, seen)),
      );
    } else if (/\.ya?ml$/.test(name))
      out.push(...documentsOf(path, files[path], problems));
  }
  return out;
}

/** Normalises `spec.path`: `./clusters/` → `clusters`; `./` or nothing → the empty string (the root). @public */
export const normalizeKustomizationPath = (path: string | undefined) =>
  joinRepoPath('', path ?? '') ?? '';

/**
 * The documents a Flux Kustomization applies from `files` (the repository at its source revision), and for each
 * what kustomize changes in it.
 * @public
 */
export function kustomizeBuild(
  files: RepoFiles,
  spec: FluxKustomizationBuildSpec,
): KustomizeBuild {
  const problems: string[] = [];
  const dir = normalizeKustomizationPath(spec.path);
  if (dir && !isDir(files, dir))
    return {
      resources: [],
      problems: [`the repository has no directory ${dir}`],
      substitutes: !!spec.postBuild,
    };
  const resources = buildDir(files, dir, problems, new Set(), spec);
  return { resources, problems, substitutes: !!spec.postBuild };
}
