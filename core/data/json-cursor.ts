// Reads JSON in the exact shape Go's encoding/json writes it (compact, ordinary strings
// without escapes, plain decimal integers) straight from the UTF-8 bytes: no text of the
// whole document, no intermediate values. Only the strings a result keeps are made (names,
// IDs), and making a 64-character string from bytes costs far less than decoding a large
// tree into one big string first (fresh memory for every tree).
//
// Every method answers "no" (undefined / -1 / false) as soon as the bytes are anything
// else, and the caller hands that part to the strict reader (json-reader.ts): this is only
// ever a shortcut to the same result, never a second opinion on what is valid.

import { GoTime } from './go-time';
import { isLowerHexChar } from './json-fields';
import { utf8DecodeGo } from './utf8';

const MAX_UINT64 = (1n << 64n) - 1n;

// Reusable argument lists for String.fromCharCode.apply, one per length.
const CHAR_CODES: number[][] = [];
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** b[from..to) when those bytes are ASCII. */
function asciiString(b: Uint8Array, from: number, to: number): string {
  const n = to - from;
  if (n > 96) return decoder.decode(b.subarray(from, to));
  let codes = CHAR_CODES[n];
  if (codes === undefined) codes = CHAR_CODES[n] = new Array<number>(n).fill(0);
  for (let k = 0; k < n; k++) codes[k] = b[from + k]!;
  return String.fromCharCode.apply(null, codes);
}

export class JsonCursor {
  i = 0;

  constructor(readonly b: Uint8Array) {}

  /** Consumes `text` (ASCII) if it comes next. */
  lit(text: string): boolean {
    const b = this.b;
    const i = this.i;
    for (let k = 0; k < text.length; k++) if (b[i + k] !== text.charCodeAt(k)) return false;
    this.i = i + text.length;
    return true;
  }

  /** Consumes one byte if it is `c`. */
  char(c: number): boolean {
    if (this.b[this.i] !== c) return false;
    this.i++;
    return true;
  }

  /** A string without escapes or control characters (non-ASCII decoded as Go does). */
  string(): string | undefined {
    const b = this.b;
    if (b[this.i] !== 0x22) return undefined;
    const from = this.i + 1;
    let high = 0;
    let j = from;
    for (;;) {
      const c = b[j];
      if (c === 0x22) break;
      // An escape, a raw control character (invalid JSON), or the end of the input.
      if (c === undefined || c === 0x5c || c < 0x20) return undefined;
      high |= c;
      j++;
    }
    this.i = j + 1;
    return high < 0x80 ? asciiString(b, from, j) : utf8DecodeGo(b.subarray(from, j));
  }

  /** Like string(), but returns `known` itself (no new string) when the bytes spell it. */
  stringLike(known: string): string | undefined {
    const b = this.b;
    const at = this.i + 1;
    const n = known.length;
    if (b[this.i] === 0x22 && b[at + n] === 0x22) {
      let k = 0;
      while (k < n && b[at + k] === known.charCodeAt(k) && b[at + k]! < 0x80) k++;
      if (k === n) {
        this.i = at + n + 1;
        return known;
      }
    }
    return this.string();
  }

  /**
   * A non-negative integer written as Go writes one (no sign, fraction, exponent or leading
   * zero) of at most 15 digits, so exact as a double; -1 otherwise.
   */
  uint(): number {
    const b = this.b;
    let i = this.i;
    let v = b[i]! - 0x30;
    if (!(v >= 0 && v <= 9)) return -1;
    i++;
    if (v !== 0) {
      for (;;) {
        const d = b[i]! - 0x30;
        if (!(d >= 0 && d <= 9)) break;
        v = v * 10 + d;
        i++;
      }
      if (i - this.i > 15) return -1;
    }
    if (!this.endsValue(i)) return -1;
    this.i = i;
    return v;
  }

  // The last uint64 read: the device ID is the same for a whole tree.
  private lastSmall = -1;
  private lastBig = 0n;

