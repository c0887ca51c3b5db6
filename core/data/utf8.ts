// Go strings are byte strings; JavaScript strings are UTF-16. These helpers convert between
// the two with Go's rules: a byte that does not start a well-formed UTF-8 sequence decodes
// as U+FFFD with width 1 (utf8.DecodeRune), and a JS lone surrogate encodes as U+FFFD
// (what TextEncoder does, so such a string behaves like a Go string holding U+FFFD).

const encoder = new TextEncoder();
const lossyDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

export const RUNE_ERROR = 0xfffd;

export function utf8Encode(s: string): Uint8Array {
  return encoder.encode(s);
}

/** One rune at `i` the way Go's utf8.DecodeRune reads it: [codePoint, width]. */
export function decodeRune(b: Uint8Array, i: number): [number, number] {
  const b0 = b[i]!;
  if (b0 < 0x80) return [b0, 1];
  const n = b.length - i;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => k < n && b[i + k]! >= lo && b[i + k]! <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    if (cont(1)) return [((b0 & 0x1f) << 6) | (b[i + 1]! & 0x3f), 2];
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf; // no UTF-16 surrogates
    if (cont(1, lo, hi) && cont(2)) {
      return [((b0 & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f), 3];
    }
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf;
    if (cont(1, lo, hi) && cont(2) && cont(3)) {
      const cp = ((b0 & 0x07) << 18) | ((b[i + 1]! & 0x3f) << 12) | ((b[i + 2]! & 0x3f) << 6) | (b[i + 3]! & 0x3f);
      return [cp, 4];
    }
  }
  return [RUNE_ERROR, 1];
}

/** True when every byte belongs to a well-formed UTF-8 sequence (Go's utf8.Valid). */
export function isValidUtf8(b: Uint8Array): boolean {
  for (let i = 0; i < b.length;) {
    if (b[i]! < 0x80) {
      i++;
      continue;
    }
    const [cp, w] = decodeRune(b, i);
    if (cp === RUNE_ERROR && w === 1) return false;
    i += w;
  }
  return true;
}

/**
 * Bytes to a JS string, one U+FFFD per invalid byte (Go's `for range` / []rune rules), so
 * the text shown for a name with broken UTF-8 is what restic shows.
 */
export function utf8DecodeGo(b: Uint8Array): string {
  // The native decoder is right unless the bytes are invalid, and then its text has a U+FFFD
  // (TextDecoder's fatal mode would tell directly, but is many times slower in Node 20).
  const text = lossyDecoder.decode(b);
  if (text.indexOf('\ufffd') < 0 || isValidUtf8(b)) return text;
  let out = '';
  for (let i = 0; i < b.length;) {
    const [cp, w] = decodeRune(b, i);
    out += String.fromCodePoint(cp);
    i += w;
  }
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** No lone surrogates (String.prototype.isWellFormed, where the engine has it). */
export function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(s) : !LONE_SURROGATE.test(s);
}

/** Byte-wise comparison: Go's `<` on strings, i.e. the order of UTF-8 bytes. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * A string whose code units are the UTF-8 bytes of `s` (or `raw`), so that plain `<` on two
 * keys is Go's byte-wise string order. ASCII names are their own key (no allocation).
 */
export function byteOrderKey(s: string, raw?: Uint8Array): string {
  if (!raw && ASCII.test(s)) return s;
  const b = raw ?? utf8Encode(s);
  let out = '';
  for (let i = 0; i < b.length; i += 8192) out += String.fromCharCode(...b.subarray(i, i + 8192));
  return out;
}
