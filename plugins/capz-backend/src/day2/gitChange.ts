/**
 * A day-2 plan as a change of the Git repository a Flux Kustomization applies the cluster from: the Kustomization
 * (docs/flux-facts.md#flux-source-ref), its GitRepository, the repository's files under `spec.path` at the revision
 * the Kustomization last applied (docs/flux-facts.md#flux-status), and the plan's field changes written into them
 * (`planManifestEdit`, docs/flux-facts.md#git-edit).
 */
import {
  appliedBy,
  describeAppliedBy,
  type Day2GitChange,
  planManifestEdit,
  type Day2Plan,
  type ManifestEditResult,
  type ObjectChange,
} from '@capz-backstage/plugin-capz-common';
import {
  urlWithoutCredentials,
  type GitIdentity,
} from '@capz-backstage/plugin-capz-node';
import type { GitOpsSourceClient } from '../cluster/clientViews';
import {
  commitOfRevision,
  resolveFluxSource,
  type FluxSource,
} from '../git/fluxSource';
import type { GitOpsRepository, ProposedChange } from '../git/GitOpsRepository';

/** Where the change's files come from: the Kustomization's source at the revision it last applied. */
export type GitChangeSource = FluxSource;

/** The plan as a Git change, or why it cannot be made in Git. */
export type GitChange =
  | ({ ok: true; source: GitChangeSource } & ManifestEditResult)
  | { ok: false; reason: string; source?: Partial<GitChangeSource> };

export { commitOfRevision };

/**
 * The plan's changes to the objects one Flux Kustomization applies, written into its repository at the revision it
 * last applied. Undefined when no object the plan changes is applied by a Flux Kustomization (the plan is not a Git
 * change). Objects of the plan another Kustomization applies, or nothing applies, are named in `notes`.
 */
export async function gitChangeFor(
  plan: Pick<Day2Plan, 'changes' | 'appliedBy'>,
  client: GitOpsSourceClient,
  repository: GitOpsRepository,
): Promise<GitChange | undefined> {
  // Who applies each object the plan changes, from the live object's labels as the plan's guard reads them.
  const fluxApplied = new Set(
    (plan.appliedBy ?? [])
      .filter(a => a.blocks)
      .map(a => `${a.kind}/${a.namespace}/${a.name}`),
  );
  let kustomization: { namespace: string; name: string } | undefined;
  const mine: ObjectChange[] = [];
  const notes: string[] = [];
  const creates: ObjectChange[] = [];
  for (const c of plan.changes) {
    if (c.operation === 'create') {
      creates.push(c);
      continue;
    }
    if (!fluxApplied.has(`${c.kind}/${c.namespace}/${c.name}`)) {
      notes.push(
        `${c.kind} ${c.namespace}/${c.name} is not applied from Git: its change is not part of this one`,
      );
      continue;
    }
    const a = appliedBy(await client.get(c));
    const source = a?.tool === 'flux-kustomization' ? a.source : undefined;
    if (!source?.namespace) {
      notes.push(
        `${c.kind} ${c.namespace}/${c.name} is applied by ${
          a ? describeAppliedBy(a) : 'no Flux Kustomization now'
        }: its change is not part of this one`,
      );
      continue;
    }
    if (!kustomization)
      kustomization = { namespace: source.namespace, name: source.name };
    if (
      kustomization.namespace !== source.namespace ||
      kustomization.name !== source.name
    ) {
      notes.push(
        `${c.kind} ${c.namespace}/${c.name} is applied by another Kustomization, ${source.namespace}/${source.name}: its change is not part of this one`,
      );
      continue;
    }
    mine.push(c);
  }
  if (!kustomization) return undefined;

  const resolved = await resolveFluxSource(client, kustomization, 'applied');
  if (!resolved.ok) return resolved;
  const source = resolved.source;
  const { url, branch, path, commit, revision, spec } = source;

  let files;
  try {
    files = await repository.readFiles({
      url,
      branch,
      path,
      revision: commit,
    });
  } catch (e) {
    return {
      ok: false,
      reason: `cannot read ${path || '/'} of ${url} at ${revision}: ${
        (e as Error).message
      }`,
      source,
    };
  }
  const edit = planManifestEdit({
    files,
    spec,
    changes: [...mine, ...creates],
  });
  return {
    ok: true,
    source,
    ...edit,
    notes: [...notes, ...edit.notes],
  };
}

