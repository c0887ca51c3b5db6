import { describe, expect, it } from 'vitest';
import { decidePackAction, smallPackLimit, type DecideInput } from './decide';
import { PackKind, type PackInfo } from './pack-info';
import { emptyStats, finishStats, type PruneStats } from './stats';
import type { PruneOptions } from './options';

const MiB = 2 ** 20;
const id = (n: number) => n.toString(16).padStart(64, '0');

interface P {
  used?: number;
  unused?: number;
  usedBlobs?: number;
  unusedBlobs?: number;
  kind?: PackKind;
  uncompressed?: boolean;
  /** Stored size (default: used + unused); null = not stored. */
  stored?: number | null;
}

/** Packs numbered in order; stats' used/unused totals as packInfoFromIndex would leave them. */
function setup(packs: P[], opts: PruneOptions = {}, extra: { unreferenced?: number[]; version?: number; packSize?: number } = {}) {
  const stats = emptyStats();
  const infos: PackInfo[] = packs.map((p) => {
    const usedBlobs = p.usedBlobs ?? (p.used ? 1 : 0);
    const unusedBlobs = p.unusedBlobs ?? (p.unused ? 1 : 0);
    stats.blobs.used += usedBlobs;
    stats.blobs.unused += unusedBlobs;
    stats.bytes.used += p.used ?? 0;
    stats.bytes.unused += p.unused ?? 0;
    return {
      usedBlobs,
      unusedBlobs,
      duplicateBlobs: 0,
      usedSize: p.used ?? 0,
      unusedSize: p.unused ?? 0,
      kind: p.kind ?? PackKind.Data,
      uncompressed: p.uncompressed ?? false,
    };
  });
  const stored = packs.flatMap((p, n) => (p.stored === null ? [] : [{ name: id(n), size: p.stored ?? (p.used ?? 0) + (p.unused ?? 0) }]));
  for (const [i, size] of (extra.unreferenced ?? []).entries()) stored.push({ name: id(1000 + i), size });
  const input: DecideInput = {
    packs: infos,
    packIDs: packs.map((_, n) => id(n)),
    stored,
    opts,
    repoVersion: extra.version ?? 2,
    packSize: extra.packSize ?? 16 * MiB,
  };
  return { input, stats };
}

function decide(packs: P[], opts: PruneOptions = {}, extra: Parameters<typeof setup>[2] = {}): { d: ReturnType<typeof decidePackAction>; stats: PruneStats } {
  const { input, stats } = setup(packs, opts, extra);
  const d = decidePackAction(input, stats);
  finishStats(stats);
  return { d, stats };
}

const big = 8 * MiB;

