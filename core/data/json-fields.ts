// Typed access to the fields of a decoded JSON object, with Go encoding/json's rules for
// struct fields: keys match case-insensitively when there is no exact match, the last
// matching key wins, `null` leaves the field at its zero value, numbers for unsigned fields
// must be plain non-negative integers in range, and unknown keys are ignored (we keep them).

import { GoTime, GoTimeError } from './go-time';
import { decodeBase64 } from './go-json';
import { JsonNumber, type JsonObject, type JsonValue } from './json-reader';

export type Fail = (message: string) => never;

const ID_RE = /^[0-9a-fA-F]{64}$/;
const LOWER_ID_RE = /^[0-9a-f]{64}$/;

/** 0-9 or a-f. */
export function isLowerHexChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
}

/** A restic ID as we write it: 64 lower-case hex digits. */
export function isId(s: unknown): s is string {
  return typeof s === 'string' && LOWER_ID_RE.test(s);
}

/** Go's hex decoding takes either case; IDs are normalised to lower case. */
function readId(s: unknown): string | undefined {
  if (typeof s !== 'string') return undefined;
  if (LOWER_ID_RE.test(s)) return s;
  return ID_RE.test(s) ? s.toLowerCase() : undefined;
}

// Lookup tables per list of known field names (the lists are module constants).
const fieldTables = new WeakMap<readonly string[], Map<string, string>>();
function fieldTable(known: readonly string[]): Map<string, string> {
  let t = fieldTables.get(known);
  if (!t) {
    t = new Map(known.map((k) => [k.toLowerCase(), k]));
    for (const k of known) t.set(k, k);
    fieldTables.set(known, t);
  }
  return t;
}

// Sibling nodes usually share timestamps (atime = mtime without --with-atime).
let lastTimeText = '';
let lastTime: GoTime | undefined;

export class FieldReader {
  private readonly values = new Map<string, JsonValue>();
  /** Keys that match no known field, in input order, with their values. */
  readonly unknown: [string, JsonValue][] = [];

  constructor(
    obj: JsonObject,
    known: readonly string[],
    private readonly fail: Fail,
  ) {
    const table = fieldTable(known);
    for (const [key, value] of obj) {
      const field = table.get(key) ?? table.get(key.toLowerCase());
      if (field === undefined) this.unknown.push([key, value]);
      else this.values.set(field, value);
    }
  }

  /** The raw value, undefined when absent or null. */
  raw(name: string): JsonValue | undefined {
    const v = this.values.get(name);
    return v === null ? undefined : v;
  }

  string(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined || typeof v === 'string') return v;
    return this.fail(`field "${name}" must be a string`);
  }

  private digits(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (!(v instanceof JsonNumber) || !/^(0|[1-9][0-9]*)$/.test(v.text)) {
      return this.fail(`field "${name}" must be an unsigned integer`);
    }
    return v.text;
  }

  uint64(name: string): bigint | undefined {
    const d = this.digits(name);
    if (d === undefined) return undefined;
    const n = BigInt(d);
    return n < 1n << 64n ? n : this.fail(`field "${name}" overflows uint64`);
  }

  /** An unsigned integer that must fit `bits` (32) or be a safe JS integer (53). */
  uint(name: string, bits: 32 | 53): number | undefined {
    const d = this.digits(name);
    if (d === undefined) return undefined;
    const n = Number(d);
    const ok = bits === 32 ? n <= 0xffffffff : Number.isSafeInteger(n);
    return ok ? n : this.fail(`field "${name}" out of range`);
  }

  /** A signed Go int (used by snapshot summaries). */
  int(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (!(v instanceof JsonNumber) || !/^-?(0|[1-9][0-9]*)$/.test(v.text) || !Number.isSafeInteger(Number(v.text))) {
      return this.fail(`field "${name}" must be an integer`);
    }
    return Number(v.text);
  }

  bool(name: string): boolean | undefined {
    const v = this.raw(name);
    if (v === undefined || typeof v === 'boolean') return v;
    return this.fail(`field "${name}" must be a boolean`);
  }

  time(name: string): GoTime | undefined {
    const s = this.string(name);
    if (s === undefined) return undefined;
    if (s === lastTimeText && lastTime) return lastTime;
    try {
      lastTime = GoTime.parse(s);
      lastTimeText = s;
      return lastTime;
    } catch (e) {
      if (e instanceof GoTimeError) return this.fail(`field "${name}": ${e.message}`);
      throw e;
    }
  }

  id(name: string): string | undefined {
    const s = this.string(name);
    if (s === undefined) return undefined;
    return readId(s) ?? this.fail(`field "${name}" is not a 64-digit hex ID`);
  }

  /** An array of strings; null (or absent) → null. */
  strings(name: string): string[] | null {
    const v = this.raw(name);
    if (v === undefined) return null;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    return this.fail(`field "${name}" must be an array of strings`);
  }

  /** An array of IDs; null (or absent) → null. */
  ids(name: string): string[] | null {
    const v = this.raw(name);
    if (v === undefined) return null;
    if (!Array.isArray(v)) return this.fail(`field "${name}" must be an array of IDs`);
    return v.map((x, i) => readId(x) ?? this.fail(`field "${name}"[${i}] is not an ID`));
  }

  /** A Go []byte (standard base64); null (or absent) → null. */
  bytes(name: string): Uint8Array | null {
    const s = this.string(name);
    if (s === undefined) return null;
    return decodeBase64(s) ?? this.fail(`field "${name}" is not valid base64`);
  }
}
