/**
 * verify-gitops's generation check (docs/flux-facts.md#job-git-mode): Flux's first apply after the resume must change
 * nothing Git holds. A generation bumped meanwhile by a controller through a field Git does not hold (CAPI's
 * spec.providerIDList as a node joins) still passes; a change of a field Git holds does not.
 */
import type {
  JobResult,
  KubeObject,
  LiveCondition,
  ObjectRef,
} from '@capz-backstage/plugin-capz-common';
import type { JobClient } from '../cluster/clientViews';
import { evaluateGitCondition, runGitAction } from './gitSteps';

const ref: ObjectRef = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachinePool',
  namespace: 'team-a',
  name: 'c1-system',
};

const pool = (
  generation: number,
  spec: Record<string, unknown>,
  labels: Record<string, string> = {},
): KubeObject => ({
  apiVersion: ref.apiVersion,
  kind: ref.kind,
  metadata: {
    name: ref.name,
    namespace: ref.namespace,
    generation,
    labels,
  } as KubeObject['metadata'],
  spec,
});

const template = {
  spec: {
    clusterName: 'c1',
    version: 'v1.33.2',
    bootstrap: { dataSecretName: '' },
    infrastructureRef: {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'AzureASOManagedMachinePool',
      name: 'c1-system',
    },
  },
};

/** One live object the test replaces, and the job's result as the steps save it. */
function world(initial: KubeObject) {
  let live = initial;
  let result: JobResult | undefined;
  return {
    set: (o: KubeObject) => {
      live = o;
    },
    ctx: {
      jobId: 'j1',
      client: { get: async () => live } as unknown as JobClient,
      result: () => result,
      saveResult: async (r: JobResult) => {
        result = r;
      },
    },
  };
}

const unchanged: LiveCondition = {
  type: 'generation-unchanged',
  ref,
};

describe("verify-gitops's generation check", () => {
  it('passes when Flux changed nothing, or when only a field Git does not hold moved; fails when a Git-held field changed', async () => {
    const before = pool(3, {
      clusterName: 'c1',
      replicas: 1,
      template,
    });
    const w = world(before);
    await runGitAction(
      {
        action: 'record-generations',
        refs: [ref],
        description: 'note',
      },
      w.ctx,
    );

    // Flux's apply marked it as its own: labels do not bump the generation.
    w.set(
      pool(3, before.spec as Record<string, unknown>, {
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
      }),
    );
    expect(await evaluateGitCondition(unchanged, w.ctx)).toEqual({
      holds: true,
      observed:
        "MachinePool team-a/c1-system: generation 3, noted 3 before Flux's apply",
    });

    // A node joined: CAPI wrote spec.providerIDList, which Git does not hold (manifestForGit drops it).
    w.set(
      pool(4, {
        ...(before.spec as Record<string, unknown>),
        providerIDList: ['azure:///subscriptions/s/resourceGroups/rg/x'],
      }),
    );
    expect(await evaluateGitCondition(unchanged, w.ctx)).toEqual({
      holds: true,
      observed:
        "MachinePool team-a/c1-system: generation 4, noted 3 before Flux's apply; every field Git holds is as noted (a controller changed the rest)",
    });

    // Flux applied a count Git holds that differs from the live one: a change of Git's part fails the check.
    w.set(
      pool(4, { ...(before.spec as Record<string, unknown>), replicas: 2 }),
    );
    expect(await evaluateGitCondition(unchanged, w.ctx)).toEqual({
      holds: false,
      observed:
        "MachinePool team-a/c1-system: generation 4, noted 3 before Flux's apply",
    });
  });

  it('keeps the generations noted first when the step runs again (resumed after a crash, Flux may have applied meanwhile)', async () => {
    const before = pool(3, { clusterName: 'c1', replicas: 1, template });
    const w = world(before);
    const note = () =>
      runGitAction(
        { action: 'record-generations', refs: [ref], description: 'note' },
        w.ctx,
      );
    await note();
    // The merge was applied while the backend was down: Git changed the count.
    w.set(pool(4, { clusterName: 'c1', replicas: 2, template }));
    await note();
    expect(w.ctx.result()?.generations).toEqual({
      'MachinePool/team-a/c1-system': 3,
    });
    expect(await evaluateGitCondition(unchanged, w.ctx)).toEqual({
      holds: false,
      observed:
        "MachinePool team-a/c1-system: generation 4, noted 3 before Flux's apply",
    });
  });
});
