import { describe, expect, it } from 'vitest';
import nodeCrypto from 'node:crypto';
import { wasmAes128block, wasmAes256ctr } from './aes-wasm';
import { seededStream } from '../../test/helpers/seeded';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function nodeCtr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const c = nodeCrypto.createCipheriv('aes-256-ctr', key, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

describe('AES in WebAssembly', () => {
  it('matches NIST SP 800-38A F.5.5 (CTR-AES256.Encrypt)', () => {
    const key = hex('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4');
    const iv = hex('f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff');
    const plain = hex(`6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
                       30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710`);
    const expected = `601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5
                      2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6`.replace(/\s/g, '');
    expect(toHex(wasmAes256ctr(key, iv, plain))).toBe(expected);
    // Decryption is the same operation.
    expect(toHex(wasmAes256ctr(key, iv, hex(expected)))).toBe(toHex(plain));
  });

  it('matches FIPS-197 C.1 for a single AES-128 block', () => {
    const random = seededStream('aes-wasm block');
    const out = wasmAes128block(hex('000102030405060708090a0b0c0d0e0f'), hex('00112233445566778899aabbccddeeff'));
    expect(toHex(out)).toBe('69c4e0d86a7b0430d8cd b78070b4c55a'.replace(/\s/g, ''));
    // Matches node's AES-128-ECB on random keys and blocks (Poly1305-AES's nonce encryption).
    for (let i = 0; i < 50; i++) {
      const k = random(16),
        b = random(16);
      const c = nodeCrypto.createCipheriv('aes-128-ecb', k, null);
      c.setAutoPadding(false);
      expect(toHex(wasmAes128block(new Uint8Array(k), new Uint8Array(b)))).toBe(Buffer.concat([c.update(b), c.final()]).toString('hex'));
    }
  });

  it('matches node:crypto for many lengths, keys and IVs, across the 1 MiB piece size', () => {
    const random = seededStream('aes-wasm lengths');
    const lengths = [0, 1, 15, 16, 17, 31, 33, 1000, (1 << 20) - 1, 1 << 20, (1 << 20) + 5, 3 * (1 << 20) + 7];
    for (const n of lengths) {
      const key = new Uint8Array(random(32)),
        iv = new Uint8Array(random(16));
      const data = new Uint8Array(random(n));
      const got = wasmAes256ctr(key, iv, data);
      expect(Buffer.compare(got, nodeCtr(key, iv, data)), `length ${n}`).toBe(0);
    }
  });

  it('carries the counter across all 128 bits as Go does (IVs near 2^64 and 2^128)', () => {
    const random = seededStream('aes-wasm counter');
    const key = new Uint8Array(random(32));
    const data = new Uint8Array(random(100));
    for (const iv of [
      'ffffffffffffffffffffffffffffffff',
      '0000000000000000fffffffffffffffe',
      '00000000000000ffffffffffffffffff',
      '7fffffffffffffffffffffffffffffff',
    ]) {
      expect(Buffer.compare(wasmAes256ctr(key, hex(iv), data), nodeCtr(key, hex(iv), data)), iv).toBe(0);
    }
  });

  it('switches keys correctly between calls', () => {
    const random = seededStream('aes-wasm keys');
    const k1 = new Uint8Array(random(32)),
      k2 = new Uint8Array(random(32));
    const iv = new Uint8Array(16).fill(9);
    const d = new Uint8Array(64).fill(1);
    const a = wasmAes256ctr(k1, iv, d),
      b = wasmAes256ctr(k2, iv, d),
      c = wasmAes256ctr(k1, iv, d);
    expect(Buffer.compare(a, nodeCtr(k1, iv, d))).toBe(0);
    expect(Buffer.compare(b, nodeCtr(k2, iv, d))).toBe(0);
    expect(Buffer.compare(c, a)).toBe(0);
  });

  it('writes into a given output array', () => {
    const key = new Uint8Array(32).fill(3),
      iv = new Uint8Array(16).fill(4),
      data = new Uint8Array(40).fill(5);
    const out = new Uint8Array(40);
    expect(wasmAes256ctr(key, iv, data, out)).toBe(out);
    expect(Buffer.compare(out, nodeCtr(key, iv, data))).toBe(0);
  });
});
