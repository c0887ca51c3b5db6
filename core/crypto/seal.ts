// restic's authenticated encryption: IV(16) || AES-256-CTR(ciphertext) || Poly1305-AES(tag 16)
// where the MAC covers the ciphertext only and its one-time key is r || AES-128_k(IV).
// restic internal/crypto/crypto.go; docs/restic-format.md §2.

import { CairnError } from '../errors';
import type { Key } from './keys';
import { poly1305 } from './poly1305';
import { primitives } from './primitives';

export const IV_SIZE = 16;
export const MAC_SIZE = 16;
/** Bytes added by sealing: IV + tag. */
export const EXTENSION = IV_SIZE + MAC_SIZE;

async function macKey(key: Key, iv: Uint8Array): Promise<Uint8Array> {
  const s = await primitives().aes128block(key.macK, iv);
  const k = new Uint8Array(32);
  k.set(key.macR, 0);
  k.set(s, 16);
  return k;
}

function newIV(): Uint8Array {
  const p = primitives();
  for (;;) {
    const iv = p.randomBytes(IV_SIZE);
    if (iv.some((b) => b !== 0)) return iv; // restic refuses an all-zero IV
  }
}

/** Encrypts and authenticates `plaintext`; returns IV || ciphertext || tag. */
export async function seal(key: Key, plaintext: Uint8Array): Promise<Uint8Array> {
  return sealInto(key, plaintext, new Uint8Array(plaintext.length + EXTENSION));
}

/**
 * Seals `plaintext` into `dst` (exactly plaintext.length + 32 bytes, e.g. its place in a
 * pack), so the ciphertext is written once, where it is stored. Returns `dst`.
 */
export async function sealInto(key: Key, plaintext: Uint8Array, dst: Uint8Array): Promise<Uint8Array> {
  if (dst.length !== plaintext.length + EXTENSION) throw new CairnError('INTERNAL', 'seal: destination has the wrong size');
  const iv = newIV();
  const mac = macKey(key, iv);
  dst.set(iv, 0);
  const ct = dst.subarray(IV_SIZE, IV_SIZE + plaintext.length);
  await primitives().aes256ctr(key.encrypt, iv, plaintext, ct);
  dst.set(poly1305(await mac, ct), IV_SIZE + plaintext.length);
  return dst;
}

/**
 * Verifies and decrypts IV || ciphertext || tag. Throws MAC_MISMATCH when the bytes were not
 * sealed with this key or were altered.
 */
/**
 * Verifies and decrypts. With `inPlace` the plaintext is written over the ciphertext inside
 * `sealed` (no allocation) and returned as a view of it; `sealed` is then no longer sealed.
 */
export async function open(key: Key, sealed: Uint8Array, inPlace = false): Promise<Uint8Array> {
  if (sealed.length < EXTENSION) {
    throw new CairnError('MAC_MISMATCH', `ciphertext too short (${sealed.length} bytes)`);
  }
  const iv = sealed.subarray(0, IV_SIZE);
  if (iv.every((b) => b === 0)) throw new CairnError('MAC_MISMATCH', 'all-zero IV');
  const ct = sealed.subarray(IV_SIZE, sealed.length - MAC_SIZE);
  const tag = sealed.subarray(sealed.length - MAC_SIZE);
  const expected = poly1305(await macKey(key, iv), ct);
  let diff = 0;
  for (let i = 0; i < MAC_SIZE; i++) diff |= expected[i]! ^ tag[i]!;
  if (diff !== 0) throw new CairnError('MAC_MISMATCH', 'ciphertext verification failed');
  return primitives().aes256ctr(key.encrypt, iv, ct, inPlace ? ct : undefined);
}
