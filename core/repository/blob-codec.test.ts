import { beforeAll, describe, expect, it } from 'vitest';
import { generate, seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, sameBytes } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { hashID } from '../id';
import { Key } from '../crypto/keys';
import { EXTENSION, open, seal } from '../crypto/seal';
import { compress, decompress } from '../compress';
import { encodeTree, GoTime, type Node } from '../data';
import { decodeBlob, decodeUnindexed, encodeBlob, looksCompressible, plainLength } from './blob-codec';

const key = new Key(seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16));
const otherKey = new Key(seededBytes(4, 32), seededBytes(5, 16), seededBytes(6, 16));
const KiB = 1024;
const MiB = 1024 * KiB;

const random = (n: number, seed = 7) => seededBytes(seed, n);
const textData = (n: number, seed = 7) => generate({ kind: 'text', seed, size: n });

function someTree(n = 40): Uint8Array {
  const t = GoTime.parse('2024-01-02T03:04:05.123456789+01:00');
  const nodes: Node[] = Array.from({ length: n }, (_, i) => ({
    name: `file-${String(i).padStart(4, '0')}.txt`,
    type: 'file',
    mode: 0o644,
    mtime: t,
    atime: t,
    ctime: t,
    uid: 1000,
    gid: 1000,
    user: 'user',
    group: 'users',
    inode: BigInt(1000 + i),
    size: i * 100,
    links: 1,
    content: ['ab'.repeat(32)],
  }));
  return encodeTree(nodes);
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('blob codec', () => {
  beforeAll(initEngine);

  describe('looksCompressible', () => {
    it('says yes for text and no for random data', () => {
      expect(looksCompressible(textData(MiB))).toBe(true);
      expect(looksCompressible(random(MiB))).toBe(false);
      expect(looksCompressible(new Uint8Array(MiB))).toBe(true);
      expect(looksCompressible(generate({ kind: 'periodic', seed: 3, size: MiB, period: 4096 }))).toBe(true);
    });

    it('always says yes up to 64 KiB (too small to sample)', () => {
      expect(looksCompressible(random(64 * KiB))).toBe(true);
      expect(looksCompressible(random(64 * KiB + 1))).toBe(false);
      expect(looksCompressible(new Uint8Array(0))).toBe(true);
    });

    it('on mixed data, one compressible sample (start, middle or end) is enough', () => {
      for (const where of ['start', 'middle', 'end'] as const) {
        const b = random(2 * MiB);
        const t = textData(64 * KiB);
        const at = where === 'start' ? 0 : where === 'end' ? b.length - t.length : (b.length >> 1) - (t.length >> 1);
        b.set(t, at);
        expect(looksCompressible(b), where).toBe(true);
      }
    });

    it('only looks at the samples: text between them goes unnoticed (documented trade-off)', () => {
      const b = random(2 * MiB);
      b.set(textData(256 * KiB), 256 * KiB); // between the start and middle samples
      expect(looksCompressible(b)).toBe(false);
    });
  });

  describe('encodeBlob', () => {
    it('v2 auto compresses compressible data and records the plain length', async () => {
      const plain = textData(200 * KiB);
      const b = await encodeBlob(key, 'data', plain, 2, 'auto');
      expect(b.uncompressedLength).toBe(plain.length);
      expect(b.sealed.length).toBeLessThan(plain.length / 2);
      expect(sameBytes(decompress(await open(key, b.sealed), plain.length), plain)).toBe(true);
    });

    it('v2 auto stores random data as is (no compression attempt pays off)', async () => {
      for (const n of [1, 100, 64 * KiB, MiB]) {
        const plain = random(n, n);
        const b = await encodeBlob(key, 'data', plain, 2, 'auto');
        expect(b.uncompressedLength, `${n} bytes`).toBe(0);
        expect(b.sealed.length).toBe(n + EXTENSION);
        expect(sameBytes(await open(key, b.sealed), plain)).toBe(true);
      }
    });

    it('stores a blob uncompressed when zstd would not shrink it, even if it looked compressible', async () => {
      // 64 KiB of random data passes looksCompressible (too small to sample) but grows.
      const plain = random(64 * KiB, 99);
      expect(looksCompressible(plain)).toBe(true);
      expect(compress(plain).length).toBeGreaterThanOrEqual(plain.length);
      expect((await encodeBlob(key, 'data', plain, 2, 'auto')).uncompressedLength).toBe(0);
    });

    it('v2 with compression off leaves data alone but still compresses trees', async () => {
      const plain = textData(100 * KiB);
      expect((await encodeBlob(key, 'data', plain, 2, 'off')).uncompressedLength).toBe(0);
      const tree = someTree();
      const t = await encodeBlob(key, 'tree', tree, 2, 'off');
      expect(t.uncompressedLength).toBe(tree.length);
      expect(t.sealed.length).toBeLessThan(tree.length);
    });

    it('v2 trees are compressed in every mode, even when they look random to the sampler', async () => {
      const tree = someTree(2000);
      expect(tree.length).toBeGreaterThan(64 * KiB);
      for (const mode of ['auto', 'off', 'max'] as const) {
        expect((await encodeBlob(key, 'tree', tree, 2, mode)).uncompressedLength, mode).toBe(tree.length);
      }
    });

    it('v1 never compresses, data or tree', async () => {
      for (const [type, plain] of [
        ['data', textData(100 * KiB)],
        ['tree', someTree()],
      ] as const) {
        for (const mode of ['auto', 'max'] as const) {
          const b = await encodeBlob(key, type, plain, 1, mode);
          expect(b.uncompressedLength).toBe(0);
          expect(sameBytes(await open(key, b.sealed), plain)).toBe(true);
        }
      }
    });

    it('an empty blob is sealed as is (32 bytes)', async () => {
      for (const type of ['data', 'tree'] as const) {
        const b = await encodeBlob(key, type, new Uint8Array(0), 2, 'auto');
        expect(b).toMatchObject({ uncompressedLength: 0 });
        expect(b.sealed.length).toBe(32);
      }
    });

    it('max compresses at least as well as auto', async () => {
      const plain = textData(300 * KiB, 11);
      const auto = await encodeBlob(key, 'data', plain, 2, 'auto');
      const max = await encodeBlob(key, 'data', plain, 2, 'max');
      expect(max.sealed.length).toBeLessThanOrEqual(auto.sealed.length);
      expect(max.uncompressedLength).toBe(plain.length);
    });
  });

  describe('decodeBlob', () => {
    const pack = 'cd'.repeat(32);

    it('round-trips compressed and plain blobs and checks the hash', async () => {
      for (const plain of [textData(100 * KiB), random(5000), new Uint8Array(0)]) {
        const id = await hashID(plain);
        const b = await encodeBlob(key, 'data', plain, 2, 'auto');
        const got = await decodeBlob(key, b.sealed, { type: 'data', id, uncompressedLength: b.uncompressedLength, packID: pack });
        expect(sameBytes(got, plain)).toBe(true);
      }
    });

    it('a MAC failure names the blob, its type and its pack', async () => {
      const plain = random(100);
      const id = await hashID(plain);
      const b = await encodeBlob(key, 'data', plain, 2, 'auto');
      const e = await rejection(decodeBlob(otherKey, b.sealed, { type: 'data', id, uncompressedLength: 0, packID: pack }));
      expect(isCairnError(e, 'MAC_MISMATCH')).toBe(true);
      expect((e as Error).message).toBe(`data blob ${id.slice(0, 8)} in pack ${pack.slice(0, 8)} fails authentication (corrupt)`);
      expect((e as { detail: unknown }).detail).toEqual({ blob: id, type: 'data', pack });
      // Without a pack the message just leaves it out.
      const e2 = await rejection(decodeBlob(otherKey, b.sealed, { type: 'tree', id, uncompressedLength: 0 }));
      expect((e2 as Error).message).toBe(`tree blob ${id.slice(0, 8)} fails authentication (corrupt)`);
    });

    it('content that does not hash to the ID is HASH_MISMATCH naming blob and pack', async () => {
      const plain = random(100);
      const b = await encodeBlob(key, 'data', plain, 2, 'auto');
      const wrong = 'ee'.repeat(32);
      const e = await rejection(decodeBlob(key, b.sealed, { type: 'data', id: wrong, uncompressedLength: 0, packID: pack }));
      expect(isCairnError(e, 'HASH_MISMATCH')).toBe(true);
      expect((e as Error).message).toContain(`data blob eeeeeeee in pack cdcdcdcd`);
      expect((e as { detail: { blob: string; pack: string } }).detail).toMatchObject({ blob: wrong, pack });
    });

    it('a bad compressed body or a wrong uncompressed length is DECOMPRESS_FAILED naming blob and pack', async () => {
      const plain = textData(50 * KiB);
      const id = await hashID(plain);
      const b = await encodeBlob(key, 'tree', plain, 2, 'auto');
      // Length in the index disagrees with the frame.
      const e1 = await rejection(decodeBlob(key, b.sealed, { type: 'tree', id, uncompressedLength: plain.length + 1, packID: pack }));
      expect(isCairnError(e1, 'DECOMPRESS_FAILED')).toBe(true);
      expect((e1 as Error).message).toBe(`tree blob ${id.slice(0, 8)} in pack cdcdcdcd does not decompress: zstd frame declares 51200 bytes, expected 51201`);
      expect((e1 as { detail: unknown }).detail).toEqual({ blob: id, type: 'tree', pack });
      // Index says compressed, but the blob was stored as is (and is not a zstd frame).
      const raw = await seal(key, plain);
      const e2 = await rejection(decodeBlob(key, raw, { type: 'tree', id, uncompressedLength: plain.length, packID: pack }));
      expect(isCairnError(e2, 'DECOMPRESS_FAILED')).toBe(true);
    });

    it('a compressed blob read as if stored plain fails the hash check', async () => {
      const plain = textData(50 * KiB);
      const id = await hashID(plain);
      const b = await encodeBlob(key, 'data', plain, 2, 'auto');
      expect(b.uncompressedLength).toBeGreaterThan(0);
      expect(isCairnError(await rejection(decodeBlob(key, b.sealed, { type: 'data', id, uncompressedLength: 0 })), 'HASH_MISMATCH')).toBe(true);
    });
  });

  it('plainLength uses uncompressed_length when set, else the sealed length minus 32', () => {
    expect(plainLength(132, 0)).toBe(100);
    expect(plainLength(132, 5000)).toBe(5000);
    expect(plainLength(32, 0)).toBe(0);
  });
});

describe('decodeUnindexed (a cached blob without its index entry)', () => {
  beforeAll(initEngine);

  it('opens a compressed tree and one stored as is (a v1 repository), each checked by its hash', async () => {
    const plain = someTree();
    const id = await hashID(plain);
    const v2 = await encodeBlob(key, 'tree', plain, 2, 'auto');
    const v1 = await encodeBlob(key, 'tree', plain, 1, 'auto');
    expect(v2.uncompressedLength).toBe(plain.length);
    expect(v1.uncompressedLength).toBe(0);
    for (const sealed of [v2.sealed, v1.sealed]) expect(sameBytes((await decodeUnindexed(key, sealed, 'tree', id))!, plain)).toBe(true);
  });

  it('takes bytes that only look like a zstd frame as they are', async () => {
    const plain = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, ...random(300)]);
    const { sealed, uncompressedLength } = await encodeBlob(key, 'data', plain, 2, 'off');
    expect(uncompressedLength).toBe(0);
    expect(sameBytes((await decodeUnindexed(key, sealed, 'data', await hashID(plain)))!, plain)).toBe(true);
  });

  it('gives nothing for another blob’s ID, another key or altered bytes', async () => {
    const plain = someTree();
    const id = await hashID(plain);
    const { sealed } = await encodeBlob(key, 'tree', plain, 2, 'auto');
    expect(await decodeUnindexed(key, sealed, 'tree', await hashID(someTree(3)))).toBeUndefined();
    expect(await decodeUnindexed(otherKey, sealed, 'tree', id)).toBeUndefined();
    const bad = sealed.slice();
    bad[20]! ^= 1;
    expect(await decodeUnindexed(key, bad, 'tree', id)).toBeUndefined();
  });
});
