/**
 * Where a cluster applied from Git comes from, and whether Flux is in sync with it: read from a Flux Kustomization and
 * the GitRepository it applies from, as a watch cache holds them. Pure: no I/O.
 */
import type { ClusterGitSource, FluxObjectRef } from '../api';
import { describeAppliedBy } from './appliedBy';
import { at, isObj, num, str } from './read';
import type { ObservedObject } from './types';

const text = (v: unknown) => {
  const s = str(v);
  return s ? s : undefined;
};

/**
 * A Kustomization's source: `spec.sourceRef`, in the Kustomization's own namespace unless the reference names another
 * (docs/flux-facts.md#flux-source-ref). Undefined when it names none.
 * @public
 */
export function gitSourceOf(
  kustomization: ObservedObject,
): (FluxObjectRef & { kind: string }) | undefined {
  const ref = at(kustomization, 'spec', 'sourceRef');
  if (!isObj(ref)) return undefined;
  const kind = text(ref.kind);
  const name = text(ref.name);
  const namespace = text(ref.namespace) ?? kustomization.metadata?.namespace;
  if (!kind || !name || !namespace) return undefined;
  return { kind, namespace, name };
}

/** The URL without its user and password (a GitRepository's URL may carry them; the browser must not). */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}

/**
 * What a GitRepository follows: `spec.ref`'s commit over a ref name over a semver range over a tag over a branch,
 * and the branch `master` without any (docs/flux-facts.md#flux-source-ref).
 */
function followed(
  repo: ObservedObject,
): Pick<ClusterGitSource, 'branch' | 'ref'> {
  const ref = at(repo, 'spec', 'ref');
  for (const type of ['commit', 'name', 'semver', 'tag'] as const) {
    const value = text(at(ref, type));
    if (value) return { ref: { type, value } };
  }
  return { branch: text(at(ref, 'branch')) ?? 'master' };
}

const STATUSES = ['True', 'False', 'Unknown'] as const;

function readyOf(o: ObservedObject): ClusterGitSource['ready'] {
  const conditions = at(o, 'status', 'conditions');
  const c = (Array.isArray(conditions) ? conditions : []).find(
    x => isObj(x) && x.type === 'Ready',
  ) as Record<string, unknown> | undefined;
  if (!c) return undefined;
  const status = STATUSES.find(s => s === c.status) ?? 'Unknown';
  const reason = text(c.reason);
  const message = text(c.message);
  return {
    status,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/**
 * The Git source of a cluster Flux applies, from its Kustomization and (when the Kustomization's source is a
 * GitRepository and it is at hand) that GitRepository:
 * - the Kustomization's `spec.path`, `spec.suspend` (docs/flux-facts.md#flux-suspend), its `Ready` condition,
 *   `status.lastAppliedRevision` and `status.observedGeneration` (docs/flux-facts.md#flux-status);
 * - the GitRepository's `spec.url` without credentials, what it follows (docs/flux-facts.md#flux-source-ref) and its
 *   `status.artifact.revision` (docs/flux-facts.md#flux-status).
 * In sync when Ready is True, it is not suspended, its latest spec is observed and the revision it last applied is the
 * one its source holds.
 * @public
 */
export function clusterGitSource(
  ref: FluxObjectRef,
  kustomization: ObservedObject,
  gitRepository: ObservedObject | undefined,
): ClusterGitSource {
  const source = gitSourceOf(kustomization);
  const repo =
    source?.kind === 'GitRepository' &&
    gitRepository?.metadata?.namespace === source.namespace &&
    gitRepository?.metadata?.name === source.name
      ? gitRepository
      : undefined;
  const path = text(at(kustomization, 'spec', 'path'));
  const lastAppliedRevision = text(
    at(kustomization, 'status', 'lastAppliedRevision'),
  );
  const ready = readyOf(kustomization);
  const suspended = at(kustomization, 'spec', 'suspend') === true;
  const generation = num(kustomization.metadata?.generation);
  const observedGeneration = num(
    at(kustomization, 'status', 'observedGeneration'),
  );
  const url = repo ? text(at(repo, 'spec', 'url')) : undefined;
  const sourceRevision = repo
    ? text(at(repo, 'status', 'artifact', 'revision'))
    : undefined;
  const inSync =
    ready?.status === 'True' &&
    !suspended &&
    generation !== undefined &&
    observedGeneration === generation &&
    lastAppliedRevision !== undefined &&
    lastAppliedRevision === sourceRevision;
  return {
    kustomization: { namespace: ref.namespace, name: ref.name },
    ...(source ? { source } : {}),
    sourceFound: repo !== undefined,
    ...(url ? { url: withoutCredentials(url) } : {}),
    ...(repo ? followed(repo) : {}),
    ...(path ? { path } : {}),
    ...(lastAppliedRevision ? { lastAppliedRevision } : {}),
    ...(sourceRevision ? { sourceRevision } : {}),
    ...(ready ? { ready } : {}),
    suspended,
    ...(generation !== undefined ? { generation } : {}),
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
    inSync,
  };
}

/**
 * A Flux revision as a person reads it: the commit's first 7 hex digits of `<ref>@sha1:<commit>`
 * (docs/flux-facts.md#flux-status), `sha256:<digest>` or the `<branch>/<commit>` of older Flux APIs; else as it is.
 * @public
 */
export function shortRevision(revision: string): string {
  const m =
    /(?:^|@)sha(?:1|256):([0-9a-f]{7,})$/.exec(revision) ??
    /(?:^|\/)([0-9a-f]{40})$/.exec(revision);
  return m ? m[1].slice(0, 7) : revision;
}

/** A cluster's Git source in words (see {@link describeGitSource}). @public */
export interface GitSourceWords {
  /**
   * Who applies it and from where: "Flux's Kustomization flux-system/clusters from https://git.example/gitops.git,
   * branch main, path ./clusters, at revision 1a2b3c4".
   */
  from: string;
  /** Whether Flux is in sync: "in sync", "suspended", "not Ready: …", "not in sync: …", "sync unknown: …". */
  verdict: string;
  /** The verdict's kind, for its colour. */
  state: 'in-sync' | 'suspended' | 'not-ready' | 'not-in-sync' | 'unknown';
}

/** Two revisions told apart: their short forms, or the whole revisions when those are the same. */
function twoRevisions(applied: string, source: string): [string, string] {
  const a = shortRevision(applied);
  const s = shortRevision(source);
  return a === s ? [applied, source] : [a, s];
}

/** " from https://…/gitops.git, branch main", or the source by name when its URL is not known. */
function whereFrom(g: ClusterGitSource): string {
  if (g.url) {
    if (g.branch) return ` from ${g.url}, branch ${g.branch}`;
    if (g.ref) return ` from ${g.url}, ${g.ref.type} ${g.ref.value}`;
    return ` from ${g.url}`;
  }
  if (g.source)
    return ` from ${g.source.kind} ${g.source.namespace}/${g.source.name}`;
  return '';
}

/** Why the source's revision is not known. */
function unseen(g: ClusterGitSource): string {
  const s = g.source;
  if (!s) return 'it names no source';
  if (s.kind === 'GitRepository')
    return `the backend does not see its GitRepository ${s.namespace}/${s.name}`;
  return `its source is ${/^[AEIOU]/i.test(s.kind) ? 'an' : 'a'} ${
    s.kind
  }, which the backend does not read`;
}

/** A message as part of a sentence: on one line, without its closing period. */
const sentence = (s: string) =>
  s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.\s]+$/, '');

