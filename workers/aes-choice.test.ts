// The AES choice: where WebCrypto wins on bulk data (Chromium with AES instructions, Node on
// most machines), single blocks and small data still go to the WebAssembly AES and larger data
// to WebCrypto; either way every size gives node:crypto's bytes.
import { describe, expect, it, vi } from 'vitest';
import nodeCrypto from 'node:crypto';
import { seededStream } from '../test/helpers/seeded';
import { chooseAes, SMALL_CTR } from './aes-choice';
import { primitives } from '../core/crypto/primitives';

function nodeCtr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const c = nodeCrypto.createCipheriv('aes-256-ctr', key, iv);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

describe('chooseAes', () => {
  it('times both and installs what it names: WebAssembly for blocks and small data either way, the same bytes at every size', async () => {
    const random = seededStream('aes-choice timed');
    // Which one wins depends on the machine (Node's WebCrypto AES allocates every output, and
    // where a page fault is dear the WebAssembly AES can win), so the routing is checked
    // against what was chosen.
    const choice = await chooseAes();
    expect(['webcrypto', 'wasm']).toContain(choice);
    const encrypt = vi.spyOn(globalThis.crypto.subtle, 'encrypt');
    const key = random(32);
    for (const size of [0, 1, 16, 1000, SMALL_CTR]) {
      const iv = random(16),
        data = random(size);
      expect(Buffer.from(await primitives().aes256ctr(key, iv, data)).equals(Buffer.from(nodeCtr(key, iv, data))), `${size} bytes`).toBe(true);
    }
    const k16 = random(16),
      block = random(16);
    const ecb = nodeCrypto.createCipheriv('aes-128-ecb', k16, null).setAutoPadding(false).update(block);
    expect(Buffer.from(await primitives().aes128block(k16, block)).equals(ecb)).toBe(true);
    expect(encrypt).not.toHaveBeenCalled();
    for (const size of [SMALL_CTR + 1, 300_000]) {
      const iv = random(16),
        data = random(size);
      expect(Buffer.from(await primitives().aes256ctr(key, iv, data)).equals(Buffer.from(nodeCtr(key, iv, data))), `${size} bytes`).toBe(true);
    }
    expect(encrypt.mock.calls.length > 0).toBe(choice === 'webcrypto');
  });

  it("given the engine's choice of WebCrypto, times nothing and still sends small data to WebAssembly", async () => {
    const random = seededStream('aes-choice given');
    vi.resetModules();
    vi.restoreAllMocks();
    const fresh = await import('./aes-choice');
    const prims = await import('../core/crypto/primitives');
    const encrypt = vi.spyOn(globalThis.crypto.subtle, 'encrypt');
    expect(await fresh.chooseAes('webcrypto')).toBe('webcrypto');
    expect(encrypt).not.toHaveBeenCalled(); // no timing runs
    const key = random(32);
    for (const size of [1000, SMALL_CTR + 1]) {
      const iv = random(16),
        data = random(size);
      expect(Buffer.from(await prims.primitives().aes256ctr(key, iv, data)).equals(Buffer.from(nodeCtr(key, iv, data))), `${size} bytes`).toBe(true);
      expect(encrypt).toHaveBeenCalledTimes(size <= SMALL_CTR ? 0 : 1);
    }
  });
});
