/**
 * The Git operations against a real smart-HTTP server (@internal/git-server: Debian git's git-http-backend on
 * 127.0.0.1, with HTTP Basic): what a hosted Git server answers to isomorphic-git.
 */
import { startGitServer, type GitServer } from '@internal/git-server';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  cloneBranch,
  describeGitError,
  listRemoteBranches,
  repositoryPath,
} from './git';

const auth = { username: 'bot', password: 'secret' };
let server: GitServer;
beforeAll(async () => {
  server = await startGitServer({ auth });
});
afterAll(() => server?.close());

const me = { name: 'Test', email: 'test@example.com' };

/** Adds a commit on `main` of a bare repository of the server with the git binary: its id. */
function commitOnServer(
  repo: string,
  files: Record<string, string>,
  message: string,
): string {
  const work = mkdtempSync(join(tmpdir(), 'capz-node-test-'));
  const gitDir = join(server.root, `${repo}.git`);
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'x',
    GIT_AUTHOR_EMAIL: 'x@x',
    GIT_COMMITTER_NAME: 'x',
    GIT_COMMITTER_EMAIL: 'x@x',
  };
  const run = (args: string[]) =>
    execFileSync('git', ['--git-dir', gitDir, '--work-tree', work, ...args], {
      env,
      encoding: 'utf8',
    }).trim();
  try {
    run(['checkout', '--quiet', 'main', '--', '.']);
    for (const [p, text] of Object.entries(files)) {
      execFileSync('mkdir', ['-p', join(work, p, '..')]);
      writeFileSync(join(work, p), text);
    }
    run(['add', '-A']);
    run(['commit', '--quiet', '-m', message]);
    return run(['rev-parse', 'HEAD']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('Git over smart HTTP', () => {
  it('reads the files under a path at the head and at an older revision, deepening the shallow clone', async () => {
    await server.createRepo('read', {
      files: {
        'README.md': '# r\n',
        'clusters/team-a/a/cluster.yaml': 'replicas: 1\n',
        'clusters/kustomization.yaml': 'resources: [team-a/a]\n',
        'other/x.yaml': 'x: 1\n',
      },
    });
    const first = commitOnServer(
      'read',
      { 'clusters/team-a/a/cluster.yaml': 'replicas: 2\n' },
      'two',
    );
    const head = commitOnServer(
      'read',
      { 'clusters/team-a/a/cluster.yaml': 'replicas: 3\n' },
      'three',
    );
    const clone = await cloneBranch({
      url: server.repoUrl('read'),
      branch: 'main',
      credentials: auth,
    });
    try {
      expect(clone.head).toBe(head);
      expect(await clone.readFiles({ path: './clusters/' })).toEqual({
        'clusters/kustomization.yaml': 'resources: [team-a/a]\n',
        'clusters/team-a/a/cluster.yaml': 'replicas: 3\n',
      });
      // One commit behind the depth-1 clone: fetched.
      expect(
        await clone.readFiles({ path: 'clusters/team-a', revision: first }),
      ).toEqual({ 'clusters/team-a/a/cluster.yaml': 'replicas: 2\n' });
      expect(Object.keys(await clone.readFiles({}))).toHaveLength(4);
      expect(await clone.readFiles({ path: 'nowhere' })).toEqual({});
      await expect(
        clone.readFiles({ revision: 'f'.repeat(40) }),
      ).rejects.toThrow(/is not among the last 500 commits of branch main/);
    } finally {
      await clone.remove();
    }
    expect(existsSync(clone.dir)).toBe(false);
  });

  it('commits files on a new branch and pushes it; a second push of the same branch is refused', async () => {
    await server.createRepo('write');
    const clone = await cloneBranch({
      url: server.repoUrl('write'),
      branch: 'main',
      credentials: auth,
    });
    try {
      const commit = await clone.commitFiles({
        branch: 'capz/change',
        files: [{ path: 'clusters/a/cluster.yaml', content: 'replicas: 3\n' }],
        message: 'Scale a',
        author: me,
      });
      expect(
        (await listRemoteBranches(server.repoUrl('write'), auth)).map(
          b => b.branch,
        ),
      ).toEqual(['main']);
      await clone.pushBranch('capz/change');
      expect(await listRemoteBranches(server.repoUrl('write'), auth)).toEqual(
        expect.arrayContaining([{ branch: 'capz/change', commit }]),
      );
      expect(await server.branchFiles('write', 'capz/change')).toMatchObject({
        'clusters/a/cluster.yaml': 'replicas: 3\n',
        'README.md': expect.any(String),
      });
      expect((await server.commitInfo('write', 'capz/change')).message).toBe(
        'Scale a',
      );
    } finally {
      await clone.remove();
    }

    // Another clone's branch of the same name: not a fast-forward, refused.
    const other = await cloneBranch({
      url: server.repoUrl('write'),
      branch: 'main',
      credentials: auth,
    });
    try {
      await other.commitFiles({
        branch: 'capz/change',
        files: [{ path: 'b.yaml', content: 'b: 1\n' }],
        message: 'Other',
        author: me,
      });
      await expect(other.pushBranch('capz/change')).rejects.toMatchObject({
        code: 'PushRejectedError',
      });
    } finally {
      await other.remove();
    }
  });

  it('removes the files given a null content, in the same commit as the files it writes', async () => {
    await server.createRepo('remove');
    commitOnServer(
      'remove',
      {
        'clusters/a/cluster.yaml': 'kind: Cluster\n',
        'clusters/a/kustomization.yaml': 'resources: [cluster.yaml]\n',
        'clusters/kustomization.yaml': 'resources: [a, b]\n',
      },
      'Add a',
    );
    const clone = await cloneBranch({
      url: server.repoUrl('remove'),
      branch: 'main',
      credentials: auth,
    });
    try {
      await clone.commitFiles({
        branch: 'capz/delete-a',
        files: [
          { path: 'clusters/a/cluster.yaml', content: null },
          { path: 'clusters/a/kustomization.yaml', content: null },
          { path: 'clusters/kustomization.yaml', content: 'resources: [b]\n' },
        ],
        message: 'Delete a',
        author: me,
      });
      await clone.pushBranch('capz/delete-a');
    } finally {
      await clone.remove();
    }
    const files = await server.branchFiles('remove', 'capz/delete-a');
    expect(Object.keys(files).filter(p => p.startsWith('clusters/'))).toEqual([
      'clusters/kustomization.yaml',
    ]);
    expect(files['clusters/kustomization.yaml']).toBe('resources: [b]\n');
  });

  it('says what the server answered without credentials, and leaves no directory behind', async () => {
    await server.createRepo('private');
    const err = await cloneBranch({
      url: server.repoUrl('private'),
      branch: 'main',
      prefix: 'capz-node-no-auth-',
    }).catch(e => e);
    expect(describeGitError(err)).toBe('HTTP 401 Unauthorized');
  });

  it('refuses a path that leaves the repository', () => {
    expect(repositoryPath('./clusters/')).toBe('clusters');
    expect(repositoryPath('./')).toBe('');
    expect(() => repositoryPath('../x')).toThrow(/leaves the repository/);
  });
});

describe('a Git server slow to answer', () => {
  it('is waited for past Node\'s 5 s idle socket timeout (a busy server\'s push failed with "Request timed out")', async () => {
    // Answers every request after 6 s: a receive-pack running its hooks on a busy machine.
    const slow = createServer((_req, res) => {
      setTimeout(() => res.writeHead(404).end('not here'), 6_000);
    });
    await new Promise<void>(r => slow.listen(0, '127.0.0.1', r));
    const { port } = slow.address() as AddressInfo;
    try {
      const answer = await listRemoteBranches(
        `http://127.0.0.1:${port}/x/repo.git`,
      ).catch(e => e);
      expect(describeGitError(answer)).toBe('HTTP 404 Not Found');
    } finally {
      slow.closeAllConnections();
      await new Promise(r => slow.close(r));
    }
  }, 60_000);
});
