/**
 * A job in Git mode (docs/flux-facts.md#job-git-mode): when one Flux Kustomization applies the objects a job deletes
 * and re-creates, the job suspends it first (so that Flux neither re-creates what the job deletes nor puts back what
 * it changes), does its work, proposes the repository change that makes Git say what the job left, waits until Flux's
 * source holds it (a person merges it), resumes the Kustomization and checks that Flux's first apply changed nothing.
 * Pure: no I/O.
 */
import { appliedBy, describeAppliedBy } from '../objects/appliedBy';
import type { ObservedObject } from '../objects/types';
import { FLUX_KUSTOMIZATION_NAME_LABEL, JOB_ANNOTATION } from '../vocabulary';
import {
  describeRef,
  fail,
  jobAnnotations,
  nameOf,
  warn,
  when,
} from './helpers';
import type {
  FluxKustomizationRef,
  JobStepStatus,
  ObjectRef,
  PlannedCondition,
  PreflightCheck,
  StepPlan,
} from './types';

/** The Flux Kustomization API the jobs patch (docs/flux-facts.md#flux-suspend). @public */
export const FLUX_KUSTOMIZATION_API_VERSION = 'kustomize.toolkit.fluxcd.io/v1';

/** A Kustomization as an object reference. @public */
export const kustomizationRef = (k: FluxKustomizationRef): ObjectRef => ({
  apiVersion: FLUX_KUSTOMIZATION_API_VERSION,
  kind: 'Kustomization',
  namespace: k.namespace,
  name: k.name,
});

/** How long a job waits for a person to merge its pull request before the step fails (and can be retried). @public */
export const MERGE_WAIT_SECONDS = 7 * 24 * 3600;

/** The objects one Flux Kustomization applies, or why the job cannot work through Git. */
export type GitModeFinding =
  | { kind: 'none' }
  | {
      kind: 'flux';
      kustomization: FluxKustomizationRef;
      /** The objects it applies, in the order given. */
      applied: ObservedObject[];
    }
  | { kind: 'refused'; check: PreflightCheck };

/**
 * Who applies `objects`: nobody (`none`), one Flux Kustomization (`flux`: the job can run in Git mode), or anything
 * else that reconciles (Argo CD, a HelmRelease, two Kustomizations, a Kustomization only a field manager names), which
 * refuses the job with the applier named (docs/flux-facts.md#applied-by-rule).
 */
export function findGitMode(
  what: string,
  objects: ReadonlyArray<ObservedObject | undefined>,
  /** The Kustomizations the objects name, as the watch cache has them: where their sources live. */
  kustomizations: readonly ObservedObject[] = [],
): GitModeFinding {
  const title = 'Who applies the cluster';
  const found = new Map<string, FluxKustomizationRef>();
  const applied: ObservedObject[] = [];
  for (const o of objects) {
    if (!o) continue;
    const a = appliedBy(o);
    if (!a?.reconciles) continue;
    const which = `${o.kind} ${o.metadata?.namespace ?? ''}/${nameOf(o)}`;
    if (a.tool !== 'flux-kustomization' || !a.source?.namespace)
      return {
        kind: 'refused',
        check: fail(
          'gitops',
          title,
          `${describeAppliedBy(
            a,
          )} applies ${which} of ${what}: the job's writes would be put back, and what it deletes created again, at its next run (two managers of one AKS cluster). Only a Flux Kustomization that names itself on the objects can be suspended and followed through Git by the job.`,
          `Take the cluster's objects out of ${describeAppliedBy(
            a,
          )} first (remove them from Git with pruning off, so that the controller leaves them in place: docs/flux-facts.md#flux-prune), then retry; put what the job leaves in Git afterwards.`,
        ),
      };
    found.set(`${a.source.namespace}/${a.source.name}`, {
      namespace: a.source.namespace,
      name: a.source.name,
    });
    applied.push(o);
  }
  if (!found.size) return { kind: 'none' };
  if (found.size > 1)
    return {
      kind: 'refused',
      check: fail(
        'gitops',
        title,
        `The objects of ${what} are applied by ${
          found.size
        } Flux Kustomizations (${[...found.keys()].join(
          ', ',
        )}): the job suspends and follows one.`,
        'Keep the cluster in one Kustomization, then retry.',
      ),
    };
  const [kustomization] = found.values();
  const live = kustomizations.find(
    o =>
      o.kind === 'Kustomization' &&
      o.metadata?.namespace === kustomization.namespace &&
      o.metadata?.name === kustomization.name,
  );
  const sourceNamespace = (
    live?.spec as { sourceRef?: { namespace?: string } } | undefined
  )?.sourceRef?.namespace;
  return {
    kind: 'flux',
    kustomization: sourceNamespace
      ? { ...kustomization, sourceNamespace }
      : kustomization,
    applied,
  };
}

