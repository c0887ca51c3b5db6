// Pack header entries (restic internal/repository/pack/pack.go, docs/restic-format.md §6):
// type byte, encrypted length u32 LE, [plain length u32 LE for compressed], 32-byte blob ID.

import { CairnError } from '../errors';
import { fromHex, toHex, type ID } from '../id';

export type BlobType = 'data' | 'tree';

/** One blob's place in a pack, as the header and the index describe it. */
export interface PackedBlob {
  type: BlobType;
  id: ID;
  /** Byte offset of the sealed blob inside the pack. */
  offset: number;
  /** Length of the sealed blob (plaintext or zstd frame + 32 bytes). */
  length: number;
  /** Length of the raw blob when the stored form is compressed; 0 when stored as is. */
  uncompressedLength: number;
}

export const PLAIN_ENTRY = 1 + 4 + 32;
export const COMPRESSED_ENTRY = 1 + 4 + 4 + 32;
/** restic refuses headers above 16 MiB. */
export const MAX_HEADER_SIZE = 16 * 1024 * 1024;

export function entrySize(b: Pick<PackedBlob, 'uncompressedLength'>): number {
  return b.uncompressedLength > 0 ? COMPRESSED_ENTRY : PLAIN_ENTRY;
}

export function encodeHeader(blobs: readonly PackedBlob[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const b of blobs) size += entrySize(b);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let o = 0;
  for (const b of blobs) {
    const compressed = b.uncompressedLength > 0;
    out[o] = (b.type === 'data' ? 0 : 1) | (compressed ? 2 : 0);
    view.setUint32(o + 1, b.length, true);
    o += 5;
    if (compressed) {
      view.setUint32(o, b.uncompressedLength, true);
      o += 4;
    }
    out.set(fromHex(b.id), o);
    o += 32;
  }
  return out;
}

/** Parses decrypted header entries; offsets follow from the lengths, starting at 0. */
export function parseHeader(plain: Uint8Array, packID = '?'): PackedBlob[] {
  const view = new DataView(plain.buffer, plain.byteOffset, plain.byteLength);
  const blobs: PackedBlob[] = [];
  let o = 0;
  let offset = 0;
  while (o < plain.length) {
    const t = plain[o]!;
    if (t > 3) throw new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)}: invalid header entry type ${t}`, { detail: { pack: packID } });
    const compressed = (t & 2) !== 0;
    const need = compressed ? COMPRESSED_ENTRY : PLAIN_ENTRY;
    if (o + need > plain.length) throw new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)}: truncated header`, { detail: { pack: packID } });
    const length = view.getUint32(o + 1, true);
    const uncompressedLength = compressed ? view.getUint32(o + 5, true) : 0;
    const idAt = o + (compressed ? 9 : 5);
    blobs.push({ type: t & 1 ? 'tree' : 'data', id: toHex(plain.subarray(idAt, idAt + 32)), offset, length, uncompressedLength });
    offset += length;
    o += need;
  }
  return blobs;
}
