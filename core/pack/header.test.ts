import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { encodeHeader, entrySize, parseHeader, type PackedBlob } from './header';

const id = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('pack header entries', () => {
  // One entry of each of restic's four types, offsets implied by the lengths.
  const blobs: PackedBlob[] = [
    { type: 'data', id: id(1), offset: 0, length: 100, uncompressedLength: 0 },
    { type: 'tree', id: id(2), offset: 100, length: 200, uncompressedLength: 0 },
    { type: 'data', id: id(3), offset: 300, length: 0x01020304, uncompressedLength: 0x0a0b0c0d },
    { type: 'tree', id: id(4), offset: 0x01020304 + 300, length: 50, uncompressedLength: 500 },
  ];

  it('encodes type byte, u32 LE lengths and the ID exactly as restic pack.go', () => {
    const h = encodeHeader(blobs);
    expect(h.length).toBe(37 + 37 + 41 + 41);
    const hex = Buffer.from(h).toString('hex');
    expect(hex.slice(0, 74)).toBe('00' + '64000000' + id(1));
    expect(hex.slice(74, 148)).toBe('01' + 'c8000000' + id(2));
    expect(hex.slice(148, 230)).toBe('02' + '04030201' + '0d0c0b0a' + id(3));
    expect(hex.slice(230)).toBe('03' + '32000000' + 'f4010000' + id(4));
  });

  it('parses what it encodes, offsets following from the lengths', () => {
    expect(parseHeader(encodeHeader(blobs))).toEqual(blobs);
    expect(parseHeader(new Uint8Array(0))).toEqual([]);
  });

  it('parses a view into a larger buffer', () => {
    const h = encodeHeader(blobs);
    const big = new Uint8Array(h.length + 20);
    big.set(h, 7);
    expect(parseHeader(big.subarray(7, 7 + h.length))).toEqual(blobs);
  });

  it('entrySize is 37 for stored-as-is blobs, 41 for compressed ones', () => {
    expect(entrySize({ uncompressedLength: 0 })).toBe(37);
    expect(entrySize({ uncompressedLength: 1 })).toBe(41);
  });

  it.each([4, 5, 0x80, 0xff])('refuses entry type %i as BAD_PACK naming the pack', (t) => {
    const h = encodeHeader(blobs);
    h[37] = t;
    const e = errorOf(() => parseHeader(h, 'ab'.repeat(32)));
    expect(isCairnError(e, 'BAD_PACK')).toBe(true);
    expect((e as Error).message).toBe(`pack abababab: invalid header entry type ${t}`);
    expect((e as { detail: unknown }).detail).toEqual({ pack: 'ab'.repeat(32) });
  });

  it('refuses every truncation that cuts an entry', () => {
    const h = encodeHeader(blobs);
    const boundaries = new Set([0, 37, 74, 115, 156]);
    for (let len = 1; len < h.length; len++) {
      if (boundaries.has(len)) {
        expect(parseHeader(h.subarray(0, len)).length).toBeGreaterThan(0);
        continue;
      }
      expect(
        isCairnError(
          errorOf(() => parseHeader(h.subarray(0, len))),
          'BAD_PACK',
        ),
        `length ${len}`,
      ).toBe(true);
    }
  });
});
