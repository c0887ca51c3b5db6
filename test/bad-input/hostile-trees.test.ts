// Snapshots written to plant files outside the restore target: names `..`, `../x`, a path far up
// the tree, a symlink followed by a folder or file of the same name, and a symlink already in
// the target. Each is correctly encrypted (the engine's own writer); only the names are
// hostile. `cairn restore` must refuse those nodes, restore the rest, exit 1, and leave every
// byte, mode and entry outside the target as it was. restic 0.14 restores the same snapshot
// as the judge of what the rest should look like.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { cairn, describeTree, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { writeHostileSnapshot, type HostileNode } from '../helpers/hostile-repo';

describe('restoring a hostile tree', () => {
  let dir: string, repo: string, work: string, outside: string;
  const tmpVictim = `/tmp/cairn-hostile-${randomUUID()}`;
  let n = 0;

  beforeAll(async () => {
    dir = await tempDir('hostile');
    repo = join(dir, 'repo');
    work = join(dir, 'work');
    outside = join(work, 'outside');
    await ok(cairn(['-r', repo, 'init']));
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'victim.txt'), 'original\n');
    await chmod(outside, 0o750);
    await chmod(work, 0o700);
  }, 60_000);
  afterAll(() => (process.env.KEEP ? undefined : removeDir(dir)));

  /** Everything under `work` but the restore targets, and whether /tmp got a file. */
  const world = async () => {
    const tree = await describeTree(work);
    for (const k of [...tree.keys()]) if (k.startsWith('target')) tree.delete(k);
    return { tree: [...tree], tmp: existsSync(tmpVictim), work: (await readdir(work)).filter((e) => !e.startsWith('target')).sort() };
  };

  const snapshot = async (nodes: HostileNode[]) => {
    const r = await openLocal(repo);
    await r.loadIndex();
    return writeHostileSnapshot(r, nodes);
  };

  const depthToRoot = () => join(work, 'target').split('/').length;

  const attacks: [string, () => HostileNode[]][] = [
    ['a folder named ".." (chmod 0777)', () => [{ name: '..', type: 'dir', mode: 0o777, children: [{ name: 'pwned.txt', type: 'file', data: 'pwned' }] }]],
    ['a file named "../pwned.txt"', () => [{ name: '../pwned.txt', type: 'file', data: 'pwned' }]],
    ['a file named "../outside/victim.txt"', () => [{ name: '../outside/victim.txt', type: 'file', data: 'overwritten', mode: 0o777 }]],
    ['a file far up the tree, into /tmp', () => [{ name: '../'.repeat(depthToRoot() + 2) + tmpVictim.slice(1), type: 'file', data: 'pwned' }]],
    [
      'a symlink to a folder outside, then a folder of its name',
      () => [
        { name: 'lnk', type: 'symlink', target: outside },
        {
          name: 'lnk',
          type: 'dir',
          mode: 0o777,
          children: [
            { name: 'planted.txt', type: 'file', data: 'planted' },
            { name: 'victim.txt', type: 'file', data: 'overwritten', mode: 0o666 },
          ],
        },
      ],
    ],
    [
      'a symlink to a file outside, then a file of its name',
      () => [
        { name: 'flnk', type: 'symlink', target: join(outside, 'victim.txt') },
        { name: 'flnk', type: 'file', data: 'overwritten', mode: 0o777 },
      ],
    ],
    [
      'empty, "." and NUL names beside a good file',
      () => [
        { name: '', type: 'file', data: 'e' },
        { name: '.', type: 'dir', mode: 0o777, children: [{ name: 'dot.txt', type: 'file', data: 'd' }] },
        { name: 'nul\0', type: 'file', data: 'n' },
      ],
    ],
  ];

  it.each(attacks)('%s: refused, the rest restored, nothing outside the target changed (exit 1)', async (_what, nodes) => {
    const id = await snapshot([...nodes(), { name: 'good', type: 'dir', children: [{ name: 'good.txt', type: 'file', data: 'good\n' }] }]);
    const before = await world();
    const target = join(work, `target${n++}`);
    const r = await cairn(['-r', repo, 'restore', id, '--target', target]);
    expect(await world()).toEqual(before);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('INVALID_NAME');
    const got = await describeTree(target);
    expect(got.get('good/good.txt')?.size).toBe(5);
    for (const p of got.keys()) expect(p).not.toMatch(/pwned|planted|dot\.txt/);

    // restic 0.14 on the same snapshot: the same good file, and nothing written outside either.
    const rt = join(work, `target-restic${n++}`);
    await restic(['-r', repo, 'restore', id, '--target', rt]);
    expect((await describeTree(rt)).get('good/good.txt')?.size).toBe(5);
  });

  it('a symlink already in the target where the snapshot has a folder is replaced, not followed', async () => {
    const id = await snapshot([{ name: 'pre', type: 'dir', mode: 0o777, children: [{ name: 'planted.txt', type: 'file', data: 'planted' }] }]);
    const target = join(work, `target${n++}`);
    await mkdir(target);
    await symlink(outside, join(target, 'pre'));
    const before = await world();
    await ok(cairn(['-r', repo, 'restore', id, '--target', target]));
    expect(await world()).toEqual(before);
    const got = await describeTree(target);
    expect(got.get('pre')?.type).toBe('dir');
    expect(got.get('pre/planted.txt')?.size).toBe(7);
  });

  it('restore snapshot:sub into a target that does not exist yet, a symlink at its top', async () => {
    const id = await snapshot([
      {
        name: 'sub',
        type: 'dir',
        children: [
          { name: 'link', type: 'symlink', target: '/etc' },
          { name: 'f', type: 'file', data: 'f' },
        ],
      },
    ]);
    const target = join(work, `target${n++}`, 'new', 'deeper');
    await ok(cairn(['-r', repo, 'restore', `${id}:/sub`, '--target', target]));
    const got = await describeTree(target);
    expect(got.get('link')).toMatchObject({ type: 'symlink', content: '/etc' });
    expect(got.get('f')?.size).toBe(1);
  });

  it('check, as restic check, reports the empty name and nothing else of these trees', async () => {
    const r = await restic(['-r', repo, 'check', '--read-data']);
    const c = await cairn(['-r', repo, 'check', '--read-data']);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/^ {2}tree .*$/gm)).toEqual([expect.stringMatching(/node with empty name$/)]);
    expect(c.code).toBe(1);
    expect(c.stderr.match(/tree \w+.*$/gm)).toEqual([expect.stringMatching(/node with empty name$/)]);
  });
});