/** Where a cluster created in a namespace goes in Git: nowhere, beside a cluster one Kustomization applies, or by hand. */
export type GitNamespaceFinding =
  | { kind: 'none' }
  | {
      kind: 'flux';
      kustomization: FluxKustomizationRef;
      /** The Clusters of the namespace it applies, by name. */
      clusters: ObservedObject[];
    }
  | { kind: 'by-hand'; check: PreflightCheck };

/**
 * Whether Git holds the clusters of a namespace (an adoption's target): the Clusters there that a GitOps controller
 * applies. One Flux Kustomization: a new cluster's objects are proposed beside theirs. Anything else (Argo CD, Helm,
 * two Kustomizations): the job leaves Git to the user and says so (docs/flux-facts.md#git-add-beside).
 */
export function findGitNamespace(
  namespace: string,
  objects: readonly ObservedObject[],
  kustomizations: readonly ObservedObject[] = [],
): GitNamespaceFinding {
  const title = "Git holds the namespace's clusters";
  const clusters = objects
    .filter(
      o =>
        o.kind === 'Cluster' &&
        (o.apiVersion ?? '').startsWith('cluster.x-k8s.io/') &&
        o.metadata?.namespace === namespace,
    )
    .map(o => ({ o, a: appliedBy(o) }))
    .filter(x => x.a?.reconciles)
    .sort((x, y) => nameOf(x.o).localeCompare(nameOf(y.o)));
  if (!clusters.length) return { kind: 'none' };
  const git = findGitMode(
    `namespace ${namespace}`,
    clusters.map(x => x.o),
    kustomizations,
  );
  if (git.kind === 'flux')
    return {
      kind: 'flux',
      kustomization: git.kustomization,
      clusters: git.applied,
    };
  const other = clusters.find(
    x => x.a!.tool !== 'flux-kustomization' || !x.a!.source?.namespace,
  );
  const appliers = new Set(
    clusters.map(x => `${x.a!.source?.namespace}/${x.a!.source?.name}`),
  );
  const who = other
    ? `${describeAppliedBy(other.a!)} applies Cluster ${nameOf(
        other.o,
      )} of namespace ${namespace}`
    : `The clusters of namespace ${namespace} are applied by ${
        appliers.size
      } Flux Kustomizations (${[...appliers].sort().join(', ')})`;
  return {
    kind: 'by-hand',
    check: warn(
      'gitops-namespace',
      title,
      `${who}: the job does not propose the adopted cluster to Git (it proposes only beside the clusters of one Flux Kustomization). The cluster runs as the job leaves it; nothing applies it from Git.`,
      "Once the job is done, add the cluster's Cluster, AzureASOManagedCluster, AzureASOManagedControlPlane, MachinePools and AzureASOManagedMachinePools to the repository beside the others, as the cluster page's YAML shows them.",
    ),
  };
}

/** The preflight's words for an adoption into a namespace whose clusters one Kustomization applies: a warning. */
export function gitNamespaceCheck(
  namespace: string,
  k: FluxKustomizationRef,
  clusters: readonly ObservedObject[],
): PreflightCheck {
  return warn(
    'gitops-namespace',
    "Git holds the namespace's clusters",
    `Flux's Kustomization ${k.namespace}/${k.name} applies ${
      clusters.length
    } cluster${
      clusters.length === 1 ? '' : 's'
    } of namespace ${namespace} (${clusters
      .map(nameOf)
      .join(
        ', ',
      )}). After the adoption the job proposes the new cluster's objects to the repository it applies from, beside Cluster ${nameOf(
      clusters[0],
    )}, waits for the pull request to be merged, and checks that Flux's first apply changes nothing. The Kustomization is not suspended: it never changes or prunes objects it did not apply.`,
    `Merge the job's pull request when the job page shows it; \`flux reconcile source git <name> -n ${
      k.sourceNamespace ?? k.namespace
    }\` makes Flux fetch the merge at once instead of at its interval.`,
  );
}

