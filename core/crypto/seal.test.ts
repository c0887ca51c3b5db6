import { beforeAll, describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, resticFile, resticFixture, sameBytes } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { Key } from './keys';
import { EXTENSION, IV_SIZE, MAC_SIZE, open, seal } from './seal';
import { primitives, setPrimitives, webPrimitives, type Primitives } from './primitives';

const key = new Key(seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16));
const otherKey = new Key(seededBytes(4, 32), seededBytes(5, 16), seededBytes(6, 16));

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, 'expected a rejection').toBeDefined();
  expect(isCairnError(e) ? e.code : e).toBe(code);
}

describe('seal/open', () => {
  beforeAll(initEngine);

  it.each([0, 1, 15, 16, 17, 1000, (1 << 20) + 3])('round-trips %i bytes with 32 bytes of overhead', async (n) => {
    const plain = seededBytes(100 + n, n);
    const sealed = await seal(key, plain);
    expect(sealed.length).toBe(n + EXTENSION);
    expect(sameBytes(await open(key, sealed), plain)).toBe(true);
    if (n >= 16) expect(sameBytes(sealed.subarray(IV_SIZE, IV_SIZE + n), plain)).toBe(false); // actually encrypted
  });

  it('uses a fresh random IV every time', async () => {
    const plain = seededBytes(7, 64);
    const a = await seal(key, plain);
    const b = await seal(key, plain);
    expect(sameBytes(a.subarray(0, IV_SIZE), b.subarray(0, IV_SIZE))).toBe(false);
    expect(sameBytes(a, b)).toBe(false);
  });

  it('detects a change of any single byte of IV, ciphertext or tag', async () => {
    const sealed = await seal(key, seededBytes(8, 40));
    for (let i = 0; i < sealed.length; i++) {
      const bad = sealed.slice();
      bad[i]! ^= 1 << (i % 8);
      await expectCode(open(key, bad), 'MAC_MISMATCH');
    }
  });

  it('detects tampering deep inside a 1 MiB ciphertext', async () => {
    const sealed = await seal(key, seededBytes(9, 1 << 20));
    for (const at of [IV_SIZE + 123_457, sealed.length - MAC_SIZE - 1, sealed.length - 1]) {
      const bad = sealed.slice();
      bad[at]! ^= 0x80;
      await expectCode(open(key, bad), 'MAC_MISMATCH');
    }
  });

  it('refuses the wrong key, truncation and extension', async () => {
    const sealed = await seal(key, seededBytes(10, 100));
    await expectCode(open(otherKey, sealed), 'MAC_MISMATCH');
    await expectCode(open(key, sealed.subarray(0, sealed.length - 1)), 'MAC_MISMATCH');
    await expectCode(open(key, sealed.subarray(1)), 'MAC_MISMATCH');
    const longer = new Uint8Array(sealed.length + 1);
    longer.set(sealed);
    await expectCode(open(key, longer), 'MAC_MISMATCH');
  });

  it.each([0, 1, 16, 31])('refuses input shorter than IV + tag (%i bytes)', async (n) => {
    await expectCode(open(key, new Uint8Array(n).fill(1)), 'MAC_MISMATCH');
  });

  it('opens an empty plaintext of exactly 32 bytes', async () => {
    const sealed = await seal(key, new Uint8Array(0));
    expect(sealed.length).toBe(32);
    expect((await open(key, sealed)).length).toBe(0);
  });

  it('refuses an all-zero IV even with a valid tag', async () => {
    // Build IV=0 || ct || tag exactly as seal would, but with the forbidden IV.
    const iv = new Uint8Array(16);
    const plain = seededBytes(11, 48);
    const zero: Primitives = { ...primitives(), randomBytes: (n) => new Uint8Array(n) };
    const original = primitives();
    // seal never emits a zero IV: with a zero-only random source it would loop forever, so
    // give it one zero draw followed by real randomness and check it skipped the zero one.
    let draws = 0;
    setPrimitives({ ...original, randomBytes: (n) => (draws++ === 0 ? zero.randomBytes(n) : original.randomBytes(n)) });
    let sealed: Uint8Array;
    try {
      sealed = await seal(key, plain);
    } finally {
      setPrimitives(original);
    }
    expect(draws).toBe(2);
    expect(sealed.subarray(0, 16).some((b) => b !== 0)).toBe(true);
    // Now forge the zero-IV form with the real MAC construction: open must still refuse it.
    const { poly1305 } = await import('./poly1305');
    const ct = await original.aes256ctr(key.encrypt, iv, plain);
    const macKey = new Uint8Array(32);
    macKey.set(key.macR);
    macKey.set(await original.aes128block(key.macK, iv), 16);
    const forged = new Uint8Array(16 + ct.length + 16);
    forged.set(ct, 16);
    forged.set(poly1305(macKey, ct), 16 + ct.length);
    await expectCode(open(key, forged), 'MAC_MISMATCH');
    // Same bytes with a non-zero IV of our choosing do open (the forgery itself is sound).
    const iv1 = new Uint8Array(16).fill(0);
    iv1[15] = 1;
    const ct1 = await original.aes256ctr(key.encrypt, iv1, plain);
    macKey.set(await original.aes128block(key.macK, iv1), 16);
    const good = new Uint8Array(16 + ct1.length + 16);
    good.set(iv1);
    good.set(ct1, 16);
    good.set(poly1305(macKey, ct1), 16 + ct1.length);
    expect(sameBytes(await open(key, good), plain)).toBe(true);
  });

  it('counts the CTR counter across all 16 IV bytes (Go cipher.NewCTR carry)', async () => {
    // IV ...ff ff: the second block's counter carries into byte 13. Compare with a manual
    // two-block CTR built from single-block encryptions.
    const iv = new Uint8Array(16).fill(0xff);
    iv[0] = 1;
    iv[13] = 0x41;
    const plain = seededBytes(12, 48);
    const ct = await primitives().aes256ctr(key.encrypt, iv, plain);
    const { createCipheriv } = await import('node:crypto');
    const ecb = (block: Uint8Array) => {
      const c = createCipheriv('aes-256-ecb', key.encrypt, null);
      c.setAutoPadding(false);
      return new Uint8Array(c.update(block));
    };
    const counter = iv.slice();
    for (let b = 0; b < 3; b++) {
      const ks = ecb(counter);
      for (let i = 0; i < 16; i++) expect(ct[b * 16 + i]).toBe(plain[b * 16 + i]! ^ ks[i]!);
      for (let i = 15; i >= 0 && ++counter[i]! === 256; i--) counter[i] = 0;
    }
  });

  it('agrees between the WebCrypto and node:crypto primitives', async () => {
    const node = primitives();
    const plain = seededBytes(13, 5000);
    const sealedNode = await seal(key, plain);
    setPrimitives(webPrimitives);
    try {
      expect(sameBytes(await open(key, sealedNode), plain)).toBe(true);
      const sealedWeb = await seal(key, plain);
      setPrimitives(node);
      expect(sameBytes(await open(key, sealedWeb), plain)).toBe(true);
    } finally {
      setPrimitives(node);
    }
  });

  describe('known answer from restic 0.14 (test/fixtures/restic-0.14-repo)', () => {
    const fx = resticFixture();
    const master = () => Key.fromJSON(fx.masterkey);

    it('opens the config file restic wrote to the JSON `restic cat config` prints', async () => {
      const plain = await open(master(), resticFile('config'));
      // config is never compressed: the plaintext is the JSON itself.
      expect(plain[0]).toBe(0x7b);
      const text = new TextDecoder().decode(plain);
      expect(JSON.parse(text)).toEqual(fx.config);
      // Go's json.Marshal of restic.Config, byte for byte.
      expect(text).toBe(`{"version":2,"id":"${fx.config.id}","chunker_polynomial":"${fx.config.chunker_polynomial}"}`);
    });

    it('fails the MAC with any other key or one flipped bit', async () => {
      const raw = resticFile('config');
      await expectCode(open(key, raw), 'MAC_MISMATCH');
      const bad = raw.slice();
      bad[20]! ^= 4;
      await expectCode(open(master(), bad), 'MAC_MISMATCH');
    });

    it('a blob sealed by us is opened by the same construction restic uses (round trip with restic key)', async () => {
      const plain = new TextEncoder().encode(fx.file.content);
      expect(sameBytes(await open(master(), await seal(master(), plain)), plain)).toBe(true);
    });
  });
});
