import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, OWNER, TEST_PASSWORD } from '../../test/helpers/mem-repo';
import { fileHashes, threeBackups } from '../../test/helpers/backups';
import { MemoryBackend } from '../backend/mem';
import { check } from '../check';
import { GoTime } from '../data/go-time';
import { TEST_KDF } from '../../test/helpers/test-kdf';
import { Repository } from '../repository/repository';
import { listSnapshots } from '../repository/snapshots';
import { copySnapshots, similarSnapshots } from '.';

const reopen = (r: Repository) => new Repository(r.backend, r.key, r.keyID, r.config);
/** A second repository: its own master key and (random) chunker polynomial. */
const target = () => Repository.init(new MemoryBackend(), TEST_PASSWORD, { owner: OWNER, kdf: TEST_KDF, version: 2 });

describe('copy', () => {
  beforeAll(initEngine);

  it('copies every snapshot into a repository with another key and polynomial; copying again adds nothing', async () => {
    const { repo: src, snapshots } = await threeBackups();
    const dst = await target();
    expect(dst.config.chunkerPolynomial).not.toBe(src.config.chunkerPolynomial);
    const srcList = await listSnapshots(src);
    const r = await copySnapshots(src, dst, srcList, []);
    expect(r.copied.map((c) => c.from)).toEqual(snapshots);
    expect(r.skipped).toEqual([]);
    const copies = await listSnapshots(reopen(dst));
    expect(copies.map((c) => c.snapshot.original)).toEqual(snapshots);
    expect(copies.every((c) => c.snapshot.parent === undefined)).toBe(true);
    const fresh = reopen(dst);
    await fresh.loadIndex();
    for (const [i, c] of copies.entries()) {
      // Trees are copied as they are: same IDs, same files.
      expect(c.snapshot.tree).toBe(srcList[i]!.snapshot.tree);
      expect(await fileHashes(fresh, c.snapshot.tree)).toEqual(await fileHashes(src, srcList[i]!.snapshot.tree));
    }
    expect((await check(reopen(dst), { readData: true })).problems).toEqual([]);
    const packs = await dst.listIDs('data');
    const again = await copySnapshots(src, reopen(dst), srcList, copies);
    expect(again.copied).toEqual([]);
    expect(again.skipped.map((s) => s.from)).toEqual(snapshots);
    expect(await dst.listIDs('data')).toEqual(packs);
  });

  it('stores only the blobs the target lacks, and keeps the first original through a copy of a copy', async () => {
    const { repo: src } = await threeBackups();
    const list = await listSnapshots(src);
    const dst = await target();
    const first = await copySnapshots(src, dst, [list[0]!], []);
    const rest = await copySnapshots(src, reopen(dst), list, await listSnapshots(reopen(dst)));
    expect(rest.copied).toHaveLength(2);
    // one.txt (g0's only file) and g0's unchanged trees are not stored twice
    const f = reopen(dst);
    await f.loadIndex();
    expect(f.index.size).toBe(first.blobs + rest.blobs);
    expect(new Set([...f.index.entries()].map((e) => e.type + e.id)).size).toBe(f.index.size);
    const third = await target();
    const dstList = await listSnapshots(reopen(dst));
    await copySnapshots(reopen(dst), third, dstList, []);
    expect((await listSnapshots(reopen(third))).map((e) => e.snapshot.original)).toEqual(list.map((e) => e.id));
  });

  it('similar snapshots: everything but parent and original must match', () => {
    const base = { time: GoTime.parse('2024-01-01T00:00:00Z'), tree: 'ab'.repeat(32), paths: ['/a', '/b'], hostname: 'h', tags: ['x', 'y'] };
    expect(similarSnapshots(base, { ...base, paths: ['/b', '/a'], tags: ['y', 'x'], parent: 'cd'.repeat(32), original: 'ef'.repeat(32) })).toBe(true);
    expect(similarSnapshots(base, { ...base, tags: ['x'] })).toBe(false);
    expect(similarSnapshots(base, { ...base, hostname: 'other' })).toBe(false);
    expect(similarSnapshots(base, { ...base, time: GoTime.parse('2024-01-01T00:00:01Z') })).toBe(false);
    expect(similarSnapshots({ ...base, excludes: ['a', 'b'] }, { ...base, excludes: ['b', 'a'] })).toBe(false);
  });
});
