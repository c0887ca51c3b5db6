// What a prune plan will do, in restic's numbers (internal/repository/prune.go PruneStats):
// what `prune --dry-run` prints and what the app previews as the space prune frees. Sizes
// are bytes as stored (sealed blobs plus pack headers); "unreferenced" packs are in no index.

export interface PruneStats {
  blobs: {
    used: number;
    duplicate: number;
    unused: number;
    total: number;
    /** Blobs in packs that get repacked, and how many of those are dropped. */
    repack: number;
    repackRemove: number;
    /** Blobs in packs deleted whole. */
    remove: number;
    removeTotal: number;
    remaining: number;
  };
  bytes: {
    used: number;
    duplicate: number;
    unused: number;
    unreferenced: number;
    /** Bytes in packs holding uncompressed blobs that stay as they are. */
    uncompressed: number;
    total: number;
    repack: number;
    repackRemove: number;
    remove: number;
    removeTotal: number;
    remaining: number;
    remainingUnused: number;
  };
  packs: {
    used: number;
    unused: number;
    partlyUsed: number;
    unreferenced: number;
    total: number;
    keep: number;
    repack: number;
    remove: number;
    removeTotal: number;
  };
}

export function emptyStats(): PruneStats {
  return {
    blobs: { used: 0, duplicate: 0, unused: 0, total: 0, repack: 0, repackRemove: 0, remove: 0, removeTotal: 0, remaining: 0 },
    bytes: {
      used: 0,
      duplicate: 0,
      unused: 0,
      unreferenced: 0,
      uncompressed: 0,
      total: 0,
      repack: 0,
      repackRemove: 0,
      remove: 0,
      removeTotal: 0,
      remaining: 0,
      remainingUnused: 0,
    },
    packs: { used: 0, unused: 0, partlyUsed: 0, unreferenced: 0, total: 0, keep: 0, repack: 0, remove: 0, removeTotal: 0 },
  };
}

/** Fills in the totals from the counted parts (restic PlanPrune's "calculate totals"). */
export function finishStats(s: PruneStats): void {
  const { blobs: b, bytes: z, packs: p } = s;
  b.total = b.used + b.unused + b.duplicate;
  b.removeTotal = b.remove + b.repackRemove;
  b.remaining = b.total - b.removeTotal;
  z.total = z.used + z.duplicate + z.unused + z.unreferenced;
  z.removeTotal = z.remove + z.repackRemove + z.unreferenced;
  z.remaining = z.total - z.removeTotal;
  z.remainingUnused = z.duplicate + z.unused - z.remove - z.repackRemove;
  p.total = p.used + p.partlyUsed + p.unused + p.unreferenced;
  p.removeTotal = p.unreferenced + p.remove;
}
