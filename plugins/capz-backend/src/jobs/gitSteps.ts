/**
 * The Git side of a job in Git mode (capz-common's jobs/gitMode.ts, docs/flux-facts.md#job-git-mode): the change
 * proposed to the repository a Flux Kustomization applies from, what that Kustomization's source holds now, whether
 * Flux has applied it, and the generations noted around Flux's first apply.
 */
import {
  apiGroupOf,
  canonicalJson,
  FLUX_KUSTOMIZATION_API_VERSION,
  JOB_ANNOTATION,
  kustomizeBuild,
  manifestForGit,
  planManifestAdd,
  planManifestReplace,
  type FluxKustomizationRef,
  type JobResult,
  type KubeObject,
  type LiveCondition,
  type ObjectRef,
  type PlannedAction,
  type RepoFiles,
} from '@capz-backstage/plugin-capz-common';
import {
  urlWithoutCredentials,
  type GitIdentity,
} from '@capz-backstage/plugin-capz-node';
import { createHash } from 'node:crypto';
import type { JobClient } from '../cluster/clientViews';
import {
  resolveFluxSource,
  type FluxObjectReader,
  type FluxSource,
} from '../git/fluxSource';
import type { GitOpsRepository } from '../git/GitOpsRepository';

/** What a job needs to work through Git: the repositories (with the integrations' credentials) and who commits. */
export interface JobGit {
  repository: GitOpsRepository;
  author: GitIdentity;
}

/** What the Git steps see of their step's context. */
export interface GitStepContext {
  jobId: string;
  client: JobClient;
  git?: JobGit;
  result?(): JobResult | undefined;
  saveResult?(r: JobResult): Promise<void>;
}

/** A failure of a Git step, in the words the job page shows. */
export class GitStepError extends Error {}