describe('decidePackAction (restic 0.18 decidePackAction)', () => {
  it('keeps fully used packs, deletes unused ones and stored packs no index lists', () => {
    const { d, stats } = decide([{ used: big }, { unused: big, unusedBlobs: 3 }], {}, { unreferenced: [5000] });
    expect(d.remove).toEqual([1]);
    expect(d.repack).toEqual([]);
    expect(d.removeFirst).toEqual([{ id: id(1000), size: 5000 }]);
    expect(stats.packs).toMatchObject({ used: 1, unused: 1, partlyUsed: 0, unreferenced: 1, keep: 1, remove: 1, total: 3, removeTotal: 2 });
    expect(stats.blobs).toMatchObject({ remove: 3, removeTotal: 3, remaining: 1 });
    expect(stats.bytes).toMatchObject({ remove: big, unreferenced: 5000, removeTotal: big + 5000, remaining: big, remainingUnused: 0 });
  });

  it('repacks partly used packs, most unused first, until the unused space left is under max-unused', () => {
    // used 80 MiB in all; 5% allows 80*5/95 = 4.2 MiB unused after prune.
    const packs: P[] = [
      { used: 7 * MiB, unused: 1 * MiB }, // 12.5 % unused
      { used: 5 * MiB, unused: 3 * MiB }, // 37.5 %
      { used: 6 * MiB, unused: 2 * MiB }, // 25 %
      { used: 62 * MiB },
    ];
    const { d, stats } = decide(packs);
    // 6 MiB unused; after repacking pack 1 (3 MiB unused) 3 MiB are left, under 4.2: 2 and 0 stay.
    expect(d.repack).toEqual([1]);
    expect(stats.packs).toMatchObject({ partlyUsed: 3, used: 1, keep: 3, repack: 1 });
    expect(stats.bytes).toMatchObject({ repack: 8 * MiB, repackRemove: 3 * MiB, remainingUnused: 3 * MiB });
    expect(decide(packs, { maxUnused: { kind: 'percent', percent: 0 } }).d.repack).toEqual([1, 2, 0]);
    expect(decide(packs, { maxUnused: { kind: 'unlimited' } }).d.repack).toEqual([]);
    expect(decide(packs, { maxUnused: { kind: 'bytes', bytes: 2 * MiB } }).d.repack).toEqual([1, 2]);
    expect(decide(packs, { maxUnused: { kind: 'bytes', bytes: 5 * MiB } }).d.repack).toEqual([1]);
  });

  it('stops repacking before max-repack-size is reached', () => {
    const packs: P[] = [{ used: 5 * MiB, unused: 3 * MiB }, { used: 6 * MiB, unused: 2 * MiB }, { used: 60 * MiB }];
    const { d, stats } = decide(packs, { maxUnused: { kind: 'percent', percent: 0 }, maxRepackBytes: 10 * MiB });
    expect(d.repack).toEqual([0]);
    expect(stats.packs.keep).toBe(2);
    expect(decide(packs, { maxUnused: { kind: 'percent', percent: 0 }, maxRepackBytes: 8 * MiB }).d.repack).toEqual([]);
  });

  it('repacks tree and mixed packs first and whatever max-unused says', () => {
    const packs: P[] = [
      { used: 8 * MiB, unused: 4 * MiB },
      { used: 1 * MiB, unused: 1, kind: PackKind.Tree },
      { used: 1 * MiB, kind: PackKind.Mixed },
      { used: 100 * MiB },
    ];
    const { d } = decide(packs, { maxUnused: { kind: 'unlimited' } });
    expect(d.repack.sort()).toEqual([1, 2]);
  });

  it('small fully used packs: kept while fewer than ten, repacked from ten on', () => {
    const limit = smallPackLimit({}, 16 * MiB); // 16 MiB / 25
    expect(limit).toBe(Math.floor((16 * MiB) / 25));
    const smalls = (n: number): P[] => [...Array.from({ length: n }, () => ({ used: 1000 })), { used: big }];
    expect(decide(smalls(9)).d.repack).toEqual([]);
    expect(decide(smalls(9)).stats.packs.keep).toBe(10);
    expect(decide(smalls(10)).d.repack.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // --repack-small: below 80 % of the pack size; --repack-smaller-than: below that size.
    expect(smallPackLimit({ repackSmall: true }, 16 * MiB)).toBe(Math.floor((16 * MiB) / 5) * 4);
    expect(smallPackLimit({ repackSmall: true, repackSmallerThan: 5000 }, 16 * MiB)).toBe(5000);
    const mid: P[] = Array.from({ length: 10 }, () => ({ used: 2 * MiB }));
    expect(decide(mid).d.repack).toEqual([]);
    expect(decide(mid, { repackSmall: true }).d.repack).toHaveLength(10);
  });

  it('small partly used packs are repacked even when max-unused is met', () => {
    const packs: P[] = [{ used: 1000, unused: 10 }, { used: big, unused: 10 }, { used: 100 * MiB }];
    expect(decide(packs, { maxUnused: { kind: 'unlimited' } }).d.repack).toEqual([0]);
  });

  it('v2: uncompressed tree packs always, uncompressed data packs with repack-uncompressed; v1 never', () => {
    const packs: P[] = [{ used: big, kind: PackKind.Tree, uncompressed: true }, { used: big, uncompressed: true }, { used: big }];
    const plain = decide(packs);
    expect(plain.d.repack).toEqual([0]);
    expect(plain.stats.bytes.uncompressed).toBe(big);
    const all = decide(packs, { repackUncompressed: true });
    expect(all.d.repack.sort()).toEqual([0, 1]);
    expect(all.stats.bytes.uncompressed).toBe(0);
    const v1 = decide(packs, {}, { version: 1 });
    expect(v1.d.repack).toEqual([]);
    expect(v1.stats.bytes.uncompressed).toBe(0);
  });

  it('repack-cacheable-only keeps every data pack', () => {
    const packs: P[] = [
      { used: 5 * MiB, unused: 3 * MiB },
      { used: 1 * MiB, unused: 5, kind: PackKind.Tree },
    ];
    expect(decide(packs, { repackCacheableOnly: true }).d.repack).toEqual([1]);
  });

  it('a used pack whose stored size differs from the index stops prune; an unused one is deleted', () => {
    expect(() => decide([{ used: big, stored: big + 1 }])).toThrow(expect.objectContaining({ code: 'BAD_PACK' }));
    expect(decide([{ unused: big, stored: big + 1 }, { used: big }]).d.remove).toEqual([0]);
  });

  it('indexed packs missing from storage: unneeded ones are forgotten with a warning, needed ones stop prune', () => {
    const { d, stats } = decide([{ unused: 1234, unusedBlobs: 2, stored: null }, { used: big }]);
    expect(d.ignore).toEqual([0]);
    expect(d.warnings[0]).toMatch('Missing but unneeded pack files are referenced in the index');
    expect(d.warnings[1]).toBe(`will forget missing pack file ${id(0)}`);
    expect(stats.blobs.remove).toBe(2);
    expect(stats.bytes.remove).toBe(1234);
    expect(() => decide([{ used: big, stored: null }])).toThrow(expect.objectContaining({ code: 'BAD_INDEX' }));
  });
});
