// A strict JSON reader with Go encoding/json's decoding rules, for tree and snapshot JSON.
// Unlike JSON.parse it keeps numbers as their source text (inode and device are uint64 and
// exceed 2^53), keeps object key order (unknown fields can be written back), and decodes
// strings as Go does: a `\u` escape naming a lone surrogate becomes U+FFFD, raw control
// characters are an error. Duplicate keys: the last one wins, as in Go.

import { utf8DecodeGo } from './utf8';

export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonObject = Map<string, JsonValue>;
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;

/** Parses one JSON document (UTF-8 bytes or text); trailing whitespace only. */
export function parseJson(input: Uint8Array | string): JsonValue {
  const text = typeof input === 'string' ? input : utf8DecodeGo(input);
  const p = new Parser(text);
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail('unexpected data after top-level value');
  return v;
}

/**
 * Parses one JSON value starting at `at` (no surrounding whitespace is skipped) as if it were
 * nested `depth` levels deep; returns it and the offset just after it. The tree reader uses
 * it for the nodes its fast path does not handle.
 */
export function parseJsonValueAt(text: string, at: number, depth: number): [JsonValue, number] {
  const p = new Parser(text);
  p.i = at;
  const v = p.value(depth);
  return [v, p.i];
}

class Parser {
  i = 0;
  constructor(readonly s: string) {}

  fail(msg: string): never {
    throw new JsonSyntaxError(msg, this.i);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      this.i++;
    }
  }

  literal(word: string): void {
    if (!this.s.startsWith(word, this.i)) this.fail('invalid literal');
    this.i += word.length;
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object(depth);
      case '[':
        return this.array(depth);
      case '"':
        return this.string();
      case 't':
        this.literal('true');
        return true;
      case 'f':
        this.literal('false');
        return false;
      case 'n':
        this.literal('null');
        return null;
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) this.fail(c === undefined ? 'unexpected end of input' : `invalid character ${JSON.stringify(c)}`);
    this.i += m[0].length;
    return new JsonNumber(m[0]);
  }

  object(depth: number): JsonObject {
    const out: JsonObject = new Map();
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      if (this.s[this.i] !== '"') this.fail('expected object key');
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("expected ':'");
      this.i++;
      this.ws();
      out.delete(key); // last duplicate wins and takes the later position
      out.set(key, this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
      this.ws();
    }
  }

  array(depth: number): JsonValue[] {
    const out: JsonValue[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
      this.ws();
    }
  }

  hex4(at: number): number {
    const h = this.s.slice(at, at + 4);
    return /^[0-9a-fA-F]{4}$/.test(h) ? parseInt(h, 16) : -1;
  }

  string(): string {
    const s = this.s;
    this.i++;
    let out = '';
    for (;;) {
      PLAIN_RUN.lastIndex = this.i;
      const run = PLAIN_RUN.exec(s)![0];
      out += run;
      this.i += run.length;
      const c = s[this.i];
      if (c === '"') {
        this.i++;
        // Unpaired surrogates can only come from escapes handled below; the input text
        // itself is well-formed (decoded from UTF-8).
        return out;
      }
      if (c === undefined) this.fail('unterminated string');
      if (c !== '\\') this.fail('control character in string');
      const e = s[this.i + 1];
      const simple = e === undefined ? -1 : '"\\/bfnrt'.indexOf(e);
      if (simple >= 0) {
        out += '"\\/\b\f\n\r\t'[simple];
        this.i += 2;
        continue;
      }
      if (e !== 'u') this.fail('invalid escape');
      let cp = this.hex4(this.i + 2);
      if (cp < 0) this.fail('invalid \\u escape');
      this.i += 6;
      if (cp >= 0xd800 && cp <= 0xdfff) {
        // Go: a high surrogate followed by an escaped low surrogate is one rune; anything
        // else is U+FFFD and the following escape is read on its own.
        const lo = s[this.i] === '\\' && s[this.i + 1] === 'u' ? this.hex4(this.i + 2) : -1;
        if (cp <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          this.i += 6;
        } else {
          cp = 0xfffd;
        }
      }
      out += String.fromCodePoint(cp);
    }
  }
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v instanceof Map;
}