const describeRef = (r: ObjectRef) =>
  `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
const keyOf = (r: ObjectRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;
const generationOf = (o: KubeObject | undefined) =>
  (o?.metadata as { generation?: number } | undefined)?.generation;
/** sha256 of the object as Git holds it: what Flux's apply could change. */
const gitDigest = (o: KubeObject) =>
  createHash('sha256')
    .update(canonicalJson(manifestForGit(o as never)))
    .digest('hex');

async function save(ctx: GitStepContext, r: JobResult): Promise<void> {
  if (!ctx.saveResult)
    throw new Error('this step cannot record into the job (no saveResult)');
  await ctx.saveResult(r);
}

const GIT_REPOSITORY_API_VERSION = 'source.toolkit.fluxcd.io/v1';

function fluxReader(client: JobClient): FluxObjectReader {
  return {
    kustomization: (namespace, name) =>
      client.get({
        apiVersion: FLUX_KUSTOMIZATION_API_VERSION,
        kind: 'Kustomization',
        namespace,
        name,
      }) as never,
    gitRepository: (namespace, name) =>
      client.get({
        apiVersion: GIT_REPOSITORY_API_VERSION,
        kind: 'GitRepository',
        namespace,
        name,
      }) as never,
  };
}

/** The files of a source's path at its commit, kept for the last few commits (a wait re-checks every few seconds). */
const filesCache = new Map<string, Promise<RepoFiles>>();
const FILES_CACHE_SIZE = 16;

function filesAt(git: JobGit, s: FluxSource): Promise<RepoFiles> {
  const key = `${s.url}\n${s.branch}\n${s.path}\n${s.commit}`;
  let hit = filesCache.get(key);
  if (!hit) {
    hit = git.repository.readFiles({
      url: s.url,
      branch: s.branch,
      path: s.path,
      revision: s.commit,
    });
    hit.catch(() => filesCache.delete(key));
    filesCache.set(key, hit);
    while (filesCache.size > FILES_CACHE_SIZE)
      filesCache.delete(filesCache.keys().next().value!);
  }
  return hit;
}

/** Which of `present` the source's build lacks and which of `absent` it still holds. */
function sourceDifference(
  files: RepoFiles,
  s: FluxSource,
  present: readonly ObjectRef[],
  absent: readonly ObjectRef[],
): { lacks: ObjectRef[]; holds: ObjectRef[] } {
  const built = kustomizeBuild(files, s.spec).resources;
  const has = (r: ObjectRef) =>
    built.some(
      b =>
        b.group === apiGroupOf(r.apiVersion) &&
        b.kind === r.kind &&
        b.name === r.name &&
        (b.namespace ?? 'default') === r.namespace,
    );
  return {
    lacks: present.filter(r => !has(r)),
    holds: absent.filter(has),
  };
}

const needGit = (ctx: GitStepContext): JobGit => {
  if (!ctx.git)
    throw new GitStepError(
      'the backend proposes no changes to Git (capz.gitops.pullRequests is false): make the change in Git by hand, merge it, then retry the job',
    );
  return ctx.git;
};

async function source(
  ctx: GitStepContext,
  k: FluxKustomizationRef,
): Promise<FluxSource> {
  const r = await resolveFluxSource(fluxReader(ctx.client), k, 'source');
  if (!r.ok) throw new GitStepError(r.reason);
  return r.source;
}

/** Evaluates the Git-mode conditions; undefined for any other condition. */
export async function evaluateGitCondition(
  c: LiveCondition,
  ctx: GitStepContext,
): Promise<{ holds: boolean; observed: string } | undefined> {
  if (c.type === 'flux-source-holds') {
    let s: FluxSource;
    try {
      s = await source(ctx, c.kustomization);
    } catch (e) {
      if (e instanceof GitStepError)
        return { holds: false, observed: e.message };
      throw e;
    }
    let files: RepoFiles;
    try {
      files = await filesAt(needGit(ctx), s);
    } catch (e) {
      return {
        holds: false,
        observed: `cannot read ${s.path || '/'} of ${urlWithoutCredentials(
          s.url,
        )} at ${s.revision}: ${(e as Error).message}`,
      };
    }
    const d = sourceDifference(files, s, c.present, c.absent);
    const at = `GitRepository ${s.gitRepository.namespace}/${s.gitRepository.name} at ${s.revision}`;
    if (!d.lacks.length && !d.holds.length)
      return { holds: true, observed: `${at} holds the change` };
    const parts = [
      ...(d.holds.length
        ? [`still holds ${d.holds.map(describeRef).join(', ')}`]
        : []),
      ...(d.lacks.length
        ? [`lacks ${d.lacks.map(describeRef).join(', ')}`]
        : []),
    ];
    return { holds: false, observed: `${at} ${parts.join(' and ')}` };
  }
  if (c.type === 'flux-applied') {
    const name = `Kustomization ${c.kustomization.namespace}/${c.kustomization.name}`;
    let s: FluxSource;
    try {
      s = await source(ctx, c.kustomization);
    } catch (e) {
      if (e instanceof GitStepError)
        return { holds: false, observed: e.message };
      throw e;
    }
    const k = (await fluxReader(ctx.client).kustomization(
      c.kustomization.namespace,
      c.kustomization.name,
    )) as KubeObject | undefined;
    if (!k) return { holds: false, observed: `${name}: absent` };
    const spec = (k.spec ?? {}) as { suspend?: unknown };
    const status = (k.status ?? {}) as {
      observedGeneration?: number;
      lastAppliedRevision?: string;
      conditions?: Array<{ type?: string; status?: string; message?: string }>;
    };
    const ready = status.conditions?.find(x => x.type === 'Ready');
    const generation = generationOf(k);
    let why: string | undefined;
    if (spec.suspend === true) why = 'suspended';
    else if (
      generation !== undefined &&
      (status.observedGeneration ?? -1) < generation
    )
      why = `has not reconciled generation ${generation} yet`;
    else if (ready?.status !== 'True')
      why = `Ready=${ready?.status ?? 'unknown'}${
        ready?.message ? ` (${ready.message})` : ''
      }`;
    else if (status.lastAppliedRevision !== s.revision)
      why = `last applied ${
        status.lastAppliedRevision ?? 'nothing'
      }, its source holds ${s.revision}`;
    return why
      ? { holds: false, observed: `${name}: ${why}` }
      : {
          holds: true,
          observed: `${name}: Ready, applied ${s.revision}`,
        };
  }
  if (c.type === 'generation-unchanged') {
    const o = await ctx.client.get(c.ref);
    if (!o) return { holds: false, observed: `${describeRef(c.ref)}: absent` };
    const result = ctx.result?.();
    const noted = result?.generations?.[keyOf(c.ref)];
    const now = generationOf(o);
    if (noted === undefined)
      return {
        holds: false,
        observed: `${describeRef(c.ref)}: no generation was noted`,
      };
    const observed = `${describeRef(
      c.ref,
    )}: generation ${now}, noted ${noted} before Flux's apply`;
    if (now === noted) return { holds: true, observed };
    // A controller may bump the generation in the meantime through a field Git does not hold (CAPI's
    // spec.providerIDList as nodes come and go, docs/flux-facts.md#git-export): what counts is Git's part.
    const digest = result?.gitDigests?.[keyOf(c.ref)];
    if (digest !== undefined && digest === gitDigest(o))
      return {
        holds: true,
        observed: `${observed}; every field Git holds is as noted (a controller changed the rest)`,
      };
    return { holds: false, observed };
  }
  return undefined;
}

