// Which packs to keep, repack or delete (restic 0.18 prune.go decidePackAction), a pure
// function of the per-pack accounting, the stored pack files and the options:
// - stored packs no index lists are deleted first ("unreferenced");
// - packs with no used blob are deleted; indexed packs that are missing but unneeded are only
//   dropped from the index; a missing pack that is needed stops prune;
// - a used pack whose stored size differs from the index's stops prune;
// - partly used packs, mixed packs and (v2) uncompressed tree packs — or every uncompressed
//   pack with repackUncompressed — are repack candidates, and so are fully used small packs
//   when there are at least ten of them;
// - candidates go tree/mixed first, then small ones, then by unused/total, and are repacked
//   until the unused space left is under maxUnused (small packs and packs that must be
//   compressed regardless), never beyond maxRepackBytes.

import { CairnError } from '../errors';
import type { ID } from '../id';
import { DEFAULT_MAX_UNUSED, maxUnusedBytes, type PruneOptions } from './options';
import { PackKind, type PackInfo } from './pack-info';
import type { PruneStats } from './stats';

export interface PackDecision {
  /** Stored packs no index lists: deleted before anything else. */
  removeFirst: { id: ID; size: number }[];
  /** Pack numbers of packs deleted whole. */
  remove: number[];
  /** Pack numbers of packs whose used blobs move to new packs, then deleted. */
  repack: number[];
  /** Pack numbers of indexed packs that are not stored and not needed: only dropped from the index. */
  ignore: number[];
  /** Stored size per pack number (-1: not stored). */
  storedSizes: Float64Array;
  /** Things the user should hear about that do not stop prune. */
  warnings: string[];
}

export interface DecideInput {
  packs: readonly PackInfo[];
  packIDs: readonly ID[];
  /** The stored pack files (a listing of `data`). */
  stored: Iterable<{ name: ID; size: number }>;
  opts: PruneOptions;
  repoVersion: number;
  /** The repository's target pack size (restic's repo.packSize()). */
  packSize: number;
}

interface Candidate {
  pack: number;
  info: PackInfo;
  mustCompress: boolean;
}

/** restic's targetPackSize: below it a pack is small. */
export function smallPackLimit(opts: PruneOptions, packSize: number): number {
  if (opts.repackSmallerThan) return opts.repackSmallerThan;
  if (opts.repackSmall) return Math.floor(packSize / 5) * 4;
  return Math.floor(packSize / 25);
}

export function decidePackAction(input: DecideInput, stats: PruneStats): PackDecision {
  const { packs, opts } = input;
  const target = smallPackLimit(opts, input.packSize);
  const decision: PackDecision = { removeFirst: [], remove: [], repack: [], ignore: [], storedSizes: new Float64Array(packs.length).fill(-1), warnings: [] };
  const numbers = new Map(input.packIDs.map((id, n) => [id, n]));
  const candidates: Candidate[] = [];
  const small: Candidate[] = [];
  for (const { name, size } of input.stored) {
    const n = numbers.get(name);
    if (n === undefined) {
      decision.removeFirst.push({ id: name, size });
      stats.bytes.unreferenced += size;
      continue;
    }
    decision.storedSizes[n] = size;
    const p = packs[n]!;
    if (p.usedSize + p.unusedSize !== size && p.usedBlobs !== 0) {
      throw new CairnError(
        'BAD_PACK',
        `pack ${name.slice(0, 8)}: calculated size ${p.usedSize + p.unusedSize} does not match real size ${size}; run 'restic repair index'`,
        { detail: { pack: name } },
      );
    }
    classify(n, p, size, input, target, decision, candidates, small, stats);
  }
  collectMissing(input, decision, stats);
  // Too few small packs are not worth it (and a single one would be repacked forever).
  if (small.length < 10) stats.packs.keep += small.length;
  else candidates.push(...small);
  chooseRepacks(candidates, input, target, decision, stats);
  stats.packs.unreferenced = decision.removeFirst.length;
  stats.packs.repack = decision.repack.length;
  stats.packs.remove = decision.remove.length;
  if (input.repoVersion < 2) stats.bytes.uncompressed = 0;
  return decision;
}

