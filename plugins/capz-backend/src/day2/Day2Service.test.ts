/**
 * The confirm writes what was previewed or nothing, with a management cluster in memory that
 * honours resourceVersion preconditions like the API server: two tabs preview a scale, one changes the pool, the
 * other's confirm is a 409 that names the change and writes nothing. The real API server's side is
 * day2.integration.test.ts.
 */
import {
  ConflictError,
  InputError,
  ServiceUnavailableError,
} from '@backstage/errors';
import { mockServices } from '@backstage/backend-test-utils';
import {
  generateAksAsoClusterManifests,
  type Day2Target,
  type KubeObject,
  type ObservedObject,
} from '@capz-backstage/plugin-capz-common';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import type { NoAnswer } from '../cluster/unreachable';
import { Day2Service } from './Day2Service';
import type { Day2Client } from '../cluster/clientViews';
import type { Day2GitOps, GitChange, ProposableGitChange } from './gitChange';

const place = { managementCluster: 'east', namespace: 'team-a', name: 'alpha' };

function setup(opts: { gitOps?: Day2GitOps } = {}) {
  const rendered = generateAksAsoClusterManifests({
    name: 'alpha',
    namespace: 'team-a',
    location: 'westeurope',
    kubernetesVersion: 'v1.33.2',
    credentialSecretName: 'aso-credential',
    pools: [
      {
        name: 'system',
        mode: 'System',
        vmSize: 'Standard_D2s_v3',
        replicas: 1,
      },
      { name: 'api', mode: 'User', vmSize: 'Standard_D2s_v3', replicas: 2 },
    ],
  });
  let rv = 100;
  const store = new Map<string, ObservedObject>(
    rendered.map((o, i) => [
      `${o.kind}/${o.metadata.name}`,
      {
        ...(o as ObservedObject),
        metadata: {
          ...o.metadata,
          uid: `u${i}`,
          resourceVersion: String(++rv),
        },
      },
    ]),
  );
  const written: string[] = [];
  const deleted: string[] = [];
  /** The API server not answering a request, when set: which request, and how (see cluster/unreachable.ts). */
  let down:
    | ((request: 'read' | 'dry-run' | 'write') => NoAnswer | undefined)
    | undefined;
  const outage = (request: 'read' | 'dry-run' | 'write', what: string) => {
    const none = down?.(request);
    if (none)
      throw new KubeRequestError(
        0,
        `${what}: the API server did not answer (${none.reason})`,
        none,
      );
  };
  /** A write as the API server makes it: refused when the resourceVersion given is not the object's. */
  const write = (
    kind: string,
    name: string,
    spec: Record<string, unknown>,
    precondition?: string,
  ) => {
    const key = `${kind}/${name}`;
    const cur = store.get(key)!;
    if (precondition && precondition !== cur.metadata?.resourceVersion)
      throw new KubeRequestError(
        409,
        `applying ${kind} team-a/${name}: Operation cannot be fulfilled: the object has been modified`,
      );
    store.set(key, {
      ...cur,
      spec: { ...cur.spec, ...spec },
      metadata: { ...cur.metadata, resourceVersion: String(++rv) },
    });
  };
  const client: Day2Client = {
    get: async (t: Day2Target) => {
      outage('read', `reading ${t.kind} team-a/${t.name}`);
      return store.get(`${t.kind}/${t.name}`);
    },
    list: async t => {
      outage('read', `listing ${t.kind} in team-a`);
      return [...store.values()].filter(
        x => x.kind === t.kind && x.metadata?.namespace === t.namespace,
      );
    },
    apply: async (obj: KubeObject, x) => {
      const key = `${obj.kind}/${obj.metadata.name}`;
      outage(x.dryRun ? 'dry-run' : 'write', `applying ${key}`);
      const pre = (obj.metadata as { resourceVersion?: string })
        .resourceVersion;
      if (pre && pre !== store.get(key)?.metadata?.resourceVersion)
        throw new KubeRequestError(
          409,
          `applying ${key}: the object has been modified`,
        );
      if (!x.dryRun) {
        write(obj.kind, obj.metadata.name, obj.spec as Record<string, unknown>);
        written.push(`${key} ${JSON.stringify(obj.spec)}`);
      }
      return store.get(key)!;
    },
    mergePatch: async () => ({}),
    delete: async (t, x) => {
      if (!x.dryRun) deleted.push(`${t.kind}/${t.name}`);
    },
  };
  const service = new Day2Service({
    logger: mockServices.logger.mock(),
    managementClusters: ['east'],
    cache: {
      list: (_mc: string, kind: string, ns?: string) =>
        [...store.values()].filter(
          x => x.kind === kind && (!ns || x.metadata?.namespace === ns),
        ) as never,
    },
    client: async () => client,
    gitOps: opts.gitOps,
  });
  const replicas = () => store.get('MachinePool/alpha-api')!.spec?.replicas;
  /** Someone else (kubectl, another tab) sets the pool's count. */
  const otherWriter = (n: number) =>
    write('MachinePool', 'alpha-api', { replicas: n });
  /** A controller writes the pool's status: its resourceVersion moves, its spec does not. */
  const statusWrite = () => {
    const mp = store.get('MachinePool/alpha-api')!;
    store.set('MachinePool/alpha-api', {
      ...mp,
      status: { readyReplicas: 1 },
      metadata: { ...mp.metadata, resourceVersion: String(++rv) },
    });
  };
  /** Flux (or anyone) sets labels on an object: a write that moves its resourceVersion, not its spec. */
  const setLabels = (key: string, labels: Record<string, string>) => {
    const o = store.get(key)!;
    store.set(key, {
      ...o,
      metadata: {
        ...o.metadata,
        labels: { ...o.metadata?.labels, ...labels },
        resourceVersion: String(++rv),
      },
    });
  };
  return {
    service,
    written,
    replicas,
    otherWriter,
    statusWrite,
    setLabels,
    deleted,
    setDown: (f: typeof down) => (down = f),
  };
}

