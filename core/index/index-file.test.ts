import { describe, expect, it } from 'vitest';
import { resticFixture } from '../../test/helpers/mem-repo';
import { isCairnError } from '../errors';
import { PackEntries } from '../pack/entries';
import { decodeIndex, encodeIndex as encodeIndexBytes, type IndexPack } from './index-file';

const encodeIndex = (packs: IndexPack[]) => new TextDecoder().decode(encodeIndexBytes(packs));

const id = (n: number) => n.toString(16).padStart(2, '0').repeat(32);

function errorOf(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

const packs: IndexPack[] = [
  {
    id: id(1),
    blobs: [
      { type: 'data', id: id(2), offset: 0, length: 38, uncompressedLength: 0 },
      { type: 'data', id: id(3), offset: 38, length: 112, uncompressedLength: 511 },
    ],
  },
  { id: id(4), blobs: [{ type: 'tree', id: id(5), offset: 0, length: 4_000_000_000, uncompressedLength: 4_294_967_295 }] },
  { id: id(6), blobs: [] },
];

describe('index files', () => {
  it("writes restic's JSON: uncompressed_length only for compressed blobs, trailing newline", () => {
    const text = encodeIndex(packs);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toBe(
      `{"packs":[{"id":"${id(1)}","blobs":[{"id":"${id(2)}","type":"data","offset":0,"length":38},` +
        `{"id":"${id(3)}","type":"data","offset":38,"length":112,"uncompressed_length":511}]},` +
        `{"id":"${id(4)}","blobs":[{"id":"${id(5)}","type":"tree","offset":0,"length":4000000000,"uncompressed_length":4294967295}]},` +
        `{"id":"${id(6)}","blobs":[]}]}\n`,
    );
  });

  it('writes the same bytes for packs given as header entries, and what JSON.stringify gives', () => {
    const many: IndexPack[] = [0, 1, 7].map((p) => {
      let offset = 0;
      const blobs = Array.from({ length: p * 300 }, (_, i) => {
        const length = 40 + ((i * 7919) % 70_000);
        const b = { type: i % 5 === 0 ? ('tree' as const) : ('data' as const), id: id(i % 256), offset, length, uncompressedLength: i % 3 ? length * 3 : 0 };
        offset += length;
        return b;
      });
      return { id: id(200 + p), blobs };
    });
    const saved = many.map((p) => ({ id: p.id, entries: PackEntries.fromBlobs(p.blobs) }));
    const stringified =
      JSON.stringify({
        packs: many.map((p) => ({
          id: p.id,
          blobs: p.blobs.map((b) => ({
            id: b.id,
            type: b.type,
            offset: b.offset,
            length: b.length,
            ...(b.uncompressedLength ? { uncompressed_length: b.uncompressedLength } : {}),
          })),
        })),
      }) + '\n';
    expect(encodeIndex(many)).toBe(stringified);
    expect(new TextDecoder().decode(encodeIndexBytes(saved))).toBe(stringified);
  });

  it('round-trips', () => {
    expect(decodeIndex(JSON.parse(encodeIndex(packs)))).toEqual(packs);
    expect(decodeIndex(JSON.parse(encodeIndex([])))).toEqual([]);
  });

  it('reads the legacy top-level array form', () => {
    const legacy = JSON.parse(encodeIndex(packs)).packs as unknown;
    expect(decodeIndex(legacy)).toEqual(packs);
  });

  it('ignores unknown fields (restic supersedes, rustic time/size/packs_to_delete)', () => {
    const j = JSON.parse(encodeIndex(packs)) as { packs: Record<string, unknown>[] } & Record<string, unknown>;
    j.supersedes = [id(9)];
    j.packs_to_delete = [{ id: id(8), blobs: [] }];
    j.packs[0]!.time = '2024-01-01T00:00:00Z';
    j.packs[0]!.size = 1234;
    (j.packs[0]!.blobs as Record<string, unknown>[])[0]!.extra = true;
    expect(decodeIndex(j)).toEqual(packs);
  });

  it('treats uncompressed_length 0 like an absent one', () => {
    const j = { packs: [{ id: id(1), blobs: [{ id: id(2), type: 'data', offset: 0, length: 38, uncompressed_length: 0 }] }] };
    expect(decodeIndex(j)[0]!.blobs[0]!.uncompressedLength).toBe(0);
  });

  it('reads the index restic 0.14 wrote', () => {
    const fx = resticFixture();
    const got = decodeIndex(fx.index, fx.indexID);
    expect(got.map((p) => p.id)).toEqual(fx.index.packs.map((p) => p.id));
    expect(got[1]!.blobs.map((b) => [b.type, b.offset, b.length, b.uncompressedLength])).toEqual([
      ['tree', 0, 258, 359],
      ['tree', 508, 247, 351],
      ['tree', 258, 250, 356],
    ]);
  });

  const blob = { id: id(2), type: 'data', offset: 0, length: 38 };
  it.each([
    ['null', null],
    ['a number', 5],
    ['no packs', {}],
    ['packs not a list', { packs: {} }],
    ['a null pack', { packs: [null] }],
    ['pack id not hex', { packs: [{ id: 'zz'.repeat(32), blobs: [] }] }],
    ['pack id short', { packs: [{ id: 'ab', blobs: [] }] }],
    ['pack without blobs', { packs: [{ id: id(1) }] }],
    ['blob type "index"', { packs: [{ id: id(1), blobs: [{ ...blob, type: 'index' }] }] }],
    ['blob id missing', { packs: [{ id: id(1), blobs: [{ ...blob, id: undefined }] }] }],
    ['negative offset', { packs: [{ id: id(1), blobs: [{ ...blob, offset: -1 }] }] }],
    ['fractional length', { packs: [{ id: id(1), blobs: [{ ...blob, length: 1.5 }] }] }],
    ['length as a string', { packs: [{ id: id(1), blobs: [{ ...blob, length: '38' }] }] }],
    ['length beyond u32', { packs: [{ id: id(1), blobs: [{ ...blob, length: 2 ** 32 }] }] }],
    ['uncompressed_length negative', { packs: [{ id: id(1), blobs: [{ ...blob, uncompressed_length: -5 }] }] }],
    ['uncompressed_length a string', { packs: [{ id: id(1), blobs: [{ ...blob, uncompressed_length: 'x' }] }] }],
    ['a null blob', { packs: [{ id: id(1), blobs: [null] }] }],
  ])('refuses %s with BAD_INDEX naming the index', (_what, json) => {
    const e = errorOf(() => decodeIndex(json, 'fe'.repeat(32)));
    expect(isCairnError(e, 'BAD_INDEX')).toBe(true);
    expect((e as Error).message).toMatch(/^index fefefefe: /);
    expect((e as { detail: unknown }).detail).toEqual({ index: 'fe'.repeat(32) });
  });
});
