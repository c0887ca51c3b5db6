// Go encoding/json output as go1.19 writes it (json.Marshal, HTML escaping on):
//  - strings: `\"`, `\\`, `\n`, `\r`, `\t`; every other byte < 0x20 and `<`, `>`, `&` as
//    `\u00XX` (lower-case hex; go1.19 has no `\b`/`\f` short forms, those came in go1.22);
//    U+2028/U+2029 as `\u2028`/`\u2029`; a byte that is not valid UTF-8 as `\ufffd`;
//    DEL and everything else verbatim.
//  - unsigned integers in plain decimal; []byte as standard base64 with padding.
// Field order and omitempty are handled by the callers (node.ts, snapshot.ts).

import { decodeRune, RUNE_ERROR } from './utf8';
import { JsonNumber, type JsonValue } from './json-reader';

// Lone surrogates match too: they stand for U+FFFD (see utf8.ts), which Go writes verbatim.
const NEEDS_WORK = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeChar(c: string): string {
  switch (c) {
    case '"':
      return '\\"';
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  const code = c.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdfff) return '\ufffd';
  return '\\u' + code.toString(16).padStart(4, '0');
}

/** A JSON string literal for `s`, byte-identical to Go's encoding of the same UTF-8 text. */
export function goJsonString(s: string): string {
  if (!NEEDS_WORK.test(s)) return '"' + s + '"';
  return '"' + s.replace(ESCAPE, escapeChar) + '"';
}

/** A JSON string literal for a Go string holding arbitrary bytes (invalid UTF-8 → `\ufffd`). */
export function goJsonStringBytes(b: Uint8Array): string {
  let out = '"';
  let run = '';
  for (let i = 0; i < b.length;) {
    const [cp, w] = decodeRune(b, i);
    if (cp === RUNE_ERROR && w === 1) {
      out += goJsonString(run).slice(1, -1) + '\\ufffd';
      run = '';
    } else {
      run += String.fromCodePoint(cp);
    }
    i += w;
  }
  return out + goJsonString(run).slice(1, -1) + '"';
}

const MAX_UINT64 = (1n << 64n) - 1n;

/** Unsigned integer, plain decimal as Go writes uint64. */
export function goJsonUint(n: number | bigint): string {
  if (typeof n === 'bigint') {
    if (n < 0n || n > MAX_UINT64) throw new RangeError(`not a uint64: ${n}`);
    return n.toString();
  }
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not an unsigned safe integer: ${n}`);
  return String(n);
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** []byte as Go marshals it: standard base64 with padding, in quotes. */
export function goJsonBytes(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < b.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < b.length ? B64[n & 63]! : '=';
  }
  return '"' + out + '"';
}

/** Inverse of goJsonBytes' base64 (Go's StdEncoding: padding required, no whitespace). */
export function decodeBase64(s: string): Uint8Array | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < s.length; i += 4) {
    let n = 0;
    for (let j = 0; j < 4; j++) n = (n << 6) | Math.max(0, B64.indexOf(s[i + j]!)); // '=' counts as 0
    for (let k = 2; k >= 0 && o < out.length; k--) out[o++] = (n >> (8 * k)) & 255;
  }
  return out;
}

/**
 * Compact re-encoding of a parsed value (numbers keep their text, objects their key order),
 * as Go does for a json.RawMessage: used for fields we keep without understanding them.
 */
export function goJsonValue(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return goJsonString(v);
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return '[' + v.map(goJsonValue).join(',') + ']';
  const parts: string[] = [];
  for (const [k, x] of v) parts.push(goJsonString(k) + ':' + goJsonValue(x));
  return '{' + parts.join(',') + '}';
}
