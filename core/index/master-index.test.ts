import { describe, expect, it } from 'vitest';
import { prng, seededBytes } from '../../test/fixtures/chunker/generate';
import type { PackedBlob } from '../pack/header';
import { PackEntries } from '../pack/entries';
import { MasterIndex } from './master-index';

/** `n` seeded random IDs (Buffer's native hex: building 200,000 of them must stay cheap). */
const ids = (seed: number, n: number): string[] => {
  const hex = Buffer.from(seededBytes(seed, n * 32)).toString('hex');
  return Array.from({ length: n }, (_, i) => hex.slice(i * 64, i * 64 + 64));
};

describe('MasterIndex', () => {
  it('is empty at first', () => {
    const m = new MasterIndex();
    const x = 'ab'.repeat(32);
    expect(m.size).toBe(0);
    expect(m.packCount).toBe(0);
    expect(m.has('data', x)).toBe(false);
    expect(m.lookup('data', x)).toBeUndefined();
    expect(m.lookupAll('tree', x)).toEqual([]);
    expect(m.plainSize('data', x)).toBeUndefined();
    expect([...m.entries()]).toEqual([]);
  });

  it('holds 200,000 random blobs in 200 packs: every lookup exact, absent IDs absent, types apart', () => {
    const N = 200_000,
      PER_PACK = 1000;
    const blobIDs = ids(1, N);
    const packIDs = ids(2, N / PER_PACK);
    const next = prng(3);
    const expected: PackedBlob[] = [];
    const m = new MasterIndex();
    for (let p = 0; p < packIDs.length; p++) {
      const blobs: PackedBlob[] = [];
      let offset = 0;
      for (let i = 0; i < PER_PACK; i++) {
        const length = 32 + (next() % 100_000);
        const compressed = next() % 2 === 0;
        const b: PackedBlob = {
          type: p % 2 ? 'tree' : 'data',
          id: blobIDs[p * PER_PACK + i]!,
          offset,
          length,
          uncompressedLength: compressed ? length * 3 : 0,
        };
        offset += length;
        blobs.push(b);
      }
      expected.push(...blobs);
      m.addPack(packIDs[p]!, blobs);
    }
    expect(m.size).toBe(N);
    expect(m.packCount).toBe(200);
    expect(m.packIDs()).toEqual(packIDs);
    for (let i = 0; i < N; i++) {
      const b = expected[i]!;
      const other = b.type === 'data' ? 'tree' : 'data';
      if (!m.has(b.type, b.id) || (i % 10 === 0 && m.has(other, b.id))) throw new Error(`blob ${i} misplaced`);
      if (i % 197 === 0) {
        expect(m.lookup(b.type, b.id)).toEqual({ ...b, packID: packIDs[Math.floor(i / PER_PACK)] });
        expect(m.lookupAll(b.type, b.id)).toHaveLength(1);
        expect(m.plainSize(b.type, b.id)).toBe(b.uncompressedLength || b.length - 32);
        expect(m.lookup(other, b.id)).toBeUndefined();
      }
    }
    for (const absent of ids(4, 5_000)) if (m.has('data', absent) || m.has('tree', absent)) throw new Error(`phantom ${absent}`);
    // entries() yields every blob once, in insertion order.
    let n = 0;
    for (const e of m.entries()) {
      if (e.id !== expected[n]!.id || e.offset !== expected[n]!.offset) throw new Error(`entry ${n} differs`);
      n++;
    }
    expect(n).toBe(N);
  });

  it('keeps every copy of a blob stored in several packs', () => {
    const m = new MasterIndex();
    const [blob, p1, p2, p3, other] = ids(5, 5) as [string, string, string, string, string];
    m.addPack(p1, [
      { type: 'data', id: other, offset: 0, length: 40, uncompressedLength: 0 },
      { type: 'data', id: blob, offset: 40, length: 100, uncompressedLength: 0 },
    ]);
    m.addPack(p2, [{ type: 'data', id: blob, offset: 0, length: 60, uncompressedLength: 200 }]);
    m.addPack(p3, [{ type: 'tree', id: blob, offset: 8, length: 70, uncompressedLength: 0 }]);
    expect(m.lookup('data', blob)).toMatchObject({ packID: p1, offset: 40, length: 100 });
    const all = m.lookupAll('data', blob);
    expect(all.map((l) => [l.packID, l.offset, l.length, l.uncompressedLength]).sort()).toEqual(
      [
        [p1, 40, 100, 0],
        [p2, 0, 60, 200],
      ].sort(),
    );
    expect(m.lookupAll('tree', blob)).toEqual([{ type: 'tree', id: blob, packID: p3, offset: 8, length: 70, uncompressedLength: 0 }]);
    expect(m.hasPack(p2)).toBe(true);
    expect(m.hasPack(other)).toBe(false);
    expect(m.size).toBe(4);
    expect(m.packCount).toBe(3);
  });

  it("adds a pack given as its header's entries the same as one given as a blob list", () => {
    const [pack, ...blobIDs] = ids(8, 1001) as [string, ...string[]];
    let offset = 0;
    const blobs: PackedBlob[] = blobIDs.map((id, i) => {
      const b: PackedBlob = { type: i % 7 ? 'data' : 'tree', id, offset, length: 40 + i, uncompressedLength: i % 2 ? 3 * i : 0 };
      offset += b.length;
      return b;
    });
    const fromList = new MasterIndex();
    const fromEntries = new MasterIndex();
    expect(fromList.addPack(pack, blobs)).toBe(0);
    expect(fromEntries.addPack(pack, PackEntries.fromBlobs(blobs))).toBe(0);
    for (const b of blobs) expect(fromEntries.lookup(b.type, b.id)).toEqual(fromList.lookup(b.type, b.id));
    expect(fromEntries.size).toBe(1000);
    expect(fromEntries.lookup('tree', blobIDs[1]!)).toBeUndefined();
  });

  it('adds blobs of an already known pack under the same pack number', () => {
    const m = new MasterIndex();
    const [pack, a, b] = ids(6, 3) as [string, string, string];
    m.addPack(pack, [{ type: 'data', id: a, offset: 0, length: 40, uncompressedLength: 0 }]);
    m.addPack(pack, [{ type: 'data', id: b, offset: 40, length: 50, uncompressedLength: 0 }]);
    expect(m.packCount).toBe(1);
    expect(m.lookup('data', b)?.packID).toBe(pack);
  });

  it('survives IDs that collide in the bytes the hash table uses', () => {
    const m = new MasterIndex();
    const prefix = 'deadbeefcafef00d';
    const colliding = ids(7, 1000).map((x) => prefix + x.slice(prefix.length));
    const pack = ids(8, 1)[0]!;
    m.addPack(
      pack,
      colliding.map((id, i) => ({ type: i % 2 ? 'tree' : 'data', id, offset: i * 100, length: 100, uncompressedLength: 0 })),
    );
    colliding.forEach((id, i) => {
      const type = i % 2 ? 'tree' : 'data';
      expect(m.lookup(type, id)?.offset).toBe(i * 100);
      expect(m.has(type === 'tree' ? 'data' : 'tree', id)).toBe(false);
    });
    expect(m.has('data', prefix + '0'.repeat(48))).toBe(false);
  });

  it('stores u32 extremes for offset, length and uncompressed length', () => {
    const m = new MasterIndex();
    const [pack, blob] = ids(9, 2) as [string, string];
    m.addPack(pack, [{ type: 'data', id: blob, offset: 0xffffffff, length: 0xfffffffe, uncompressedLength: 0xffffffff }]);
    expect(m.lookup('data', blob)).toMatchObject({ offset: 0xffffffff, length: 0xfffffffe, uncompressedLength: 0xffffffff });
    expect(m.plainSize('data', blob)).toBe(0xffffffff);
  });

  it('grows across many small additions and keeps earlier entries', () => {
    const m = new MasterIndex();
    const blobIDs = ids(10, 5000);
    const packIDs = ids(11, 5000);
    blobIDs.forEach((id, i) => {
      m.addPack(packIDs[i]!, [{ type: 'data', id, offset: i, length: 32 + i, uncompressedLength: 0 }]);
      if (i === 1023 || i === 1024 || i === 2048 || i === 4999) {
        for (let j = 0; j <= i; j += 101) expect(m.lookup('data', blobIDs[j]!)).toMatchObject({ packID: packIDs[j], offset: j });
      }
    });
    expect(m.size).toBe(5000);
  });

  it('grows in blocks, without doubling: under 64 bytes per entry just past a power of two', () => {
    const m = new MasterIndex();
    const N = 140_000; // past 2^17: a doubled flat array would hold 262 144 entries
    const blobIDs = ids(13, N);
    const pack = ids(14, 1)[0]!;
    for (let i = 0; i < N; i += 10_000) {
      m.addPack(
        pack,
        blobIDs.slice(i, i + 10_000).map((id, j) => ({ type: j % 3 ? 'data' : 'tree', id, offset: (i + j) * 50, length: 50, uncompressedLength: 0 })),
      );
    }
    expect(m.size).toBe(N);
    expect(m.byteSize / N).toBeLessThan(64);
    for (let i = 0; i < N; i += 997) expect(m.lookup((i % 10_000) % 3 ? 'data' : 'tree', blobIDs[i]!)?.offset).toBe(i * 50);
    expect(m.entryID(N - 1)).toBe(blobIDs[N - 1]);
    expect(m.packEntries(0)).toHaveLength(N);
  });

  it('numbers entries for passes over the whole index: one canonical entry per blob, its copies in pack order', () => {
    const m = new MasterIndex();
    const [p1, p2, a, b] = ids(12, 4) as [string, string, string, string];
    const g0 = m.generation;
    expect(
      m.addPack(p1, [
        { type: 'data', id: a, offset: 50, length: 40, uncompressedLength: 0 },
        { type: 'tree', id: a, offset: 0, length: 50, uncompressedLength: 70 },
      ]),
    ).toBe(0);
    expect(
      m.addPack(p2, [
        { type: 'data', id: a, offset: 0, length: 40, uncompressedLength: 0 },
        { type: 'data', id: b, offset: 40, length: 10, uncompressedLength: 0 },
      ]),
    ).toBe(1);
    // A pack listed twice (two index files) adds its entries twice; packEntries gives each offset once.
    expect(m.addPack(p1, [{ type: 'tree', id: a, offset: 0, length: 50, uncompressedLength: 70 }])).toBe(0);
    expect(m.generation).toBe(g0 + 3);
    expect(m.packNumber(p2)).toBe(1);
    const data = m.findEntry('data', a);
    expect(m.canonicalEntry(0)).toBe(data);
    expect(m.canonicalEntry(2)).toBe(data);
    expect(m.canonicalEntry(1)).toBe(m.findEntry('tree', a));
    expect(m.canonicalEntry(4)).toBe(m.findEntry('tree', a));
    expect(m.findEntry('data', b)).toBe(3);
    expect(m.findEntry('tree', b)).toBe(-1);
    expect([m.entryType(1), m.entryID(1), m.entryPack(1), m.entryOffset(1), m.entryLength(1), m.entryUncompressedLength(1)]).toEqual(['tree', a, 0, 0, 50, 70]);
    expect(m.packEntries(0)).toEqual([1, 0]);
    expect(m.packEntries(1)).toEqual([2, 3]);
    m.clear();
    expect([m.size, m.packCount, m.has('data', a), m.packNumber(p1)]).toEqual([0, 0, false, undefined]);
    expect(m.generation).toBe(g0 + 4);
    m.addPack(p2, [{ type: 'data', id: b, offset: 0, length: 10, uncompressedLength: 0 }]);
    expect(m.lookup('data', b)?.packID).toBe(p2);
  });
});