/** Runs a Git-mode action; undefined for any other action. Returns the log line. */
export async function runGitAction(
  a: PlannedAction,
  ctx: GitStepContext,
): Promise<string | undefined> {
  if (a.action === 'record-generations') {
    // The first noting wins: a step run again after a crash may come after the merge and Flux's apply, and noting
    // then would take the applied objects for the baseline that verify-gitops compares them with.
    const earlier = ctx.result?.();
    const generations: Record<string, number> = {
      ...earlier?.generations,
    };
    const gitDigests: Record<string, string> = { ...earlier?.gitDigests };
    for (const r of a.refs) {
      const o = await ctx.client.get(r);
      const g = generationOf(o);
      if (!o || g === undefined)
        throw new GitStepError(`${describeRef(r)} is absent`);
      if (generations[keyOf(r)] !== undefined) continue;
      generations[keyOf(r)] = g;
      gitDigests[keyOf(r)] = gitDigest(o);
    }
    await save(ctx, { ...earlier, generations, gitDigests });
    return `noted the generations of ${a.refs.map(describeRef).join(', ')}`;
  }
  if (a.action !== 'propose-git-change') return undefined;
  const git = needGit(ctx);
  const s = await source(ctx, a.kustomization);
  const repo = urlWithoutCredentials(s.url);
  let files: RepoFiles;
  try {
    files = await filesAt(git, s);
  } catch (e) {
    throw new GitStepError(
      `cannot read ${s.path || '/'} of ${repo} at ${s.revision}: ${
        (e as Error).message
      }`,
    );
  }
  // Made before (the step resumed after its proposal was merged), or by hand: nothing to propose.
  const d = sourceDifference(files, s, a.add, a.remove);
  if (!d.lacks.length && !d.holds.length)
    return `${repo} already holds the change at ${s.revision}: nothing proposed`;
  const documents: KubeObject[] = [];
  for (const r of a.add) {
    const o = await ctx.client.get(r);
    if (!o) throw new GitStepError(`${describeRef(r)} is absent`);
    documents.push(manifestForGit(o as never));
  }
  const asGitRef = (r: ObjectRef) => ({ ...r, namespace: r.namespace ?? '' });
  // Only what the source holds is removed (an object Flux's labels name may never have been in these files); the new
  // manifests take the place of the planned document, else of the old Cluster's, else of the first removed. With
  // nothing to remove (an adoption), they go beside the planned Cluster.
  const remove = d.holds;
  const replace = a.replace
    ? remove.find(r => keyOf(r) === keyOf(a.replace!)) ??
      remove.find(r => r.kind === 'Cluster') ??
      remove[0]
    : undefined;
  let edit: ReturnType<typeof planManifestReplace> | undefined;
  if (a.beside && !a.remove.length)
    edit = planManifestAdd({
      files,
      spec: s.spec,
      beside: asGitRef(a.beside),
      name: a.add.find(r => r.kind === 'Cluster')?.name ?? a.add[0].name,
      documents,
    });
  else if (replace)
    edit = planManifestReplace({
      files,
      spec: s.spec,
      remove: remove.map(asGitRef),
      replace: asGitRef(replace),
      documents,
    });
  if (!edit)
    throw new GitStepError(
      `${repo} at ${s.revision} holds none of ${a.remove
        .map(describeRef)
        .join(
          ', ',
        )}: where the new manifests belong is yours to choose. Add ${d.lacks
        .map(describeRef)
        .join(
          ', ',
        )} there yourself and merge it, then retry the job: it goes on once Flux's source holds them.`,
    );
  if (edit.byHand.length)
    throw new GitStepError(
      `the change cannot be written into ${repo} as it is: ${edit.byHand
        .map(b => b.message)
        .join(
          '; ',
        )}. Make it in Git yourself and merge it, then retry the job: it goes on once Flux's source holds it.`,
    );
  const k = `${a.kustomization.namespace}/${a.kustomization.name}`;
  const body = [
    `The job ${ctx.jobId} proposes this change: ${a.description}.`,
    '',
    a.replace
      ? `The cluster already is what these files say: the job wrote it live while Flux's Kustomization ${k} was suspended, so merging changes nothing in the cluster or in Azure. Until this is merged the Kustomization stays suspended; the job resumes it once Flux's GitRepository holds the merge, and checks that Flux's first apply changes nothing.`
      : `The cluster already is what these files say: the job created these objects live, so merging changes nothing in the cluster or in Azure; Flux's Kustomization ${k} then applies them from Git as it applies the namespace's other clusters. The job waits for the merge and checks that Flux's first apply changes nothing.`,
    '',
    'Files:',
    ...edit.files.map(
      f => `- ${f.path}${f.after === null ? ' (removed)' : ''}`,
    ),
    ...(edit.notes.length
      ? ['', 'Notes:', ...edit.notes.map(n => `- ${n}`)]
      : []),
  ].join('\n');
  const proposed = await git.repository.proposeChange({
    url: s.url,
    base: s.branch,
    from: s.commit,
    branch: a.branch,
    files: edit.files.map(f => ({ path: f.path, content: f.after })),
    title: a.title,
    body,
    author: git.author,
  });
  await save(ctx, {
    ...ctx.result?.(),
    gitProposal: {
      url: repo,
      base: s.branch,
      branch: proposed.branch,
      commit: proposed.commit,
      ...(proposed.pullRequest ? { pullRequest: proposed.pullRequest } : {}),
      files: edit.files.map(f => ({ path: f.path, diff: f.diff })),
    },
  });
  return proposed.pullRequest
    ? `opened pull request #${proposed.pullRequest.number} (${proposed.pullRequest.url}) from branch ${proposed.branch} into ${s.branch} of ${repo}`
    : `pushed branch ${proposed.branch} to ${repo}: open its pull request into ${s.branch} and merge it`;
}

