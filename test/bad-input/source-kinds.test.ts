// Sources that misbehave, backed up by cairn and by restic 0.14 into the same repository (so
// restic opens it with the test KDF), and the two snapshots compared: targets that do not
// exist, FIFOs, sockets and device nodes, a file and a folder that cannot be read.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CAIRN_BIN, cairn, ok, removeDir, restic, run, tempDir, type RunResult } from '../helpers/cli';

interface TreeNode {
  name: string;
  type: string;
  [k: string]: unknown;
}

/** The nodes of `path` in the newest snapshot of `host`, as restic reads them (atime left out). */
async function treeAt(repo: string, host: string, path: string): Promise<TreeNode[]> {
  const snaps = JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json', '--host', host]))).stdout) as { tree: string }[];
  let tree = snaps.at(-1)!.tree;
  const load = async (id: string) => (JSON.parse((await ok(restic(['-r', repo, 'cat', 'blob', id]))).stdout) as { nodes: TreeNode[] }).nodes;
  for (const name of path.split('/').filter(Boolean)) tree = (await load(tree)).find((n) => n.name === name)!.subtree as string;
  return (await load(tree)).map(({ atime: _atime, subtree: _subtree, content: _content, ...n }) => n as TreeNode);
}

async function snapshotPaths(repo: string, host: string): Promise<string[][]> {
  return (JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json', '--host', host]))).stdout) as { paths: string[] }[]).map((s) => s.paths);
}

describe('sources that misbehave, against restic 0.14', () => {
  let dir: string, repo: string;

  beforeAll(async () => {
    dir = await tempDir('source-kinds');
    repo = join(dir, 'repo');
    await ok(cairn(['-r', repo, 'init']));
  });
  afterAll(() => removeDir(dir));

  it('targets that do not exist: none left is fatal and saves nothing; otherwise they are skipped and left out of the paths', async () => {
    const src = join(dir, 'exists');
    await mkdir(src);
    await writeFile(join(src, 'f'), 'f');
    for (const missing of ['/does/not/exist', join(dir, 'gone'), join(dir, 'does/not/exist')]) {
      const nothing = await cairn(['-r', repo, 'backup', '--host', 'cairn-missing', missing]);
      expect(nothing.code).toBe(1);
      const theirs = await restic(['-r', repo, 'backup', '--host', 'restic-missing', missing]);
      expect(theirs.code).toBe(1);
      // The same skip line; the fatal one in restic 0.18's words (0.14: "all target directories/files do not exist").
      expect(theirs.stderr).toContain(`${missing} does not exist, skipping\n`);
      expect(nothing.stderr).toContain(`${missing} does not exist, skipping\n`);
      expect(theirs.stderr).toContain('Fatal: all target directories/files do not exist');
      expect(nothing.stderr).toContain('all source directories/files do not exist');
    }
    expect(await snapshotPaths(repo, 'cairn-missing')).toEqual([]);
    expect(await snapshotPaths(repo, 'restic-missing')).toEqual([]);

    const some = await cairn(['-r', repo, 'backup', '--host', 'cairn-missing', src, join(dir, 'gone')]);
    expect(some.code).toBe(3); // an incomplete snapshot (restic 0.19; 0.14–0.18 exit 0)
    await ok(restic(['-r', repo, 'backup', '--host', 'restic-missing', src, join(dir, 'gone')]));
    expect(await snapshotPaths(repo, 'cairn-missing')).toEqual([[src]]);
    expect(await snapshotPaths(repo, 'restic-missing')).toEqual([[src]]);
  });

  it('FIFOs and device nodes are stored as nodes without content, sockets left out: the same tree as restic’s', async () => {
    const src = join(dir, 'special');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'file.txt'), 'content\n');
    execFileSync('mkfifo', [join(src, 'fifo')]);
    if (process.getuid?.() === 0) {
      execFileSync('mknod', [join(src, 'null'), 'c', '1', '3']);
      execFileSync('mknod', [join(src, 'loop'), 'b', '7', '0']);
    }
    const server = createServer();
    await new Promise<void>((r) => server.listen(join(src, 'socket'), r));
    try {
      const c = await cairn(['-r', repo, 'backup', '--host', 'cairn-special', src]);
      expect(c.code).toBe(0);
      expect(c.stderr).toBe('');
      await ok(restic(['-r', repo, 'backup', '--host', 'restic-special', src]));
    } finally {
      await new Promise((r) => server.close(r));
    }
    const mine = await treeAt(repo, 'cairn-special', src);
    expect(mine.map((n) => `${n.type} ${n.name}`)).toEqual(
      ['file file.txt', 'fifo fifo', ...(process.getuid?.() === 0 ? ['dev loop', 'chardev null'] : []), 'dir sub'].sort((a, b) =>
        a.split(' ')[1]! < b.split(' ')[1]! ? -1 : 1,
      ),
    );
    expect(mine).toEqual(await treeAt(repo, 'restic-special', src));
  });

  it('a file and a folder the user may not read: warned about, left out, exit 3, the rest saved, as restic does', async () => {
    const src = join(dir, 'locked');
    await mkdir(join(src, 'closed'), { recursive: true });
    await writeFile(join(src, 'fine.txt'), 'fine\n');
    await writeFile(join(src, 'secret.txt'), 'secret\n');
    await writeFile(join(src, 'closed', 'inside.txt'), 'inside\n');
    await chmod(join(src, 'secret.txt'), 0o000);
    await chmod(join(src, 'closed'), 0o000);
    // Root reads anything: run both tools as an unprivileged user (repository made writable).
    const asUser = (cmd: string, args: string[]): Promise<RunResult> =>
      process.getuid?.() === 0 ? run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', cmd, ...args]) : run(cmd, args);
    const userRepo = join(dir, 'user-repo');
    await mkdir(userRepo, { mode: 0o777 });
    await chmod(dir, 0o755);
    await chmod(userRepo, 0o777);
    await ok(asUser(process.execPath, [CAIRN_BIN, '-r', userRepo, 'init']));
    const c = await asUser(process.execPath, [CAIRN_BIN, '-r', userRepo, '--no-cache', 'backup', '--host', 'cairn-locked', src]);
    const r = await asUser('restic', ['-r', userRepo, '--no-cache', 'backup', '--host', 'restic-locked', src]);
    expect([c.code, c.code === 3 ? '' : c.stderr]).toEqual([3, '']);
    expect([r.code, r.code === 3 ? '' : r.stderr]).toEqual([3, '']);
    expect(c.stderr).toContain(`error: ${join(src, 'secret.txt')}: permission denied`);
    expect(c.stderr).toContain(`error: ${join(src, 'closed')}: permission denied`);
    expect(c.stderr).toContain('Warning: at least one source file could not be read');
    const mine = await treeAt(userRepo, 'cairn-locked', src);
    expect(mine.map((n) => n.name)).toEqual(['fine.txt']);
    expect(mine).toEqual(await treeAt(userRepo, 'restic-locked', src));
    await ok(restic(['-r', userRepo, 'check', '--read-data']));
  });
});
