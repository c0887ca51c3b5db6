// Bad input from the source: a file that vanishes after it was listed and one that grows
// while it is read. Both are reported, the backup continues, and the snapshot is honest:
// the vanished file is absent, the grown one is stored as read (size = bytes stored).
// (A SourceFS wrapper injects the faults at exact moments — fakes only to inject faults.)

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFile, mkdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ok, removeDir, restic, tempDir, cairn, describeTree } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import type { SourceFS } from '../../core/archiver/source';
import { nodeFileReader, nodeSourceFS } from '../../cli/adapters/node-source';
import { lookupPath } from '../../core/walker';

describe('source files that change during the backup', () => {
  let dir: string, src: string, repoDir: string;

  beforeAll(async () => {
    dir = await tempDir('bad-source');
    src = join(dir, 'src');
    repoDir = join(dir, 'repo');
    await mkdir(src);
    await writeFile(join(src, 'stays.txt'), 'stable\n');
    await writeFile(join(src, 'vanishes.txt'), 'here now\n');
    await writeFile(join(src, 'grows.log'), 'line\n'.repeat(1000));
    await ok(cairn(['-r', repoDir, 'init']));
  });
  afterAll(() => removeDir(dir));

  it('reports them, keeps going, and records what was actually read', async () => {
    const repo = await openLocal(repoDir);
    // Each change comes right after the entry's lstat: the walk takes a folder's metadata a batch of names at a time.
    const faulty: SourceFS = {
      ...nodeSourceFS,
      async entriesOf(entry, names) {
        const got = await nodeSourceFS.entriesOf!(entry, names);
        if (names.includes('vanishes.txt')) await rm(join(src, 'vanishes.txt')); // stat'ed, gone before it is read
        if (names.includes('grows.log')) await appendFile(join(src, 'grows.log'), 'more\n'.repeat(500)); // grows after stat
        return got;
      },
    };
    const warnings: string[] = [];
    const result = await backup(repo, faulty, inProcessPool({ saver: repo.backend, reader: nodeFileReader }), {
      targets: [src],
      hostname: 'test',
      onWarning: (w) => warnings.push(`${w.code} ${w.path}`),
    });
    expect(warnings.sort()).toEqual([`SOURCE_CHANGED ${join(src, 'grows.log')}`, `SOURCE_READ ${join(src, 'vanishes.txt')}`]);
    expect(result.warnings).toHaveLength(2);

    await repo.loadIndex();
    const comps = src.split('/').filter(Boolean);
    expect(await lookupPath(repo, result.snapshot.tree, [...comps, 'vanishes.txt'])).toBeUndefined();
    const grown = await lookupPath(repo, result.snapshot.tree, [...comps, 'grows.log']);
    const now = await readFile(join(src, 'grows.log'));
    expect(grown!.size).toBe(now.length);

    // restic accepts the repository and restores the honest snapshot.
    expect((await restic(['-r', repoDir, 'check', '--read-data'])).code).toBe(0);
    const target = join(dir, 'restore');
    await ok(restic(['-r', repoDir, 'restore', result.id!, '--target', target]));
    const got = await describeTree(join(target, src));
    expect([...got.keys()].sort()).toEqual(['grows.log', 'stays.txt']);
    expect(got.get('grows.log')!.size).toBe(now.length);
  });

  it('a file that became a FIFO, a symlink or a folder after it was listed is refused, not read; one that shrank is saved as read', async () => {
    const src2 = join(dir, 'src2');
    await mkdir(src2);
    for (const name of ['stays.txt', 'becomes-fifo.txt', 'becomes-link.txt', 'becomes-dir.txt']) await writeFile(join(src2, name), `${name}\n`);
    await writeFile(join(src2, 'shrinks.log'), 'line\n'.repeat(1000));
    const repo = await openLocal(repoDir);
    // Each change comes right after the entry's lstat.
    const change: Record<string, (p: string) => Promise<unknown>> = {
      'becomes-fifo.txt': async (p) => (await rm(p), execFileSync('mkfifo', [p])),
      // No writer: a backup that waited on the FIFO for data would never return (the test's
      // timeout fails it). Opening it without blocking to see its type, as restic does, is fine.
      'becomes-link.txt': async (p) => (await rm(p), await symlink('/etc/hostname', p)),
      'becomes-dir.txt': async (p) => (await rm(p), await mkdir(p)),
      'shrinks.log': (p) => truncate(p, 100),
    };
    const faulty: SourceFS = {
      ...nodeSourceFS,
      async entriesOf(entry, names) {
        const got = await nodeSourceFS.entriesOf!(entry, names);
        for (const name of names) await change[name]?.(join(src2, name));
        return got;
      },
    };
    const warnings: string[] = [];
    const result = await backup(repo, faulty, inProcessPool({ saver: repo.backend, reader: nodeFileReader }), {
      targets: [src2],
      hostname: 'test',
      onWarning: (w) => warnings.push(`${w.code} ${w.path.slice(src2.length + 1)}: ${w.message.slice(src2.length + 1)}`),
    });
    // The backup returned with no writer on the FIFO: it never waited to read from it.
    expect(result.id).toBeTruthy();
    expect(warnings.sort()).toEqual([
      'SOURCE_CHANGED shrinks.log: shrinks.log: file changed while it was read (5000 → 100 bytes); saved what was read',
      'SOURCE_READ becomes-dir.txt: becomes-dir.txt: file changed type, refusing to archive',
      'SOURCE_READ becomes-fifo.txt: becomes-fifo.txt: file changed type, refusing to archive',
      'SOURCE_READ becomes-link.txt: becomes-link.txt: file changed type, refusing to archive',
    ]);
    await repo.loadIndex();
    const comps = src2.split('/').filter(Boolean);
    for (const gone of ['becomes-fifo.txt', 'becomes-link.txt', 'becomes-dir.txt'])
      expect(await lookupPath(repo, result.snapshot.tree, [...comps, gone])).toBeUndefined();
    expect((await lookupPath(repo, result.snapshot.tree, [...comps, 'shrinks.log']))!.size).toBe(100);
    expect((await restic(['-r', repoDir, 'check', '--read-data'])).code).toBe(0);
  });

  it('an entry gone between the listing of names and its lstat is a warning, left out; the rest is saved', async () => {
    const src3 = join(dir, 'src3');
    await mkdir(src3);
    for (const name of ['a.txt', 'gone.txt', 'z.txt']) await writeFile(join(src3, name), `${name}\n`);
    const repo = await openLocal(repoDir);
    const faulty: SourceFS = {
      ...nodeSourceFS,
      async readNames(entry, signal) {
        const names = await nodeSourceFS.readNames!(entry, signal);
        if (entry.path === src3) await rm(join(src3, 'gone.txt'));
        return names;
      },
    };
    const warnings: string[] = [];
    const result = await backup(repo, faulty, inProcessPool({ saver: repo.backend, reader: nodeFileReader }), {
      targets: [src3],
      hostname: 'test',
      onWarning: (w) => warnings.push(`${w.code} ${w.path}`),
    });
    expect(warnings).toEqual([`SOURCE_READ ${join(src3, 'gone.txt')}`]);
    await repo.loadIndex();
    const comps = src3.split('/').filter(Boolean);
    expect(await lookupPath(repo, result.snapshot.tree, [...comps, 'gone.txt'])).toBeUndefined();
    for (const kept of ['a.txt', 'z.txt']) expect(await lookupPath(repo, result.snapshot.tree, [...comps, kept])).toBeDefined();
  });
});
