import { describe, expect, it } from 'vitest';
import type { BlobLocation } from '../index/master-index';
import { DECODE_GROUP_BLOBS, DECODE_GROUP_BYTES, decodeGroups, decodeInPlace, intact, overlapping, rangeOf } from './pack-groups';

const blob = (offset: number, length: number, uncompressedLength = 0) => ({
  loc: { type: 'data', id: `b${offset}`, packID: 'p', offset, length, uncompressedLength } as BlobLocation,
});

describe('pack groups', () => {
  it('rangeOf spans from the first blob to the furthest end', () => {
    expect(rangeOf([blob(10, 100), blob(200, 50), blob(110, 10)])).toEqual({ start: 10, end: 250 });
  });

  it('decodeGroups cuts runs of at most DECODE_GROUP_BYTES of plaintext; a larger blob goes alone', () => {
    const mib = 1 << 20;
    const list = [
      blob(0, mib + 32),
      blob(mib + 32, 2 * mib + 32),
      blob(3 * mib + 64, 2 * mib + 32),
      blob(5 * mib + 96, 9 * mib + 32),
      blob(14 * mib + 128, 100),
    ];
    expect(decodeGroups(list).map((g) => g.map((b) => b.loc.offset))).toEqual([[0, mib + 32], [3 * mib + 64], [5 * mib + 96], [14 * mib + 128]]);
    for (const g of decodeGroups(list)) if (g.length > 1) expect(g.reduce((n, b) => n + b.loc.length - 32, 0)).toBeLessThanOrEqual(DECODE_GROUP_BYTES);
  });

  it('decodeGroups cuts runs of tiny blobs at DECODE_GROUP_BLOBS, every blob once and in order', () => {
    const n = 2 * DECODE_GROUP_BLOBS + 10;
    const list = Array.from({ length: n }, (_, i) => blob(i * 42, 42)); // 10-byte files: 4 MiB of plaintext is 400 000 of them
    const groups = decodeGroups(list);
    expect(groups.map((g) => g.length)).toEqual([DECODE_GROUP_BLOBS, DECODE_GROUP_BLOBS, 10]);
    expect(groups.flat()).toEqual(list);
  });

  it('decodes in place only packs mostly of big stored blobs', () => {
    expect(decodeInPlace([blob(0, 1 << 20), blob(1 << 20, 1 << 20)])).toBe(true);
    expect(decodeInPlace([blob(0, 4000), blob(4000, 4000)])).toBe(false); // small
    expect(decodeInPlace([blob(0, 1 << 20, 3 << 20), blob(1 << 20, 1 << 20)])).toBe(false); // mostly compressed plaintext
  });

  it('overlapping: two entries sharing bytes (a damaged or forged index)', () => {
    expect(overlapping([blob(0, 100), blob(100, 100)])).toBe(false);
    expect(overlapping([blob(0, 100), blob(99, 100)])).toBe(true);
    expect(overlapping([blob(0, 100), blob(0, 100)])).toBe(true);
  });

  it('intact: the blob lies wholly within the bytes read', () => {
    expect(intact(blob(100, 50), 100, 50)).toBe(true);
    expect(intact(blob(100, 50), 100, 49)).toBe(false);
    expect(intact(blob(200, 50), 100, 150)).toBe(true);
  });
});
