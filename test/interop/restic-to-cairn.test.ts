// Interop (a): restic writes, cairn reads. restic 0.14 backs up the awkward tree; cairn lists
// it like restic does and restores it — whole and a sub-path — byte-identical.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { makeWeirdTree } from '../helpers/weird-tree';
import { cairn, describeTree, diffTrees, ok, removeDir, restic, tempDir } from '../helpers/cli';

describe('a repository written by restic', () => {
  let dir: string, src: string, repo: string, snapshotID: string;

  beforeAll(async () => {
    dir = await tempDir('interop-a');
    src = join(dir, 'src');
    repo = join(dir, 'repo');
    await makeWeirdTree(src);
    await ok(restic(['-r', repo, 'init']));
    await ok(restic(['-r', repo, 'backup', src, '--tag', 'from-restic', '--host', 'restic-host']));
    snapshotID = (JSON.parse((await ok(restic(['-r', repo, 'snapshots', '--json']))).stdout) as { id: string }[])[0]!.id;
  }, 180_000);
  afterAll(() => removeDir(dir));

  it('is listed by cairn snapshots with restic’s host, tags and paths', async () => {
    const list = JSON.parse((await ok(cairn(['-r', repo, 'snapshots', '--json']))).stdout) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: snapshotID, short_id: snapshotID.slice(0, 8), hostname: 'restic-host', tags: ['from-restic'], paths: [src] });
  });

  it('lists the same paths as restic ls', async () => {
    const mine = (await ok(cairn(['-r', repo, 'ls', '--json', snapshotID]))).stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as { path: string }).path);
    const theirs = (await ok(restic(['-r', repo, 'ls', '--json', snapshotID]))).stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as { path: string }).path);
    expect(mine).toEqual(theirs);
    expect(mine).toContain(join(src, 'names', 'new\nline'));
  });

  it('restores the whole snapshot byte-identical (names, contents, modes, symlinks, empty dirs)', async () => {
    const target = join(dir, 'restore-all');
    await ok(cairn(['-r', repo, 'restore', snapshotID, '--target', target]));
    expect(await diffTrees(src, join(target, src))).toEqual([]);
  });

  it('restores a sub-path as restic does (snapshot:path)', async () => {
    const sub = 'nested';
    const target = join(dir, 'restore-sub');
    await ok(cairn(['-r', repo, 'restore', `latest:${join(src, sub)}`, '--target', target]));
    expect(await diffTrees(join(src, sub), target)).toEqual([]);
  });

  it('restores only what --include matches', async () => {
    const target = join(dir, 'restore-include');
    await ok(cairn(['-r', repo, 'restore', 'latest', '--target', target, '--include', 'tab\there']));
    const want = await describeTree(src),
      got = await describeTree(join(target, src));
    const files = [...got].filter(([, e]) => e.type !== 'dir').map(([p]) => p);
    expect(files).toEqual(['names/tab\there']);
    expect(got.get('names/tab\there')).toEqual(want.get('names/tab\there'));
  });
});
