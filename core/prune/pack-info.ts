// Per-pack accounting from the index and the used-blob marks (restic prune.go
// packInfoFromIndex): each pack's used and unused blobs and bytes (header included in used),
// its blob type (or mixed), and whether it holds uncompressed blobs. A used blob stored more
// than once is counted used in exactly one pack: a pack that already has used blobs, or one
// made only of such copies (what an interrupted prune's repack leaves), or else its last copy.

import { CairnError } from '../errors';
import type { MasterIndex } from '../index/master-index';
import { EXTENSION } from '../crypto/seal';
import { COMPRESSED_ENTRY, PLAIN_ENTRY } from '../pack/header';
import type { PruneStats } from './stats';

/** What a pack holds: data blobs, tree blobs, both, or (no blobs at all) nothing yet. */
export const PackKind = { Data: 0, Tree: 1, Mixed: 2, Unset: 3 } as const;
export type PackKind = (typeof PackKind)[keyof typeof PackKind];

export interface PackInfo {
  usedBlobs: number;
  unusedBlobs: number;
  duplicateBlobs: number;
  usedSize: number;
  unusedSize: number;
  kind: PackKind;
  uncompressed: boolean;
}

/**
 * Copies are counted up to MAX_COUNT (more only makes the choice of copy less good, as in
 * restic); LAST marks "one copy left: keep it", which restic writes as 0.
 */
const MAX_COUNT = 254;
const LAST = 255;

/** A pack's size minus its blobs: the sealed header's overhead and its length field. */
const HEADER_OVERHEAD = 4 + EXTENSION;

/**
 * Accounts every pack of `index` (by pack number) and fills the used/unused/duplicate parts of
 * `stats`. `used` holds a mark per canonical entry (UsedBlobs.marks) and is left unchanged.
 */
export function packInfoFromIndex(index: MasterIndex, used: Uint8Array, stats: PruneStats): PackInfo[] {
  const n = index.size;
  const canonical = new Uint32Array(n);
  // Copies of each used blob (saturating, as restic's uint8 counter): 0 = not used.
  const copies = new Uint8Array(n);
  for (let e = 0; e < n; e++) {
    const c = index.canonicalEntry(e);
    canonical[e] = c;
    if (used[c] && copies[c]! < MAX_COUNT) copies[c]!++;
  }
  const packs: PackInfo[] = [];
  for (let p = 0; p < index.packCount; p++) {
    packs.push({ usedBlobs: 0, unusedBlobs: 0, duplicateBlobs: 0, usedSize: HEADER_OVERHEAD, unusedSize: 0, kind: PackKind.Unset, uncompressed: false });
  }
  let duplicates = false;
  for (let e = 0; e < n; e++) {
    const ip = packs[index.entryPack(e)]!;
    const kind: PackKind = index.entryType(e) === 'tree' ? PackKind.Tree : PackKind.Data;
    if (ip.kind === PackKind.Unset) ip.kind = kind;
    else if (ip.kind !== kind) ip.kind = PackKind.Mixed;
    const ulen = index.entryUncompressedLength(e);
    ip.usedSize += ulen > 0 ? COMPRESSED_ENTRY : PLAIN_ENTRY; // its header entry
    const size = index.entryLength(e);
    const count = copies[canonical[e]!]!;
    if (count >= 2) {
      duplicates = true;
      ip.unusedSize += size;
      ip.unusedBlobs++;
      ip.duplicateBlobs++;
      stats.bytes.duplicate += size;
      stats.blobs.duplicate++;
    } else if (count === 1) {
      ip.usedSize += size;
      ip.usedBlobs++;
      stats.bytes.used += size;
      stats.blobs.used++;
    } else {
      ip.unusedSize += size;
      ip.unusedBlobs++;
      stats.bytes.unused += size;
      stats.blobs.unused++;
    }
    if (ulen === 0) ip.uncompressed = true;
  }
  if (duplicates) chooseDuplicates(index, canonical, copies, packs, stats);
  for (let c = 0; c < n; c++) {
    if (used[c] && copies[c] !== 1) throw new CairnError('INTERNAL', `prune: blob ${index.entryID(c).slice(0, 8)} was not counted once`);
  }
  return packs;
}

/**
 * Turns exactly one copy of each duplicated used blob into a used one (restic's second pass):
 * a copy in a pack with used blobs, or in a pack of nothing but duplicates, or the last copy
 * seen. `copies` goes down as copies are passed over; 1 once one was chosen.
 */
function chooseDuplicates(index: MasterIndex, canonical: Uint32Array, copies: Uint8Array, packs: PackInfo[], stats: PruneStats): void {
  for (let e = 0; e < index.size; e++) {
    const c = canonical[e]!;
    const count = copies[c]!;
    if (count <= 1) continue; // not used, not duplicated, or its copy is chosen
    const ip = packs[index.entryPack(e)]!;
    const size = index.entryLength(e);
    if (ip.usedBlobs > 0 || ip.duplicateBlobs === ip.unusedBlobs || count === LAST) {
      ip.usedSize += size;
      ip.usedBlobs++;
      ip.unusedSize -= size;
      ip.unusedBlobs--;
      stats.bytes.used += size;
      stats.blobs.used++;
      stats.bytes.duplicate -= size;
      stats.blobs.duplicate--;
      copies[c] = 1;
    } else {
      copies[c] = count - 1 === 1 ? LAST : count - 1;
    }
  }
}
