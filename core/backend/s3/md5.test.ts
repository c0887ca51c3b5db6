import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededBytes } from '../../../test/helpers/fault-backend';
import { md5 } from './md5';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ascii = (s: string) => new TextEncoder().encode(s);

describe('md5', () => {
  // RFC 1321, appendix A.5.
  it.each([
    ['', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a', '0cc175b9c0f1b6a831c399e269772661'],
    ['abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
    ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
    ['1234567890'.repeat(8), '57edf4a22be3c955ac49da2e2107b67a'],
  ])('RFC 1321 vector %j', (input, want) => expect(hex(md5(ascii(input)))).toBe(want));

  it('matches node:crypto around every padding boundary and on larger inputs', () => {
    const sizes = [...Array.from({ length: 140 }, (_, i) => i), 1000, 4095, 65536, 1_000_003];
    for (const n of sizes) {
      const data = seededBytes(n + 1, n);
      expect(hex(md5(data)), `size ${n}`).toBe(createHash('md5').update(data).digest('hex'));
    }
  });

  it('hashes a subarray view by its own bytes', () => {
    const big = seededBytes(5, 300);
    const view = big.subarray(17, 217);
    expect(hex(md5(view))).toBe(createHash('md5').update(view).digest('hex'));
  });
});
