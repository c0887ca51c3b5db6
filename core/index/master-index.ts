// The in-memory union of all index files: blob (type, ID) → where it is stored. Compact on
// purpose — a repository can hold millions of blobs and the browser has little memory — so
// entries live in blocks of typed arrays (49 bytes each) behind an open-addressing hash table
// of 4-byte slots, at most 60 % full (7–13 bytes per entry), keyed by the ID's first bytes (IDs
// are SHA-256 values, already uniformly distributed): 56–63 bytes per blob in all.

import { fromHex, toHex, type ID } from '../id';
import type { BlobType, PackedBlob } from '../pack/header';
import { PackEntries } from '../pack/entries';

/** ASCII code → value of a lower-case hex digit, -1 for anything else. */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;

export interface BlobLocation {
  type: BlobType;
  id: ID;
  packID: ID;
  offset: number;
  length: number;
  uncompressedLength: number;
}

/**
 * Entries live in blocks of BLOCK entries, each field in its own typed array: a growing index
 * allocates one block at a time and never copies its entries (one flat array doubled would
 * hold up to twice the entries it needs, and three times during the copy). Only the last block
 * is smaller than BLOCK: it starts at 1 024 entries and doubles until it is full.
 */
const BLOCK_BITS = 16;
const BLOCK = 1 << BLOCK_BITS;
const IN_BLOCK = BLOCK - 1;
/** Entries per hash-table slot at most: linear probing stays short below it (~3.5 probes for an absent ID at 0.6). */
const MAX_LOAD = 0.6;

/** One block's fields. */
interface Block {
  ids: Uint8Array; // 32 bytes per entry
  type: Uint8Array; // 0 data, 1 tree
  pack: Uint32Array;
  offset: Uint32Array;
  length: Uint32Array;
  ulen: Uint32Array;
}

function newBlock(cap: number, from?: Block): Block {
  const b: Block = {
    ids: new Uint8Array(cap * 32),
    type: new Uint8Array(cap),
    pack: new Uint32Array(cap),
    offset: new Uint32Array(cap),
    length: new Uint32Array(cap),
    ulen: new Uint32Array(cap),
  };
  if (from) for (const k of Object.keys(b) as (keyof Block)[]) b[k].set(from[k]);
  return b;
}

export class MasterIndex {
  #n = 0;
  /** Entries e live in #blocks[e >>> BLOCK_BITS] at (e & IN_BLOCK). */
  #blocks: Block[] = [];
  /** Entries the last block has room for. */
  #lastCap = 0;
  #table = new Int32Array(0); // entry index + 1, 0 = empty
  #packIDs: ID[] = [];
  readonly #packNo = new Map<ID, number>();
  /** Reused for ID conversions (lookups are synchronous, so one buffer suffices). */
  readonly #scratch = new Uint8Array(32);
  /** Tree entries per pack number, built on first use and dropped when packs are added. */
  #treesByPack: Map<number, number[]> | undefined;
  #generation = 0;
  /** Entries grouped by pack (`packEntries`), built on first use and dropped when packs are added. */
  #byPack: { order: Uint32Array; start: Uint32Array } | undefined;

  get size(): number {
    return this.#n;
  }

  /** Changes with every addPack and clear: whoever keeps entry or pack numbers can tell they still hold. */
  get generation(): number {
    return this.#generation;
  }

  get packCount(): number {
    return this.#packIDs.length;
  }

  /** Bytes held by the entries and the hash table (what the index costs in memory). */
  get byteSize(): number {
    let bytes = this.#table.byteLength;
    for (const b of this.#blocks)
      bytes += b.ids.byteLength + b.type.byteLength + b.pack.byteLength + b.offset.byteLength + b.length.byteLength + b.ulen.byteLength;
    return bytes;
  }

  #block(e: number): Block {
    return this.#blocks[e >>> BLOCK_BITS]!;
  }

  /** Room for entry #n: a new block, or the last one grown. */
  #grow(): void {
    const blocks = this.#blocks;
    if (this.#lastCap === BLOCK || blocks.length === 0) {
      this.#lastCap = 1024;
      blocks.push(newBlock(this.#lastCap));
    } else {
      this.#lastCap *= 2;
      blocks[blocks.length - 1] = newBlock(this.#lastCap, blocks[blocks.length - 1]);
    }
  }

  /** A table with room for `n` entries at MAX_LOAD, every entry inserted again. */
  #rehash(n: number): void {
    let slots = 2048;
    while (slots * MAX_LOAD < n) slots *= 2;
    this.#table = new Int32Array(slots);
    for (let e = 0; e < this.#n; e++) this.#insertSlot(e);
  }

  #slotOf(idBytes: Uint8Array, at: number): number {
    const mask = this.#table.length - 1;
    return ((idBytes[at]! | (idBytes[at + 1]! << 8) | (idBytes[at + 2]! << 16) | (idBytes[at + 3]! << 24)) >>> 0) & mask;
  }

  #insertSlot(entry: number): void {
    const mask = this.#table.length - 1;
    let s = this.#slotOf(this.#block(entry).ids, (entry & IN_BLOCK) * 32);
    while (this.#table[s] !== 0) s = (s + 1) & mask;
    this.#table[s] = entry + 1;
  }

  #matches(entry: number, id: Uint8Array, type: number): boolean {
    const b = this.#block(entry);
    const i0 = entry & IN_BLOCK;
    if (b.type[i0] !== type) return false;
    const base = i0 * 32;
    for (let i = 0; i < 32; i++) if (b.ids[base + i] !== id[i]) return false;
    return true;
  }

