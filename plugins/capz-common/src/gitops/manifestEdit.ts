/**
 * A day-2 change made in Git: the document of the repository that holds each object the plan changes (as a Flux
 * Kustomization builds it, ./kustomizeBuild), the plan's field changes written into it with the `yaml` package's
 * Document API (comments and formatting kept; a changed scalar is replaced in place), and a unified diff per file.
 * An object kustomize changes on its way (a patch, a component...), or not found, is answered with why and the
 * change to make by hand.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
  parseDocument,
  Scalar,
  stringify,
  type Document,
} from 'yaml';
import type { FieldChange, ObjectChange } from '../day2/api';
import type { KubeObject } from '../manifests/aksAsoCluster';
import {
  apiGroupOf,
  baseOf,
  dirOf,
  joinRepoPath,
  KUSTOMIZATION_FILE_NAMES,
  kustomizeBuild,
  normalizeKustomizationPath,
  type BuiltResource,
  type FluxKustomizationBuildSpec,
  type RepoFiles,
} from './kustomizeBuild';
import { unifiedDiff } from './unifiedDiff';

/** An object as the cluster has it. @public */
export interface GitOpsObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** Where an object is written literally, or why it is not. @public */
export type ManifestLocation =
  | { found: true; file: string; document: number; resource: BuiltResource }
  | { found: false; reason: string };

const describe = (o: { kind: string; namespace?: string; name: string }) =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

/**
 * The one document under the Kustomization's path that holds `target` as written (same API group, kind, and name and
 * namespace after kustomize's transformers), or why there is none.
 * @public
 */