describe('Day2Service: the confirm writes the previewed plan or nothing', () => {
  it('answers the preview with a planDigest, and the confirm with it writes the plan', async () => {
    const s = setup();
    const action = { action: 'scale' as const, pool: 'api', replicas: 3 };
    const preview = await s.service.act(place, action, { apply: false });
    expect(preview.planDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(preview.action).toEqual(action);
    expect(
      (await s.service.act(place, action, { apply: false })).planDigest,
    ).toBe(preview.planDigest);
    const applied = await s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    expect(applied).toMatchObject({ applied: true, action });
    expect(s.written).toEqual(['MachinePool/alpha-api {"replicas":3}']);
    expect(s.replicas()).toBe(3);
  });

  it("refuses a confirm without the preview's planDigest (400), writing nothing", async () => {
    const s = setup();
    const action = { action: 'scale' as const, pool: 'api', replicas: 3 };
    const refused = s.service.act(place, action, { apply: true });
    await expect(refused).rejects.toThrow(InputError);
    await expect(refused).rejects.toThrow(
      "Preview the action first: the confirm carries the preview's planDigest",
    );
    expect(s.written).toEqual([]);
  });

  it("two tabs: tab B scales the pool to 1 after tab A previewed 2 → 3; A's confirm is a 409 naming it, and the pool keeps 1", async () => {
    const s = setup();
    const action = { action: 'scale' as const, pool: 'api', replicas: 3 };
    const tabA = await s.service.act(place, action, { apply: false });
    expect(tabA.changes[0].fields).toEqual([
      { path: 'spec.replicas', before: 2, after: 3 },
    ]);
    s.otherWriter(1);
    const confirm = s.service.act(
      place,
      { ...action, planDigest: tabA.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(ConflictError);
    await expect(confirm).rejects.toThrow(
      'The cluster changed since the preview (pool api: 2 → 1 replicas); nothing was written. Preview again.',
    );
    expect(s.written).toEqual([]);
    expect(s.replicas()).toBe(1);
  });

  it('a controller writing status between preview and confirm is not a change of plan: the confirm writes', async () => {
    const s = setup();
    const action = { action: 'scale' as const, pool: 'api', replicas: 3 };
    const preview = await s.service.act(place, action, { apply: false });
    s.statusWrite();
    await s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    expect(s.replicas()).toBe(3);
  });
});

describe('Day2Service: objects a GitOps controller applies', () => {
  const FLUX = {
    'kustomize.toolkit.fluxcd.io/name': 'clusters',
    'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
  };
  const action = { action: 'scale' as const, pool: 'api', replicas: 3 };
  const refusal =
    "Nothing was written: Flux's Kustomization flux-system/clusters applies MachinePool team-a/alpha-api: it would put spec.replicas back at its next reconcile; change it in Git.";

  it('the preview names who applies the pool and the blocker; the confirm is a 409 saying so, writing nothing', async () => {
    const s = setup();
    s.setLabels('MachinePool/alpha-api', FLUX);
    const preview = await s.service.act(place, action, { apply: false });
    expect(preview.appliedBy).toEqual([
      {
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'alpha-api',
        appliedBy: "Flux's Kustomization flux-system/clusters",
        blocks: true,
      },
    ]);
    expect(preview.blockers).toEqual([
      refusal.replace('Nothing was written: ', ''),
    ]);
    const confirm = s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(ConflictError);
    await expect(confirm).rejects.toThrow(refusal);
    expect(s.written).toEqual([]);
    expect(s.replicas()).toBe(2);
  });

  it('checks the live object again at the confirm: labels Flux set after the preview refuse it', async () => {
    const s = setup();
    const preview = await s.service.act(place, action, { apply: false });
    expect(preview.blockers).toBeUndefined();
    s.setLabels('MachinePool/alpha-api', FLUX);
    const confirm = s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(refusal);
    expect(s.written).toEqual([]);
  });

  it("refuses the cluster's delete when Flux applies its Cluster: in the delete preview, and on the live Cluster", async () => {
    const s = setup();
    const before = s.service.deletePreview(place);
    expect(before.blockers).toEqual([]);
    s.setLabels('Cluster/alpha', FLUX);
    const blocker =
      "Flux's Kustomization flux-system/clusters applies Cluster team-a/alpha: it would create it again at its next reconcile; remove it from Git instead.";
    expect(s.service.deletePreview(place).blockers).toEqual([blocker]);
    // A watch cache that has not seen the labels yet: the live Cluster still refuses it.
    jest.spyOn(s.service, 'deletePreview').mockReturnValue(before);
    const removed = s.service.deleteCluster(place, 'alpha');
    await expect(removed).rejects.toThrow(ConflictError);
    await expect(removed).rejects.toThrow(`Nothing was deleted: ${blocker}`);
    expect(s.deleted).toEqual([]);
  });
});

describe('Day2Service: objects Flux applies, proposed to Git', () => {
  const FLUX = {
    'kustomize.toolkit.fluxcd.io/name': 'clusters',
    'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
  };
  const action = { action: 'scale' as const, pool: 'api', replicas: 3 };
  const commit = (c: string) => c.repeat(40);
  /** What gitChangeFor answers for the scale: the pool's replicas line in clusters/alpha.yaml at `at`. */
  const change = (at: string, extra: Partial<ProposableGitChange> = {}) =>
    ({
      ok: true,
      source: {
        kustomization: { namespace: 'flux-system', name: 'clusters' },
        gitRepository: { namespace: 'flux-system', name: 'fleet' },
        url: 'https://bot:s3cret@git.example.com/platform/fleet.git',
        branch: 'main',
        path: './clusters',
        revision: `main@sha1:${at}`,
        commit: at,
      },
      files: [
        {
          path: 'clusters/alpha.yaml',
          before: 'replicas: 2\n',
          after: 'replicas: 3\n',
          diff: '--- a/clusters/alpha.yaml\n+++ b/clusters/alpha.yaml\n@@ -1 +1 @@\n-replicas: 2\n+replicas: 3\n',
        },
      ],
      edited: [
        {
          kind: 'MachinePool',
          namespace: 'team-a',
          name: 'alpha-api',
          file: 'clusters/alpha.yaml',
        },
      ],
      byHand: [],
      notes: [],
      ...extra,
    } as ProposableGitChange);

  function gitSetup(answers: Array<GitChange | undefined>) {
    const proposals: Array<{ branch: string; title: string; body: string }> =
      [];
    let n = 0;
    const gitOps: Day2GitOps = {
      changeFor: async () => answers[Math.min(n++, answers.length - 1)],
      propose: async (_c, x) => {
        proposals.push(x);
        return {
          branch: x.branch,
          commit: commit('c'),
          pullRequest: { number: 7, url: 'https://git.example.com/pulls/7' },
        };
      },
    };
    const s = setup({ gitOps });
    s.setLabels('MachinePool/alpha-api', FLUX);
    return { ...s, proposals };
  }

  it('previews the diff with no blocker and no credentials; the confirm pushes a branch and opens a pull request, writing nothing to the cluster', async () => {
    const s = gitSetup([change(commit('a'))]);
    const preview = await s.service.act(place, action, { apply: false });
    expect(preview.blockers).toBeUndefined();
    expect(preview.git).toEqual({
      proposable: true,
      source: {
        kustomization: { namespace: 'flux-system', name: 'clusters' },
        gitRepository: { namespace: 'flux-system', name: 'fleet' },
        url: 'https://git.example.com/platform/fleet.git',
        branch: 'main',
        path: './clusters',
        revision: `main@sha1:${commit('a')}`,
      },
      files: [{ path: 'clusters/alpha.yaml', diff: change('').files[0].diff }],
      byHand: [],
      notes: [],
    });
    expect(JSON.stringify(preview)).not.toContain('s3cret');

    const confirmed = await s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true, actor: 'user:default/jane' },
    );
    expect(s.written).toEqual([]);
    expect(s.replicas()).toBe(2);
    expect(confirmed.applied).toBe(false);
    expect(confirmed.git?.proposed).toEqual({
      branch: `capz/team-a-alpha-scale-${preview.planDigest!.slice(0, 12)}`,
      commit: commit('c'),
      pullRequest: { number: 7, url: 'https://git.example.com/pulls/7' },
    });
    expect(s.proposals).toHaveLength(1);
    expect(s.proposals[0].title).toBe(
      'Scale pool api to 3 (cluster team-a/alpha)',
    );
    expect(s.proposals[0].body).toContain(
      'Proposed from Backstage by user:default/jane',
    );
    expect(s.proposals[0].body).toContain(
      'update MachinePool team-a/alpha-api: spec.replicas 2 → 3',
    );
  });

  it("a controller's write between the confirm's read and its dry run reads again and proposes the previewed change", async () => {
    const s = gitSetup([change(commit('a'))]);
    const preview = await s.service.act(place, action, { apply: false });
    // CAPI writes the pool's status after the confirm read it and before its dry run: a 409 on the precondition.
    let dryRuns = 0;
    s.setDown(request => {
      if (request === 'dry-run' && dryRuns++ === 0) s.statusWrite();
      return undefined;
    });
    const confirmed = await s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    expect(dryRuns).toBeGreaterThan(1);
    expect(confirmed.git?.proposed?.pullRequest?.number).toBe(7);
    expect(s.proposals).toHaveLength(1);
    expect(s.written).toEqual([]);
  });

  it('a repository Flux moved on since the preview is a 409 and proposes nothing', async () => {
    const s = gitSetup([change(commit('a')), change(commit('b'))]);
    const preview = await s.service.act(place, action, { apply: false });
    const confirm = s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(ConflictError);
    await expect(confirm).rejects.toThrow(
      `The Git change is not the previewed one: Kustomization flux-system/clusters has applied main@sha1:${commit(
        'b',
      )} since the preview; nothing was proposed. Preview again.`,
    );
    expect(s.proposals).toEqual([]);
    expect(s.written).toEqual([]);
  });

  it('a change not written literally in Git keeps the blocker and says why; the confirm is a 409 and proposes nothing', async () => {
    const byHand = {
      kind: 'MachinePool',
      namespace: 'team-a',
      name: 'alpha-api',
      reason: 'a patch selects it',
      message:
        'MachinePool team-a/alpha-api is not written literally in the repository: a patch selects it; make this change by hand: set spec.replicas to 3 (was 2)',
    };
    const s = gitSetup([
      change(commit('a'), { files: [], edited: [], byHand: [byHand] }),
    ]);
    const preview = await s.service.act(place, action, { apply: false });
    expect(preview.blockers).toHaveLength(1);
    expect(preview.git).toMatchObject({
      proposable: false,
      byHand: [byHand.message],
      reason:
        'The change cannot be proposed to Git as a whole: 1 of its objects is not written literally in https://git.example.com/platform/fleet.git (see below).',
    });
    const confirm = s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(
      "Nothing was written: Flux's Kustomization flux-system/clusters applies MachinePool team-a/alpha-api",
    );
    await expect(confirm).rejects.toThrow('not written literally');
    expect(s.proposals).toEqual([]);
    expect(s.written).toEqual([]);
  });

  it('a repository that cannot be read says so, and the confirm stays a 409', async () => {
    const s = gitSetup([
      {
        ok: false,
        reason:
          'GitRepository flux-system/fleet follows spec.ref.tag, not a branch: a change cannot be proposed against it',
      },
    ]);
    const preview = await s.service.act(place, action, { apply: false });
    expect(preview.git).toEqual({
      proposable: false,
      reason:
        'The change cannot be proposed to Git: GitRepository flux-system/fleet follows spec.ref.tag, not a branch: a change cannot be proposed against it.',
      files: [],
      byHand: [],
      notes: [],
    });
    await expect(
      s.service.act(
        place,
        { ...action, planDigest: preview.planDigest },
        { apply: true },
      ),
    ).rejects.toThrow(ConflictError);
    expect(s.proposals).toEqual([]);
  });
});

describe('Day2Service: a management cluster that does not answer', () => {
  const refused: NoAnswer = {
    reason: 'connection refused (ECONNREFUSED)',
    maybeSent: false,
  };
  const lost: NoAnswer = {
    reason: 'no answer within 30 s',
    maybeSent: true,
  };
  const action = { action: 'scale' as const, pool: 'api', replicas: 3 };

  it('a confirm whose reads get no answer is a 503 saying nothing was written', async () => {
    const s = setup();
    const preview = await s.service.act(place, action, { apply: false });
    s.setDown(() => refused);
    const confirm = s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(ServiceUnavailableError);
    await expect(confirm).rejects.toThrow(
      'Management cluster east did not answer (connection refused (ECONNREFUSED)), so nothing was written. The page shows the cluster as last seen; try again once the management cluster answers.',
    );
    expect(s.written).toEqual([]);
    // Back: the same confirm applies (nothing was half-done, and no other action holds the cluster).
    s.setDown(undefined);
    await s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    expect(s.replicas()).toBe(3);
  });

  it('a preview whose dry run gets no answer is a 503 too', async () => {
    const s = setup();
    s.setDown(r => (r === 'dry-run' ? refused : undefined));
    await expect(
      s.service.act(place, action, { apply: false }),
    ).rejects.toThrow(
      /^Management cluster east did not answer \(connection refused \(ECONNREFUSED\)\), so nothing was written/,
    );
  });

  it('a write whose answer is lost says it may or may not have been applied, and what was written before it', async () => {
    const s = setup();
    const preview = await s.service.act(place, action, { apply: false });
    s.setDown(r => (r === 'write' ? lost : undefined));
    const confirm = s.service.act(
      place,
      { ...action, planDigest: preview.planDigest },
      { apply: true },
    );
    await expect(confirm).rejects.toThrow(ServiceUnavailableError);
    await expect(confirm).rejects.toThrow(
      'Management cluster east stopped answering while the action was applied (no answer within 30 s): nothing was written before it; MachinePool team-a/alpha-api was sent and its answer lost, so it may or may not have been applied. Once it answers, look at the cluster and preview again.',
    );
  });

  it('a write refused at the connection says it was not applied', async () => {
    const s = setup();
    const preview = await s.service.act(place, action, { apply: false });
    s.setDown(r => (r === 'write' ? refused : undefined));
    await expect(
      s.service.act(
        place,
        { ...action, planDigest: preview.planDigest },
        { apply: true },
      ),
    ).rejects.toThrow(
      'nothing was written before it; MachinePool team-a/alpha-api was not applied.',
    );
    expect(s.written).toEqual([]);
  });
});
