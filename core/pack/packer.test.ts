import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, resticFile, resticFixture } from '../../test/helpers/mem-repo';
import { MemoryBackend } from '../backend/mem';
import type { Handle, LoadOptions, Loader } from '../backend/backend';
import { isCairnError } from '../errors';
import { Key } from '../crypto/keys';
import { open, seal } from '../crypto/seal';
import { hashID } from '../id';
import { Packer } from './packer';
import { expectedPackSize, readPackHeader } from './reader';
import { MAX_HEADER_SIZE, type BlobType, type PackedBlob } from './header';

const key = new Key(seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16));

/** A loader over bytes that records every ranged read. */
function recordingLoader(bytes: Uint8Array): Loader & { reads: { offset: number; length: number }[] } {
  const reads: { offset: number; length: number }[] = [];
  return {
    reads,
    async load(_h: Handle, o: LoadOptions = {}) {
      const offset = o.offset ?? 0,
        length = o.length || bytes.length - offset;
      reads.push({ offset, length });
      return bytes.slice(offset, Math.min(bytes.length, offset + length));
    },
  };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

interface Made {
  bytes: Uint8Array;
  id: string;
  plains: Uint8Array[];
}

/** A pack of `n` blobs of varied sizes; every third one is marked compressed. */
async function makePack(n: number, type: BlobType = 'data'): Promise<Made & { blobs: PackedBlob[] }> {
  const p = new Packer();
  const plains: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const plain = seededBytes(i + 10, (i * 37) % 300);
    plains.push(plain);
    p.add(type, await hashID(plain), await seal(key, plain), i % 3 === 2 ? plain.length + 1000 : 0);
  }
  expect(p.count).toBe(n);
  const f = await p.finish(key);
  return { bytes: f.bytes, id: f.id, plains, blobs: f.entries.blobs() };
}

