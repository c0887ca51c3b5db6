// A set of blob IDs kept as bytes, for IDs that come and go by the hundred thousand (a backup's
// blobs between being claimed and being indexed): 32 bytes an ID in one growing typed array,
// behind an open-addressing table of 4-byte slots at most half full — ~40 bytes an ID, where a
// Set of hex strings costs ~130 (the string, its key, the table). IDs are SHA-256 values, so
// their first bytes already hash well.

import { fromHex } from '../id';

const EMPTY = 0;
const DELETED = -1;

export class IdSet {
  /** Entry e's ID at e * 32. */
  #ids = new Uint8Array(32 * 64);
  /** Entry numbers whose ID was deleted, for reuse. */
  #free: number[] = [];
  #entries = 0;
  /** entry + 1, EMPTY, or DELETED. */
  #table = new Int32Array(128);
  /** Slots not EMPTY (live and DELETED). */
  #used = 0;
  #size = 0;
  readonly #scratch = new Uint8Array(32);

  get size(): number {
    return this.#size;
  }

  has(id: string): boolean {
    return this.#find(fromHex(id, this.#scratch)) >= 0;
  }

  /** False if it was there already. */
  add(id: string): boolean {
    const key = fromHex(id, this.#scratch);
    if (this.#find(key) >= 0) return false;
    if ((this.#used + 1) * 2 > this.#table.length) this.#rehash();
    const e = this.#free.pop() ?? this.#entries++;
    if (e * 32 >= this.#ids.length) {
      const bigger = new Uint8Array(this.#ids.length * 2);
      bigger.set(this.#ids);
      this.#ids = bigger;
    }
    this.#ids.set(key, e * 32);
    this.#place(e);
    this.#size++;
    return true;
  }

  delete(id: string): boolean {
    return this.#deleteKey(fromHex(id, this.#scratch));
  }

  /** Deletes the ID whose 32 bytes are `bytes[at..at+32]`. */
  deleteAt(bytes: Uint8Array, at: number): boolean {
    for (let i = 0; i < 32; i++) this.#scratch[i] = bytes[at + i]!;
    return this.#deleteKey(this.#scratch);
  }

  #deleteKey(key: Uint8Array): boolean {
    const s = this.#find(key);
    if (s < 0) return false;
    this.#free.push(this.#table[s]! - 1);
    this.#table[s] = DELETED;
    this.#size--;
    return true;
  }

  #start(key: Uint8Array, at: number): number {
    return (key[at]! | (key[at + 1]! << 8) | (key[at + 2]! << 16) | (key[at + 3]! << 24)) & (this.#table.length - 1);
  }

  /** The slot holding `key`, or -1. */
  #find(key: Uint8Array): number {
    const mask = this.#table.length - 1;
    const ids = this.#ids;
    for (let s = this.#start(key, 0); ; s = (s + 1) & mask) {
      const v = this.#table[s]!;
      if (v === EMPTY) return -1;
      if (v === DELETED) continue;
      const at = (v - 1) * 32;
      let same = true;
      for (let i = 0; i < 32 && same; i++) same = ids[at + i] === key[i];
      if (same) return s;
    }
  }

  /** Puts entry `e` into the first free slot of its probe sequence. */
  #place(e: number): void {
    const mask = this.#table.length - 1;
    let s = this.#start(this.#ids, e * 32);
    while (this.#table[s]! > 0) s = (s + 1) & mask;
    if (this.#table[s] === EMPTY) this.#used++;
    this.#table[s] = e + 1;
  }

  /** A table for the live entries (deleted slots dropped), twice as large when they fill it past a quarter. */
  #rehash(): void {
    let slots = 128;
    while (slots < (this.#size + 1) * 4) slots *= 2;
    const old = this.#table;
    this.#table = new Int32Array(slots);
    this.#used = 0;
    for (const v of old) if (v > 0) this.#place(v - 1);
  }
}
