import { describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, resticFixture } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { base64Encode } from './base64';
import { Key } from './keys';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isCairnError(e) ? e.code : 'UNCODED';
  }
  return undefined;
}

describe('Key', () => {
  it('splits KDF output as restic does: [0:32] encrypt, [32:48] mac.k, [48:64] mac.r', () => {
    const b = Uint8Array.from({ length: 64 }, (_, i) => i);
    const k = Key.fromKdfOutput(b);
    expect([...k.encrypt]).toEqual([...b.subarray(0, 32)]);
    expect([...k.macK]).toEqual([...b.subarray(32, 48)]);
    expect([...k.macR]).toEqual([...b.subarray(48, 64)]);
    expect(codeOf(() => Key.fromKdfOutput(b.subarray(0, 63)))).toBe('BAD_KEY_FILE');
  });

  it('refuses parts of the wrong length', () => {
    expect(codeOf(() => new Key(new Uint8Array(31), new Uint8Array(16), new Uint8Array(16)))).toBe('BAD_KEY_FILE');
    expect(codeOf(() => new Key(new Uint8Array(32), new Uint8Array(15), new Uint8Array(16)))).toBe('BAD_KEY_FILE');
    expect(codeOf(() => new Key(new Uint8Array(32), new Uint8Array(16), new Uint8Array(17)))).toBe('BAD_KEY_FILE');
  });

  it('writes and reads the master-key JSON (restic key.go layout, standard base64)', () => {
    const k = new Key(seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16));
    const j = k.toJSON();
    expect(Object.keys(j)).toEqual(['mac', 'encrypt']);
    expect(Object.keys(j.mac)).toEqual(['k', 'r']);
    expect(j.encrypt).toBe(Buffer.from(k.encrypt).toString('base64'));
    expect(j.mac.k).toBe(Buffer.from(k.macK).toString('base64'));
    expect(j.mac.r).toBe(Buffer.from(k.macR).toString('base64'));
    const back = Key.fromJSON(JSON.parse(JSON.stringify(j)));
    expect(back.toJSON()).toEqual(j);
  });

  it('reads the master key restic 0.14 printed', () => {
    const fx = resticFixture();
    const k = Key.fromJSON(fx.masterkey);
    expect(k.encrypt.length).toBe(32);
    expect(k.toJSON()).toEqual(fx.masterkey);
  });

  it('random keys are valid and distinct', async () => {
    await initEngine();
    const a = Key.random(),
      b = Key.random();
    expect(a.valid()).toBe(true);
    expect(base64Encode(a.encrypt)).not.toBe(base64Encode(b.encrypt));
  });

  it('a key with any all-zero part is invalid, and fromJSON refuses it', () => {
    const z = (n: number) => new Uint8Array(n);
    const parts = [seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16)] as const;
    for (let i = 0; i < 3; i++) {
      const p = [...parts] as Uint8Array[];
      p[i] = z(p[i]!.length);
      const k = new Key(p[0]!, p[1]!, p[2]!);
      expect(k.valid()).toBe(false);
      expect(codeOf(() => Key.fromJSON(k.toJSON()))).toBe('BAD_KEY_FILE');
    }
  });

  it.each([
    ['null', null],
    ['a string', 'key'],
    ['no mac', { encrypt: base64Encode(seededBytes(1, 32)) }],
    ['mac.k not a string', { mac: { k: 1, r: base64Encode(seededBytes(3, 16)) }, encrypt: base64Encode(seededBytes(1, 32)) }],
    ['encrypt too short', { mac: { k: base64Encode(seededBytes(2, 16)), r: base64Encode(seededBytes(3, 16)) }, encrypt: base64Encode(seededBytes(1, 31)) }],
    ['encrypt not base64', { mac: { k: base64Encode(seededBytes(2, 16)), r: base64Encode(seededBytes(3, 16)) }, encrypt: '***' }],
  ])('fromJSON refuses %s with BAD_KEY_FILE', (_what, j) => {
    expect(codeOf(() => Key.fromJSON(j))).toBe('BAD_KEY_FILE');
  });
});
