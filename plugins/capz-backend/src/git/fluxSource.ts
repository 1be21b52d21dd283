/**
 * Where a Flux Kustomization's files come from: its `spec.sourceRef` GitRepository (docs/flux-facts.md#flux-source-ref),
 * that repository's URL and followed branch, the Kustomization's build fields, and a revision with its commit: the
 * one the Kustomization last applied, or the one its source holds now (docs/flux-facts.md#flux-status).
 */
import type {
  FluxKustomizationBuildSpec,
  ObservedObject,
} from '@capz-backstage/plugin-capz-common';

/**
 * The commit of a Flux revision: `<ref>@sha1:<hex>` (docs/flux-facts.md#flux-status), `sha1:<hex>`, or the
 * `<branch>/<hex>` of older Flux APIs.
 */
export function commitOfRevision(revision: string): string | undefined {
  const m =
    /(?:^|@)sha1:([0-9a-f]{40})$/.exec(revision) ??
    /(?:^|\/)([0-9a-f]{40})$/.exec(revision);
  return m?.[1];
}

/** A Flux source, resolved. */
export interface FluxSource {
  kustomization: { namespace: string; name: string };
  gitRepository: { namespace: string; name: string };
  /** The GitRepository's `spec.url`. */
  url: string;
  /** The branch the GitRepository follows. */
  branch: string;
  /** The Kustomization's `spec.path`, as written (the repository root when absent). */
  path: string;
  /** The Kustomization's build fields (path, patches, namespace, postBuild...). */
  spec: FluxKustomizationBuildSpec;
  /** `<branch>@sha1:<commit>`: the Kustomization's `status.lastAppliedRevision` or the source's artifact revision. */
  revision: string;
  /** The commit of `revision`. */
  commit: string;
  /** The Kustomization's `spec.prune` (docs/flux-facts.md#flux-prune). */
  prune: boolean;
}

/** The source, or why it cannot be used, with what was found up to there. */
export type FluxSourceResult =
  | { ok: true; source: FluxSource }
  | { ok: false; reason: string; source?: Partial<FluxSource> };

/** Reads a Kustomization and a GitRepository by namespace and name; undefined when absent (or Flux not installed). */
export interface FluxObjectReader {
  kustomization(
    namespace: string,
    name: string,
  ): Promise<ObservedObject | undefined>;
  gitRepository(
    namespace: string,
    name: string,
  ): Promise<ObservedObject | undefined>;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/**
 * Resolves a Kustomization's Git source. `revision`: `applied` is the revision the Kustomization last applied (what a
 * day-2 change is written against), `source` the one its GitRepository holds now (what a job waits for).
 */
export async function resolveFluxSource(
  reader: FluxObjectReader,
  kustomization: { namespace: string; name: string },
  revision: 'applied' | 'source',
): Promise<FluxSourceResult> {
  const where = `Kustomization ${kustomization.namespace}/${kustomization.name}`;
  const k = await reader.kustomization(
    kustomization.namespace,
    kustomization.name,
  );
  if (!k)
    return {
      ok: false,
      reason: `${where} is not on the management cluster`,
      source: { kustomization },
    };
  const spec = (k.spec ?? {}) as FluxKustomizationBuildSpec & {
    sourceRef?: { kind?: string; name?: string; namespace?: string };
    prune?: unknown;
  };
  const sourceRef = spec.sourceRef ?? {};
  if (sourceRef.kind !== 'GitRepository' || !sourceRef.name)
    return {
      ok: false,
      reason: `${where} applies from a ${
        sourceRef.kind ?? 'source of no kind'
      }, not a GitRepository`,
      source: { kustomization },
    };
  // The source is in the Kustomization's namespace unless the reference names another.
  const gitRepository = {
    namespace: sourceRef.namespace || kustomization.namespace,
    name: sourceRef.name,
  };
  const path = spec.path ?? '';
  const place = `GitRepository ${gitRepository.namespace}/${gitRepository.name}`;
  const known = { kustomization, gitRepository, path };
  // A revision and its commit, or why there is none.
  const revisionOf = (
    rev: string | undefined,
    whose: string,
    field: string,
  ) => {
    if (!rev)
      return {
        ok: false as const,
        reason: `${whose} has ${
          revision === 'applied' ? 'applied' : 'fetched'
        } no revision yet (${field})`,
        source: known,
      };
    const commit = commitOfRevision(rev);
    if (!commit)
      return {
        ok: false as const,
        reason: `${whose}'s ${
          revision === 'applied' ? 'last applied ' : ''
        }revision ${rev} names no Git commit`,
        source: { ...known, revision: rev },
      };
    return { ok: true as const, rev, commit };
  };
  // The applied revision is the Kustomization's own: checked before its source is read.
  const applied =
    revision === 'applied'
      ? revisionOf(
          str(
            (k.status as { lastAppliedRevision?: unknown })
              ?.lastAppliedRevision,
          ),
          where,
          'status.lastAppliedRevision',
        )
      : undefined;
  if (applied && !applied.ok) return applied;
  const repo = await reader.gitRepository(
    gitRepository.namespace,
    gitRepository.name,
  );
  if (!repo)
    return {
      ok: false,
      reason: `${place}, the source of ${where}, is not on the management cluster`,
      source: applied ? { ...known, revision: applied.rev } : known,
    };
  const at =
    applied ??
    revisionOf(
      str(
        (repo.status as { artifact?: { revision?: unknown } })?.artifact
          ?.revision,
      ),
      place,
      'status.artifact.revision',
    );
  if (!at.ok) return at;
  const { rev, commit } = at;
  const repoSpec = (repo.spec ?? {}) as Record<string, unknown>;
  const url = str(repoSpec.url);
  const ref = (repoSpec.ref ?? {}) as Record<string, unknown>;
  // A tag, a semver range, a named ref or a pinned commit is not a branch a change can be proposed against.
  const pinned = ['commit', 'name', 'semver', 'tag'].find(f => str(ref[f]));
  if (!url || pinned)
    return {
      ok: false,
      reason: url
        ? `${place} follows spec.ref.${pinned}, not a branch: a change cannot be proposed against it`
        : `${place} has no spec.url`,
      source: { ...known, revision: rev },
    };
  return {
    ok: true,
    source: {
      ...known,
      url,
      // Without a ref, Flux follows master.
      branch: str(ref.branch) ?? 'master',
      spec: { ...spec, path },
      revision: rev,
      commit,
      prune: spec.prune === true,
    },
  };
}