function classify(
  n: number,
  p: PackInfo,
  size: number,
  input: DecideInput,
  target: number,
  decision: PackDecision,
  candidates: Candidate[],
  small: Candidate[],
  stats: PruneStats,
): void {
  if (p.usedBlobs === 0) stats.packs.unused++;
  else if (p.unusedBlobs === 0) stats.packs.used++;
  else stats.packs.partlyUsed++;
  if (p.uncompressed) stats.bytes.uncompressed += p.unusedSize + p.usedSize;
  // v2: uncompressed trees are always recompressed; uncompressed data when asked to.
  const mustCompress = input.repoVersion >= 2 && (p.kind === PackKind.Tree || input.opts.repackUncompressed === true) && p.uncompressed;
  if (p.usedBlobs === 0) {
    decision.remove.push(n);
    stats.blobs.remove += p.unusedBlobs;
    stats.bytes.remove += p.unusedSize;
  } else if (input.opts.repackCacheableOnly && p.kind === PackKind.Data) {
    stats.packs.keep++;
  } else if (p.unusedBlobs === 0 && p.kind !== PackKind.Mixed && !mustCompress) {
    if (size >= target) stats.packs.keep++;
    else small.push({ pack: n, info: p, mustCompress });
  } else {
    candidates.push({ pack: n, info: p, mustCompress });
  }
}

/** Indexed packs that are not stored: dropped from the index when unneeded, fatal otherwise. */
function collectMissing(input: DecideInput, decision: PackDecision, stats: PruneStats): void {
  const needed: ID[] = [];
  input.packs.forEach((p, n) => {
    if (decision.storedSizes[n]! >= 0) return;
    if (p.usedBlobs > 0) {
      needed.push(input.packIDs[n]!);
      return;
    }
    decision.ignore.push(n);
    stats.blobs.remove += p.unusedBlobs;
    stats.bytes.remove += p.unusedSize;
  });
  if (needed.length) {
    throw new CairnError(
      'BAD_INDEX',
      `the index references ${needed.length} needed pack files which are missing from the repository: ${needed.map((id) => id.slice(0, 8)).join(', ')}`,
      { detail: { packs: needed } },
    );
  }
  if (decision.ignore.length) {
    decision.warnings.push(
      'Missing but unneeded pack files are referenced in the index, will be repaired',
      ...decision.ignore.map((n) => `will forget missing pack file ${input.packIDs[n]}`),
    );
  }
}

function chooseRepacks(candidates: Candidate[], input: DecideInput, target: number, decision: PackDecision, stats: PruneStats): void {
  const total = (c: Candidate) => c.info.unusedSize + c.info.usedSize;
  const ids = input.packIDs;
  candidates.sort((a, b) => {
    const aData = a.info.kind === PackKind.Data,
      bData = b.info.kind === PackKind.Data;
    if (aData !== bData) return aData ? 1 : -1;
    const aSmall = total(a) < target,
      bSmall = total(b) < target;
    if (aSmall !== bSmall) return aSmall ? -1 : 1;
    // Highest unused/used first (unused_a/used_a > unused_b/used_b, multiplied out).
    const x = a.info.unusedSize * b.info.usedSize,
      y = b.info.unusedSize * a.info.usedSize;
    if (x !== y) return x > y ? -1 : 1;
    return ids[a.pack]! < ids[b.pack]! ? -1 : 1;
  });
  const maxRepack = input.opts.maxRepackBytes ?? Infinity;
  const maxUnusedAfter = maxUnusedBytes(input.opts.maxUnused ?? DEFAULT_MAX_UNUSED, stats.bytes.used);
  for (const c of candidates) {
    const p = c.info;
    const remainingUnused = stats.bytes.duplicate + stats.bytes.unused - stats.bytes.remove - stats.bytes.repackRemove;
    if (stats.bytes.repack + total(c) >= maxRepack) {
      stats.packs.keep++;
    } else if (p.kind !== PackKind.Data || c.mustCompress) {
      repack(c, decision, stats);
    } else if (remainingUnused < maxUnusedAfter && total(c) >= target) {
      stats.packs.keep++;
    } else {
      repack(c, decision, stats);
    }
  }
}

function repack(c: Candidate, decision: PackDecision, stats: PruneStats): void {
  const p = c.info;
  decision.repack.push(c.pack);
  stats.blobs.repack += p.unusedBlobs + p.usedBlobs;
  stats.bytes.repack += p.unusedSize + p.usedSize;
  stats.blobs.repackRemove += p.unusedBlobs;
  stats.bytes.repackRemove += p.unusedSize;
  if (p.uncompressed) stats.bytes.uncompressed -= p.unusedSize + p.usedSize;
}
