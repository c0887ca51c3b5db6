import { describe, expect, it } from 'vitest';
import { MasterIndex } from '../index/master-index';
import type { BlobType, PackedBlob } from '../pack/header';
import { packInfoFromIndex, PackKind } from './pack-info';
import { emptyStats } from './stats';

const id = (s: string) => Buffer.from(s).toString('hex').padEnd(64, '0');
const HDR = 36; // 4-byte length + sealed header overhead

/** Packs of [name, type, length, compressed]; marks `used` blobs at their canonical entries. */
function build(packs: [string, [string, BlobType, number, boolean][]][], used: string[]) {
  const index = new MasterIndex();
  for (const [pack, blobs] of packs) {
    let offset = 0;
    const list: PackedBlob[] = blobs.map(([b, type, length, compressed]) => {
      const pb = { id: id(b), type, offset, length, uncompressedLength: compressed ? length * 2 : 0 };
      offset += length;
      return pb;
    });
    index.addPack(id(pack), list);
  }
  const marks = new Uint8Array(index.size);
  for (const b of used) {
    const t: BlobType = b.startsWith('t') ? 'tree' : 'data';
    marks[index.findEntry(t, id(b))] = 1;
  }
  const stats = emptyStats();
  return { infos: packInfoFromIndex(index, marks, stats), stats, index, marks };
}

describe('packInfoFromIndex (restic packInfoFromIndex)', () => {
  it('counts used and unused blobs and bytes per pack, the header in the used part', () => {
    const { infos, stats } = build(
      [
        [
          'aa',
          [
            ['a1', 'data', 100, true],
            ['a2', 'data', 50, false],
          ],
        ],
        ['bb', [['t1', 'tree', 70, true]]],
      ],
      ['a1', 't1'],
    );
    expect(infos[0]).toEqual({
      usedBlobs: 1,
      unusedBlobs: 1,
      duplicateBlobs: 0,
      usedSize: HDR + 41 + 37 + 100,
      unusedSize: 50,
      kind: PackKind.Data,
      uncompressed: true,
    });
    expect(infos[1]).toEqual({
      usedBlobs: 1,
      unusedBlobs: 0,
      duplicateBlobs: 0,
      usedSize: HDR + 41 + 70,
      unusedSize: 0,
      kind: PackKind.Tree,
      uncompressed: false,
    });
    expect(stats.blobs).toMatchObject({ used: 2, unused: 1, duplicate: 0 });
    expect(stats.bytes).toMatchObject({ used: 170, unused: 50, duplicate: 0 });
  });

  it('marks packs holding both blob types as mixed', () => {
    const { infos } = build(
      [
        [
          'aa',
          [
            ['t1', 'tree', 10, true],
            ['a1', 'data', 10, true],
          ],
        ],
      ],
      [],
    );
    expect(infos[0]!.kind).toBe(PackKind.Mixed);
  });

  it('a duplicated used blob counts as used once: in a pack with other used blobs', () => {
    const { infos, stats } = build(
      [
        [
          'p1',
          [
            ['d1', 'data', 10, true],
            ['z1', 'data', 5, true],
          ],
        ],
        [
          'p2',
          [
            ['c1', 'data', 20, true],
            ['d1', 'data', 10, true],
          ],
        ],
        [
          'p3',
          [
            ['d1', 'data', 10, true],
            ['e1', 'data', 30, true],
          ],
        ],
      ],
      ['c1', 'd1'],
    );
    expect(infos.map((p) => p.usedBlobs)).toEqual([0, 2, 0]);
    expect(infos.map((p) => p.unusedBlobs)).toEqual([2, 0, 2]);
    expect(stats.blobs).toMatchObject({ used: 2, duplicate: 2, unused: 2 });
    expect(stats.bytes).toMatchObject({ used: 30, duplicate: 20, unused: 35 });
  });

  it.each([false, true])('a pack made only of copies (an interrupted repack) keeps them, whichever comes first (reversed: %s)', (reversed) => {
    const packs: [string, [string, BlobType, number, boolean][]][] = [
      [
        'old',
        [
          ['x1', 'data', 10, true],
          ['y1', 'data', 10, true],
          ['x2', 'data', 10, true],
        ],
      ],
      [
        'new',
        [
          ['x1', 'data', 10, true],
          ['x2', 'data', 10, true],
        ],
      ],
    ];
    const { infos, index } = build(reversed ? packs.reverse() : packs, ['x1', 'x2']);
    const fresh = infos[index.packNumber(id('new'))!]!;
    const old = infos[index.packNumber(id('old'))!]!;
    expect(fresh).toMatchObject({ usedBlobs: 2, unusedBlobs: 0, duplicateBlobs: 2 });
    expect(old).toMatchObject({ usedBlobs: 0, unusedBlobs: 3 });
  });

  it('takes the last copy when no pack is preferred', () => {
    const { infos } = build(
      [
        [
          'p1',
          [
            ['d1', 'data', 10, true],
            ['u1', 'data', 10, true],
          ],
        ],
        [
          'p2',
          [
            ['d1', 'data', 10, true],
            ['u2', 'data', 10, true],
          ],
        ],
        [
          'p3',
          [
            ['d1', 'data', 10, true],
            ['u3', 'data', 10, true],
          ],
        ],
      ],
      ['d1'],
    );
    expect(infos.map((p) => p.usedBlobs)).toEqual([0, 0, 1]);
  });

  it('leaves the used marks as they were', () => {
    const { marks, index } = build(
      [
        ['p1', [['d1', 'data', 10, true]]],
        ['p2', [['d1', 'data', 10, true]]],
      ],
      ['d1'],
    );
    expect([...marks]).toEqual([1, 0]);
    expect(index.canonicalEntry(1)).toBe(0);
  });
});
