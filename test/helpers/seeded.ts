// Seeded test data: the same seed gives the same bytes and numbers on every run and every
// machine, so a failure on some data reproduces. Not for anything secret.

import { createCipheriv, createHash } from 'node:crypto';

/** A byte source: each call returns the next `n` bytes of the AES-256-CTR keystream keyed by `seed`. */
export function seededStream(seed: number | string): (n: number) => Buffer {
  const key = createHash('sha256').update(`cairn-test:${seed}`).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  return (n) => cipher.update(Buffer.alloc(n));
}

/** `n` incompressible bytes for `seed`. */
export const seededBytes = (seed: number | string, n: number): Buffer => seededStream(seed)(n);

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