export function locateManifest(
  files: RepoFiles,
  spec: FluxKustomizationBuildSpec,
  target: GitOpsObjectRef,
): ManifestLocation {
  const build = kustomizeBuild(files, spec);
  const group = apiGroupOf(target.apiVersion);
  const path = spec.path ?? './';
  const hits = build.resources.filter(
    r =>
      r.group === group &&
      r.kind === target.kind &&
      r.name === target.name &&
      // Without a namespace anywhere, the API server puts it in the request's (Flux: the object's own, else default).
      (r.namespace ?? 'default') === target.namespace,
  );
  if (hits.length > 1)
    return {
      found: false,
      reason: `${describe(
        target,
      )} is written more than once under ${path} (${hits
        .map(h => h.file)
        .join(', ')}); kustomize refuses a duplicate`,
    };
  if (!hits.length) {
    const unread = build.problems.length
      ? `; not read: ${build.problems.join('; ')}`
      : '';
    const templated =
      build.substitutes &&
      build.resources.some(r => r.kind === target.kind && /\$\{/.test(r.name))
        ? `; a ${target.kind} there has a name Flux substitutes (postBuild)`
        : '';
    return {
      found: false,
      reason: `no document under ${path} is ${describe(
        target,
      )}${templated}${unread}`,
    };
  }
  const [hit] = hits;
  if (hit.notLiteral.length)
    return {
      found: false,
      reason: `${hit.file} holds ${describe(
        target,
      )}, but kustomize changes it on the way: ${hit.notLiteral.join('; ')}`,
    };
  return { found: true, file: hit.file, document: hit.document, resource: hit };
}

/** A file the change rewrites, or removes. @public */
export interface ManifestFileEdit {
  path: string;
  before: string;
  /** The file's new content; null when the change removes the file. */
  after: string | null;
  /** `diff -u` of the file (`+++ /dev/null` for a removed file). */
  diff: string;
}

/** An object whose change is not written: why, and the change in words. @public */
export interface ManifestByHand {
  kind: string;
  namespace: string;
  name: string;
  reason: string;
  /** "... is not written literally in the repository: (why); make this change by hand: (the field changes)". */
  message: string;
}

/** The change as Git would carry it. @public */
export interface ManifestEditResult {
  /** The files rewritten, in the order of the changes. */
  files: ManifestFileEdit[];
  /** The objects whose change is in `files`, and where. */
  edited: Array<{
    kind: string;
    namespace: string;
    name: string;
    file: string;
  }>;
  /** The objects whose change is not written, each with why. Empty: the whole change is in `files`. */
  byHand: ManifestByHand[];
  /** What the reader should know: a field whose value in Git differs from the cluster's, a value substituted... */
  notes: string[];
}

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

/** `set spec.replicas to 3 (was 2)`, `remove spec.scaling.minSize (was 1)`. @public */
export function describeFieldChange(f: FieldChange): string {
  if (f.after === undefined) return `remove ${f.path} (was ${show(f.before)})`;
  return `set ${f.path} to ${show(f.after)}${
    f.before === undefined ? '' : ` (was ${show(f.before)})`
  }`;
}

const byHandSentence = (
  o: { kind: string; namespace?: string; name: string },
  reason: string,
  what: string,
) =>
  `${describe(
    o,
  )} is not written literally in the repository: ${reason}; make this change by hand: ${what}`;

const byHandMessage = (c: ObjectChange, reason: string) => {
  const fields = c.fields.map(describeFieldChange).join(', ');
  let what = `in ${describe(c)}, ${fields}`;
  if (c.operation === 'delete')
    what = `remove ${describe(c)} from the repository`;
  else if (c.operation === 'create')
    what = `add ${describe(c)} to the repository${
      fields ? ` (${fields})` : ''
    }`;
  return byHandSentence(c, reason, what);
};

/**
 * `spec.resources[0].spec.minCount` → `['spec', 'resources', 0, 'spec', 'minCount']`; a non-numeric `[x]` is a list
 * item named x; `["a.b/c"]` is a map key with dots or slashes (an annotation's), as in
 * `metadata.annotations["kustomize.toolkit.fluxcd.io/reconcile"]`. @public
 */
export function parseFieldPath(
  path: string,
): Array<string | number | { name: string }> {
  const out: Array<string | number | { name: string }> = [];
  const re = /\.?([^.[\]"]+)|\["([^"]*)"\]|\[([^\]"]+)\]/y;
  let i = 0;
  while (i < path.length) {
    re.lastIndex = i;
    const m = re.exec(path);
    if (!m || (i === 0 && path.startsWith('.')))
      throw new Error(`field path ${path} does not parse`);
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(m[2]);
    else out.push(/^\d+$/.test(m[3]) ? Number(m[3]) : { name: m[3] });
    i = re.lastIndex;
  }
  if (!out.length) throw new Error(`field path ${path} does not parse`);
  return out;
}

const equal = (a: unknown, b: unknown) =>
  JSON.stringify(a) === JSON.stringify(b);

/** An in-place replacement of a scalar's text. */
interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * Writes one field change into a document. Returns the in-place text replacement when the field is a scalar there
 * already (the rest of the file stays byte for byte), `restringify` when the document's structure changes (a field
 * added or removed: the document is written again by the yaml package, its comments kept), or why it cannot.
 */
function applyField(
  doc: Document.Parsed,
  f: FieldChange,
  substitutes: boolean,
  notes: string[],
  label: string,
): { splice?: Splice; restringify?: boolean; error?: string } {
  let keys: Array<string | number>;
  try {
    // Resolve named list items to indexes on the document's own list.
    keys = [];
    let node: unknown = doc.contents;
    for (const k of parseFieldPath(f.path)) {
      if (isAlias(node))
        return { error: `${f.path} goes through a YAML alias` };
      if (typeof k === 'object') {
        if (!isSeq(node)) return { error: `${f.path}: no list at [${k.name}]` };
        const i = node.items.findIndex(
          it => isMap(it) && it.get('name') === k.name,
        );
        if (i < 0) return { error: `${f.path}: no item named ${k.name}` };
        keys.push(i);
        node = node.items[i];
      } else {
        keys.push(k);
        node = isMap(node) || isSeq(node) ? node.get(k, true) : undefined;
      }
    }
  } catch (e) {
    return { error: (e as Error).message };
  }
  const node = doc.getIn(keys, true);
  if (isAlias(node)) return { error: `${f.path} is a YAML alias` };
  const current =
    node === undefined ? undefined : (node as { toJSON(): unknown }).toJSON();
  if (substitutes && typeof current === 'string' && current.includes('${'))
    return {
      error: `${f.path} is ${current} in Git, a value Flux substitutes (postBuild)`,
    };
  if (!equal(current, f.before))
    notes.push(
      `${label}: ${f.path} is ${show(current)} in Git but ${show(
        f.before,
      )} in the cluster; the change writes ${show(f.after)}`,
    );
  if (equal(current, f.after)) return {};
  const scalarAfter =
    f.after === null ||
    ['string', 'number', 'boolean'].includes(typeof f.after);
  if (
    isScalar(node) &&
    scalarAfter &&
    f.after !== undefined &&
    node.range &&
    !['BLOCK_LITERAL', 'BLOCK_FOLDED'].includes(node.type ?? '')
  ) {
    const text = new Scalar(f.after);
    if (
      typeof f.after === 'string' &&
      (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE')
    )
      text.type = node.type;
    const splice = {
      start: node.range[0],
      end: node.range[1],
      text: stringify(text).replace(/\n$/, ''),
    };
    node.value = f.after;
    return { splice };
  }
  if (f.after === undefined) doc.deleteIn(keys);
  else doc.setIn(keys, f.after);
  return { restringify: true };
}

/** The text span of each document of a file: from the end of the previous one (its own `---` included). */
function spans(text: string, docs: Document.Parsed[]): Array<[number, number]> {
  return docs.map((d, i) => [
    i === 0 ? 0 : d.range[0],
    i + 1 < docs.length ? docs[i + 1].range[0] : text.length,
  ]);
}

/**
 * A day-2 plan's changes as a change of the repository a Flux Kustomization applies: `files` is the repository at
 * the Kustomization's source revision, `spec` the Kustomization's build fields. Updates are written into the
 * document that holds the object; a delete removes its document, a file left without one is removed with the
 * kustomization entries that list it (docs/flux-facts.md#git-delete); a new object, or an object not written literally, is
 * left by hand, with why.
 * @public
 */
export function planManifestEdit(input: {
  files: RepoFiles;
  spec: FluxKustomizationBuildSpec;
  changes: readonly ObjectChange[];
}): ManifestEditResult {
  return editManifests(input);
}

/** A document written again as other text (planManifestReplace): from its `---` on (a file's first comments kept). */
interface DocumentReplacement {
  file: string;
  document: number;
  /** The new documents' YAML, `---`-separated, ending with a newline. */
  text: string;
}

/**
 * planManifestEdit's work, and planManifestReplace's: the changes written into their documents, the deletes' documents
 * removed (a file left without one removed, with what lists it), and `replace`'s document written again as its text.
 */
function editManifests(input: {
  files: RepoFiles;
  spec: FluxKustomizationBuildSpec;
  changes: readonly ObjectChange[];
  replace?: DocumentReplacement;
}): ManifestEditResult {
  const { files, spec, changes, replace } = input;
  const substitutes = !!spec.postBuild;
  const byHand: ManifestByHand[] = [];
  const edited: ManifestEditResult['edited'] = [];
  const notes: string[] = [];
  // Per file: its documents, the splices and documents rewritten or removed.
  const work = new Map<
    string,
    {
      docs: Document.Parsed[];
      splices: Splice[];
      restringify: Set<number>;
      remove: Set<number>;
    }
  >();
  const refuse = (c: ObjectChange, reason: string) =>
    byHand.push({
      kind: c.kind,
      namespace: c.namespace,
      name: c.name,
      reason,
      message: byHandMessage(c, reason),
    });
  if (replace)
    work.set(replace.file, {
      docs: parseAllDocuments(files[replace.file]) as Document.Parsed[],
      splices: [],
      restringify: new Set(),
      remove: new Set(),
    });

  for (const c of changes) {
    if (c.operation === 'create') {
      refuse(
        c,
        'it is a new object, and which file should hold it is yours to choose',
      );
      continue;
    }
    const at = locateManifest(files, spec, c);
    if (!at.found) {
      refuse(c, at.reason);
      continue;
    }
    let w = work.get(at.file);
    if (!w) {
      w = {
        docs: parseAllDocuments(files[at.file]) as Document.Parsed[],
        splices: [],
        restringify: new Set(),
        remove: new Set(),
      };
      work.set(at.file, w);
    }
    const doc = w.docs[at.document];
    if (c.operation === 'delete') {
      // The last document of a file removes the file, and what lists it (below).
      w.remove.add(at.document);
      edited.push({
        kind: c.kind,
        namespace: c.namespace,
        name: c.name,
        file: at.file,
      });
      continue;
    }
    const label = describe(c);
    const results = c.fields.map(f =>
      applyField(doc, f, substitutes, notes, label),
    );
    const failed = results.find(r => r.error);
    if (failed) {
      // Nothing of this object is written: a half-made change is worse than none. Its document is read again.
      w.docs[at.document] = parseAllDocuments(files[at.file])[
        at.document
      ] as Document.Parsed;
      refuse(c, `in ${at.file}, ${failed.error}`);
      continue;
    }
    for (const r of results) if (r.splice) w.splices.push({ ...r.splice });
    if (results.some(r => r.restringify)) w.restringify.add(at.document);
    if (results.some(r => r.splice || r.restringify))
      edited.push({
        kind: c.kind,
        namespace: c.namespace,
        name: c.name,
        file: at.file,
      });
  }

  const out: ManifestFileEdit[] = [];
  const emptied = new Set<string>();
  for (const [path, w] of work) {
    const before = files[path];
    // Every document that names something removed: the file goes (a comment-only rest is not kept).
    if (w.docs.every((d, i) => w.remove.has(i) || d.contents === null)) {
      emptied.add(path);
      continue;
    }
    const docSpans = spans(before, w.docs);
    // Each document's new text: removed, written again, or its splices applied to its own text.
    const parts = docSpans.map(([s, e], i) => {
      if (replace && replace.file === path && replace.document === i) {
        // From the document's `---` on (a file's comments before its first `---` stay), its own comments included.
        const span = before.slice(s, e);
        const marker = /^((?:[ \t]*(?:#.*)?\n)*)---[ \t]*(?:#.*)?(?:\n|$)/.exec(
          span,
        );
        return `${marker ? marker[1] : ''}${marker || i > 0 ? '---\n' : ''}${
          replace.text
        }`;
      }
      if (w.remove.has(i)) return '';
      if (w.restringify.has(i)) {
        const t = String(w.docs[i]);
        return i === 0 || t.startsWith('---') ? t : `---\n${t}`;
      }
      let text = before.slice(s, e);
      for (const sp of w.splices
        .filter(x => x.start >= s && x.end <= e)
        .sort((a, b) => b.start - a.start))
        text = text.slice(0, sp.start - s) + sp.text + text.slice(sp.end - s);
      return text;
    });
    let after = parts.join('');
    // A removed first document leaves the second's `---` first: dropped, as a single document is written.
    if (w.remove.has(0)) after = after.replace(/^---[ \t]*\n/, '');
    if (after !== before)
      out.push({ path, before, after, diff: unifiedDiff(path, before, after) });
  }
  if (emptied.size) {
    const removal = removeFiles(files, spec, emptied);
    const broken = removal.problems;
    if (broken.length) {
      // The removal would leave a build kustomize refuses: none of the emptied files' deletes is proposed.
      for (const e of [...edited])
        if (emptied.has(e.file)) {
          edited.splice(edited.indexOf(e), 1);
          const c = changes.find(
            x =>
              x.kind === e.kind &&
              x.namespace === e.namespace &&
              x.name === e.name,
          )!;
          refuse(
            c,
            `removing ${e.file} leaves the build broken (${broken.join('; ')})`,
          );
        }
    } else {
      for (const [path, after] of removal.edits) {
        const before = files[path];
        out.push({
          path,
          before,
          after,
          diff: unifiedDiff(path, before, after ?? undefined),
        });
      }
      notes.push(...removal.notes);
    }
  }
  return { files: out, edited, byHand, notes };
}

/** The same object: API group, kind, namespace and name. */
const sameObject = (a: GitOpsObjectRef, b: GitOpsObjectRef) =>
  apiGroupOf(a.apiVersion) === apiGroupOf(b.apiVersion) &&
  a.kind === b.kind &&
  a.namespace === b.namespace &&
  a.name === b.name;

const refOf = (o: KubeObject): GitOpsObjectRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  // Without a namespace, the API server puts it in the request's (Flux: default), as locateManifest reads it.
  namespace: o.metadata.namespace ?? 'default',
  name: o.metadata.name,
});

/**
 * Objects replaced by others in a repository a Flux Kustomization applies (a migrated cluster's old manifests by the
 * new cluster's, docs/flux-facts.md#git-export): the documents of `remove` are removed as planManifestEdit's delete
 * removes them (a file left without one removed, with the kustomization entries that list it,
 * docs/flux-facts.md#git-delete), and the document of `replace` is written again, in place, as `documents` (each its
 * own `---` document, written by the yaml package; the old document's own comments go with it; the rest of the file,
 * comments before its first `---` included, stays byte for byte). `replace` ends replaced whether or not `remove`
 * lists it too: its file stays, with its kustomization entry. The result is built again: each of `documents` must
 * come out literally, with its own namespace and name (a kustomization's `namespace:`, a name prefix or a patch on
 * the way is answered by hand), and none of `remove` may be left. `edited` lists the removed objects (`replace`
 * first), then the added ones, with their files. Proposable only when `byHand` is empty: otherwise `files` holds only
 * the part that could be written. Throws when `documents` is empty.
 * @public
 */
export function planManifestReplace(input: {
  files: RepoFiles;
  spec: FluxKustomizationBuildSpec;
  remove: readonly GitOpsObjectRef[];
  replace: GitOpsObjectRef;
  documents: readonly KubeObject[];
}): ManifestEditResult {
  const { files, spec, replace, documents } = input;
  if (!documents.length)
    throw new Error(
      `planManifestReplace: no documents to write in place of ${describe(
        replace,
      )}`,
    );
  const added = documents.map(refOf);
  const addedWords = added.map(describe).join(', ');
  // Each removed object once; `replace` is replaced, not removed.
  const remove: GitOpsObjectRef[] = [];
  for (const r of input.remove)
    if (!sameObject(r, replace) && !remove.some(x => sameObject(x, r)))
      remove.push(r);

  const at = locateManifest(files, spec, replace);
  const text = documents.map(d => stringify(d)).join('---\n');
  const result = editManifests({
    files,
    spec,
    changes: remove.map(r => ({ ...r, operation: 'delete', fields: [] })),
    replace: at.found
      ? { file: at.file, document: at.document, text }
      : undefined,
  });
  const byHand: ManifestByHand[] = [];
  const edited: ManifestEditResult['edited'] = [];
  if (at.found) {
    edited.push({
      kind: replace.kind,
      namespace: replace.namespace,
      name: replace.name,
      file: at.file,
    });
  } else {
    byHand.push({
      kind: replace.kind,
      namespace: replace.namespace,
      name: replace.name,
      reason: at.reason,
      message: byHandSentence(
        replace,
        at.reason,
        `replace ${describe(
          replace,
        )} in the repository by ${addedWords}, in a file the Kustomization applies as written`,
      ),
    });
  }
  byHand.push(...result.byHand);
  edited.push(...result.edited);

  // The repository after the change, built again.
  const after: Record<string, string> = { ...files };
  for (const f of result.files)
    if (f.after === null) delete after[f.path];
    else after[f.path] = f.after;
  const build = kustomizeBuild(after, spec);
  if (at.found) {
    added.forEach(ref => {
      const where = locateManifest(after, spec, ref);
      if (where.found && where.file === at.file) {
        edited.push({
          kind: ref.kind,
          namespace: ref.namespace,
          name: ref.name,
          file: at.file,
        });
        return;
      }
      let reason = where.found
        ? `${describe(ref)} is built from ${where.file}, not from ${at.file}`
        : where.reason;
      // What the build made of the document written: another namespace or name says which transformer moved it.
      const built = build.resources.find(
        r =>
          r.file === at.file &&
          r.group === apiGroupOf(ref.apiVersion) &&
          r.kind === ref.kind &&
          r.writtenName === ref.name &&
          (r.namespace !== ref.namespace || r.name !== ref.name),
      );
      if (built) {
        const moved = [
          ...((built.namespace ?? 'default') !== ref.namespace
            ? [
                "a kustomization's namespace (or the Flux Kustomization's targetNamespace) on the way sets its namespace",
              ]
            : []),
          ...(built.name !== ref.name
            ? [
                "a namePrefix or nameSuffix on the way (a kustomization's or the Flux Kustomization's) renames it",
              ]
            : []),
        ];
        reason = `written in ${at.file}, it is built as ${describe({
          kind: built.kind,
          namespace: built.namespace ?? 'default',
          name: built.name,
        })}: ${moved.join('; ')}`;
      }
      byHand.push({
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        reason,
        message: byHandSentence(
          ref,
          `after the change, ${reason}`,
          `write ${describe(
            ref,
          )} where the Kustomization applies it as written, with its own namespace and name`,
        ),
      });
    });
  }
  // None of the old objects may be left (but one that is also one of the new documents). A new document moved onto
  // an old one's namespace and name is answered above.
  const fromDocuments = (x: BuiltResource) =>
    at.found &&
    x.file === at.file &&
    added.some(
      a =>
        apiGroupOf(a.apiVersion) === x.group &&
        a.kind === x.kind &&
        a.name === x.writtenName,
    );
  const named = new Set(byHand.map(b => describe(b)));
  for (const r of [replace, ...remove]) {
    if (added.some(a => sameObject(a, r)) || named.has(describe(r))) continue;
    const left = build.resources.filter(
      x =>
        !fromDocuments(x) &&
        x.group === apiGroupOf(r.apiVersion) &&
        x.kind === r.kind &&
        x.name === r.name &&
        (x.namespace ?? 'default') === r.namespace,
    );
    if (!left.length) continue;
    const reason = `after the change, ${describe(r)} is still built from ${left
      .map(x => x.file)
      .join(', ')}`;
    byHand.push({
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      reason,
      message: byHandSentence(
        r,
        reason,
        `remove ${describe(r)} from the repository`,
      ),
    });
  }
  return { files: result.files, edited, byHand, notes: result.notes };
}

const KUSTOMIZATION_NAMES: readonly string[] = KUSTOMIZATION_FILE_NAMES;
const under = (dir: string, path: string) =>
  dir === '' || path === dir || path.startsWith(`${dir}/`);

/** A file of Backstage catalog entities only (the proposal's catalog-info.yaml): it goes with its directory. */
function isCatalogEntityFile(text: string): boolean {
  try {
    const docs = parseAllDocuments(text).map(d => d.toJS());
    return (
      docs.length > 0 &&
      docs.every(
        o =>
          o &&
          typeof o === 'object' &&
          String((o as { apiVersion?: unknown }).apiVersion).startsWith(
            'backstage.io/',
          ),
      )
    );
  } catch {
    return false;
  }
}

/** The keys of a kustomization that give it content: without any, it builds nothing. */
const CONTENT_KEYS = [
  'resources',
  'bases',
  'components',
  'configMapGenerator',
  'secretGenerator',
  'helmCharts',
  'generators',
];

/**
 * Removes files (every document of theirs removed) as kustomize and Flux need it (docs/flux-facts.md#git-delete):
 * each entry of a kustomization's `resources`/`bases` that lists a removed file or directory goes with it (kustomize
 * refuses an entry that does not exist); a directory left with a kustomization that lists nothing, and nothing else
 * but a catalog entity file, is removed as a whole (the template's `clusters/<namespace>/<name>/`), and so is its
 * entry in the kustomization above it. The Kustomization's own `spec.path` stays, with a file in it (Flux fails on a
 * missing path, and Git keeps no empty directory).
 * Answers the files' new contents (null: removed) and, when the result does not build, why.
 */
function removeFiles(
  files: RepoFiles,
  spec: FluxKustomizationBuildSpec,
  emptied: ReadonlySet<string>,
): { edits: Map<string, string | null>; notes: string[]; problems: string[] } {
  const root = normalizeKustomizationPath(spec.path);
  const edits = new Map<string, string | null>();
  const notes: string[] = [];
  const gone = (p: string) => edits.get(p) === null;
  const text = (p: string) => edits.get(p) ?? files[p];
  const queue: string[] = [];
  for (const f of emptied) {
    edits.set(f, null);
    queue.push(f);
  }
  while (queue.length) {
    const removed = queue.shift()!;
    for (const kfile of Object.keys(files)) {
      if (!KUSTOMIZATION_NAMES.includes(baseOf(kfile)) || gone(kfile)) continue;
      const dir = dirOf(kfile);
      const doc = parseDocument(text(kfile)!);
      let changed = false;
      for (const key of ['resources', 'bases']) {
        const seq = doc.get(key, true);
        if (!isSeq(seq)) continue;
        for (let i = seq.items.length - 1; i >= 0; i--) {
          const item = seq.items[i];
          const entry = isScalar(item) ? item.value : undefined;
          if (
            typeof entry === 'string' &&
            joinRepoPath(dir, entry) === removed
          ) {
            seq.items.splice(i, 1);
            changed = true;
          }
        }
      }
      if (!changed) continue;
      const kus = doc.toJS() as Record<string, unknown> | null;
      const listsNothing = !CONTENT_KEYS.some(k => {
        const v = kus?.[k];
        return Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null;
      });
      const rest = Object.keys(files).filter(
        p =>
          under(dir, p) &&
          p !== kfile &&
          !gone(p) &&
          !isCatalogEntityFile(files[p]),
      );
      // The Kustomization's path must stay (Flux fails on a missing one; Git keeps no empty directory).
      const pathStays = Object.keys(files).some(
        q => under(root, q) && !under(dir, q) && !gone(q),
      );
      if (
        listsNothing &&
        !rest.length &&
        dir !== root &&
        under(root, dir) &&
        pathStays
      ) {
        for (const p of Object.keys(files))
          if (under(dir, p) && !gone(p)) {
            if (p !== kfile)
              notes.push(
                `${p}, the catalog entity beside the manifests, is removed with ${dir}/`,
              );
            edits.set(p, null);
          }
        queue.push(dir);
      } else {
        if (listsNothing && !rest.length && dir !== root && !pathStays)
          notes.push(
            `${kfile} stays, listing nothing: it is all that is left under ${root}/, the path Kustomization's spec.path names`,
          );
        edits.set(kfile, String(doc));
      }
    }
  }
  // The result must build as the old one did: no new problem (a listing left behind, a directory without its file).
  const after: Record<string, string> = {};
  for (const [p, t] of Object.entries(files)) {
    const e = edits.get(p);
    if (e === undefined) after[p] = t;
    else if (e !== null) after[p] = e;
  }
  const known = new Set(kustomizeBuild(files, spec).problems);
  const problems = kustomizeBuild(after, spec).problems.filter(
    x => !known.has(x),
  );
  return { edits, notes, problems };
}
