// The in-memory union of all index files: blob (type, ID) → where it is stored. Compact on
// purpose — a repository can hold millions of blobs and the browser has little memory — so
// entries live in typed arrays (~60 bytes each) behind an open-addressing hash table keyed
// by the ID's first bytes (IDs are SHA-256 values, already uniformly distributed).

import { fromHex, toHex, type ID } from '../id';
import type { BlobType, PackedBlob } from '../pack/header';

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

export class MasterIndex {
  #cap = 0;
  #n = 0;
  #ids = new Uint8Array(0); // 32 bytes per entry
  #type = new Uint8Array(0); // 0 data, 1 tree
  #pack = new Uint32Array(0);
  #offset = new Uint32Array(0);
  #length = new Uint32Array(0);
  #ulen = new Uint32Array(0);
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

  #grow(): void {
    const cap = Math.max(1024, this.#cap * 2);
    const ids = new Uint8Array(cap * 32);
    ids.set(this.#ids);
    this.#ids = ids;
    const t = new Uint8Array(cap);
    t.set(this.#type);
    this.#type = t;
    const grow32 = (a: Uint32Array) => {
      const b = new Uint32Array(cap);
      b.set(a);
      return b;
    };
    this.#pack = grow32(this.#pack);
    this.#offset = grow32(this.#offset);
    this.#length = grow32(this.#length);
    this.#ulen = grow32(this.#ulen);
    this.#cap = cap;
    this.#table = new Int32Array(cap * 2);
    for (let i = 0; i < this.#n; i++) this.#insertSlot(i);
  }

  #slotOf(idBytes: Uint8Array, at: number): number {
    const mask = this.#table.length - 1;
    return ((idBytes[at]! | (idBytes[at + 1]! << 8) | (idBytes[at + 2]! << 16) | (idBytes[at + 3]! << 24)) >>> 0) & mask;
  }

  #insertSlot(entry: number): void {
    const mask = this.#table.length - 1;
    let s = this.#slotOf(this.#ids, entry * 32);
    while (this.#table[s] !== 0) s = (s + 1) & mask;
    this.#table[s] = entry + 1;
  }

  #matches(entry: number, id: Uint8Array, type: number): boolean {
    if (this.#type[entry] !== type) return false;
    const base = entry * 32;
    for (let i = 0; i < 32; i++) if (this.#ids[base + i] !== id[i]) return false;
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
      if (this.#type[e - 1] !== t) continue;
      const base = (e - 1) * 32;
      let i = 0;
      while (i < 32 && this.#ids[base + i] === bytes[at + i]) i++;
      if (i === 32) return e - 1;
    }
  }

  /** Entry `e` as a BlobLocation; `id` when the caller has its hex already. */
  #location(e: number, id?: ID): BlobLocation {
    return {
      type: this.#type[e] ? 'tree' : 'data',
      id: id ?? toHex(this.#ids.subarray(e * 32, e * 32 + 32)),
      packID: this.#packIDs[this.#pack[e]!]!,
      offset: this.#offset[e]!,
      length: this.#length[e]!,
      uncompressedLength: this.#ulen[e]!,
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
    return this.#ulen[e] || this.#length[e]! - 32;
  }

  /** Adds a pack's blobs; returns the pack's number (see `packNumber`). */
  addPack(packID: ID, blobs: readonly PackedBlob[]): number {
    this.#treesByPack = undefined;
    this.#byPack = undefined;
    this.#generation++;
    let p = this.#packNo.get(packID);
    if (p === undefined) {
      p = this.#packIDs.length;
      this.#packIDs.push(packID);
      this.#packNo.set(packID, p);
    }
    for (const b of blobs) {
      if (this.#n >= this.#cap) this.#grow();
      const e = this.#n++;
      this.#ids.set(fromHex(b.id, this.#scratch), e * 32);
      this.#type[e] = b.type === 'tree' ? 1 : 0;
      this.#pack[e] = p;
      this.#offset[e] = b.offset;
      this.#length[e] = b.length;
      this.#ulen[e] = b.uncompressedLength;
      this.#insertSlot(e);
    }
    return p;
  }

  /** The tree blobs stored in a pack, in pack order (restic keeps trees in packs of their own). */
  treesInPack(packID: ID): BlobLocation[] {
    const p = this.#packNo.get(packID);
    if (p === undefined) return [];
    if (!this.#treesByPack) {
      const m = new Map<number, number[]>();
      for (let e = 0; e < this.#n; e++) {
        if (!this.#type[e]) continue;
        const list = m.get(this.#pack[e]!);
        if (list) list.push(e);
        else m.set(this.#pack[e]!, [e]);
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
    return this.#findBytes(this.#ids, e * 32, this.#type[e]!);
  }

  entryType(e: number): BlobType {
    return this.#type[e] ? 'tree' : 'data';
  }

  entryID(e: number): ID {
    return toHex(this.#ids.subarray(e * 32, e * 32 + 32));
  }

  /** The entry's pack number. */
  entryPack(e: number): number {
    return this.#pack[e]!;
  }

  entryOffset(e: number): number {
    return this.#offset[e]!;
  }

  entryLength(e: number): number {
    return this.#length[e]!;
  }

  /** 0 when the blob is stored uncompressed. */
  entryUncompressedLength(e: number): number {
    return this.#ulen[e]!;
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
    out.sort((a, b) => this.#offset[a]! - this.#offset[b]!);
    return out.filter((e, i) => i === 0 || this.#offset[e] !== this.#offset[out[i - 1]!]);
  }

  #groupByPack(): { order: Uint32Array; start: Uint32Array } {
    const packs = this.#packIDs.length;
    const start = new Uint32Array(packs + 1);
    for (let e = 0; e < this.#n; e++) start[this.#pack[e]! + 1]!++;
    for (let p = 0; p < packs; p++) start[p + 1]! += start[p]!;
    const next = start.slice(0, packs);
    const order = new Uint32Array(this.#n);
    for (let e = 0; e < this.#n; e++) order[next[this.#pack[e]!]!++] = e;
    return { order, start };
  }

  /** Forgets every entry and pack (a rewritten index is read again from its files). */
  clear(): void {
    this.#cap = 0;
    this.#n = 0;
    this.#ids = new Uint8Array(0);
    this.#type = new Uint8Array(0);
    this.#pack = new Uint32Array(0);
    this.#offset = new Uint32Array(0);
    this.#length = new Uint32Array(0);
    this.#ulen = new Uint32Array(0);
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
