// Assembles one pack: sealed blobs back to back, then the sealed header and its length.
// The pack's name is the SHA-256 of its finished bytes, so it is only known at the end.
//
// Blobs are sealed straight into the pack's buffer: `reserve` hands out the exact region a
// blob will occupy, the caller seals into it, and `finish` appends the header in place. The
// buffer is handed back by the manager after upload and reused, so a backup allocates a few
// pack buffers in all instead of copying every blob twice into fresh memory.

import { EXTENSION, seal } from '../crypto/seal';
import type { Key } from '../crypto/keys';
import { hashID, type ID } from '../id';
import { COMPRESSED_ENTRY, MAX_HEADER_SIZE, type BlobType, type PackedBlob } from './header';
import { PackEntries } from './entries';

/** restic's default --pack-size. */
export const DEFAULT_PACK_SIZE = 16 * 1024 * 1024;
/** Buffers that restore and check read whole packs into, and reuse: a pack with room to spare. */
export const PACK_BUFFER_SIZE = DEFAULT_PACK_SIZE + (1 << 20);

export interface FinishedPack {
  id: ID;
  /** The pack's bytes: a view of the packer's buffer. */
  bytes: Uint8Array;
  /** Its blobs, as the header lists them. */
  entries: PackEntries;
  /** The whole buffer, for reuse once `bytes` is stored. */
  buffer: Uint8Array;
}

export class Packer {
  #buf: Uint8Array;
  readonly #entries = new PackEntries();
  #size = 0;

  constructor(buffer: Uint8Array = new Uint8Array(0)) {
    this.#buf = buffer;
  }

  /** Bytes of blob data so far (what restic compares with the target pack size). */
  get size(): number {
    return this.#size;
  }

  get count(): number {
    return this.#entries.count;
  }

  /** Would one more entry push the header over restic's limit? */
  headerFull(): boolean {
    return this.#entries.byteLength + COMPRESSED_ENTRY + EXTENSION > MAX_HEADER_SIZE;
  }

  /**
   * Can a blob of `length` sealed bytes be reserved without moving the buffer, leaving room
   * for the sealed header (with its entry, at most a compressed one) and its length, so that
   * `finish` writes in place too?
   */
  fits(length: number): boolean {
    return this.#size + length + this.#entries.byteLength + COMPRESSED_ENTRY + EXTENSION + 4 <= this.#buf.length;
  }

  /**
   * Records a blob and returns the region of the buffer its sealed bytes go to. Regions stay
   * valid: the buffer only grows while the packer is empty (nothing reserved yet).
   */
  reserve(type: BlobType, id: ID, length: number, uncompressedLength: number): Uint8Array {
    if (!this.fits(length)) {
      const bigger = new Uint8Array(Math.max(this.#size + length + this.#entries.byteLength + COMPRESSED_ENTRY + EXTENSION + 4, this.#buf.length * 2));
      bigger.set(this.#buf.subarray(0, this.#size));
      this.#buf = bigger;
    }
    const offset = this.#entries.add(type, id, length, uncompressedLength);
    this.#size += length;
    return this.#buf.subarray(offset, offset + length);
  }

  /** Appends an already sealed blob (a copy). `uncompressedLength` is 0 for blobs stored as is. */
  add(type: BlobType, id: ID, sealed: Uint8Array, uncompressedLength: number): PackedBlob {
    const offset = this.#size;
    this.reserve(type, id, sealed.length, uncompressedLength).set(sealed);
    return { type, id, offset, length: sealed.length, uncompressedLength };
  }

  /** Seals the header, appends it and its length, hashes the whole pack. */
  async finish(key: Key): Promise<FinishedPack> {
    const header = await seal(key, this.#entries.bytes);
    const total = this.#size + header.length + 4;
    if (total > this.#buf.length) {
      const bigger = new Uint8Array(total);
      bigger.set(this.#buf.subarray(0, this.#size));
      this.#buf = bigger;
    }
    const bytes = this.#buf.subarray(0, total);
    bytes.set(header, this.#size);
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(this.#size + header.length, header.length, true);
    return { id: await hashID(bytes), bytes, entries: this.#entries, buffer: this.#buf };
  }
}