  #find(type: BlobType, id: ID): number {
    if (this.#n === 0) return -1;
    return this.#findBytes(fromHex(id, this.#scratch), 0, type === 'tree' ? 1 : 0);
  }

  /** The first entry in probe order whose ID is `bytes[at..at+32]` and type `t`. */
  #findBytes(bytes: Uint8Array, at: number, t: number): number {
    const mask = this.#table.length - 1;
    for (let s = this.#slotOf(bytes, at); ; s = (s + 1) & mask) {
      const e = this.#table[s]!;
      if (e === 0) return -1;
      const b = this.#blocks[(e - 1) >>> BLOCK_BITS]!;
      const i0 = (e - 1) & IN_BLOCK;
      if (b.type[i0] !== t) continue;
      const base = i0 * 32;
      let i = 0;
      while (i < 32 && b.ids[base + i] === bytes[at + i]) i++;
      if (i === 32) return e - 1;
    }
  }

  /** Entry `e` as a BlobLocation; `id` when the caller has its hex already. */
  #location(e: number, id?: ID): BlobLocation {
    const b = this.#block(e);
    const i = e & IN_BLOCK;
    return {
      type: b.type[i] ? 'tree' : 'data',
      id: id ?? toHex(b.ids.subarray(i * 32, i * 32 + 32)),
      packID: this.#packIDs[b.pack[i]!]!,
      offset: b.offset[i]!,
      length: b.length[i]!,
      uncompressedLength: b.ulen[i]!,
    };
  }

  has(type: BlobType, id: ID): boolean {
    return this.#find(type, id) >= 0;
  }

  lookup(type: BlobType, id: ID): BlobLocation | undefined {
    const e = this.#find(type, id);
    return e < 0 ? undefined : this.#location(e, id);
  }

  /** Every stored copy of a blob (duplicates across packs are legal). */
  lookupAll(type: BlobType, id: ID): BlobLocation[] {
    const out: BlobLocation[] = [];
    if (this.#n === 0) return out;
    const bytes = fromHex(id, this.#scratch);
    const t = type === 'tree' ? 1 : 0;
    const mask = this.#table.length - 1;
    for (let s = this.#slotOf(bytes, 0); ; s = (s + 1) & mask) {
      const e = this.#table[s]!;
      if (e === 0) return out;
      if (this.#matches(e - 1, bytes, t)) out.push(this.#location(e - 1, id));
    }
  }

  /** The plain size of a blob, whether stored compressed or not. */
  plainSize(type: BlobType, id: ID): number | undefined {
    const e = this.#find(type, id);
    if (e < 0) return undefined;
    return this.entryUncompressedLength(e) || this.entryLength(e) - 32;
  }

  /** Adds a pack's blobs; returns the pack's number (see `packNumber`). */
  addPack(packID: ID, blobs: readonly PackedBlob[] | PackEntries): number {
    const p = this.#startPack(packID, blobs instanceof PackEntries ? blobs.count : blobs.length);
    if (blobs instanceof PackEntries) blobs.forEach((v) => this.#addEntry(p, v, v.header, v.idAt));
    else for (const blob of blobs) this.#addEntry(p, blob, fromHex(blob.id, this.#scratch), 0);
    return p;
  }

  /** The pack's number (a new one if it is new), with room made for `count` more entries. */
  #startPack(packID: ID, count: number): number {
    this.#treesByPack = undefined;
    this.#byPack = undefined;
    this.#generation++;
    let p = this.#packNo.get(packID);
    if (p === undefined) {
      p = this.#packIDs.length;
      this.#packIDs.push(packID);
      this.#packNo.set(packID, p);
    }
    if (this.#n + count > this.#table.length * MAX_LOAD) this.#rehash(this.#n + count);
    return p;
  }

  /** One entry of pack `p`, its ID at `ids[at..at+32]`. */
  #addEntry(p: number, blob: Omit<PackedBlob, 'id'>, ids: Uint8Array, at: number): void {
    if (this.#n >>> BLOCK_BITS === this.#blocks.length || (this.#n & IN_BLOCK) >= this.#lastCap) this.#grow();
    const e = this.#n++;
    const b = this.#block(e);
    const i = e & IN_BLOCK;
    for (let k = 0; k < 32; k++) b.ids[i * 32 + k] = ids[at + k]!;
    b.type[i] = blob.type === 'tree' ? 1 : 0;
    b.pack[i] = p;
    b.offset[i] = blob.offset;
    b.length[i] = blob.length;
    b.ulen[i] = blob.uncompressedLength;
    this.#insertSlot(e);
  }

  /** The tree blobs stored in a pack, in pack order (restic keeps trees in packs of their own). */
  treesInPack(packID: ID): BlobLocation[] {
    const p = this.#packNo.get(packID);
    if (p === undefined) return [];
    if (!this.#treesByPack) {
      const m = new Map<number, number[]>();
      for (let e = 0; e < this.#n; e++) {
        if (!this.#block(e).type[e & IN_BLOCK]) continue;
        const pack = this.entryPack(e);
        const list = m.get(pack);
        if (list) list.push(e);
        else m.set(pack, [e]);
      }
      this.#treesByPack = m;
    }
    return (this.#treesByPack.get(p) ?? []).map((e) => this.#location(e)).sort((a, b) => a.offset - b.offset);
  }

  hasPack(packID: ID): boolean {
    return this.#packNo.has(packID);
  }

  packIDs(): readonly ID[] {
    return this.#packIDs;
  }

  /** The pack's number: packs are numbered 0, 1, … in the order they were first added. */
  packNumber(packID: ID): number | undefined {
    return this.#packNo.get(packID);
  }

  // Entries by number (0 … size-1), for passes over the whole index that keep a few bytes per
  // entry in typed arrays instead of a map from 64-character IDs (prune's used-blob marks).

  /** The entry of a blob (the first of its copies in probe order), or -1. */
  findEntry(type: BlobType, id: ID): number {
    return this.#find(type, id);
  }

  /**
   * findEntry for an ID given as 64 lower-case hex characters at `bytes[at…]` (a tree's JSON,
   * read without making a string of every ID); -1 if absent or not hex.
   */
  findEntryHex(type: BlobType, bytes: Uint8Array, at: number): number {
    if (this.#n === 0) return -1;
    const id = this.#scratch;
    for (let i = 0; i < 32; i++) {
      const hi = HEX_VALUE[bytes[at + 2 * i]!]!,
        lo = HEX_VALUE[bytes[at + 2 * i + 1]!]!;
      if ((hi | lo) < 0) return -1;
      id[i] = (hi << 4) | lo;
    }
    return this.#findBytes(id, 0, type === 'tree' ? 1 : 0);
  }

  /** The entry `findEntry` gives for entry `e`'s blob: the same number for every copy of it. */
  canonicalEntry(e: number): number {
    const b = this.#block(e);
    return this.#findBytes(b.ids, (e & IN_BLOCK) * 32, b.type[e & IN_BLOCK]!);
  }

  entryType(e: number): BlobType {
    return this.#block(e).type[e & IN_BLOCK] ? 'tree' : 'data';
  }

  entryID(e: number): ID {
    const i = (e & IN_BLOCK) * 32;
    return toHex(this.#block(e).ids.subarray(i, i + 32));
  }

  /** The entry's pack number. */
  entryPack(e: number): number {
    return this.#block(e).pack[e & IN_BLOCK]!;
  }

  entryOffset(e: number): number {
    return this.#block(e).offset[e & IN_BLOCK]!;
  }

  entryLength(e: number): number {
    return this.#block(e).length[e & IN_BLOCK]!;
  }

  /** 0 when the blob is stored uncompressed. */
  entryUncompressedLength(e: number): number {
    return this.#block(e).ulen[e & IN_BLOCK]!;
  }

  /**
   * The entries of a pack, in pack order, each offset once (a pack listed by two index files
   * was added twice). Built for all packs on first use: 4 bytes per entry.
   */
  packEntries(pack: number): number[] {
    if (!this.#byPack) this.#byPack = this.#groupByPack();
    const { order, start } = this.#byPack;
    const out: number[] = [];
    for (let i = start[pack]!; i < start[pack + 1]!; i++) out.push(order[i]!);
    out.sort((a, b) => this.entryOffset(a) - this.entryOffset(b));
    return out.filter((e, i) => i === 0 || this.entryOffset(e) !== this.entryOffset(out[i - 1]!));
  }

  #groupByPack(): { order: Uint32Array; start: Uint32Array } {
    const packs = this.#packIDs.length;
    const start = new Uint32Array(packs + 1);
    for (let e = 0; e < this.#n; e++) start[this.entryPack(e) + 1]!++;
    for (let p = 0; p < packs; p++) start[p + 1]! += start[p]!;
    const next = start.slice(0, packs);
    const order = new Uint32Array(this.#n);
    for (let e = 0; e < this.#n; e++) order[next[this.entryPack(e)]!++] = e;
    return { order, start };
  }

  /** Forgets every entry and pack (a rewritten index is read again from its files). */
  clear(): void {
    this.#n = 0;
    this.#blocks = [];
    this.#lastCap = 0;
    this.#table = new Int32Array(0);
    this.#packIDs = [];
    this.#packNo.clear();
    this.#treesByPack = undefined;
    this.#byPack = undefined;
    this.#generation++;
  }

  /** Every entry, grouped by nothing in particular (check and stats walk this). */
  *entries(): Generator<BlobLocation> {
    for (let e = 0; e < this.#n; e++) yield this.#location(e);
  }
}
