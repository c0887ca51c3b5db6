// Writes Go-encoded JSON straight into one growing byte buffer. A tree of 50,000 nodes
// built from per-node strings keeps every piece alive until the final join, and those
// survivors made garbage collection most of the encoding time; writing bytes as we go leaves
// only short-lived temporaries. Output is byte-identical to go-json.ts (Go's encoding/json).

import { goJsonString } from './go-json';
import { isLowerHexChar } from './json-fields';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export class JsonWriter {
  buf: Uint8Array;
  pos = 0;

  constructor(capacity = 4096) {
    this.buf = new Uint8Array(capacity);
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = Math.max(64, this.buf.length * 2);
    while (size < this.pos + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
  }

  byte(b: number): void {
    if (this.pos === this.buf.length) this.reserve(1);
    this.buf[this.pos++] = b;
  }

  /** A string known to be ASCII (field names, punctuation, digits). */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.reserve(n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Any string, as UTF-8 (a lone surrogate becomes U+FFFD, as TextEncoder writes it). */
  utf8(s: string): void {
    const n = s.length;
    this.reserve(n * 3);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        p += encoder.encodeInto(i === 0 ? s : s.slice(i), buf.subarray(p)).written;
        break;
      }
      buf[p++] = c;
    }
    this.pos = p;
  }

  /** Go's JSON string literal for `s` (goJsonString), quotes included. */
  string(s: string): void {
    const n = s.length;
    this.reserve(n + 2);
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    buf[p++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      // Printable ASCII except `"`, `\`, `<`, `>`, `&`: written as is.
      if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) {
        this.pos = start;
        this.utf8(goJsonString(s));
        return;
      }
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.pos = p;
  }

  /**
   * `"s"` when `s` is printable ASCII other than `"`, `\\`, `<`, `>`, `&`, which neither
   * strconv.Quote nor encoding/json escapes (a node name written as is); otherwise false and
   * nothing written.
   */
  plainName(s: string): boolean {
    const n = s.length;
    this.reserve(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) return false;
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.pos = p;
    return true;
  }

  /** A non-negative safe integer in decimal. */
  uint(v: number): void {
    if (v >= 0x80000000) {
      this.ascii(String(v));
      return;
    }
    let digits = 1;
    for (let x = v; x >= 10; x = (x / 10) | 0) digits++;
    this.reserve(digits);
    const buf = this.buf;
    for (let k = this.pos + digits - 1; k >= this.pos; k--) {
      const q = (v / 10) | 0;
      buf[k] = 0x30 + v - q * 10;
      v = q;
    }
    this.pos += digits;
  }

  /**
   * A quoted restic ID if `id` is 64 lower-case hex digits; false (nothing written) if not.
   */
  id(id: string): boolean {
    if (id.length !== 64) return false;
    this.reserve(66);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    for (let i = 0; i < 64; i++) {
      const c = id.charCodeAt(i);
      if (!isLowerHexChar(c)) return false;
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.pos = p;
    return true;
  }

  /**
   * The bytes written so far: a view when little of the buffer would be wasted (allocating
   * a buffer costs more than the bytes it holds, for small ones), else a copy.
   */
  bytes(): Uint8Array {
    const used = this.buf.subarray(0, this.pos);
    const waste = this.buf.length - this.pos;
    return waste <= 4096 || waste <= this.pos / 3 ? used : used.slice();
  }

  /** The bytes written since `from`, as a string. */
  text(from = 0): string {
    return decoder.decode(this.buf.subarray(from, this.pos));
  }
}
