// The app's snapshot comparison on an in-memory repository (Node): `cairn diff`'s walk
// (core/diff) over the session's trees, as added / removed / modified entries.

import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource, type MemDir } from '../../test/helpers/mem-source';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import { diffTrees } from '../../core/diff';
import type { ID } from '../../core/id';
import { diff } from './browse';
import { Session } from './session';

const text = (s: string) => ({ data: new TextEncoder().encode(s) });
// The second backup reads a file again only when its metadata changed (as restic's does): the new versions get another mtime.
const big = (seed: number) => ({ data: Uint8Array.from({ length: 3000 }, (_, i) => (i * seed) & 0xff), mtime: seed });

async function twoSnapshots(before: MemDir, after: MemDir) {
  const { repo, backend } = await memRepo();
  const ids: string[] = [];
  for (const root of [before, after]) {
    const src = new MemSource({ d: root });
    ids.push((await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: 'h', targets: ['/d'] })).id);
  }
  const s = new Session({ loc: { kind: 'opfs', name: 'test' }, locationKey: 'opfs:test', repo, offline: false, remembered: false });
  return { s, a: ids[0]!, b: ids[1]! };
}

describe('diff of two snapshots (the app)', () => {
  beforeAll(initEngine);

  it("lists what `cairn diff` lists, in its order, with each node's type", async () => {
    const same = { 'a.txt': text('a'), deep: { 'b.txt': text('b') } };
    const { s, a, b } = await twoSnapshots(
      { same, gone: { 'x.txt': text('x'), sub: { 'y.txt': text('y') } }, 'edit.bin': big(3), 'was-file': text('f'), 'touched.txt': { ...text('t'), mtime: 1 } },
      { same, 'new.txt': text('n'), 'edit.bin': big(5), 'was-file': { 'in.txt': text('i') }, 'touched.txt': { ...text('t'), mtime: 2 } },
    );
    const entries = await diff(s, a, b);
    expect(entries.map((e) => [e.change, e.path.join('/'), e.type])).toEqual([
      ['modified', 'd/edit.bin', 'file'],
      ['removed', 'd/gone', 'dir'],
      ['removed', 'd/gone/sub', 'dir'],
      ['removed', 'd/gone/sub/y.txt', 'file'],
      ['removed', 'd/gone/x.txt', 'file'],
      ['added', 'd/new.txt', 'file'],
      ['modified', 'd/was-file', 'dir'],
    ]);

    // The same changes as the CLI's engine reports them (its paths end folders in '/').
    const cli: string[] = [];
    const [sa, sb] = [await s.snapshot(a), await s.snapshot(b)];
    await diffTrees(s.repo, sa.snapshot.tree, sb.snapshot.tree, { onChange: (c) => cli.push(`${c.modifier} ${c.path}`) });
    expect(cli).toEqual(['M /d/edit.bin', '- /d/gone/', '- /d/gone/sub/', '- /d/gone/sub/y.txt', '- /d/gone/x.txt', '+ /d/new.txt', 'T /d/was-file/']);
  });

  it('does not walk a subtree both snapshots share', async () => {
    const shared = { one: { two: { 'leaf.txt': text('leaf') } } };
    const { s, a, b } = await twoSnapshots({ shared, 'x.txt': { ...text('1'), mtime: 1 } }, { shared, 'x.txt': { ...text('2'), mtime: 2 } });
    const loaded: ID[] = [];
    const tree = s.tree.bind(s);
    s.tree = (id, signal) => (loaded.push(id), tree(id, signal));
    expect((await diff(s, a, b)).map((e) => [e.change, e.path.join('/')])).toEqual([['modified', 'd/x.txt']]);
    // The two roots and the two /d trees; not /d/shared and below.
    expect(loaded).toHaveLength(4);
  });
});
