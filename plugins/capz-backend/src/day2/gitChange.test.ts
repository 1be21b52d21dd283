import type { Day2Plan } from '@capz-backstage/plugin-capz-common';
import type { GitOpsSourceClient } from '../cluster/clientViews';
import type { GitOpsRepository } from '../git/GitOpsRepository';
import { commitOfRevision, gitChangeFor } from './gitChange';

const sha = 'a'.repeat(40);

describe('commitOfRevision', () => {
  it('reads the commit of the revisions Flux writes, and nothing else', () => {
    expect(commitOfRevision(`main@sha1:${sha}`)).toBe(sha);
    expect(commitOfRevision(`refs/heads/feature/x@sha1:${sha}`)).toBe(sha);
    expect(commitOfRevision(`sha1:${sha}`)).toBe(sha);
    expect(commitOfRevision(`main/${sha}`)).toBe(sha);
    expect(commitOfRevision('v1.2.3@sha256:abc')).toBeUndefined();
    expect(commitOfRevision('main')).toBeUndefined();
  });
});

describe('gitChangeFor', () => {
  const pool = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachinePool',
    metadata: {
      name: 'a-pool0',
      namespace: 'team-a',
      labels: {
        'kustomize.toolkit.fluxcd.io/name': 'clusters',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      },
    },
  };
  const plan: Day2Plan = {
    action: { action: 'scale', pool: 'pool0', replicas: 3 },
    changes: [
      {
        apiVersion: pool.apiVersion,
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'a-pool0',
        operation: 'update',
        fields: [{ path: 'spec.replicas', before: 2, after: 3 }],
      },
    ],
    warnings: [],
    applied: false,
    appliedBy: [
      {
        kind: 'MachinePool',
        namespace: 'team-a',
        name: 'a-pool0',
        appliedBy: "Flux's Kustomization flux-system/clusters",
        blocks: true,
      },
    ],
  };
  const client = (ref: Record<string, string>): GitOpsSourceClient => ({
    get: async () => pool,
    kustomization: async (namespace, name) => ({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { namespace, name },
      spec: {
        path: './clusters',
        sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      },
      status: { lastAppliedRevision: `v1@sha1:${sha}` },
    }),
    gitRepository: async (namespace, name) => ({
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { namespace, name },
      spec: { url: 'https://git.example.com/o/r.git', ref },
    }),
  });
  const repository: GitOpsRepository = {
    readFiles: jest.fn(async () => ({})),
    proposeChange: jest.fn(),
  };

  it('refuses a GitRepository pinned to a tag (no branch to propose to), reading nothing', async () => {
    const change = await gitChangeFor(plan, client({ tag: 'v1' }), repository);
    expect(change).toMatchObject({
      ok: false,
      reason:
        'GitRepository flux-system/flux-system follows spec.ref.tag, not a branch: a change cannot be proposed against it',
    });
    expect(repository.readFiles).not.toHaveBeenCalled();
  });

  it("reads a GitRepository without a ref on master (Flux's default), in the Kustomization's namespace", async () => {
    const change = await gitChangeFor(plan, client({}), repository);
    expect(repository.readFiles).toHaveBeenCalledWith({
      url: 'https://git.example.com/o/r.git',
      branch: 'master',
      path: './clusters',
      revision: sha,
    });
    expect(change).toMatchObject({
      ok: true,
      source: { gitRepository: { namespace: 'flux-system' } },
      // Nothing under the path in this fake: the change is by hand, with why.
      byHand: [expect.objectContaining({ name: 'a-pool0' })],
    });
  });
});