/**
 * A cluster's Git source in words for its page: where from (the Kustomization, the repository's URL and what it
 * follows, the path, the commit applied) and the verdict, first that holds: suspended, not Ready (its message),
 * its spec not reconciled yet, the source's revision unknown, not in sync (the applied and the source's commits),
 * in sync.
 * @public
 */
export function describeGitSource(g: ClusterGitSource): GitSourceWords {
  const who = describeAppliedBy({
    tool: 'flux-kustomization',
    source: g.kustomization,
    reconciles: true,
  });
  const applied = g.lastAppliedRevision
    ? `at revision ${shortRevision(g.lastAppliedRevision)}`
    : 'nothing applied yet';
  const from = `${who}${whereFrom(g)}, path ${g.path ?? './'}, ${applied}`;

  const words = (
    state: GitSourceWords['state'],
    verdict: string,
  ): GitSourceWords => ({ from, verdict, state });
  if (g.suspended) return words('suspended', 'suspended');
  if (g.ready?.status !== 'True')
    return words(
      'not-ready',
      `not Ready: ${sentence(
        g.ready?.message ?? g.ready?.reason ?? 'not reconciled yet',
      )}`,
    );
  if (g.generation === undefined || g.observedGeneration !== g.generation)
    return words(
      'not-in-sync',
      'not in sync: its spec changed since Flux last reconciled it',
    );
  if (!g.sourceFound) return words('unknown', `sync unknown: ${unseen(g)}`);
  if (!g.sourceRevision)
    return words(
      'unknown',
      'sync unknown: its GitRepository has fetched no revision yet',
    );
  if (!g.lastAppliedRevision)
    return words(
      'not-in-sync',
      `not in sync: nothing applied, the source is at ${shortRevision(
        g.sourceRevision,
      )}`,
    );
  if (!g.inSync) {
    const [a, s] = twoRevisions(g.lastAppliedRevision, g.sourceRevision);
    return words(
      'not-in-sync',
      `not in sync: applied ${a}, the source is at ${s}`,
    );
  }
  return words('in-sync', 'in sync');
}