/** The preflight's words for a job that will run in Git mode: a warning, never a silent pass. */
export function gitModeCheck(
  what: string,
  k: FluxKustomizationRef,
  applied: readonly ObservedObject[],
): PreflightCheck {
  return warn(
    'gitops',
    'Who applies the cluster',
    `Flux's Kustomization ${k.namespace}/${k.name} applies ${
      applied.length
    } object${applied.length === 1 ? '' : 's'} of ${what} (${applied
      .map(o => `${o.kind} ${nameOf(o)}`)
      .join(
        ', ',
      )}). The job runs through Git: it suspends the Kustomization for its whole run (nothing else it applies is applied meanwhile), migrates, then opens a pull request that replaces the old manifests with the new ones, waits for it to be merged, and resumes the Kustomization.`,
    `Merge the job's pull request when the job page shows it; \`flux reconcile source git <name> -n ${
      k.sourceNamespace ?? k.namespace
    }\` makes Flux fetch the merge at once instead of at its interval.`,
  );
}

/** The grants of rbac/gitops.yaml a Git-mode step asks for (SelfSubjectAccessReview) before it writes anything. */
function gitopsGrants(
  k: FluxKustomizationRef,
  patch: boolean,
): PlannedCondition[] {
  return (
    [
      ['get', 'kustomize.toolkit.fluxcd.io', 'kustomizations', k.namespace],
      ...(patch
        ? [
            [
              'patch',
              'kustomize.toolkit.fluxcd.io',
              'kustomizations',
              k.namespace,
            ] as const,
          ]
        : []),
      // The source may live in another namespace (spec.sourceRef.namespace): asked where it is.
      [
        'get',
        'source.toolkit.fluxcd.io',
        'gitrepositories',
        k.sourceNamespace ?? k.namespace,
      ],
    ] as const
  ).map(
    ([verb, group, resource, namespace]): PlannedCondition => ({
      type: 'allowed',
      verb,
      group,
      resource,
      namespace,
      description: `the backend may ${verb} ${resource}.${group} in ${namespace} (rbac/gitops.yaml)`,
    }),
  );
}

const kustomizationWords = (k: FluxKustomizationRef) =>
  `Flux's Kustomization ${k.namespace}/${k.name}`;

function sourceHoldsCondition(
  k: FluxKustomizationRef,
  add: ObjectRef[],
  remove: ObjectRef[],
): PlannedCondition {
  return {
    type: 'flux-source-holds',
    kustomization: k,
    present: add,
    absent: remove,
    description: `the source of ${kustomizationWords(
      k,
    )} holds the merged change: ${add.map(describeRef).join(', ')} written${
      remove.length ? `, ${remove.map(describeRef).join(', ')} gone` : ''
    }`,
  };
}

function waitMergeStep(
  sourceHolds: PlannedCondition,
  during: string,
): StepPlan {
  return {
    id: 'wait-merge',
    title: 'Wait for the pull request to be merged',
    description: `Waits until a person merges the pull request and Flux's GitRepository has fetched the merge (at its interval; \`flux reconcile source git\` fetches it at once). ${during} (docs/flux-facts.md#job-git-mode).`,
    preconditions: [],
    actions: [],
    waitFor: [sourceHolds],
    timeoutSeconds: MERGE_WAIT_SECONDS,
  };
}

function verifyGitopsStep(
  k: FluxKustomizationRef,
  add: ObjectRef[],
  remove: ObjectRef[],
): StepPlan {
  return {
    id: 'verify-gitops',
    title: "Verify Flux's first apply",
    description: `Flux's first apply after the merge changed no new object's spec (its metadata.generation is the one noted before), marked each as its own${
      remove.length ? ', and brought back none of the old ones' : ''
    } (docs/flux-facts.md#job-git-mode).`,
    preconditions: [],
    actions: [],
    waitFor: [
      ...add.flatMap((r): PlannedCondition[] => [
        {
          type: 'generation-unchanged',
          ref: r,
          description: `${describeRef(r)} has the generation noted before`,
        },
        when.label(r, FLUX_KUSTOMIZATION_NAME_LABEL, k.name),
      ]),
      ...remove.map(r => when.absent(r)),
    ],
    timeoutSeconds: 120,
  };
}

