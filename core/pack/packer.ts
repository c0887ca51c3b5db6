// Assembles one pack: sealed blobs back to back, then the sealed header and its length.
// The pack's name is the SHA-256 of its finished bytes, so it is only known at the end.

import { EXTENSION, seal } from '../crypto/seal';
import type { Key } from '../crypto/keys';
import { hashID, type ID } from '../id';
import { encodeHeader, entrySize, MAX_HEADER_SIZE, type BlobType, type PackedBlob } from './header';

/** restic's default --pack-size. */
export const DEFAULT_PACK_SIZE = 16 * 1024 * 1024;

export interface FinishedPack {
  id: ID;
  bytes: Uint8Array;
  blobs: PackedBlob[];
}

export class Packer {
  readonly #parts: Uint8Array[] = [];
  readonly #blobs: PackedBlob[] = [];
  #size = 0;
  #headerSize = 0;

  /** Bytes of blob data so far (what restic compares with the target pack size). */
  get size(): number {
    return this.#size;
  }

  get count(): number {
    return this.#blobs.length;
  }

  /** Would one more entry push the header over restic's limit? */
  headerFull(): boolean {
    return this.#headerSize + 41 + EXTENSION > MAX_HEADER_SIZE;
  }

  /** Appends a sealed blob. `uncompressedLength` is 0 for blobs stored as is. */
  add(type: BlobType, id: ID, sealed: Uint8Array, uncompressedLength: number): PackedBlob {
    const blob: PackedBlob = { type, id, offset: this.#size, length: sealed.length, uncompressedLength };
    this.#parts.push(sealed);
    this.#blobs.push(blob);
    this.#size += sealed.length;
    this.#headerSize += entrySize(blob);
    return blob;
  }

  /** Seals the header, appends it and its length, hashes the whole pack. */
  async finish(key: Key): Promise<FinishedPack> {
    const header = await seal(key, encodeHeader(this.#blobs));
    const bytes = new Uint8Array(this.#size + header.length + 4);
    let o = 0;
    for (const p of this.#parts) {
      bytes.set(p, o);
      o += p.length;
    }
    bytes.set(header, o);
    o += header.length;
    new DataView(bytes.buffer).setUint32(o, header.length, true);
    this.#parts.length = 0;
    return { id: await hashID(bytes), bytes, blobs: this.#blobs };
  }
}
