import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { PackEntries } from './entries';
import { encodeHeader, parseHeader, type PackedBlob } from './header';

const id = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

/** Blobs back to back from offset 0, every third compressed, trees among them. */
function blobs(n: number): PackedBlob[] {
  let offset = 0;
  return Array.from({ length: n }, (_, i) => {
    const length = 33 + ((i * 7919) % 5000);
    const b: PackedBlob = { type: i % 4 === 0 ? 'tree' : 'data', id: id(i % 256), offset, length, uncompressedLength: i % 3 === 2 ? length * 2 + 1 : 0 };
    offset += length;
    return b;
  });
}

describe('PackEntries', () => {
  it("holds exactly the pack header's plain entries, and gives the blobs back with their offsets", () => {
    const list = blobs(2000); // past the first buffer: it grows
    const e = new PackEntries();
    for (const b of list) expect(e.add(b.type, b.id, b.length, b.uncompressedLength)).toBe(b.offset);
    expect(e.count).toBe(list.length);
    expect(e.bytes).toEqual(encodeHeader(list));
    expect(e.byteLength).toBe(encodeHeader(list).length);
    expect(e.blobs()).toEqual(list);
    expect(parseHeader(e.bytes)).toEqual(list);
  });

  it('reads a header back (fromHeader, fromBlobs) and visits each entry with its ID in place', () => {
    const list = blobs(50);
    const e = PackEntries.fromHeader(encodeHeader(list));
    expect(e.count).toBe(50);
    const seen: string[] = [];
    e.forEach((v) =>
      seen.push(`${v.type}:${Buffer.from(v.header.subarray(v.idAt, v.idAt + 32)).toString('hex')}:${v.offset}:${v.length}:${v.uncompressedLength}`),
    );
    expect(seen).toEqual(list.map((b) => `${b.type}:${b.id}:${b.offset}:${b.length}:${b.uncompressedLength}`));
    expect(PackEntries.fromBlobs(list).blobs()).toEqual(list);
    expect(new PackEntries().blobs()).toEqual([]);
  });

  it('trimmed() is a buffer of exactly the header (a message carries the whole buffer of a view)', () => {
    const e = new PackEntries(4096);
    e.add('data', id(1), 50, 0);
    const t = e.trimmed();
    expect(t.buffer.byteLength).toBe(37);
    expect(PackEntries.fromHeader(t).blobs()).toEqual([{ type: 'data', id: id(1), offset: 0, length: 50, uncompressedLength: 0 }]);
  });

  it('refuses a malformed header (bad type, truncated entry) with BAD_PACK', () => {
    const good = encodeHeader(blobs(3));
    const badType = good.slice();
    badType[0] = 7;
    for (const h of [badType, good.slice(0, good.length - 1)]) {
      let err: unknown;
      try {
        PackEntries.fromHeader(h);
      } catch (x) {
        err = x;
      }
      expect(isCairnError(err) && err.code === 'BAD_PACK').toBe(true);
    }
  });
});