/** The steps around a job in Git mode: `before` its own steps, `after` them. */
export function gitModeSteps(o: {
  kustomization: FluxKustomizationRef;
  /** The applied objects the job deleted (their documents are removed). */
  remove: ObjectRef[];
  /** The document replaced in place by the new manifests (one of `remove`, usually the old Cluster). */
  replace: ObjectRef;
  /** The live objects the repository should hold afterwards. */
  add: ObjectRef[];
  branch: string;
  title: string;
}): { before: StepPlan[]; after: StepPlan[] } {
  const k = o.kustomization;
  const kref = kustomizationRef(k);
  const kname = `Flux's Kustomization ${k.namespace}/${k.name}`;
  const suspended = when.field(
    kref,
    ['spec', 'suspend'],
    true,
    `${kname} is suspended`,
  );
  const notSuspended = (description: string): PlannedCondition => ({
    type: 'field-not',
    ref: kref,
    path: ['spec', 'suspend'],
    value: true,
    description,
  });
  const sourceHolds = sourceHoldsCondition(k, o.add, o.remove);
  const before: StepPlan[] = [
    {
      id: 'suspend-gitops',
      title: `Suspend ${kname}`,
      description: `Sets spec.suspend=true on the Kustomization that applies the cluster's objects, so that Flux neither re-creates what the job deletes nor puts back what it changes while the repository still holds the old manifests; a suspended Kustomization applies and prunes nothing (docs/flux-facts.md#flux-suspend, docs/flux-facts.md#job-git-mode). One already suspended by someone else is not taken over.`,
      // The grants of rbac/gitops.yaml, asked before the job's first write: a missing one changes nothing.
      preconditions: [
        ...gitopsGrants(k, true),
        when.exists(kref),
        // A run killed between the patch and its record finds the Kustomization suspended by itself: accepted.
        {
          ...notSuspended(`${kname} is not suspended by someone else`),
          orOurs: true,
        } as PlannedCondition,
      ],
      actions: [
        {
          action: 'merge-patch',
          ref: kref,
          patch: {
            metadata: { annotations: jobAnnotations() },
            spec: { suspend: true },
          },
          description: `flux suspend kustomization ${k.name} -n ${k.namespace}`,
        },
      ],
      waitFor: [suspended],
      timeoutSeconds: 60,
      invariants: [
        { ...suspended, description: `${kname} is still suspended` },
      ],
      invariantsUntil: 'resume-gitops',
    },
  ];
  const after: StepPlan[] = [
    {
      id: 'propose-to-git',
      title: 'Propose the new manifests to Git',
      description: `Opens a pull request on the repository ${kname} applies from: the old objects' documents removed, the old ${o.replace.kind}'s replaced in place by the new objects as the cluster has them now, without status and the fields controllers write (docs/flux-facts.md#git-export, docs/flux-facts.md#job-git-mode).`,
      preconditions: o.add.map(r => when.exists(r)),
      actions: [
        {
          action: 'propose-git-change',
          kustomization: k,
          remove: o.remove,
          replace: o.replace,
          add: o.add,
          branch: o.branch,
          title: o.title,
          description: `Push branch ${o.branch} and open its pull request: ${o.title}`,
        },
      ],
      waitFor: [],
      timeoutSeconds: 300,
    },
    waitMergeStep(sourceHolds, 'The Kustomization stays suspended meanwhile'),
    {
      id: 'resume-gitops',
      title: `Resume ${kname}`,
      description: `Notes the new objects' generations, removes spec.suspend, and waits until Flux has applied the merged revision and is Ready (docs/flux-facts.md#flux-status).`,
      preconditions: [sourceHolds],
      actions: [
        {
          action: 'record-generations',
          refs: o.add,
          description: `Note the metadata.generation of ${o.add.length} new objects`,
        },
        {
          action: 'merge-patch',
          ref: kref,
          patch: {
            metadata: { annotations: { [JOB_ANNOTATION]: null } },
            spec: { suspend: null },
          },
          description: `flux resume kustomization ${k.name} -n ${k.namespace} --wait=false`,
        },
      ],
      waitFor: [
        notSuspended(`${kname} is not suspended`),
        {
          type: 'flux-applied',
          kustomization: k,
          description: `${kname} has applied the revision its source holds and is Ready`,
        },
      ],
      timeoutSeconds: 600,
    },
    verifyGitopsStep(k, o.add, o.remove),
  ];
  return { before, after };
}

