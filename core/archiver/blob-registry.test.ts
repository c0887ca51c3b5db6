import { beforeAll, describe, expect, it } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { MasterIndex } from '../index/master-index';
import type { SavedPack } from '../index/index-file';
import { PackEntries } from '../pack/entries';
import { BlobRegistry } from './blob-registry';
import { inProcessPool } from './pool';

const id = (n: number) => n.toString(16).padStart(2, '0').repeat(32);
const pack = (p: number, blobs: [number, 'data' | 'tree'][]): SavedPack => ({
  id: id(p),
  entries: PackEntries.fromBlobs(blobs.map(([b, type], i) => ({ type, id: id(b), offset: i * 100, length: 100, uncompressedLength: 0 }))),
});

describe('BlobRegistry', () => {
  it('lets exactly one caller claim a new blob; data and tree claims are separate', () => {
    const r = new BlobRegistry(new MasterIndex());
    expect(r.has('data', id(1))).toBe(false);
    expect(r.claim('data', id(1))).toBe(true);
    expect(r.claim('data', id(1))).toBe(false);
    expect(r.has('data', id(1))).toBe(true);
    expect(r.claim('tree', id(1))).toBe(true);
    expect(r.claim('tree', id(1))).toBe(false);
  });

  it('never claims blobs the index already has', () => {
    const index = new MasterIndex();
    index.addPack(id(9), pack(9, [[1, 'data']]).entries);
    const r = new BlobRegistry(index);
    expect(r.has('data', id(1))).toBe(true);
    expect(r.claim('data', id(1))).toBe(false);
    expect(r.claim('tree', id(1))).toBe(true);
  });

  it('packSaved queues the pack for the next index file and counts it; only indexed() puts its blobs in the master index', () => {
    const index = new MasterIndex();
    const r = new BlobRegistry(index);
    r.claim('data', id(1));
    r.claim('data', id(2));
    r.claim('tree', id(3));
    r.packSaved(
      pack(10, [
        [1, 'data'],
        [2, 'data'],
      ]),
      500,
    );
    r.packSaved(pack(11, [[3, 'tree']]), 200);
    // Stored, but no index file lists them yet: still claimed, not in the master index.
    expect(index.has('data', id(1)) || index.has('data', id(2)) || index.has('tree', id(3))).toBe(false);
    expect(r.claim('data', id(1))).toBe(false);
    expect(r.has('tree', id(3))).toBe(true);
    expect(r.unindexedBlobs).toBe(3);
    expect(r.stats).toEqual({ packs: 2, blobs: 3, bytes: 700 });
    const queued = r.takeUnindexed();
    expect(queued.map((p) => p.id)).toEqual([id(10), id(11)]);
    expect(r.unindexedBlobs).toBe(0);
    expect(r.takeUnindexed()).toEqual([]);
    r.indexed(queued);
    expect(index.has('data', id(1)) && index.has('data', id(2)) && index.has('tree', id(3))).toBe(true);
    expect(r.claim('data', id(1))).toBe(false);
  });

  describe('under concurrency', () => {
    beforeAll(initEngine);

    it('many files with the same content, saved at once, store each blob once', async () => {
      const { repo } = await memRepo();
      const registry = new BlobRegistry(repo.index);
      const content = seededBytes(5, 600_000); // one chunk (< 512 KiB min + rest) … or two
      const files: Record<string, { data: Uint8Array }> = {};
      for (let i = 0; i < 12; i++) files[`f${i}`] = { data: content };
      const src = new MemSource({ d: files });
      const saved: SavedPack[] = [];
      let claims = 0,
        granted = 0;
      const pool = await inProcessPool({ saver: repo.backend, reader: src, concurrency: 12 })(
        { key: repo.key, polynomial: repo.config.chunkerPolynomial, version: 2, compression: 'auto' },
        {
          claim: (blob) => {
            claims++;
            const ok = registry.claim('data', blob);
            if (ok) granted++;
            return ok;
          },
          packSaved: (p, size) => {
            saved.push(p);
            registry.packSaved(p, size);
          },
        },
      );
      const results = await Promise.all(Object.keys(files).map((name) => pool.save({ ref: `/d/${name}`, path: `/d/${name}`, size: content.length })));
      await pool.flush();
      const chunks = results[0]!.content.length;
      expect(results.every((r) => r.content.join() === results[0]!.content.join())).toBe(true);
      expect(claims).toBe(12 * chunks);
      expect(granted).toBe(chunks);
      expect(results.reduce((n, r) => n + r.blobsNew, 0)).toBe(chunks);
      const stored = saved.flatMap((p) => p.entries.blobs().map((b) => b.id));
      expect(stored.sort()).toEqual([...new Set(results[0]!.content)].sort());
      expect(src.totalReads).toBe(12);
    });
  });
});
