import { beforeAll, describe, expect, it } from 'vitest';
import { generate, seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine } from '../../test/helpers/mem-repo';
import { Key } from '../crypto/keys';
import { deserializeError, isCairnError } from '../errors';
import { fromHex, hashID } from '../id';
import type { BlobLocation } from '../index/master-index';
import { encodeBlob } from '../repository/blob-codec';
import { decodeRequest } from './decode-pool';
import type { BlobList } from './decode-messages';

beforeAll(initEngine);

/** One pack range of sealed blobs (text, compressed; random, stored; empty) and their locations. */
async function packOf(key: Key, plains: Uint8Array[]): Promise<{ bytes: Uint8Array<ArrayBuffer>; blobs: BlobLocation[] }> {
  const sealed: Uint8Array[] = [];
  const blobs: BlobLocation[] = [];
  let offset = 0;
  for (const plain of plains) {
    const enc = await encodeBlob(key, 'data', plain, 2, 'auto');
    blobs.push({ type: 'data', id: await hashID(plain), packID: 'p', offset, length: enc.sealed.length, uncompressedLength: enc.uncompressedLength });
    sealed.push(enc.sealed);
    offset += enc.sealed.length;
  }
  const bytes = new Uint8Array(offset);
  sealed.reduce((at, s) => (bytes.set(s, at), at + s.length), 0);
  return { bytes, blobs };
}

/** `blobs` as a VerifyRequest lists them. */
function listOf(blobs: BlobLocation[]): BlobList {
  return {
    ids: new Uint8Array(blobs.flatMap((b) => [...fromHex(b.id)])),
    types: new Uint8Array(blobs.map((b) => (b.type === 'tree' ? 1 : 0))),
    fields: new Float64Array(blobs.flatMap((b) => [b.offset, b.length, b.uncompressedLength])),
  };
}

describe('decodeRequest with verify', () => {
  it('verifies every blob and hands back no plain bytes: only the range, and each blob verified or its error', async () => {
    const key = Key.random();
    const plains = [
      generate({ kind: 'text', seed: 1, size: 300_000 }),
      seededBytes(2, 200_000),
      generate({ kind: 'text', seed: 3, size: 90_000 }),
      new Uint8Array(0),
    ];
    const { bytes, blobs } = await packOf(key, plains);
    expect(blobs[0]!.uncompressedLength).toBeGreaterThan(0); // through zstd
    bytes[blobs[1]!.offset + 40]! ^= 1; // damaged: fails its MAC
    const wrongID = { ...blobs[2]!, id: blobs[0]!.id }; // intact, but not what it is listed as
    const { reply, transfer } = await decodeRequest(key, {
      id: 7,
      buffer: bytes.buffer,
      offset: 0,
      length: bytes.length,
      verify: listOf([blobs[0]!, blobs[1]!, wrongID, blobs[3]!]),
    });
    expect(transfer).toEqual([bytes.buffer]);
    if (reply.type !== 'verified') throw new Error(reply.type);
    expect(reply.failures.map((f) => [f.blob, deserializeError(f.error)])).toEqual([
      [1, expect.objectContaining({ code: 'MAC_MISMATCH' })],
      [2, expect.objectContaining({ code: 'HASH_MISMATCH' })],
    ]);
    expect(reply.failures[1]!.error.message).toContain(`data blob ${blobs[0]!.id.slice(0, 8)} has the wrong content`);
  });

  it('a blob that claims more plain bytes than a blob may hold fails alone, without a buffer of that size', async () => {
    const key = Key.random();
    const { bytes, blobs } = await packOf(key, [generate({ kind: 'text', seed: 4, size: 50_000 }), generate({ kind: 'text', seed: 5, size: 60_000 })]);
    const claims = { ...blobs[0]!, uncompressedLength: 2 ** 40 };
    const { reply } = await decodeRequest(key, { id: 1, buffer: bytes.buffer, offset: 0, length: bytes.length, verify: listOf([claims, blobs[1]!]) });
    if (reply.type !== 'verified') throw new Error(reply.type);
    expect(reply.failures.map((f) => [f.blob, isCairnError(deserializeError(f.error), 'DECOMPRESS_FAILED')])).toEqual([[0, true]]);
  });
});
