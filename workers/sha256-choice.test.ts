// The SHA-256 choice: timed per input size, or forced by the engine's choice; whichever runs,
// every size gives node:crypto's digest, and 'split' sends small inputs to WebCrypto and large
// ones to WebAssembly.
import { describe, expect, it, vi } from 'vitest';
import nodeCrypto from 'node:crypto';
import { seededBytes } from '../test/helpers/seeded';

const SIZES = [0, 1, 64, 1000, 65_536, 896 << 10, (896 << 10) + 1, 3 << 20];

async function fresh() {
  vi.resetModules();
  vi.restoreAllMocks();
  const choice = await import('./sha256-choice');
  const prims = await import('../core/crypto/primitives');
  return { ...choice, primitives: prims.primitives };
}

async function digestsMatch(sha256: (d: Uint8Array) => Promise<Uint8Array>): Promise<void> {
  for (const size of SIZES) {
    const data = seededBytes(`sha256-choice ${size}`, size);
    expect(Buffer.from(await sha256(data)).toString('hex'), `${size} bytes`).toBe(nodeCrypto.createHash('sha256').update(data).digest('hex'));
  }
}

describe('chooseSha256', () => {
  it('times both sizes and installs what it names, with the same digests at every size', async () => {
    const m = await fresh();
    const use = await m.chooseSha256();
    expect(['webcrypto', 'wasm', 'split']).toContain(use);
    const digest = vi.spyOn(globalThis.crypto.subtle, 'digest');
    await digestsMatch(m.primitives().sha256);
    const webSizes = digest.mock.calls.map((c) => (c[1] as Uint8Array).length);
    if (use === 'webcrypto') expect(webSizes).toEqual(SIZES);
    if (use === 'wasm') expect(webSizes).toEqual([]);
    if (use === 'split') expect(webSizes).toEqual(SIZES.filter((s) => s <= m.SMALL_DIGEST));
  });

  it("'split' sends inputs up to SMALL_DIGEST to WebCrypto and larger ones to WebAssembly, timing nothing", async () => {
    const m = await fresh();
    const digest = vi.spyOn(globalThis.crypto.subtle, 'digest');
    expect(await m.chooseSha256('split')).toBe('split');
    expect(digest).not.toHaveBeenCalled(); // no timing runs
    await digestsMatch(m.primitives().sha256);
    expect(digest.mock.calls.map((c) => (c[1] as Uint8Array).length)).toEqual(SIZES.filter((s) => s <= m.SMALL_DIGEST));
  });

  it("'wasm' sends every size to WebAssembly; 'webcrypto' keeps WebCrypto for all", async () => {
    for (const use of ['wasm', 'webcrypto'] as const) {
      const m = await fresh();
      const digest = vi.spyOn(globalThis.crypto.subtle, 'digest');
      expect(await m.chooseSha256(use)).toBe(use);
      await digestsMatch(m.primitives().sha256);
      expect(digest).toHaveBeenCalledTimes(use === 'wasm' ? 0 : SIZES.length);
    }
  });
});