/**
 * Resumes the Kustomization a cancelled job suspended (capz-common's gitopsResumeOnCancel says when that is safe),
 * with the same patch as `resume-gitops`: only while it still carries this job's mark, so one that someone else
 * suspended or already resumed is left as it is, and only at the version read (a write in between answers 409).
 * `not-suspended`: it carries no job's mark and is not suspended, so there is nothing to resume.
 */
export async function resumeSuspendedBy(
  client: JobClient,
  jobId: string,
  ref: ObjectRef,
): Promise<'resumed' | 'not-suspended' | 'not-ours' | 'absent'> {
  const live = await client.get(ref);
  if (!live) return 'absent';
  const meta = live.metadata as {
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  if (meta.annotations?.[JOB_ANNOTATION] !== jobId)
    // Unmarked and running: resumed already, by this cancel before an interruption kept its record, or by someone.
    return !meta.annotations?.[JOB_ANNOTATION] &&
      (live.spec as { suspend?: unknown } | undefined)?.suspend !== true
      ? 'not-suspended'
      : 'not-ours';
  const patched = await client.mergePatch(ref, {
    metadata: {
      resourceVersion: meta.resourceVersion,
      annotations: { [JOB_ANNOTATION]: null },
    },
    spec: { suspend: null },
  });
  return patched ? 'resumed' : 'absent';
}
