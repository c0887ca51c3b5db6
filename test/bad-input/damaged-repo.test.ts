// Bad input in the repository itself: a flipped byte in a pack, a missing pack, a malformed
// snapshot. check names what is wrong; everything not affected still restores.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, describeTree, jsonMessage, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { seededBytes } from '../helpers/seeded';
import { findSnapshot } from '../../core/repository/snapshots';
import { lookupPath } from '../../core/walker';

describe('a damaged repository', () => {
  let dir: string, src: string, pristine: string, snap1: string, snap2: string;
  let n = 0;
  const fresh = async () => {
    const repo = join(dir, `repo${n++}`);
    await cp(pristine, repo, { recursive: true });
    return repo;
  };
  /** Pack file and blob of a file's first chunk in the latest snapshot. */
  const locate = async (repo: string, name: string) => {
    const r = await openLocal(repo);
    await r.loadIndex();
    const { snapshot } = await findSnapshot(r, snap2);
    const node = await lookupPath(r, snapshot.tree, [...src.split('/').filter(Boolean), name]);
    const loc = r.index.lookup('data', node!.content![0]!)!;
    return { pack: join(repo, 'data', loc.packID.slice(0, 2), loc.packID), ...loc };
  };

  beforeAll(async () => {
    dir = await tempDir('bad-repo');
    src = join(dir, 'src');
    pristine = join(dir, 'pristine');
    await mkdir(src);
    // victim.bin goes into the repository in a first backup (its own pack); keep.bin only in the second.
    await writeFile(join(src, 'victim.bin'), seededBytes('damaged-repo victim', 3 << 20));
    await ok(cairn(['-r', pristine, 'init']));
    snap1 = jsonMessage((await ok(cairn(['-r', pristine, 'backup', '--json', src]))).stdout, 'summary').snapshot_id as string;
    await writeFile(join(src, 'keep.txt'), 'keep me\n'.repeat(10000));
    await writeFile(join(src, 'keep.bin'), seededBytes('damaged-repo keep', 1 << 20));
    snap2 = jsonMessage((await ok(cairn(['-r', pristine, 'backup', '--json', src]))).stdout, 'summary').snapshot_id as string;
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('check --read-data names the pack and blob of a flipped byte; restic agrees; other files still restore', async () => {
    const repo = await fresh();
    const v = await locate(repo, 'victim.bin');
    const bytes = await readFile(v.pack);
    bytes[v.offset + 100]! ^= 0x40;
    await chmod(v.pack, 0o600);
    await writeFile(v.pack, bytes);

    expect((await cairn(['-r', repo, 'check'])).code).toBe(0); // structure is intact
    const c = await cairn(['-r', repo, 'check', '--read-data']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(v.packID);
    expect(c.stderr).toContain(v.id);
    expect(c.stderr).toMatch(/Fatal: repository contains errors/);
    expect((await restic(['-r', repo, 'check', '--read-data'])).code).not.toBe(0);

    const target = join(dir, `restore${n}`);
    const r = await cairn(['-r', repo, 'restore', snap2, '--target', target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('victim.bin');
    expect(r.stderr).toMatch(/MAC_MISMATCH|HASH_MISMATCH/);
    const want = await describeTree(src),
      got = await describeTree(join(target, src));
    expect(got.get('keep.txt')).toEqual(want.get('keep.txt'));
    expect(got.get('keep.bin')).toEqual(want.get('keep.bin'));
    expect(got.get('victim.bin')?.content).not.toEqual(want.get('victim.bin')!.content);
  });

  it('check names a missing pack; the files not in it still restore', async () => {
    const repo = await fresh();
    const v = await locate(repo, 'victim.bin');
    await rm(v.pack);
    const c = await cairn(['-r', repo, 'check']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(`pack ${v.packID}: does not exist`);
    const target = join(dir, `restore${n}`);
    const r = await cairn(['-r', repo, 'restore', snap2, '--target', target]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('victim.bin');
    const want = await describeTree(src),
      got = await describeTree(join(target, src));
    expect(got.get('keep.txt')).toEqual(want.get('keep.txt'));
    expect(got.get('keep.bin')).toEqual(want.get('keep.bin'));
  });

  it('lists the good snapshots next to a malformed one, and refuses to restore the bad one by name', async () => {
    const repo = await fresh();
    const r0 = await openLocal(repo);
    const bad = await r0.saveJSON('snapshots', '{"time": "yesterday", "tree": 42');
    const list = await cairn(['-r', repo, 'snapshots', '--json']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id).sort()).toEqual([snap1, snap2].sort());
    expect(list.stderr).toContain(bad.slice(0, 8));
    const r = await cairn(['-r', repo, 'restore', bad, '--target', join(dir, 'nope')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^BAD_SNAPSHOT: snapshot [0-9a-f]{8}: /);
    const c = await cairn(['-r', repo, 'check']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(bad.slice(0, 8));
  });
});
