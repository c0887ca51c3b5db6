import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { decodeIndex } from '../index/index-file';
import { MasterIndex } from '../index/master-index';
import type { PackedBlob } from '../pack/header';
import type { IndexFileInfo } from '../repository/repository';
import { INDEX_FULL_BLOBS, planIndexRewrite, writeIndexFiles } from './index-rewrite';
import { ranges } from './repack';

const id = (n: number) => n.toString(16).padStart(64, '0');
const files = (list: [number, IndexFileInfo][]) => new Map(list.map(([n, f]) => [id(n), f]));
const excluded = (n: number, packs: number[]) => {
  const x = new Uint8Array(n);
  for (const p of packs) x[p] = 1;
  return x;
};

describe('planIndexRewrite (restic MasterIndex.Rewrite)', () => {
  it('keeps full files without excluded packs; the rest are obsolete and their remaining packs listed once', () => {
    const plan = planIndexRewrite(
      files([
        [1, { packs: [0, 1], blobs: INDEX_FULL_BLOBS }], // full, untouched: stays
        [2, { packs: [2, 3], blobs: INDEX_FULL_BLOBS + 5 }], // full, lists excluded pack 3
        [3, { packs: [4, 5], blobs: 100 }], // not full
        [4, { packs: [5, 1, 6], blobs: 10 }], // lists 5 again and 1 (in a kept file)
      ]),
      excluded(7, [3, 6]),
    );
    expect(plan.keep).toEqual([id(1)]);
    expect(plan.obsolete).toEqual([id(2), id(3), id(4)]);
    expect(plan.packs).toEqual([2, 4, 5]);
  });

  it('rewrites an oversized file', () => {
    const plan = planIndexRewrite(files([[1, { packs: [0], blobs: INDEX_FULL_BLOBS + 500_000 }]]), excluded(1, []));
    expect(plan.obsolete).toEqual([id(1)]);
    expect(plan.packs).toEqual([0]);
  });
});

describe('writeIndexFiles', () => {
  beforeAll(initEngine);

  it('writes packs from the index, then the new ones, in files of about 50 000 blobs', async () => {
    const { repo } = await memRepo();
    const index = new MasterIndex();
    // Random IDs, as SHA-256 values are (the index hashes by their first bytes).
    const pack = (p: number, n: number): PackedBlob[] => {
      const hex = Buffer.from(seededBytes(p + 1, n * 32)).toString('hex');
      return Array.from({ length: n }, (_, i) => ({
        type: 'data',
        id: hex.slice(i * 64, i * 64 + 64),
        offset: i * 100,
        length: 100,
        uncompressedLength: i % 2 ? 0 : 150,
      }));
    };
    const sizes = [26_000, 26_000, 100];
    for (let p = 0; p < 3; p++) index.addPack(id(100 + p), pack(p, sizes[p]!));
    const extra = [{ id: id(999), blobs: pack(9, 10) }];
    const saved = await writeIndexFiles(repo, index, [2, 0, 1], extra);
    expect(saved).toHaveLength(2);
    const decoded = await Promise.all(saved.map(async (f) => decodeIndex(await repo.loadJSON('index', f), f)));
    const byFirst = decoded.sort((a, b) => b.length - a.length);
    expect(byFirst.map((f) => f.map((p) => p.id))).toEqual([[id(102), id(100), id(101)], [id(999)]]);
    expect(byFirst[0]![1]!.blobs.map((b) => [b.id, b.offset, b.length, b.uncompressedLength]).join()).toBe(
      pack(0, 26_000)
        .map((b) => [b.id, b.offset, b.length, b.uncompressedLength])
        .join(),
    );
  });
});

describe('repack ranges', () => {
  it('reads wanted blobs in one request unless a gap exceeds 1 MiB', () => {
    const index = new MasterIndex();
    const MiB = 2 ** 20;
    const at = [0, 1000, 2000 + MiB, 3000 + 2 * MiB + 1];
    index.addPack(
      id(1),
      at.map((offset, i) => ({ type: 'data', id: id(10 + i), offset, length: 1000, uncompressedLength: 0 })),
    );
    expect(ranges(index, [0, 1, 2, 3]).map((r) => [r.start, r.end, r.entries])).toEqual([
      [0, 3000 + MiB, [0, 1, 2]],
      [3000 + 2 * MiB + 1, 4000 + 2 * MiB + 1, [3]],
    ]);
  });
});