/** A plan's Git change whose whole plan is in its files: what a confirm proposes. */
export type ProposableGitChange = Extract<GitChange, { ok: true }>;

/**
 * The Git change as the preview shows it; proposable when every object the plan changes is written in its files and
 * nothing is left to do by hand.
 */
export function gitView(
  plan: Pick<Day2Plan, 'changes'>,
  change: GitChange,
): { view: Day2GitChange; change?: ProposableGitChange } {
  if (!change.ok)
    return {
      view: {
        proposable: false,
        reason: `The change cannot be proposed to Git: ${change.reason}.`,
        files: [],
        byHand: [],
        notes: [],
      },
    };
  const s = change.source;
  const source = {
    kustomization: s.kustomization,
    gitRepository: s.gitRepository,
    url: urlWithoutCredentials(s.url),
    branch: s.branch,
    path: s.path,
    revision: s.revision,
  };
  const edited = new Set(
    change.edited.map(e => `${e.kind}/${e.namespace}/${e.name}`),
  );
  const outside = plan.changes.filter(
    c => !edited.has(`${c.kind}/${c.namespace}/${c.name}`),
  );
  const view: Day2GitChange = {
    proposable: false,
    source,
    files: change.files.map(f => ({ path: f.path, diff: f.diff })),
    byHand: change.byHand.map(b => b.message),
    notes: change.notes,
  };
  if (change.byHand.length)
    view.reason = `The change cannot be proposed to Git as a whole: ${
      change.byHand.length
    } of its objects ${
      change.byHand.length === 1 ? 'is' : 'are'
    } not written literally in ${source.url} (see below).`;
  else if (outside.length || !change.files.length)
    view.reason = `The change cannot be proposed to Git as a whole: ${
      outside.map(c => `${c.kind} ${c.namespace}/${c.name}`).join(', ') ||
      'no object'
    } ${outside.length === 1 ? 'is' : 'are'} not in the files Kustomization ${
      s.kustomization.namespace
    }/${s.kustomization.name} applies.`;
  else return { view: { ...view, proposable: true }, change };
  return { view };
}

/** Day-2 actions through Git: the plan as a change of the repository Flux applies from, and its proposal. */
export interface Day2GitOps {
  /** The plan's Git change (see {@link gitChangeFor}); undefined when no Flux Kustomization applies its objects. */
  changeFor(
    managementCluster: string,
    plan: Pick<Day2Plan, 'changes' | 'appliedBy'>,
  ): Promise<GitChange | undefined>;
  /** Pushes the change as a branch from the revision Flux applied, and opens its pull request where it can. */
  propose(
    change: ProposableGitChange,
    o: { branch: string; title: string; body: string },
  ): Promise<ProposedChange>;
}

/** The day-2 Git path over the management clusters' clients and the Git edge. */
export function day2GitOps(o: {
  client: (managementCluster: string) => Promise<GitOpsSourceClient>;
  repository: GitOpsRepository;
  /** Who the commits are by (the user who confirmed is named in the message). */
  author: GitIdentity;
}): Day2GitOps {
  return {
    changeFor: async (mc, plan) =>
      gitChangeFor(plan, await o.client(mc), o.repository),
    propose: (change, p) =>
      o.repository.proposeChange({
        url: change.source.url,
        base: change.source.branch,
        from: change.source.commit,
        branch: p.branch,
        files: change.files.map(f => ({ path: f.path, content: f.after })),
        title: p.title,
        body: p.body,
        author: o.author,
      }),
  };
}
