// Planning a prune (restic PlanPrune): read the index afresh, find the blobs the remaining
// snapshots use, account every pack and decide what to keep, repack and delete. Changes
// nothing: the plan's statistics are what `prune --dry-run` prints and what the app shows
// before asking; `executePrune` carries it out. The caller holds an exclusive lock from
// before planning until the plan is executed or dropped.

import { CairnError, throwIfAborted } from '../errors';
import { isID, type ID } from '../id';
import type { MasterIndex } from '../index/master-index';
import { DEFAULT_PACK_SIZE } from '../pack/packer';
import type { Repository } from '../repository/repository';
import { loadSnapshot } from '../repository/snapshots';
import { mapLimit } from '../concurrency/concurrency';
import { decidePackAction, type PackDecision } from './decide';
import type { PruneOptions } from './options';
import { packInfoFromIndex } from './pack-info';
import { PruneReporter, type PruneProgressListener } from './progress';
import { emptyStats, finishStats, type PruneStats } from './stats';
import { findUsedBlobs, UsedBlobs } from './used-blobs';

export interface PlanOptions extends PruneOptions {
  signal?: AbortSignal;
  onProgress?: PruneProgressListener;
  /** Snapshots to count as gone (forget --prune: the ones it has just removed). */
  ignoreSnapshots?: ReadonlySet<ID>;
}

export interface PrunePlan {
  readonly stats: PruneStats;
  /** Problems prune repairs on the way (indexed packs that are missing but unneeded). */
  readonly warnings: readonly string[];
  /** Snapshots whose data is kept. */
  readonly snapshots: number;
  /** What execution does to which pack files (restic's dry-run -v lists these). */
  readonly packs: {
    readonly removeUnreferenced: readonly ID[];
    readonly repack: readonly ID[];
    readonly remove: readonly ID[];
    readonly forget: readonly ID[];
  };
  /** For executePrune only. */
  readonly state: PlanState;
}

export interface PlanState {
  repo: Repository;
  index: MasterIndex;
  /** index.generation when planned: the numbers below are entries and packs of that index. */
  generation: number;
  decision: PackDecision;
  /** Per canonical entry: 1 = a used blob whose only kept copies are in packs being repacked. */
  keep: Uint8Array | undefined;
  /** Compress uncompressed data blobs while repacking (restic --repack-uncompressed). */
  repackUncompressed: boolean;
  executed: boolean;
}

export async function planPrune(repo: Repository, opts: PlanOptions = {}): Promise<PrunePlan> {
  const { signal } = opts;
  const packSize = repo.packSize ?? DEFAULT_PACK_SIZE;
  if (repo.version < 2 && opts.repackUncompressed) throw new CairnError('USAGE', 'compression requires at least repository format version 2');
  if ((opts.repackSmallerThan ?? 0) > packSize) throw new CairnError('USAGE', 'repack-smaller-than exceeds repository packsize');
  const reporter = new PruneReporter(opts.onProgress);

  // Read under the caller's lock: an index loaded earlier may miss packs added since, and
  // those would look unreferenced.
  reporter.phase('load-index');
  repo.dropIndex();
  await repo.loadIndex({ signal, onFile: (done, total) => reporter.update({ done, total }) });

  // The pack listing (many requests on a bucket) runs while the snapshots are walked.
  const listing = listPacks(repo, signal);
  listing.catch(() => {}); // awaited below; a walk that fails first must not leave it unhandled
  const roots = await snapshotTrees(repo, opts, reporter);
  reporter.phase('find-used', roots.length);
  const used = new UsedBlobs(repo.index);
  await findUsedBlobs(repo, roots, used, { signal, onSnapshot: (done) => reporter.update({ done }) });
  used.throwIfMissing();

  throwIfAborted(signal);
  const stats = emptyStats();
  const packs = packInfoFromIndex(repo.index, used.marks, stats);
  const stored = await listing;
  reporter.phase('classify', stored.length);
  const decision = decidePackAction({ packs, packIDs: repo.index.packIDs(), stored, opts, repoVersion: repo.version, packSize }, stats);
  finishStats(stats);
  const keep = decision.repack.length > 0 ? keepMarks(repo.index, used.marks, decision) : undefined;
  const ids = (ns: number[]) => ns.map((n) => repo.index.packIDs()[n]!);
  return {
    stats,
    warnings: decision.warnings,
    snapshots: roots.length,
    packs: {
      removeUnreferenced: decision.removeFirst.map((p) => p.id),
      repack: ids(decision.repack),
      remove: ids(decision.remove),
      forget: ids(decision.ignore),
    },
    state: {
      repo,
      index: repo.index,
      generation: repo.index.generation,
      decision,
      keep,
      repackUncompressed: opts.repackUncompressed === true,
      executed: false,
    },
  };
}

async function listPacks(repo: Repository, signal?: AbortSignal): Promise<{ name: ID; size: number }[]> {
  const stored: { name: ID; size: number }[] = [];
  for await (const fi of repo.backend.list('data', { signal })) if (isID(fi.name)) stored.push(fi);
  return stored;
}

/** The root trees of every snapshot not ignored; an unreadable snapshot stops prune (as restic). */
async function snapshotTrees(repo: Repository, opts: PlanOptions, reporter: PruneReporter): Promise<ID[]> {
  const ids = (await repo.listIDs('snapshots', opts.signal)).filter((id) => !opts.ignoreSnapshots?.has(id)).sort();
  reporter.phase('load-snapshots', ids.length);
  let done = 0;
  return mapLimit(ids, 8, async (id) => {
    try {
      const tree = (await loadSnapshot(repo, id, opts.signal)).tree;
      reporter.update({ done: ++done });
      return tree;
    } catch (e) {
      if (e instanceof CairnError && e.code === 'ABORTED') throw e;
      throw new CairnError(e instanceof CairnError ? e.code : 'BAD_SNAPSHOT', `failed loading snapshot ${id.slice(0, 8)}: ${(e as Error).message}`, {
        cause: e,
        detail: { snapshot: id },
      });
    }
  });
}

/**
 * The used blobs repacking must copy: those with no copy in a pack that stays (restic removes
 * blobs found in kept packs from keepBlobs). A copy in a pack that is missing counts as gone.
 */
function keepMarks(index: MasterIndex, used: Uint8Array, d: PackDecision): Uint8Array {
  const going = new Uint8Array(index.packCount);
  for (const n of [...d.remove, ...d.repack, ...d.ignore]) going[n] = 1;
  const keep = used.slice();
  for (let e = 0; e < index.size; e++) if (!going[index.entryPack(e)]) keep[index.canonicalEntry(e)] = 0;
  return keep;
}