describe('packs', () => {
  beforeAll(initEngine);

  it('lays blobs back to back, then the sealed header and its u32 LE length; named by SHA-256', async () => {
    const { bytes, id, plains, blobs } = await makePack(5);
    expect(id).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(bytes.length).toBe(expectedPackSize(blobs));
    let offset = 0;
    for (let i = 0; i < blobs.length; i++) {
      const b = blobs[i]!;
      expect(b.offset).toBe(offset);
      expect(b.length).toBe(plains[i]!.length + 32);
      const got = await open(key, bytes.subarray(b.offset, b.offset + b.length));
      expect(Buffer.compare(Buffer.from(got), Buffer.from(plains[i]!))).toBe(0);
      offset += b.length;
    }
    const headerLen = new DataView(bytes.buffer).getUint32(bytes.length - 4, true);
    expect(headerLen).toBe(32 + 37 * 4 + 41 * 1); // entries 0,1,3,4 plain; 2 compressed
    expect(offset + headerLen + 4).toBe(bytes.length);
  });

  it('readPackHeader returns the same entries from the tail, with one read for a small header', async () => {
    const { bytes, id, blobs } = await makePack(10);
    const loader = recordingLoader(bytes);
    expect(await readPackHeader(loader, key, id, bytes.length)).toEqual(blobs);
    expect(loader.reads).toEqual([{ offset: bytes.length - (15 * 41 + 36), length: 15 * 41 + 36 }]);
  });

  it("a header larger than restic's eager 15-entry tail read takes a second read", async () => {
    const { bytes, id, blobs } = await makePack(40);
    const loader = recordingLoader(bytes);
    const got = await readPackHeader(loader, key, id, bytes.length);
    expect(got).toEqual(blobs);
    const headerLen = new DataView(bytes.buffer).getUint32(bytes.length - 4, true);
    expect(headerLen + 4).toBeGreaterThan(15 * 41 + 36);
    expect(loader.reads).toEqual([
      { offset: bytes.length - (15 * 41 + 36), length: 15 * 41 + 36 },
      { offset: bytes.length - 4 - headerLen, length: headerLen + 4 },
    ]);
  });

  it('reads a pack smaller than the eager tail and an empty pack', async () => {
    const one = await makePack(1);
    expect(one.bytes.length).toBeLessThan(15 * 41 + 36);
    const loader = recordingLoader(one.bytes);
    expect(await readPackHeader(loader, key, one.id, one.bytes.length)).toEqual(one.blobs);
    expect(loader.reads).toEqual([{ offset: 0, length: one.bytes.length }]);
    const empty = await new Packer().finish(key);
    expect(empty.bytes.length).toBe(36);
    expect(await readPackHeader(recordingLoader(empty.bytes), key, empty.id, 36)).toEqual([]);
  });

  it('works through a real backend with ranged loads', async () => {
    const { bytes, id, blobs } = await makePack(30, 'tree');
    const be = new MemoryBackend();
    await be.save({ type: 'data', name: id }, bytes);
    expect(await readPackHeader(be, key, id, (await be.stat({ type: 'data', name: id })).size)).toEqual(blobs);
    expect(blobs.every((b) => b.type === 'tree')).toBe(true);
  });

  it("reads the packs restic 0.14 wrote, matching restic's own index", async () => {
    const fx = resticFixture();
    const master = Key.fromJSON(fx.masterkey);
    for (const p of fx.index.packs) {
      const bytes = resticFile(`data/${p.id.slice(0, 2)}/${p.id}`);
      const got = await readPackHeader(recordingLoader(bytes), master, p.id, bytes.length);
      expect(got.map((b) => ({ id: b.id, type: b.type, offset: b.offset, length: b.length, uncompressed_length: b.uncompressedLength }))).toEqual(
        p.blobs.map((b) => ({ ...b, uncompressed_length: b.uncompressed_length ?? 0 })).sort((a, b) => a.offset - b.offset),
      );
      expect(expectedPackSize(got)).toBe(bytes.length);
    }
  });

  describe('damaged packs are BAD_PACK', () => {
    const bad = async (bytes: Uint8Array, size = bytes.length, k = key) => {
      const e = await rejection(readPackHeader(recordingLoader(bytes), k, 'ef'.repeat(32), size));
      expect(isCairnError(e, 'BAD_PACK'), String(e)).toBe(true);
      expect((e as { detail: unknown }).detail).toEqual({ pack: 'ef'.repeat(32) });
      return (e as Error).message;
    };

    it('bytes in front of the blobs (size does not match the header)', async () => {
      const { bytes } = await makePack(3);
      const longer = new Uint8Array(bytes.length + 10);
      longer.set(bytes, 10);
      expect(await bad(longer)).toMatch(/size \d+ does not match its header/);
    });

    it('a file too small to hold a header', async () => {
      for (const n of [0, 4, 35]) expect(await bad(new Uint8Array(n).fill(1))).toMatch(/too small/);
    });

    it('a header length beyond the file, below 32 or above 16 MiB', async () => {
      const { bytes } = await makePack(3);
      for (const len of [bytes.length, 31, 0, MAX_HEADER_SIZE + 33, 0xffffffff]) {
        const b = bytes.slice();
        new DataView(b.buffer).setUint32(b.length - 4, len, true);
        expect(await bad(b)).toMatch(/invalid header length/);
      }
    });

    it('a header that does not decrypt (flipped bit or other key)', async () => {
      const { bytes } = await makePack(3);
      const b = bytes.slice();
      b[b.length - 10]! ^= 1;
      expect(await bad(b)).toMatch(/header does not decrypt/);
      expect(await bad(bytes, bytes.length, new Key(seededBytes(9, 32), seededBytes(8, 16), seededBytes(7, 16)))).toMatch(/header does not decrypt/);
    });

    it('a header entry of an unknown type', async () => {
      // Seal a header whose second entry has type 7.
      const plain = new Uint8Array(37 * 2);
      plain[37] = 7;
      const header = await seal(key, plain);
      const bytes = new Uint8Array(header.length + 4);
      bytes.set(header);
      new DataView(bytes.buffer).setUint32(header.length, header.length, true);
      expect(await bad(bytes)).toMatch(/invalid header entry type 7/);
    });

    it('a short read from the backend', async () => {
      const { bytes, id } = await makePack(3);
      const shortLoader: Loader = { load: async () => bytes.slice(0, 10) };
      expect(isCairnError(await rejection(readPackHeader(shortLoader, key, id, bytes.length)), 'BAD_PACK')).toBe(true);
    });
  });

  it('expectedPackSize: 4 + 32 + Σ(length + 37 or 41)', () => {
    expect(expectedPackSize([])).toBe(36);
    expect(
      expectedPackSize([
        { type: 'data', id: '', offset: 0, length: 100, uncompressedLength: 0 },
        { type: 'data', id: '', offset: 100, length: 50, uncompressedLength: 70 },
      ]),
    ).toBe(36 + 100 + 37 + 50 + 41);
  });

  it("headerFull turns true before the sealed header would pass restic's 16 MiB limit", () => {
    const p = new Packer();
    const sealed = new Uint8Array(33);
    const blobID = 'aa'.repeat(32);
    let n = 0;
    while (!p.headerFull()) {
      p.add('data', blobID, sealed, 1);
      n++;
    }
    // n compressed entries of 41 bytes fit; one more would not.
    expect(32 + n * 41).toBeLessThanOrEqual(MAX_HEADER_SIZE);
    expect(32 + (n + 1) * 41).toBeGreaterThan(MAX_HEADER_SIZE);
    expect(p.size).toBe(n * 33);
  });
});
