// restic's content-defined chunker (restic/chunker v0.4.0, docs/restic-format.md §13), bit-exact:
// a 64-byte Rabin window, no cut before MIN_SIZE, a forced cut at MAX_SIZE, otherwise a cut
// after the first byte whose window fingerprint has its low 20 bits clear.
//
// restic skips hashing the first MinSize-64 bytes of each chunk and starts the window with a
// single byte 1; by the first possible cut (length MinSize) that byte has been slid out again,
// so every fingerprint restic tests is that of the chunk's last 64 bytes. Here the pre-region
// is only counted (never copied), the 64 bytes before each scanned stretch are handed to the
// WASM module as history, and the module (core/wasm/as/chunker.ts) finds the first candidate.

import { CairnError } from '../errors';
import { chunkerWasm, type ChunkerExports } from '../wasm/chunker-module';
import { deg, type Pol } from './polynomial';

export const MIN_SIZE = 512 * 1024;
export const MAX_SIZE = 8 * 1024 * 1024;
const WINDOW = 64;
/** Offset within a chunk of the first byte a cut may follow (chunk length MIN_SIZE). */
const FIRST_CUT_AT = MIN_SIZE - 1;
const TABLES_SIZE = 4096;

// The module is stateless between calls except for its tables, which belong to one polynomial.
// Tables are cached per polynomial so chunkers with different polynomials can interleave.
const tableCache = new Map<Pol, Uint8Array>();
let loadedPol: Pol | undefined;
let wasm: { w: ChunkerExports; mem: Uint8Array } | undefined;

function module(): { w: ChunkerExports; mem: Uint8Array } {
  if (!wasm) {
    const w = chunkerWasm();
    // The module sizes its memory once at start-up and never grows it, so this view stays valid.
    wasm = { w, mem: new Uint8Array(w.memory.buffer) };
  }
  return wasm;
}

function useTables(pol: Pol): void {
  if (loadedPol === pol) return;
  const { w, mem } = module();
  const at = w.tablesPtr();
  const cached = tableCache.get(pol);
  if (cached) {
    mem.set(cached, at);
    w.setDegree(deg(pol));
  } else {
    w.setPolynomial(pol);
    if (tableCache.size >= 32) tableCache.clear();
    tableCache.set(pol, mem.slice(at, at + TABLES_SIZE));
  }
  loadedPol = pol;
}

export class Chunker {
  readonly pol: Pol;
  /** Bytes of the current chunk consumed so far. */
  #count = 0;
  /** The last 64 bytes consumed, oldest first (history for a scan that starts near a piece start). */
  readonly #tail = new Uint8Array(WINDOW);
  #fingerprint = 0n;

  constructor(pol: Pol) {
    const d = deg(pol);
    // restic's chunker refuses degrees above 53; below 8 its shift would underflow.
    if (d < 8 || d > 53) {
      throw new CairnError('BAD_CONFIG', `chunker polynomial must have degree 8..53, got ${d}`, { op: 'chunker', detail: { pol: pol.toString(16) } });
    }
    this.pol = pol;
    useTables(pol);
  }

  /** Starts a new file: the next byte scanned begins a new chunk. */
  reset(): void {
    this.#count = 0;
  }

  /** The fingerprint (restic's Chunk.Cut) at the most recent cut. */
  get lastCutFingerprint(): bigint {
    return this.#fingerprint;
  }

  /** Bytes of the current, unfinished chunk scanned so far. */
  get pending(): number {
    return this.#count;
  }

  /**
   * Scans `data` (the next bytes of the current file). Returns the number of bytes of `data`
   * that complete the current chunk (a cut happens right after them), or -1 if the chunk
   * continues past the end of `data`. After a cut the chunker is already reset for the next chunk.
   */
  scan(data: Uint8Array): number {
    const len = data.length;
    let pos = 0;
    for (;;) {
      // The first MIN_SIZE-1 bytes of a chunk can never end it: count them, nothing else.
      if (this.#count < FIRST_CUT_AT) {
        const skip = Math.min(FIRST_CUT_AT - this.#count, len - pos);
        this.#count += skip;
        pos += skip;
        if (pos === len) return this.#consumed(data, len, -1);
      }
      useTables(this.pol);
      const { w, mem } = module();
      const at = w.dataPtr();
      const n = Math.min(len - pos, MAX_SIZE - this.#count, w.dataSize());
      // Copy the window history and the stretch in one go where the history is in `data`.
      if (pos >= WINDOW) {
        mem.set(data.subarray(pos - WINDOW, pos + n), at - WINDOW);
      } else {
        mem.set(this.#tail.subarray(pos), at - WINDOW);
        mem.set(data.subarray(0, pos + n), at - pos);
      }
      const hit = w.findCut(n);
      if (hit >= 0) return this.#cut(data, pos + hit + 1, w.foundDigest());
      this.#count += n;
      pos += n;
      if (this.#count === MAX_SIZE) return this.#cut(data, pos, w.fingerprintAt(n));
      if (pos === len) return this.#consumed(data, len, -1);
    }
  }

  #cut(data: Uint8Array, end: number, fingerprint: bigint): number {
    this.#fingerprint = fingerprint;
    this.#count = 0;
    return this.#consumed(data, end, end);
  }

  /** Remembers the last 64 bytes of data[0..end) as history, then returns `result`. */
  #consumed(data: Uint8Array, end: number, result: number): number {
    const tail = this.#tail;
    if (end >= WINDOW) {
      tail.set(data.subarray(end - WINDOW, end));
    } else if (end > 0) {
      tail.copyWithin(0, end);
      tail.set(data.subarray(0, end), WINDOW - end);
    }
    return result;
  }
}
