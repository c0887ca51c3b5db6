import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import type { Backend } from '../backend/backend';
import { hashID } from '../id';
import { listSnapshots } from '../repository/snapshots';
import { backup } from '../archiver/archiver';
import { inProcessPool } from '../archiver/pool';
import { affectedPaths, damagedBlobs } from './affected';
import { check, type CheckProblem } from './check';

const text = (s: string) => new TextEncoder().encode(s);

/** Two snapshots of one folder (the second adds a file); every file's content is one small blob. */
async function twoSnapshots() {
  const { repo, backend } = await memRepo();
  const files = { 'one.txt': { data: text('one\n') }, sub: { 'three.txt': { data: text('three\n') } } };
  const first = new MemSource({ d: files });
  await backup(repo, first, inProcessPool({ saver: backend, reader: first }), { hostname: 'h', targets: ['/d'] });
  const second = new MemSource({ d: { ...files, 'two.txt': { data: text('two\n') } } });
  await backup(repo, second, inProcessPool({ saver: backend, reader: second }), { hostname: 'h', targets: ['/d'] });
  await repo.loadIndex();
  return { repo, backend };
}

async function flipByte(be: Backend, pack: string, at: number): Promise<void> {
  const h = { type: 'data' as const, name: pack };
  const b = await be.load(h);
  b[at]! ^= 0x40;
  await be.remove(h);
  await be.save(h, b);
}

describe('affected paths', () => {
  beforeAll(initEngine);

  it('names the file a damaged data blob belongs to, in every snapshot that has it', async () => {
    const { repo, backend } = await twoSnapshots();
    const blob = await hashID(text('three\n'));
    const loc = repo.lookupBlob('data', blob)!;
    await flipByte(backend, loc.packID, loc.offset + (loc.length >> 1));
    const r = await check(repo, { readDataSubset: { kind: 'bucket', n: 1, t: 1 } });
    expect(r.ok).toBe(false);
    const damaged = damagedBlobs(r.problems, repo.index);
    expect([...damaged]).toEqual([blob]);
    const snaps = await listSnapshots(repo);
    const found = await affectedPaths(repo, snaps, damaged);
    expect(found.more).toBe(0);
    expect(found.paths.map((p) => [p.snapshot, p.path.join('/'), p.kind])).toEqual([...snaps].reverse().map((s) => [s.id, 'd/sub/three.txt', 'file']));
  });

  it('a missing pack makes all its blobs damaged; a damaged folder listing is named as a folder', () => {
    const problems: CheckProblem[] = [
      { kind: 'pack-missing', code: 'NOT_FOUND', pack: 'p1', message: '' },
      { kind: 'pack-unreferenced', code: 'BAD_PACK', pack: 'p2', hint: true, message: '' },
      { kind: 'tree', code: 'MAC_MISMATCH', blob: 't1', message: '' },
      { kind: 'pack-hash', code: 'HASH_MISMATCH', pack: 'p3', message: '' },
    ];
    const index = { entries: () => ['p1:a', 'p1:b', 'p2:c', 'p3:d'].map((s) => ({ packID: s.split(':')[0]!, id: s.split(':')[1]! })) };
    expect([...damagedBlobs(problems, index)].sort()).toEqual(['a', 'b', 't1']);
  });

  it('stops listing at the limit and counts the rest', async () => {
    const { repo } = await twoSnapshots();
    const snaps = await listSnapshots(repo);
    const damaged = new Set([await hashID(text('one\n')), await hashID(text('three\n'))]);
    const r = await affectedPaths(repo, snaps, damaged, { limit: 3 });
    expect(r.paths).toHaveLength(3);
    expect(r.more).toBe(1);
  });

  it('a damaged subtree is reported once per snapshot as the folder', async () => {
    const { repo } = await twoSnapshots();
    const snaps = await listSnapshots(repo);
    // the tree of d/sub: identical in both snapshots
    const { loadTree } = await import('../walker');
    const root = await loadTree(repo, snaps[0]!.snapshot.tree);
    const d = await loadTree(repo, root.nodes.find((n) => n.name === 'd')!.subtree!);
    const sub = d.nodes.find((n) => n.name === 'sub')!.subtree!;
    const r = await affectedPaths(repo, snaps, new Set([sub]));
    expect(r.paths.map((p) => `${p.path.join('/')}:${p.kind}`)).toEqual(['d/sub:tree', 'd/sub:tree']);
  });
});
