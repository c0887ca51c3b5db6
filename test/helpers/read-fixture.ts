// A small two-level repository written by restic 0.14 for the read-side command tests: two
// snapshots of `src` (backed up by its relative name: paths in the trees start at /src) of a tree that changes between them (a file's content, a file's mode, a folder
// removed, a file added, a file turned into a folder), with a 300 kB seeded file, a symlink
// and two files of equal content.

import { createCipheriv } from 'node:crypto';
import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, restic } from './cli';

export const UTC = { TZ: 'UTC' };

function seeded(n: number): Buffer {
  const c = createCipheriv('aes-128-ctr', Buffer.alloc(16, 7), Buffer.alloc(16, 0));
  return Buffer.concat([c.update(Buffer.alloc(n)), c.final()]);
}

export interface ReadFixture {
  repo: string;
  src: string;
  /** Oldest first. */
  ids: string[];
}

export async function makeReadFixture(dir: string): Promise<ReadFixture> {
  const src = join(dir, 'src');
  const repo = join(dir, 'repo');
  await mkdir(join(src, 'a', 'b'), { recursive: true });
  await mkdir(join(src, 'c'));
  await mkdir(join(src, 'gone'));
  await writeFile(join(src, 'a', 'b', 'f1.txt'), 'hello\n');
  await writeFile(join(src, 'a', 'f2.TXT'), 'world\n');
  await writeFile(join(src, 'c', 'big.bin'), seeded(300_000));
  await symlink('../a', join(src, 'c', 'link'));
  await writeFile(join(src, 'c', 'dup1'), 'same\n');
  await writeFile(join(src, 'c', 'dup2'), 'same\n');
  await writeFile(join(src, 'c', '<html> & "x"'), 'escape me\n');
  await writeFile(join(src, 'gone', 'x'), 'x\n');
  await writeFile(join(src, 'typechg'), 't\n');
  await ok(restic(['-r', repo, 'init']));
  await ok(restic(['-r', repo, 'backup', 'src', '--host', 'h1', '--tag', 't1,shared'], { env: UTC, cwd: dir }));
  await rm(join(src, 'gone'), { recursive: true });
  await writeFile(join(src, 'a', 'f2.TXT'), 'changed\n');
  await chmod(join(src, 'a', 'b', 'f1.txt'), 0o600);
  await writeFile(join(src, 'new'), 'new\n');
  await rm(join(src, 'typechg'));
  await mkdir(join(src, 'typechg'));
  await ok(restic(['-r', repo, 'backup', 'src', '--host', 'h2', '--tag', 'shared'], { env: UTC, cwd: dir }));
  const list = JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json']))).stdout) as { id: string }[];
  return { repo, src, ids: list.map((s) => s.id) };
}
