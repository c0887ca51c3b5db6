import { describe, expect, it } from 'vitest';
import { prng, seededBytes } from '../../test/fixtures/chunker/generate';
import { isCairnError } from '../errors';
import { base64Decode, base64Encode } from './base64';

const nodeB64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

function decodeError(s: string): unknown {
  try {
    base64Decode(s);
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('base64', () => {
  it('matches RFC 4648 §10 test vectors', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, enc] of cases) {
      const bytes = new TextEncoder().encode(plain);
      expect(base64Encode(bytes)).toBe(enc);
      expect(new TextDecoder().decode(base64Decode(enc))).toBe(plain);
    }
  });

  it('agrees with Node Buffer on random inputs of every length below 100 and a few large ones', () => {
    const next = prng(42);
    const lengths = [...Array.from({ length: 100 }, (_, i) => i), 4095, 4096, 4097, 65536 + 1, 300_001];
    for (const n of lengths) {
      const b = seededBytes(next(), n);
      const enc = base64Encode(b);
      expect(enc).toBe(nodeB64(b));
      const back = base64Decode(enc);
      expect(Buffer.compare(Buffer.from(back), Buffer.from(b))).toBe(0);
    }
  });

  it('encodes every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(base64Encode(all)).toBe(nodeB64(all));
    expect(Buffer.from(base64Decode(nodeB64(all)))).toEqual(Buffer.from(all));
  });

  it('decodes what Node writes for restic key material (64-byte salt, 16 and 32 byte keys)', () => {
    for (const n of [16, 32, 64]) {
      const b = seededBytes(n, n);
      expect(Buffer.from(base64Decode(nodeB64(b)))).toEqual(Buffer.from(b));
    }
  });

  it.each([
    ['length not a multiple of 4', 'Zm9'],
    ['one character', 'Z'],
    ['character outside the alphabet', 'Zm9v!A=='],
    ['URL-safe alphabet', 'ab-_'],
    ['padding in the middle', 'Zg==Zm9v'],
    ['padding inside a quad', 'Z=9v'],
    ['three padding characters', 'Z==='],
    ['whitespace', 'Zm9v Zm9v'],
    ['newline', 'Zm9v\nZm9v'],
    ['non-ASCII look-alike of A', 'Zm9\u0100'],
    ['non-ASCII character with A in its low byte', '\u0141AAA'],
    ['astral character', 'Zm\u{1F600}'],
  ])('rejects malformed input with a coded error: %s', (_what, s) => {
    const e = decodeError(s);
    expect(isCairnError(e), `no coded error for ${JSON.stringify(s)}`).toBe(true);
    expect((e as { code: string }).code).toBe('BAD_KEY_FILE');
  });
});
