// Index files (restic internal/repository/index/index.go, docs/restic-format.md §7):
// {"packs":[{"id":…,"blobs":[{"id","type","offset","length","uncompressed_length"?}]}]}
// We also read the legacy top-level array form and ignore unknown fields (rustic's
// time/size, packs_to_delete; restic's old supersedes).

import { CairnError } from '../errors';
import { isID, type ID } from '../id';
import type { PackedBlob } from '../pack/header';
import type { PackEntries } from '../pack/entries';

export interface IndexPack {
  id: ID;
  blobs: PackedBlob[];
}

interface JSONBlob {
  id: string;
  type: string;
  offset: number;
  length: number;
  uncompressed_length?: number;
}

/** A stored pack as a backup reports it: its blobs as compact header entries (pack/entries.ts). */
export interface SavedPack {
  id: ID;
  entries: PackEntries;
}

/**
 * restic's index JSON (what JSON.stringify of {packs:[{id, blobs:[{id, type, offset, length,
 * uncompressed_length?}]}]} gives, plus a newline), written straight into bytes: an index file
 * of a few 100 000 tiny blobs is tens of MB, and building it as objects and then a string
 * held it three times over.
 */
export function encodeIndex(packs: readonly (IndexPack | SavedPack)[]): Uint8Array {
  const w = new AsciiWriter(64 + packs.reduce((n, p) => n + 140 * blobCount(p), 0));
  w.text('{"packs":[');
  packs.forEach((p, i) => {
    w.text(i === 0 ? '{"id":"' : ',{"id":"');
    w.text(p.id);
    w.text('","blobs":[');
    let n = 0;
    if ('entries' in p)
      p.entries.forEach((v) => {
        w.text(n++ === 0 ? '{"id":"' : ',{"id":"');
        w.hex(v.header, v.idAt, 32);
        blobFields(w, v);
      });
    else
      for (const b of p.blobs) {
        w.text(n++ === 0 ? '{"id":"' : ',{"id":"');
        w.text(b.id);
        blobFields(w, b);
      }
    w.text(']}');
  });
  w.text(']}\n');
  return w.done();
}

/** A blob's fields after its ID, to the closing brace. */
function blobFields(w: AsciiWriter, b: Omit<PackedBlob, 'id'>): void {
  w.text(b.type === 'tree' ? '","type":"tree","offset":' : '","type":"data","offset":');
  w.uint(b.offset);
  w.text(',"length":');
  w.uint(b.length);
  if (b.uncompressedLength > 0) {
    w.text(',"uncompressed_length":');
    w.uint(b.uncompressedLength);
  }
  w.text('}');
}

function blobCount(p: IndexPack | SavedPack): number {
  return 'entries' in p ? p.entries.count : p.blobs.length;
}

const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');

/** A growing buffer of ASCII text. */
class AsciiWriter {
  #buf: Uint8Array;
  #n = 0;

  constructor(capacity: number) {
    this.#buf = new Uint8Array(capacity);
  }

  #room(k: number): void {
    if (this.#n + k <= this.#buf.length) return;
    const bigger = new Uint8Array(Math.max(this.#n + k, this.#buf.length * 2));
    bigger.set(this.#buf.subarray(0, this.#n));
    this.#buf = bigger;
  }

  /** `s` must be ASCII (JSON punctuation, hex IDs). */
  text(s: string): void {
    this.#room(s.length);
    for (let i = 0; i < s.length; i++) this.#buf[this.#n++] = s.charCodeAt(i);
  }

  uint(v: number): void {
    this.text(String(v));
  }

  hex(b: Uint8Array, at: number, len: number): void {
    this.#room(2 * len);
    for (let i = at; i < at + len; i++) {
      this.#buf[this.#n++] = HEX_DIGITS[b[i]! >> 4]!;
      this.#buf[this.#n++] = HEX_DIGITS[b[i]! & 15]!;
    }
  }

  done(): Uint8Array {
    return this.#buf.subarray(0, this.#n);
  }
}

const isUint = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff;

export function decodeIndex(json: unknown, indexID = '?'): IndexPack[] {
  const bad = (msg: string) => new CairnError('BAD_INDEX', `index ${indexID.slice(0, 8)}: ${msg}`, { detail: { index: indexID } });
  const packsJSON = Array.isArray(json) ? json : (json as { packs?: unknown } | null)?.packs;
  if (!Array.isArray(packsJSON)) throw bad('no "packs" list');
  const packs: IndexPack[] = [];
  for (const p of packsJSON as { id?: unknown; blobs?: unknown }[]) {
    if (!p || !isID(p.id) || !Array.isArray(p.blobs)) throw bad('malformed pack entry');
    const blobs: PackedBlob[] = [];
    for (const b of p.blobs as Partial<JSONBlob>[]) {
      if (!b || !isID(b.id) || (b.type !== 'data' && b.type !== 'tree') || !isUint(b.offset) || !isUint(b.length)) {
        throw bad(`malformed blob entry in pack ${p.id.slice(0, 8)}`);
      }
      const ul = b.uncompressed_length ?? 0;
      if (!isUint(ul)) throw bad('malformed uncompressed_length');
      blobs.push({ id: b.id, type: b.type, offset: b.offset, length: b.length, uncompressedLength: ul });
    }
    packs.push({ id: p.id, blobs });
  }
  return packs;
}
