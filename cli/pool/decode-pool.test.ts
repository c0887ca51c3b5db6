import { beforeAll, describe, expect, it } from 'vitest';
import { generate, seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine } from '../../test/helpers/mem-repo';
import { Key } from '../../core/crypto/keys';
import { hashID } from '../../core/id';
import { encodeBlob } from '../../core/repository/blob-codec';
import { isCairnError } from '../../core/errors';
import type { BlobLocation } from '../../core/index/master-index';
import { nodeDecodePool } from './decode-pool';

beforeAll(initEngine);

describe('nodeDecodePool', () => {
  it('decodes a pack range on worker threads: stored, compressed and corrupt blobs, buffer handed back', async () => {
    const key = Key.random();
    const plains = [seededBytes(1, 700_000), generate({ kind: 'text', seed: 2, size: 900_000 }), seededBytes(3, 300_000), new Uint8Array(0)];
    const parts: Uint8Array[] = [];
    const blobs: BlobLocation[] = [];
    let offset = 0;
    for (const plain of plains) {
      const enc = await encodeBlob(key, 'data', plain, 2, 'auto');
      const id = await hashID(plain);
      blobs.push({ type: 'data', id, packID: 'p', offset, length: enc.sealed.length, uncompressedLength: enc.uncompressedLength });
      parts.push(enc.sealed);
      offset += enc.sealed.length;
    }
    expect(blobs[1]!.uncompressedLength).toBeGreaterThan(0); // the text went through zstd
    const pack = new Uint8Array(20 << 20); // a pooled buffer, larger than the range
    let at = 0;
    for (const p of parts) {
      pack.set(p, at);
      at += p.length;
    }
    pack[blobs[2]!.offset + 40]! ^= 1; // the third blob is damaged

    // The bundled worker (npm test builds dist/cli first): worker threads cannot load .ts.
    const pool = nodeDecodePool({ threads: 2, entry: new URL('../../dist/cli-test/decode-worker.mjs', import.meta.url) });
    try {
      // One blob first, into a buffer of its own: the range comes back whole and can go again.
      const first = await pool.decodePack(key, pack.subarray(0, offset), [blobs[1]!], undefined, { own: true });
      expect(first.bytes.length).toBe(offset);
      expect('plain' in first.results[0]! && Buffer.from(first.results[0].plain).equals(Buffer.from(plains[1]!))).toBe(true);
      // All of them together, in one new buffer: the range is left as it was.
      const together = await pool.decodePack(key, first.bytes, blobs, undefined, { own: true, together: true });
      expect(together.bytes.length).toBe(offset);
      const shared = together.results.flatMap((res) => ('plain' in res ? [res.plain.buffer] : []));
      expect(shared).toHaveLength(3);
      expect(new Set(shared).size).toBe(1);
      expect(shared[0]).not.toBe(together.bytes.buffer);
      for (const i of [0, 1, 3]) {
        const res = together.results[i]!;
        expect('plain' in res && Buffer.from(res.plain).equals(Buffer.from(plains[i]!)), `blob ${i}`).toBe(true);
      }
      expect('error' in together.results[2]! && isCairnError(together.results[2].error, 'MAC_MISMATCH')).toBe(true);
      // Verified only (in place, so in a copy): one answer per blob, no plain bytes, the same memory back.
      const copy = new Uint8Array(20 << 20);
      copy.set(together.bytes);
      const verified = await pool.verifyPack(key, copy.subarray(0, offset), blobs);
      expect(verified.bytes.buffer.byteLength).toBe(20 << 20);
      expect(verified.errors.map((e) => e === undefined)).toEqual([true, true, false, true]);
      expect(isCairnError(verified.errors[2], 'MAC_MISMATCH')).toBe(true);
      const r = await pool.decodePack(key, together.bytes, blobs);
      expect(r.bytes.buffer.byteLength).toBe(20 << 20); // the same memory came back
      expect(r.bytes.length).toBe(offset);
      expect(r.results).toHaveLength(4);
      for (const i of [0, 1, 3]) {
        const res = r.results[i]!;
        expect('plain' in res && Buffer.from(res.plain).equals(Buffer.from(plains[i]!)), `blob ${i}`).toBe(true);
      }
      const bad = r.results[2]!;
      expect('error' in bad && isCairnError(bad.error, 'MAC_MISMATCH')).toBe(true);
      // Several at once, spread over the threads; a small slice of a shared buffer is copied, not taken.
      const again = await Promise.all(
        [0, 1, 3].map(async (i) => {
          const own = new Uint8Array(blobs[i]!.length + 8);
          own.set(parts[i]!, 8);
          const view = own.subarray(8);
          const res = await pool.decodePack(key, view, [{ ...blobs[i]!, offset: 0 }]);
          expect(own.byteLength).toBe(blobs[i]!.length + 8); // not detached
          return res.results[0]!;
        }),
      );
      again.forEach((res, j) => expect('plain' in res && Buffer.from(res.plain).equals(Buffer.from(plains[[0, 1, 3][j]!]!))).toBe(true));
    } finally {
      await pool.close();
    }
  });
});
