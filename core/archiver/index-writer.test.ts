import { describe, expect, it } from 'vitest';
import { MasterIndex } from '../index/master-index';
import type { SavedPack } from '../index/index-file';
import { PackEntries } from '../pack/entries';
import { BlobRegistry } from './blob-registry';
import { IndexWriter, type IndexSaver } from './index-writer';

const id = (n: number, c = 'a') => c.repeat(62) + n.toString(16).padStart(2, '0');
const pack = (n: number, blobs: number): SavedPack => ({
  id: id(n, 'c'),
  entries: PackEntries.fromBlobs(
    Array.from({ length: blobs }, (_, i) => ({ type: 'data' as const, id: id(n * 16 + i, 'b'), offset: i * 10, length: 10, uncompressedLength: 0 })),
  ),
});

function recorder(fail?: number) {
  const written: string[][] = [];
  const repo: IndexSaver = {
    async saveIndex(packs) {
      await new Promise((r) => setTimeout(r, 1));
      if (written.length === fail) {
        written.push([]);
        throw new Error('disk full');
      }
      written.push(packs.map((p) => p.id));
      return id(written.length, 'e');
    },
  };
  return { repo, written };
}

describe('IndexWriter', () => {
  it('writes an index file once enough blobs are in stored packs, and the rest when asked', async () => {
    const { repo, written } = recorder();
    const registry = new BlobRegistry(new MasterIndex());
    const indexed: string[][] = [];
    const w = new IndexWriter(repo, registry, { indexBlobs: 5, journal: { indexed: (p) => void indexed.push([...p]) } });
    w.packSaved(pack(1, 3), 100);
    w.packSaved(pack(2, 3), 100); // 6 blobs ≥ 5: due
    w.packSaved(pack(3, 1), 100);
    await w.write();
    expect(written).toEqual([[id(1, 'c'), id(2, 'c')], [id(3, 'c')]]);
    expect(indexed).toEqual(written);
    await w.write(); // nothing left: no empty index file
    expect(written).toHaveLength(2);
    w.throwIfFailed();
  });

  it('writes after the interval even with few blobs', async () => {
    const { repo, written } = recorder();
    let now = 0;
    const w = new IndexWriter(repo, new BlobRegistry(new MasterIndex()), { indexIntervalMs: 1000, now: () => now });
    w.packSaved(pack(1, 1), 10);
    expect(written).toHaveLength(0);
    now = 1000;
    w.packSaved(pack(2, 1), 10);
    await w.write();
    expect(written).toEqual([[id(1, 'c'), id(2, 'c')]]);
  });

  it('keeps the first failure for the end, and later writes still happen', async () => {
    const { repo, written } = recorder(0);
    const index = new MasterIndex();
    const w = new IndexWriter(repo, new BlobRegistry(index));
    w.packSaved(pack(1, 1), 10);
    await w.write();
    w.packSaved(pack(2, 1), 10);
    await w.write();
    expect(written).toEqual([[], [id(2, 'c')]]);
    expect(() => w.throwIfFailed()).toThrow('disk full');
    // Only the pack an index file lists is in the master index: the other is left to be adopted.
    expect(index.hasPack(id(1, 'c'))).toBe(false);
    expect(index.hasPack(id(2, 'c'))).toBe(true);
  });
});
