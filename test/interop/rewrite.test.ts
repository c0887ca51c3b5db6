// cairn rewrite on a repository restic made: excluded entries leave new trees, the new
// snapshot records the old one, --dry-run writes nothing, --forget removes the original; restic
// 0.14 checks the result and restores it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, describeTree, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { resticInit } from '../helpers/restic-repo';
import { seededBytes } from '../helpers/backups';

describe('cairn rewrite', () => {
  let dir: string, src: string, repo: string, original: string;
  const snapshots = async () =>
    JSON.parse((await ok(cairn(['-r', repo, 'snapshots', '--json']))).stdout) as { id: string; original?: string; tags?: string[] }[];
  const files = async () => {
    const out: string[] = [];
    for (const t of ['index', 'snapshots']) out.push(...(await readdir(join(repo, t))).map((f) => `${t}/${f}`));
    return out.sort();
  };

  beforeAll(async () => {
    dir = await tempDir('rewrite');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'keep.bin'), seededBytes('rewrite-keep', 100_000));
    await writeFile(join(src, 'a.log'), 'log\n'.repeat(500));
    await writeFile(join(src, 'sub', 'b.log'), 'more log\n'.repeat(500));
    await writeFile(join(src, 'sub', 'SECRET.TXT'), 'secret\n');
    await writeFile(join(src, 'sub', 'notes.txt'), 'notes\n');
    await resticInit(repo);
    await ok(restic(['-r', repo, 'backup', '-q', '--tag', 'daily', src]));
    original = (await snapshots())[0]!.id;
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('refuses to run without anything to do', async () => {
    const r = await cairn(['-r', repo, 'rewrite']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^USAGE: Nothing to do/);
  });

  it('--dry-run says what it would do and changes nothing', async () => {
    const before = await files();
    const r = await ok(cairn(['-r', repo, 'rewrite', '--dry-run', '--exclude', '*.log']));
    expect(r.stdout).toContain('would save new snapshot');
    expect(r.stdout).toContain('would modify 1 snapshots');
    expect(await files()).toEqual(before);
  });

  it('writes a snapshot without the excluded files (exclude file, case-insensitive patterns); restic checks and restores it', async () => {
    const patterns = join(dir, 'patterns');
    await writeFile(patterns, '# logs\n*.log\n\n');
    const r = await ok(cairn(['-r', repo, 'rewrite', '--exclude-file', patterns, '--iexclude', 'secret.txt', original]));
    expect(r.stdout).toMatch(/saved new snapshot [0-9a-f]{8}\n\nmodified 1 snapshots\n$/);
    const list = await snapshots();
    expect(list).toHaveLength(2);
    const made = list.find((s) => s.original === original)!;
    expect(made.tags).toEqual(['daily', 'rewrite']);
    expect((await restic(['-r', repo, '--no-cache', 'check', '--read-data'])).code).toBe(0);
    const target = join(dir, 'restored');
    await ok(restic(['-r', repo, '--no-cache', 'restore', made.id, '--target', target]));
    const got = await describeTree(join(target, src));
    const want = await describeTree(src);
    expect([...got.keys()].sort()).toEqual(['keep.bin', 'sub', 'sub/notes.txt']);
    for (const p of got.keys()) if (got.get(p)!.type === 'file') expect(got.get(p)).toEqual(want.get(p));
    // Run again: nothing left to exclude in the new one; the original is rewritten to the same tree.
    const again = await ok(cairn(['-r', repo, 'rewrite', '--exclude', '*.log', made.id]));
    expect(again.stdout).toContain('no snapshots were modified');
  });

  it('--forget removes the snapshot it rewrote, under an exclusive lock', async () => {
    const r = await ok(cairn(['-r', repo, 'rewrite', '--forget', '--exclude', 'notes.txt', '--tag', 'rewrite']));
    expect(r.stdout).toContain('create exclusive lock for repository');
    expect(r.stdout).toMatch(/removed old snapshot [0-9a-f]{8}/);
    const list = await snapshots();
    expect(list).toHaveLength(2);
    expect(list.map((s) => s.id)).toContain(original);
    expect((await restic(['-r', repo, '--no-cache', 'check', '--read-data'])).code).toBe(0);
    const ls = await ok(restic(['-r', repo, '--no-cache', 'ls', list.find((s) => s.id !== original)!.id]));
    expect(ls.stdout).not.toContain('notes.txt');
    expect(ls.stdout).toContain('keep.bin');
  });
});
