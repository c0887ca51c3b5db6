// restic IDs: 32-byte SHA-256 values, written as 64 lower-case hex characters. We pass them
// around as strings (cheap to compare, log and use as Map keys) and convert at the edges.

import { CairnError } from './errors';
import { primitives } from './crypto/primitives';

export type ID = string;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const HEX_CODES = new TextEncoder().encode('0123456789abcdef');
const codes = new Uint16Array(64);

/** Bytes → lower-case hex, as a flat string (a `+=` rope costs every later reader a copy). */
export function toHex(b: Uint8Array): string {
  if (b.length > 32) {
    let s = '';
    for (let i = 0; i < b.length; i++) s += HEX[b[i]!]!;
    return s;
  }
  for (let i = 0; i < b.length; i++) {
    codes[2 * i] = HEX_CODES[b[i]! >> 4]!;
    codes[2 * i + 1] = HEX_CODES[b[i]! & 15]!;
  }
  return String.fromCharCode.apply(null, codes.subarray(0, 2 * b.length) as unknown as number[]);
}

const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = i;
  NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** Hex → bytes (hot: the master index converts every ID it looks up). */
export function fromHex(s: string, out = new Uint8Array(s.length >> 1)): Uint8Array {
  if (s.length % 2 !== 0) throw new CairnError('INTERNAL', `not a hex string: ${s.slice(0, 80)}`);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const hi = NIBBLE[s.charCodeAt(j) & 127]!,
      lo = NIBBLE[s.charCodeAt(j + 1) & 127]!;
    if ((hi | lo) < 0 || s.charCodeAt(j) > 127 || s.charCodeAt(j + 1) > 127) throw new CairnError('INTERNAL', `not a hex string: ${s.slice(0, 80)}`);
    out[i] = (hi << 4) | lo;
  }
  return out;
}

const ID_RE = /^[0-9a-f]{64}$/;

export function isID(s: unknown): s is ID {
  return typeof s === 'string' && ID_RE.test(s);
}

/** SHA-256 of `data` as an ID. */
export async function hashID(data: Uint8Array): Promise<ID> {
  return toHex(await primitives().sha256(data));
}

/** A fresh random 32-byte ID (repository ID). */
export function randomID(): ID {
  return toHex(primitives().randomBytes(32));
}