  /** A uint64 as restic's inode / device fields: any 0..2^64-1 written in plain decimal. */
  uint64(): bigint | undefined {
    const v = this.uint();
    if (v >= 0) {
      if (v !== this.lastSmall) {
        this.lastSmall = v;
        this.lastBig = BigInt(v);
      }
      return this.lastBig;
    }
    const b = this.b;
    let i = this.i;
    if (b[i] === 0x30) return undefined;
    while (i - this.i <= 20) {
      const d = b[i]! - 0x30;
      if (!(d >= 0 && d <= 9)) break;
      i++;
    }
    if (i - this.i < 16 || i - this.i > 20 || !this.endsValue(i)) return undefined;
    const n = BigInt(asciiString(b, this.i, i));
    if (n > MAX_UINT64) return undefined;
    this.i = i;
    return n;
  }

  /** A number must be followed by one of `,` `}` `]` (no whitespace in Go's output). */
  private endsValue(i: number): boolean {
    const c = this.b[i];
    return c === 0x2c || c === 0x7d || c === 0x5d;
  }

  // The last time read, and where its text is: times repeat (ctime = mtime for most files,
  // whole directories unpacked at one instant), and a repeated one is shared, not parsed.
  private timeAt = 0;
  private timeEnd = 0;
  private lastTime: GoTime | undefined;

  /** An RFC3339 time string, parsed in place. */
  time(): GoTime | undefined {
    const b = this.b;
    if (b[this.i] !== 0x22) return undefined;
    const at = this.i + 1;
    const end = b.indexOf(0x22, at);
    if (end < 0) return undefined;
    const len = end - at;
    if (len === this.timeEnd - this.timeAt) {
      let k = 0;
      while (k < len && b[at + k] === b[this.timeAt + k]) k++;
      if (k === len) {
        this.i = end + 1;
        return this.lastTime;
      }
    }
    const t = GoTime.tryParse(b, at, end);
    if (t === undefined) return undefined;
    this.timeAt = at;
    this.timeEnd = end;
    this.lastTime = t;
    this.i = end + 1;
    return t;
  }

  /** A restic ID in lower case (as restic and we write them). */
  id(): string | undefined {
    const b = this.b;
    const at = this.i + 1;
    if (b[this.i] !== 0x22 || b[at + 64] !== 0x22) return undefined;
    for (let k = at; k < at + 64; k++) if (!isLowerHexChar(b[k]!)) return undefined;
    this.i = at + 65;
    return asciiString(b, at, at + 64);
  }

  /** `null`, `[]` or an array of IDs; undefined if it is something else. */
  ids(): string[] | null | undefined {
    if (this.lit('null')) return null;
    if (!this.char(0x5b)) return undefined;
    if (this.char(0x5d)) return [];
    const first = this.id();
    if (first === undefined) return undefined;
    if (this.char(0x5d)) return [first]; // small files: one blob, an array of exactly one
    const out = [first];
    while (this.char(0x2c)) {
      const id = this.id();
      if (id === undefined) return undefined;
      out.push(id);
    }
    return this.char(0x5d) ? out : undefined;
  }

  /** `null` or an array of plain strings; undefined if it is something else. */
  strings(): string[] | null | undefined {
    if (this.lit('null')) return null;
    if (!this.char(0x5b)) return undefined;
    const out: string[] = [];
    if (this.char(0x5d)) return out;
    for (;;) {
      const v = this.string();
      if (v === undefined) return undefined;
      out.push(v);
      if (this.char(0x5d)) return out;
      if (!this.char(0x2c)) return undefined;
    }
  }

  /**
   * The end of the JSON value at the cursor, found by matching brackets outside strings
   * (-1 if the input ends first). For handing one node to the strict reader, which then
   * decides whether it is valid.
   */
  valueEnd(): number {
    const b = this.b;
    let depth = 0;
    for (let i = this.i; i < b.length; i++) {
      const c = b[i];
      if (c === 0x22) {
        for (i++; i < b.length && b[i] !== 0x22; i++) if (b[i] === 0x5c) i++;
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
      } else if (c === 0x7d || c === 0x5d) {
        if (--depth <= 0) return depth === 0 ? i + 1 : -1;
      } else if (depth === 0 && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        return -1; // not an object or array: the strict reader takes the whole document
      }
    }
    return -1;
  }

  /** Only JSON whitespace up to the end of the input. */
  atEnd(): boolean {
    const b = this.b;
    for (let i = this.i; i < b.length; i++) {
      const c = b[i];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
    }
    return true;
  }
}
