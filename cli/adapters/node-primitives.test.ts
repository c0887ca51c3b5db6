// node:crypto primitives: the kept-cipher paths give what a fresh cipher gives, at every
// length around the small-input cut, with counters that carry and wrap, in place too.

import { describe, expect, it } from 'vitest';
import nodeCrypto from 'node:crypto';
import { counterBlocks, nodePrimitives } from './node-primitives';

const fresh = (key: Uint8Array, iv: Uint8Array, data: Uint8Array) => new Uint8Array(nodeCrypto.createCipheriv('aes-256-ctr', key, iv).update(data));

describe('node primitives', () => {
  const key = new Uint8Array(nodeCrypto.randomBytes(32));
  const ivs = [
    new Uint8Array(16),
    Uint8Array.from({ length: 16 }, (_, i) => (i < 15 ? 7 : 0xfe)), // the low byte carries at once
    new Uint8Array(16).fill(0xff), // the whole counter wraps to zero
    new Uint8Array(nodeCrypto.randomBytes(16)),
  ];

  it('AES-256-CTR matches a fresh cipher at every length up to past the small-input cut, also in place', async () => {
    for (const iv of ivs) {
      for (let n = 0; n <= 300; n += n < 40 ? 1 : 13) {
        const data = new Uint8Array(nodeCrypto.randomBytes(n));
        const want = fresh(key, iv, data);
        expect(await nodePrimitives.aes256ctr(key, iv, data)).toEqual(want);
        const inPlace = data.slice();
        expect(await nodePrimitives.aes256ctr(key, iv, inPlace, inPlace)).toEqual(want);
        expect(inPlace).toEqual(want);
      }
    }
  });

  it('counts counter blocks as one big-endian 128-bit integer that wraps', () => {
    const c = counterBlocks(new Uint8Array(16).fill(0xff), 3);
    expect([...c.subarray(16, 32)]).toEqual(new Array(16).fill(0));
    expect(c[47]).toBe(1);
  });

  it('AES-128 single blocks match a fresh ECB cipher, call after call with the same key', async () => {
    const k = new Uint8Array(nodeCrypto.randomBytes(16));
    for (let i = 0; i < 5; i++) {
      const block = new Uint8Array(nodeCrypto.randomBytes(16));
      const c = nodeCrypto.createCipheriv('aes-128-ecb', k, null);
      c.setAutoPadding(false);
      expect(await nodePrimitives.aes128block(k, block)).toEqual(new Uint8Array(c.update(block)));
    }
  });
});
