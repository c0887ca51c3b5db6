// Damaged copies of a repository restic made: a deleted pack, a deleted index file, a
// truncated tree pack, a flipped byte in a data pack. Each is followed by the matching cairn
// repair; restic 0.14 then checks the repository clean and restores every undamaged file
// byte for byte. check --read-data-subset n/t picks the same packs as restic's.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, readdir, readFile, rm, truncate, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, describeTree, ok, removeDir, restic, tempDir, type TreeEntry } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { resticInit } from '../helpers/restic-repo';
import { seededBytes } from '../helpers/backups';
import { loadSnapshot } from '../../core/repository/snapshots';
import { lookupPath } from '../../core/walker';

type Tree = Map<string, TreeEntry>;

describe('repairing a damaged restic repository with cairn', () => {
  let dir: string, src: string, pristine: string;
  /** Snapshot IDs and the source as each one saw it, oldest first. */
  const gens: { id: string; tree: Tree }[] = [];
  let n = 0;
  let cwd: string;

  const fresh = async () => {
    const repo = join(dir, `repo${n++}`);
    await cp(pristine, repo, { recursive: true });
    return repo;
  };
  const packPath = (repo: string, id: string) => join(repo, 'data', id.slice(0, 2), id);
  /** The pack of `path`'s first chunk (or, for a directory, of its tree) in snapshot `gen`. */
  const locate = async (repo: string, gen: number, path: string) => {
    const r = await openLocal(repo);
    await r.loadIndex();
    const sn = await loadSnapshot(r, gens[gen]!.id);
    const comps = [...src.split('/').filter(Boolean), ...path.split('/').filter(Boolean)];
    const node = await lookupPath(r, sn.tree, comps);
    const loc = node!.type === 'dir' ? r.lookupBlob('tree', node!.subtree!)! : r.lookupBlob('data', node!.content![0]!)!;
    return loc;
  };
  /** restic restores snapshot `id`; returns the restored source folder's description. */
  const restoreWithRestic = async (repo: string, id: string): Promise<Tree> => {
    const target = join(dir, `restore${n++}`);
    await ok(restic(['-r', repo, '--no-cache', 'restore', id, '--target', target]));
    return describeTree(join(target, src));
  };
  const cairnIn = (args: string[]) => cairn(args, { cwd });
  const resticClean = async (repo: string) => {
    const c = await restic(['-r', repo, '--no-cache', 'check', '--read-data']);
    expect(c.stderr + c.stdout).toContain('no errors were found');
    expect(c.code).toBe(0);
  };
  const snapshotIDs = async (repo: string) => JSON.parse((await ok(cairn(['-r', repo, 'snapshots', '--json']))).stdout) as { id: string; original?: string }[];

  beforeAll(async () => {
    dir = await tempDir('repair');
    cwd = join(dir, 'cwd');
    await mkdir(cwd);
    src = join(dir, 'src');
    pristine = join(dir, 'pristine');
    await mkdir(join(src, 'sub'), { recursive: true });
    await resticInit(pristine);
    const states = [
      async () => writeFile(join(src, 'keep.txt'), 'keep me\n'.repeat(4000)),
      async () => writeFile(join(src, 'victim.bin'), seededBytes('repair-victim', 300_000)),
      async () => writeFile(join(src, 'sub', 'other.bin'), seededBytes('repair-other', 200_000)),
    ];
    // One restic backup per state: each stores its own data pack and tree pack.
    for (const state of states) {
      await state();
      await ok(restic(['-r', pristine, 'backup', '-q', src]));
      const list = await snapshotIDs(pristine);
      gens.push({ id: list[list.length - 1]!.id, tree: await describeTree(src) });
    }
  }, 90_000);
  afterAll(() => removeDir(dir));

  it('a deleted data pack: repair index, then repair snapshots --forget; the other files restore', async () => {
    const repo = await fresh();
    const victim = await locate(repo, 1, 'victim.bin');
    await rm(packPath(repo, victim.packID));
    const idx = await cairnIn(['-r', repo, 'repair', 'index']);
    expect(idx.code).toBe(0);
    expect(idx.stderr).toContain(`removing not found pack file ${victim.packID}`);
    expect(idx.stdout).toMatch(/rebuilding index\ndone\n$/);
    const snaps = await cairnIn(['-r', repo, 'repair', 'snapshots', '--forget']);
    expect(snaps.code).toBe(0);
    expect(snaps.stdout).toContain(`  file "${src}/victim.bin": removed missing content`);
    expect(snaps.stdout).toContain('modified 2 snapshots');
    await resticClean(repo);
    const latest = (await snapshotIDs(repo)).find((s) => s.original === gens[2]!.id)!;
    const got = await restoreWithRestic(repo, latest.id);
    const want = gens[2]!.tree;
    for (const p of ['keep.txt', 'sub/other.bin']) expect(got.get(p)).toEqual(want.get(p));
    expect(got.get('victim.bin')?.size).toBe(0);
  });

  it('a deleted index file: repair index reads the packs it listed; everything restores', async () => {
    const repo = await fresh();
    const [first] = await readdir(join(repo, 'index'));
    await rm(join(repo, 'index', first!));
    expect((await restic(['-r', repo, '--no-cache', 'check'])).code).not.toBe(0);
    const idx = await cairnIn(['-r', repo, 'repair', 'index']);
    expect(idx.code).toBe(0);
    expect(idx.stderr).toMatch(/adding pack file to index [0-9a-f]{64}/);
    await resticClean(repo);
    expect(await restoreWithRestic(repo, gens[2]!.id)).toEqual(gens[2]!.tree);
  });

  it('a truncated tree pack: repair packs salvages the trees before the cut, repair snapshots drops the rest', async () => {
    const repo = await fresh();
    const tree = await locate(repo, 2, 'sub');
    const file = packPath(repo, tree.packID);
    await chmod(file, 0o600);
    await truncate(file, tree.offset + Math.floor(tree.length / 2));
    const c = await cairnIn(['-r', repo, 'check']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain(`cairn repair packs ${tree.packID}`);
    const packs = await cairnIn(['-r', repo, 'repair', 'packs', tree.packID]);
    expect(packs.code).toBe(0);
    expect(packs.stdout).toContain('removing salvaged pack files');
    expect(await readFile(join(cwd, `pack-${tree.packID}`))).toHaveLength(tree.offset + Math.floor(tree.length / 2)); // restic's backup copy
    // restic writes a snapshot's root tree last, after `sub`: the newest snapshot lost its root.
    const snaps = await ok(cairnIn(['-r', repo, 'repair', 'snapshots', '--forget']));
    expect(snaps.stdout).toContain('  dir "/": not readable');
    expect(snaps.stdout).toContain(`removed empty snapshot ${gens[2]!.id.slice(0, 8)}`);
    await resticClean(repo);
    expect((await snapshotIDs(repo)).map((s) => s.id).sort()).toEqual([gens[0]!.id, gens[1]!.id].sort());
    // The older snapshots did not use that pack: they restore whole.
    for (const g of gens.slice(0, 2)) expect(await restoreWithRestic(repo, g.id)).toEqual(g.tree);
  });

  it('a flipped byte in a data pack: --read-data-subset n/t finds it in the same group as restic; repair packs + repair snapshots; the rest restores', async () => {
    const repo = await fresh();
    const other = await locate(repo, 2, 'sub/other.bin');
    const file = packPath(repo, other.packID);
    const bytes = await readFile(file);
    bytes[other.offset + 100]! ^= 0x10;
    await chmod(file, 0o600);
    await writeFile(file, bytes);

    const t = 3;
    const group = (parseInt(other.packID.slice(0, 2), 16) % t) + 1;
    for (let g = 1; g <= t; g++) {
      // One after the other: both take an exclusive lock.
      const mine = await cairn(['-r', repo, 'check', `--read-data-subset=${g}/${t}`]);
      const theirs = await restic(['-r', repo, '--no-cache', 'check', `--read-data-subset=${g}/${t}`]);
      expect([g, mine.code]).toEqual([g, theirs.code]);
      expect([g, mine.code]).toEqual([g, g === group ? 1 : 0]);
      const count = (s: string) => /read group #\d+ of (\d+) data packs/.exec(s)?.[1];
      expect(count(mine.stdout)).toBe(count(theirs.stdout));
    }
    const full = await cairn(['-r', repo, 'check', '--read-data', '--json']);
    const summary = JSON.parse(full.stdout) as { num_errors: number; broken_packs: string[] };
    expect(summary.broken_packs).toEqual([other.packID]);

    await ok(cairnIn(['-r', repo, 'repair', 'packs', other.packID]));
    await ok(cairnIn(['-r', repo, 'repair', 'snapshots', '--forget']));
    await resticClean(repo);
    const latest = (await snapshotIDs(repo)).find((s) => s.original === gens[2]!.id)!;
    const got = await restoreWithRestic(repo, latest.id);
    const want = gens[2]!.tree;
    for (const p of ['keep.txt', 'victim.bin']) expect(got.get(p)).toEqual(want.get(p));
    expect(got.get('sub/other.bin')!.size).toBeLessThan(want.get('sub/other.bin')!.size);
  });
});
