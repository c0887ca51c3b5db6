// A pack's blob list kept as the pack header's plain entries (header.ts: type byte, sealed
// length, plain length when compressed, 32-byte ID), in pack order: ~41 bytes a blob in one
// buffer, where a PackedBlob object and its hex ID cost ~150 bytes on the heap. A saver's open
// pack of tiny files lists ~200 000 blobs, and the list travels to the coordinator and into an
// index file, so the form it takes is what a backup of many small files holds per blob.
// Offsets are not stored: blobs lie back to back from the pack's start, in entry order.

import { CairnError } from '../errors';
import { COMPRESSED_ENTRY, encodeHeader, PLAIN_ENTRY, type BlobType, type PackedBlob } from './header';
import { fromHex, toHex, type ID } from '../id';

/** One entry while it is visited; `header` and `idAt` locate its 32 ID bytes (no copy). */
export interface EntryView {
  type: BlobType;
  offset: number;
  length: number;
  uncompressedLength: number;
  header: Uint8Array;
  idAt: number;
}

export class PackEntries {
  #buf: Uint8Array<ArrayBuffer>;
  #used = 0;
  #count = 0;
  /** Sum of the sealed lengths: the next blob's offset. */
  #end = 0;

  constructor(capacity = 1024) {
    this.#buf = new Uint8Array(capacity);
  }

  /** The entries of a plain header (ours or a pack's); throws BAD_PACK if malformed. */
  static fromHeader(plain: Uint8Array<ArrayBuffer>): PackEntries {
    const e = new PackEntries(0);
    e.#buf = plain;
    e.#used = plain.length;
    e.forEach((v) => {
      e.#count++;
      e.#end = v.offset + v.length;
    });
    return e;
  }

  /** Same entries, from PackedBlob objects (which must lie back to back from offset 0). */
  static fromBlobs(blobs: readonly PackedBlob[]): PackEntries {
    return PackEntries.fromHeader(encodeHeader(blobs));
  }

  get count(): number {
    return this.#count;
  }

  /** The header's plain size: what encodeHeader would give for these blobs. */
  get byteLength(): number {
    return this.#used;
  }

  /** The plain header: a view of the entries' buffer, valid until the next add. */
  get bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#used);
  }

  /** Appends a blob placed right after the previous one; returns its offset. */
  add(type: BlobType, id: ID, length: number, uncompressedLength: number): number {
    const compressed = uncompressedLength > 0;
    const size = compressed ? COMPRESSED_ENTRY : PLAIN_ENTRY;
    if (this.#used + size > this.#buf.length) this.#grow(size);
    const buf = this.#buf;
    let o = this.#used;
    buf[o] = (type === 'data' ? 0 : 1) | (compressed ? 2 : 0);
    writeU32(buf, o + 1, length);
    o += 5;
    if (compressed) {
      writeU32(buf, o, uncompressedLength);
      o += 4;
    }
    fromHex(id, buf.subarray(o, o + 32));
    this.#used = o + 32;
    this.#count++;
    const offset = this.#end;
    this.#end += length;
    return offset;
  }

  #grow(need: number): void {
    const bigger = new Uint8Array(Math.max(this.#used + need, this.#buf.length * 2));
    bigger.set(this.#buf.subarray(0, this.#used));
    this.#buf = bigger;
  }

  /** Visits the entries in pack order; the view is reused between calls. Throws BAD_PACK if malformed. */
  forEach(visit: (e: EntryView) => void, packID = '?'): void {
    const buf = this.#buf;
    const v: EntryView = { type: 'data', offset: 0, length: 0, uncompressedLength: 0, header: buf, idAt: 0 };
    for (let o = 0; o < this.#used;) {
      const t = buf[o]!;
      const compressed = (t & 2) !== 0;
      const size = compressed ? COMPRESSED_ENTRY : PLAIN_ENTRY;
      if (t > 3 || o + size > this.#used) throw badEntry(packID, t > 3 ? `invalid header entry type ${t}` : 'truncated header');
      v.type = t & 1 ? 'tree' : 'data';
      v.length = readU32(buf, o + 1);
      v.uncompressedLength = compressed ? readU32(buf, o + 5) : 0;
      v.idAt = o + size - 32;
      visit(v);
      v.offset += v.length;
      o += size;
    }
  }

  /** The entries as PackedBlob objects (for code that wants a list). */
  blobs(): PackedBlob[] {
    const out: PackedBlob[] = [];
    this.forEach((v) => {
      out.push({
        type: v.type,
        id: toHex(v.header.subarray(v.idAt, v.idAt + 32)),
        offset: v.offset,
        length: v.length,
        uncompressedLength: v.uncompressedLength,
      });
    });
    return out;
  }

  /** The plain header in a buffer of exactly its size (what a message should carry: a view's whole buffer would be cloned). */
  trimmed(): Uint8Array<ArrayBuffer> {
    return this.#used === this.#buf.byteLength && this.#buf.byteOffset === 0 && this.#buf.buffer.byteLength === this.#used
      ? this.#buf
      : this.#buf.slice(0, this.#used);
  }
}

function badEntry(packID: string, what: string): CairnError {
  return new CairnError('BAD_PACK', `pack ${packID.slice(0, 8)}: ${what}`, { detail: { pack: packID } });
}

function writeU32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = v >>> 24;
}

function readU32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}
