// Standard base64 with padding, as Go encodes []byte in JSON. Works without atob/btoa quirks
// on large inputs and rejects malformed text with a coded error.

import { CairnError } from '../errors';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

export function base64Encode(b: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = b.length - i;
  if (rest === 1) {
    const n = b[i]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = (b[i]! << 16) | (b[i + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + '=';
  }
  return out;
}

// LOOKUP has 256 entries: a character above U+00FF is out of the table and yields -1 (refused),
// never `undefined`, which `|` would turn into 0 and so decode "Ā" (U+0100) as "A".
function sextet(s: string, i: number): number {
  return LOOKUP[s.charCodeAt(i)] ?? -1;
}

export function base64Decode(s: string): Uint8Array {
  if (s.length % 4 !== 0) throw new CairnError('BAD_KEY_FILE', 'invalid base64 length');
  let pad = 0;
  if (s.endsWith('==')) pad = 2;
  else if (s.endsWith('=')) pad = 1;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < s.length; i += 4) {
    const last = i + 4 === s.length;
    const c0 = sextet(s, i),
      c1 = sextet(s, i + 1);
    const c2 = last && pad >= 2 ? 0 : sextet(s, i + 2);
    const c3 = last && pad >= 1 ? 0 : sextet(s, i + 3);
    if ((c0 | c1 | c2 | c3) < 0) throw new CairnError('BAD_KEY_FILE', 'invalid base64 character');
    const n = (c0 << 18) | (c1 << 12) | (c2 << 6) | c3;
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
