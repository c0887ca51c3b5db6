// Prune (restic internal/repository/prune.go, cmd_prune.go, doc/060_forget.rst): removes the
// data no snapshot uses any more. Two steps, so a caller can show what would happen first:
// `planPrune` reads the index and every snapshot's trees, accounts each pack and decides what
// to keep, repack and delete (statistics as restic prints them; nothing is written), and
// `executePrune` deletes unreferenced packs, repacks partly used ones through the packer,
// rewrites the index and deletes what is obsolete — in an order that leaves a valid
// repository wherever it stops. Both take an AbortSignal and report progress. The caller
// holds an exclusive lock (core/repository/lock.ts) from planning to the end of execution.
//
// Units: used-blobs.ts (the used set: a byte per index entry, and the tree walk),
// pack-info.ts and decide.ts (pure accounting and decisions), repack.ts, index-rewrite.ts,
// delete.ts; plan.ts and execute.ts coordinate them.
export { planPrune, type PlanOptions, type PrunePlan } from './plan';
export { executePrune, type ExecuteOptions, type PruneResult } from './execute';
export { DEFAULT_MAX_UNUSED, maxUnusedBytes, parseMaxUnused, parseRepackSmallerThan, parseSize, type MaxUnused, type PruneOptions } from './options';
export type { PruneStats } from './stats';
export type { PrunePhase, PruneProgress, PruneProgressListener } from './progress';