/**
 * The steps after a job that creates a cluster's objects in a namespace whose clusters one Flux Kustomization applies
 * (an adoption): nothing is suspended (Flux neither prunes nor changes objects it never applied,
 * docs/flux-facts.md#flux-prune); the new objects are proposed to the repository beside `beside`, a cluster it
 * applies there, and once merged Flux's first apply must change nothing and mark them as its own.
 */
export function gitAddSteps(o: {
  kustomization: FluxKustomizationRef;
  /** A Cluster the Kustomization applies from the repository: the new files go beside its own. */
  beside: ObjectRef;
  /** The live objects the repository should hold. */
  add: ObjectRef[];
  branch: string;
  title: string;
}): StepPlan[] {
  const k = o.kustomization;
  const kname = kustomizationWords(k);
  return [
    {
      id: 'propose-to-git',
      title: 'Propose the new manifests to Git',
      description: `Opens a pull request on the repository ${kname} applies from that adds the cluster's objects as the cluster has them now, without status and the fields controllers write, beside ${describeRef(
        o.beside,
      )} in the same layout (docs/flux-facts.md#git-export, docs/flux-facts.md#git-add-beside), and notes their generations.`,
      preconditions: [
        ...gitopsGrants(k, false),
        ...o.add.map(r => when.exists(r)),
      ],
      actions: [
        {
          action: 'propose-git-change',
          kustomization: k,
          remove: [],
          beside: o.beside,
          add: o.add,
          branch: o.branch,
          title: o.title,
          description: `Push branch ${o.branch} and open its pull request: ${o.title}`,
        },
        {
          action: 'record-generations',
          refs: o.add,
          description: `Note the metadata.generation of ${o.add.length} new objects`,
        },
      ],
      waitFor: [],
      timeoutSeconds: 300,
    },
    waitMergeStep(
      sourceHoldsCondition(k, o.add, []),
      `Meanwhile ${kname} goes on applying what it applied before; the cluster runs as the job left it`,
    ),
    {
      id: 'wait-flux-apply',
      title: "Wait for Flux's apply",
      description: `Waits until ${kname} has applied the merged revision and is Ready (docs/flux-facts.md#flux-status); it applies a new revision of its source as soon as the source has fetched it.`,
      preconditions: [],
      actions: [],
      waitFor: [
        {
          type: 'flux-applied',
          kustomization: k,
          description: `${kname} has applied the revision its source holds and is Ready`,
        },
      ],
      timeoutSeconds: 600,
    },
    verifyGitopsStep(k, o.add, []),
  ];
}

/** Why a cancel may resume the Kustomization the job suspended: the repository and the live objects agree. @public */
export type GitopsResumeReason =
  /** None of the job's own steps had started: the old manifests still describe the old objects. */
  | 'untouched'
  /** The merge is in Flux's source: the repository holds what the job left. */
  | 'merged';

/**
 * The Kustomization a cancel of this job resumes, and why that is safe; undefined when it must stay suspended (or
 * the job never suspended one). Between the job's first own step and the merge, Git still holds the old manifests
 * while the cluster no longer matches them: resumed then, Flux would re-create the old objects the job deleted or put
 * back what it changed (docs/flux-facts.md#job-git-mode), so the cancel leaves it suspended and says why.
 * @public
 */
export function gitopsResumeOnCancel(job: {
  steps: readonly JobStepStatus[];
  plan?: readonly StepPlan[];
}): { kustomization: ObjectRef; why: GitopsResumeReason } | undefined {
  const suspend = job.plan?.find(s => s.id === 'suspend-gitops');
  const patch = suspend?.actions[0];
  if (!patch || patch.action !== 'merge-patch') return undefined;
  const status = (id: string) => job.steps.find(s => s.id === id);
  const touched = (s: JobStepStatus | undefined) =>
    !!s && (s.state !== 'pending' || s.attempts > 0);
  // Not started: nothing was patched. Resumed already: nothing to give back.
  if (!touched(status('suspend-gitops'))) return undefined;
  if (status('resume-gitops')?.state === 'succeeded') return undefined;
  if (status('wait-merge')?.state === 'succeeded')
    return { kustomization: patch.ref, why: 'merged' };
  const ownStepsUntouched = job.steps.every(
    s => s.id === 'suspend-gitops' || !touched(s),
  );
  return ownStepsUntouched
    ? { kustomization: patch.ref, why: 'untouched' }
    : undefined;
}
