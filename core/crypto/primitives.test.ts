// The WebCrypto primitives against node:crypto: AES-256-CTR split into pieces must give the
// bytes one call over the whole input gives, wherever the 128-bit counter carries.

import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ctrAdd, webPrimitives } from './primitives';

const key = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const reference = (iv: Uint8Array, data: Uint8Array) => {
  const c = createCipheriv('aes-256-ctr', key, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
};
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 17 + (i >> 9)) & 0xff);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('ctrAdd', () => {
  it('adds block counts as a big-endian 128-bit integer, carrying and wrapping', () => {
    expect(hex(ctrAdd(new Uint8Array(16), 0x1_0203))).toBe('00000000000000000000000000010203');
    expect(hex(ctrAdd(Uint8Array.from(Buffer.from('000000000000000000000000ffffff00', 'hex')), 0x100))).toBe('00000000000000000000000100000000');
    expect(hex(ctrAdd(new Uint8Array(16).fill(0xff), 2))).toBe('00000000000000000000000000000001');
    expect(hex(ctrAdd(Uint8Array.from(Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex')), 2 ** 40 + 5))).toBe('0102030405060708090a0c0c0d0e0f15');
    // A Node Buffer as the IV (its slice() is a view): left as it was.
    const buf = Buffer.from('000000000000000000000000000000f0', 'hex');
    expect(hex(ctrAdd(buf, 0x4000))).toBe('000000000000000000000000000040f0');
    expect(buf.toString('hex')).toBe('000000000000000000000000000000f0');
  });
});

describe('webPrimitives.aes256ctr', () => {
  const ivs = [
    new Uint8Array(16),
    Uint8Array.from(Buffer.from('ffffffffffffffffffffffffffffff00', 'hex')), // wraps within the data
    Uint8Array.from(Buffer.from('00112233445566778899aabbccddfff0', 'hex')),
  ];
  for (const n of [0, 15, 16, 1000, 128 << 10, (128 << 10) + 1, (256 << 10) - 3, 512 << 10, (512 << 10) + 1, 3 * (512 << 10) + 17, (1 << 20) + 5]) {
    it(`matches node:crypto over ${n} bytes, into a new array, into another and in place`, async () => {
      for (const [i, iv] of ivs.entries()) {
        const data = bytes(n, i);
        const want = hex(reference(iv, data));
        expect(hex(await webPrimitives.aes256ctr(key, iv, data))).toBe(want);
        const out = new Uint8Array(n);
        expect(await webPrimitives.aes256ctr(key, iv, data, out)).toBe(out);
        expect(hex(out)).toBe(want);
        const inPlace = data.slice();
        await webPrimitives.aes256ctr(key, iv, inPlace, inPlace);
        expect(hex(inPlace)).toBe(want);
        expect(hex(iv)).toBe(hex(ivs[i]!)); // the caller's IV is not changed
      }
    });
  }
});
