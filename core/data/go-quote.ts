// Go's strconv.Quote / strconv.Unquote, which restic applies to node names before JSON
// ("double escaping", docs/restic-format.md §9). Works on bytes, because a Unix file name is a
// byte string that need not be UTF-8: Quote writes such bytes as `\xNN`, Unquote turns
// `\xNN` back into the raw byte.
//
// "Printable" is Go 1.19's unicode.IsPrint (restic 0.14 is built with go1.19): categories
// L, M, N, P, S of Unicode 13.0.0 plus U+0020, from a generated table instead of the JS
// engine's \p{…} classes, so the output does not depend on the engine's Unicode version.
// Known difference: restic binaries built with Go >= 1.21 use Unicode 15, so characters
// added in Unicode 14/15 (e.g. U+1FAE0 🫠) are escaped by us and by restic 0.14 (`\U0001fae0`)
// but written raw by newer restic builds. Both spellings decode to the same name.

import { GO_PRINT_RANGES } from './go-print-table';
import { decodeRune, RUNE_ERROR, utf8Encode } from './utf8';

const starts: number[] = [];
const ends: number[] = []; // exclusive
{
  let end = 0;
  for (let i = 0; i < GO_PRINT_RANGES.length; i += 2) {
    const start = end + GO_PRINT_RANGES[i]!;
    end = start + GO_PRINT_RANGES[i + 1]!;
    starts.push(start);
    ends.push(end);
  }
}

// The Basic Multilingual Plane as a bitmap (8 KiB): names are quoted per character.
const BMP_PRINT = new Uint8Array(0x10000 >> 3);
for (let r = 0; r < starts.length && starts[r]! < 0x10000; r++) {
  for (let cp = starts[r]!; cp < ends[r]! && cp < 0x10000; cp++) BMP_PRINT[cp >> 3]! |= 1 << (cp & 7);
}

/** Go 1.19's unicode.IsPrint / strconv.IsPrint. */
export function isGoPrint(cp: number): boolean {
  if (cp < 0x100) return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa1 && cp !== 0xad);
  if (cp < 0x10000) return (BMP_PRINT[cp >> 3]! & (1 << (cp & 7))) !== 0;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < starts[mid]!) hi = mid - 1;
    else if (cp >= ends[mid]!) lo = mid + 1;
    else return true;
  }
  return false;
}

const SHORT_ESCAPES: Record<number, string> = {
  0x07: '\\a',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x0b: '\\v',
};

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

// Printable ASCII other than `"` and `\`: quoted as is (the common case for file names).
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** strconv.Quote: a double-quoted Go string literal for the bytes (or the UTF-8 of `s`). */
export function goQuote(s: string | Uint8Array): string {
  return '"' + (typeof s === 'string' ? goQuoteBody(s) : goQuoteBytesBody(s)) + '"';
}

/**
 * strconv.Quote of the UTF-8 of `s`, without the surrounding quotes. Works on the UTF-16
 * code units directly (a lone surrogate is U+FFFD, as its UTF-8 encoding is); returns `s`
 * itself when nothing needs escaping, the usual case for file names in any script.
 */
export function goQuoteBody(s: string): string {
  if (PLAIN_ASCII.test(s)) return s;
  let out = '';
  let plainFrom = 0; // s[plainFrom..i) is copied verbatim
  for (let i = 0; i < s.length;) {
    const c = s.charCodeAt(i);
    let cp = c;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdfff) {
      const lo = s.charCodeAt(i + 1);
      if (c <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        width = 2;
      } else {
        cp = RUNE_ERROR; // printable, but not as this code unit
      }
    }
    if (cp !== 0x22 && cp !== 0x5c && (width === 2 || cp === c) && isGoPrint(cp)) {
      i += width;
      continue;
    }
    out += s.slice(plainFrom, i) + quoteRune(cp);
    i += width;
    plainFrom = i;
  }
  return plainFrom === 0 ? s : out + s.slice(plainFrom);
}

function quoteRune(r: number): string {
  if (r === 0x22 || r === 0x5c) return '\\' + String.fromCharCode(r);
  if (isGoPrint(r)) return String.fromCodePoint(r);
  const short = SHORT_ESCAPES[r];
  if (short !== undefined) return short;
  if (r < 0x20 || r === 0x7f) return '\\x' + hex(r, 2);
  if (r < 0x10000) return '\\u' + hex(r, 4);
  return '\\U' + hex(r, 8);
}

function goQuoteBytesBody(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length;) {
    const [r, width] = decodeRune(b, i);
    out += r === RUNE_ERROR && width === 1 ? '\\x' + hex(b[i]!, 2) : quoteRune(r);
    i += width;
  }
  return out;
}

export class GoSyntaxError extends Error {
  constructor(readonly input: string) {
    super(`invalid Go string literal: ${JSON.stringify(input)}`);
    this.name = 'GoSyntaxError';
  }
}

function hexValue(s: string, from: number, n: number): number {
  if (from + n > s.length) return -1;
  let v = 0;
  for (let j = from; j < from + n; j++) {
    const d = parseInt(s[j]!, 16);
    if (Number.isNaN(d)) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * strconv.Unquote for a double-quoted literal; returns the bytes (which may be invalid
 * UTF-8 when the literal has `\xNN` or octal escapes). Throws GoSyntaxError like Go's
 * ErrSyntax: unescaped `"` or newline inside, unknown escapes, `\'`, surrogates or runes > U+10FFFF.
 */
export function goUnquote(literal: string): Uint8Array {
  const n = literal.length;
  if (n < 2 || literal[0] !== '"' || literal[n - 1] !== '"') throw new GoSyntaxError(literal);
  const s = literal.slice(1, n - 1);
  if (s.includes('\n')) throw new GoSyntaxError(literal);
  if (!s.includes('\\') && !s.includes('"')) return utf8Encode(s);

  const bytes: number[] = [];
  const pushRune = (cp: number) => {
    for (const b of utf8Encode(String.fromCodePoint(cp))) bytes.push(b);
  };
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === '"') throw new GoSyntaxError(literal);
    if (c !== '\\') {
      const cp = s.codePointAt(i)!;
      // A lone surrogate cannot come from Go's JSON decoder; treat it as Go would treat the
      // invalid bytes it stands for: U+FFFD.
      pushRune(cp >= 0xd800 && cp <= 0xdfff ? RUNE_ERROR : cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = s[i + 1];
    i += 2;
    const short = e === undefined ? undefined : 'abfnrtv'.indexOf(e);
    if (short !== undefined && short >= 0) {
      bytes.push([0x07, 0x08, 0x0c, 0x0a, 0x0d, 0x09, 0x0b][short]!);
    } else if (e === '\\' || e === '"') {
      bytes.push(e.charCodeAt(0));
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const v = hexValue(s, i, len);
      if (v < 0) throw new GoSyntaxError(literal);
      i += len;
      if (e === 'x') bytes.push(v);
      // utf8.ValidRune: no surrogates, nothing above U+10FFFF.
      else if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new GoSyntaxError(literal);
      else pushRune(v);
    } else if (e !== undefined && e >= '0' && e <= '7') {
      const digits = s.slice(i - 1, i + 2);
      if (!/^[0-7]{3}$/.test(digits)) throw new GoSyntaxError(literal);
      const v = parseInt(digits, 8);
      if (v > 255) throw new GoSyntaxError(literal);
      bytes.push(v);
      i += 2;
    } else {
      throw new GoSyntaxError(literal);
    }
  }
  return Uint8Array.from(bytes);
}
