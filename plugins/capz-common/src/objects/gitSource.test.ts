import {
  clusterGitSource,
  describeGitSource,
  gitSourceOf,
  shortRevision,
} from './gitSource';
import type { ObservedObject } from './types';

const A = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
const B = '5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80';
const REF = { namespace: 'flux-system', name: 'clusters' };

/** A Kustomization as kustomize-controller leaves it after applying `applied` (docs/flux-facts.md#flux-status). */
const kustomization = (
  o: {
    applied?: string;
    ready?: Record<string, unknown> | null;
    suspend?: boolean;
    generation?: number;
    observedGeneration?: number;
    sourceRef?: Record<string, unknown>;
    path?: string | null;
  } = {},
): ObservedObject => ({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: {
    namespace: 'flux-system',
    name: 'clusters',
    generation: o.generation ?? 3,
  },
  spec: {
    sourceRef: o.sourceRef ?? { kind: 'GitRepository', name: 'gitops' },
    ...(o.path === null ? {} : { path: o.path ?? './clusters' }),
    prune: true,
    ...(o.suspend !== undefined ? { suspend: o.suspend } : {}),
  },
  status: {
    observedGeneration: o.observedGeneration ?? o.generation ?? 3,
    ...(o.applied === ''
      ? {}
      : { lastAppliedRevision: o.applied ?? `main@sha1:${A}` }),
    conditions:
      o.ready === null
        ? []
        : [
            {
              type: 'Ready',
              status: 'True',
              reason: 'ReconciliationSucceeded',
              message: `Applied revision: main@sha1:${A}`,
              ...o.ready,
            },
          ],
  },
});

const gitRepository = (
  o: {
    ref?: Record<string, string>;
    revision?: string;
    url?: string;
    namespace?: string;
    name?: string;
  } = {},
): ObservedObject => ({
  apiVersion: 'source.toolkit.fluxcd.io/v1',
  kind: 'GitRepository',
  metadata: {
    namespace: o.namespace ?? 'flux-system',
    name: o.name ?? 'gitops',
  },
  spec: {
    url: o.url ?? 'http://gitea.local:3000/admin/gitops.git',
    ...(o.ref ? { ref: o.ref } : {}),
  },
  status: {
    ...(o.revision === ''
      ? {}
      : { artifact: { revision: o.revision ?? `main@sha1:${A}` } }),
  },
});

const words = (g: ReturnType<typeof clusterGitSource>) => {
  const w = describeGitSource(g);
  return `${w.from} — ${w.verdict}`;
};

