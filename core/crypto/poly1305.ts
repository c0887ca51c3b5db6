// Poly1305 as in RFC 8439 §2.5, the MAC half of restic's Poly1305-AES (docs/restic-format.md §2):
// restic passes key = mac.r (unclamped) || AES_k(iv) and the ciphertext as the message.
// The arithmetic runs in WebAssembly (core/wasm/as/poly1305.ts); messages larger than its
// buffer are fed through in 1 MiB pieces, so memory stays fixed for any message size.

import { CairnError } from '../errors';
import { poly1305Wasm } from '../wasm/poly1305-module';

export const POLY1305_KEY_SIZE = 32;
export const POLY1305_TAG_SIZE = 16;

/** Poly1305 tag of msg under key (32 bytes: r, clamped here, then s). */
export function poly1305(key: Uint8Array, msg: Uint8Array): Uint8Array {
  if (key.length !== POLY1305_KEY_SIZE) {
    throw new CairnError('INTERNAL', `poly1305 key must be ${POLY1305_KEY_SIZE} bytes, got ${key.length}`, { op: 'poly1305' });
  }
  const w = poly1305Wasm();
  // The module never grows its memory, so this view stays valid.
  const mem = new Uint8Array(w.memory.buffer);
  const data = w.dataPtr();
  const piece = w.dataSize(); // a multiple of 16
  mem.set(key, w.keyPtr());
  w.init();
  let pos = 0;
  // Whole pieces while more than one piece is left; the last piece may end mid-block.
  while (msg.length - pos > piece) {
    mem.set(msg.subarray(pos, pos + piece), data);
    w.blocks(piece);
    pos += piece;
  }
  const rest = msg.length - pos;
  const whole = rest & ~15;
  mem.set(msg.subarray(pos, msg.length), data);
  w.blocks(whole);
  if (whole > 0 && whole < rest) mem.copyWithin(data, data + whole, data + rest);
  w.finish(rest - whole);
  const tagAt = w.tagPtr();
  return mem.slice(tagAt, tagAt + POLY1305_TAG_SIZE);
}

/** Constant-time comparison of two tags (or any equal-length byte strings). */
export function tagsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