describe('clusterGitSource', () => {
  it('reads the Kustomization and its GitRepository: in sync when Ready, not suspended, its spec observed and the source at the applied revision', () => {
    const g = clusterGitSource(
      REF,
      kustomization(),
      gitRepository({ ref: { branch: 'main' } }),
    );
    expect(g).toEqual({
      kustomization: REF,
      source: {
        kind: 'GitRepository',
        namespace: 'flux-system',
        name: 'gitops',
      },
      sourceFound: true,
      url: 'http://gitea.local:3000/admin/gitops.git',
      branch: 'main',
      path: './clusters',
      lastAppliedRevision: `main@sha1:${A}`,
      sourceRevision: `main@sha1:${A}`,
      ready: {
        status: 'True',
        reason: 'ReconciliationSucceeded',
        message: `Applied revision: main@sha1:${A}`,
      },
      suspended: false,
      generation: 3,
      observedGeneration: 3,
      inSync: true,
    });
    expect(describeGitSource(g)).toEqual({
      from: "Flux's Kustomization flux-system/clusters from http://gitea.local:3000/admin/gitops.git, branch main, path ./clusters, at revision 1a2b3c4",
      verdict: 'in sync',
      state: 'in-sync',
    });
  });

  it('is not in sync when the source holds a newer revision than the one applied', () => {
    const g = clusterGitSource(
      REF,
      kustomization(),
      gitRepository({ ref: { branch: 'main' }, revision: `main@sha1:${B}` }),
    );
    expect(g.inSync).toBe(false);
    expect(describeGitSource(g)).toMatchObject({
      verdict: 'not in sync: applied 1a2b3c4, the source is at 5d6e7f8',
      state: 'not-in-sync',
    });
    // Same commit, another branch: the short forms would read alike, so the revisions are given whole.
    expect(
      describeGitSource(
        clusterGitSource(
          REF,
          kustomization(),
          gitRepository({ revision: `release@sha1:${A}` }),
        ),
      ).verdict,
    ).toBe(
      `not in sync: applied main@sha1:${A}, the source is at release@sha1:${A}`,
    );
  });

  it('is suspended when spec.suspend is set, whatever its last state (docs/flux-facts.md#flux-suspend)', () => {
    const g = clusterGitSource(
      REF,
      kustomization({ suspend: true }),
      gitRepository(),
    );
    expect(g).toMatchObject({ suspended: true, inSync: false });
    expect(describeGitSource(g)).toMatchObject({
      verdict: 'suspended',
      state: 'suspended',
    });
  });

  it("is not Ready with the Ready condition's message, or its reason, or because it never reconciled", () => {
    const failed = clusterGitSource(
      REF,
      kustomization({
        ready: {
          status: 'False',
          reason: 'BuildFailed',
          message: 'kustomize build failed: no such file.',
        },
      }),
      gitRepository(),
    );
    expect(failed).toMatchObject({
      inSync: false,
      ready: {
        status: 'False',
        reason: 'BuildFailed',
        message: 'kustomize build failed: no such file.',
      },
    });
    expect(describeGitSource(failed).verdict).toBe(
      'not Ready: kustomize build failed: no such file',
    );
    const progressing = kustomization({
      ready: { status: 'Unknown', reason: 'Progressing', message: undefined },
    });
    expect(
      describeGitSource(clusterGitSource(REF, progressing, gitRepository()))
        .verdict,
    ).toBe('not Ready: Progressing');
    const never = clusterGitSource(
      REF,
      kustomization({ ready: null, applied: '' }),
      gitRepository(),
    );
    expect(never.ready).toBeUndefined();
    expect(words(never)).toBe(
      "Flux's Kustomization flux-system/clusters from http://gitea.local:3000/admin/gitops.git, branch master, path ./clusters, nothing applied yet — not Ready: not reconciled yet",
    );
  });

  it('is not in sync while its latest spec is not observed (observedGeneration behind generation)', () => {
    const g = clusterGitSource(
      REF,
      kustomization({ generation: 4, observedGeneration: 3 }),
      gitRepository(),
    );
    expect(g).toMatchObject({
      generation: 4,
      observedGeneration: 3,
      inSync: false,
    });
    expect(describeGitSource(g).verdict).toBe(
      'not in sync: its spec changed since Flux last reconciled it',
    );
  });

  it('follows master without a ref, and a commit, name, semver or tag over a branch (docs/flux-facts.md#flux-source-ref)', () => {
    const follows = (ref?: Record<string, string>) => {
      const g = clusterGitSource(REF, kustomization(), gitRepository({ ref }));
      return [g.branch, g.ref];
    };
    expect(follows()).toEqual(['master', undefined]);
    expect(follows({ branch: '' })).toEqual(['master', undefined]);
    expect(follows({ branch: 'main', tag: 'v1.2.0' })).toEqual([
      undefined,
      { type: 'tag', value: 'v1.2.0' },
    ]);
    expect(follows({ tag: 'v1.2.0', semver: '>=1.0.0' })).toEqual([
      undefined,
      { type: 'semver', value: '>=1.0.0' },
    ]);
    expect(follows({ name: 'refs/heads/x', commit: A })).toEqual([
      undefined,
      { type: 'commit', value: A },
    ]);
    expect(
      describeGitSource(
        clusterGitSource(
          REF,
          kustomization(),
          gitRepository({ ref: { tag: 'v1.2.0' } }),
        ),
      ).from,
    ).toMatch(/gitops\.git, tag v1\.2\.0, path/);
  });

  it('never hands on credentials written in the URL, and says the repository root when there is no path', () => {
    const g = clusterGitSource(
      REF,
      kustomization({ path: null }),
      gitRepository({
        url: 'https://bot:s3cret@git.example.com/org/gitops.git',
      }),
    );
    expect(g.url).toBe('https://git.example.com/org/gitops.git');
    expect(JSON.stringify(g)).not.toMatch(/s3cret|bot/);
    expect(g.path).toBeUndefined();
    expect(describeGitSource(g).from).toContain(', path ./, at revision');
  });

  it('takes the source from the Kustomization’s namespace unless sourceRef names one, and only the GitRepository it names', () => {
    const other = kustomization({
      sourceRef: {
        kind: 'GitRepository',
        name: 'gitops',
        namespace: 'sources',
      },
    });
    expect(gitSourceOf(other)).toEqual({
      kind: 'GitRepository',
      namespace: 'sources',
      name: 'gitops',
    });
    // The GitRepository flux-system/gitops is not the one it names.
    const g = clusterGitSource(REF, other, gitRepository());
    expect(g).toMatchObject({ sourceFound: false, inSync: false });
    expect(g.url).toBeUndefined();
    expect(describeGitSource(g)).toEqual({
      from: "Flux's Kustomization flux-system/clusters from GitRepository sources/gitops, path ./clusters, at revision 1a2b3c4",
      verdict:
        'sync unknown: the backend does not see its GitRepository sources/gitops',
      state: 'unknown',
    });
    expect(
      clusterGitSource(REF, other, gitRepository({ namespace: 'sources' })),
    ).toMatchObject({ sourceFound: true, inSync: true });
  });

  it('reads no other kind of source', () => {
    const oci = kustomization({
      sourceRef: { kind: 'OCIRepository', name: 'gitops' },
    });
    const g = clusterGitSource(REF, oci, gitRepository());
    expect(g).toMatchObject({
      source: {
        kind: 'OCIRepository',
        namespace: 'flux-system',
        name: 'gitops',
      },
      sourceFound: false,
      inSync: false,
    });
    expect(describeGitSource(g).verdict).toBe(
      'sync unknown: its source is an OCIRepository, which the backend does not read',
    );
  });

  it('says when the GitRepository has fetched nothing yet', () => {
    const g = clusterGitSource(
      REF,
      kustomization(),
      gitRepository({ revision: '' }),
    );
    expect(g).toMatchObject({ sourceFound: true, inSync: false });
    expect(describeGitSource(g)).toMatchObject({
      verdict: 'sync unknown: its GitRepository has fetched no revision yet',
      state: 'unknown',
    });
  });
});

describe('shortRevision', () => {
  it('shortens the commit of each revision form Flux writes, and leaves anything else whole', () => {
    expect(shortRevision(`main@sha1:${A}`)).toBe('1a2b3c4');
    expect(shortRevision(`sha1:${A}`)).toBe('1a2b3c4');
    expect(shortRevision(`main/${A}`)).toBe('1a2b3c4');
    expect(shortRevision(`v1.0@sha256:${A}${A.slice(0, 24)}`)).toBe('1a2b3c4');
    expect(shortRevision('v1.2.0')).toBe('v1.2.0');
  });
});
