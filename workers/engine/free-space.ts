// "Then free space": prune after forget (core/prune), for the retention page. The estimate is
// prune's plan step on a repository object of its own (a dry run: nothing written, no lock, the
// session's index untouched), counting the snapshots forget would remove as gone; the run is
// plan and execute under the exclusive lock forget holds. Progress goes out as the page's
// ProgressSnapshot: the phase in words, items of the phase as `files` (and, for the time left,
// as `bytes`), and prune's counters in `extra` (packs read, repacked, deleted; bytes freed).

import { ProgressTracker, type ProgressSnapshot } from '../../core/progress';
import { executePrune, planPrune, type PrunePhase, type PrunePlan, type PruneProgress } from '../../core/prune';
import { Repository } from '../../core/repository/repository';
import type { PruneEstimate } from '../tools-api';
import type { Session } from './session';

export interface FreeSpace {
  /** What prune would free once `removed` snapshots are gone (nothing is written). */
  estimate(s: Session, removed: ReadonlySet<string>, signal?: AbortSignal): Promise<PruneEstimate>;
  /** Prunes; the caller holds the exclusive lock. */
  run(
    s: Session,
    signal: AbortSignal,
    onProgress?: (p: ProgressSnapshot) => void,
  ): Promise<{ bytesFreed: number; packsDeleted: number; packsRepacked: number }>;
}

const PHASES: Record<PrunePhase, string> = {
  'load-index': 'Reading the index',
  'load-snapshots': 'Reading the snapshots',
  'find-used': 'Finding the data still in use',
  classify: 'Sorting the data files',
  'delete-unreferenced': 'Deleting data files no index lists',
  repack: 'Repacking data files that are partly in use',
  'rewrite-index': 'Writing the new index',
  'delete-index': 'Deleting the old index files',
  'delete-packs': 'Deleting unused data files',
  done: 'Done',
};

/** A repository object of its own over the session's storage and caches: prune reloads its index. */
function pruneRepository(s: Session): Repository {
  const r = new Repository(s.backend, s.repo.key, s.repo.keyID, s.repo.config);
  r.packSize = s.repo.packSize;
  r.blobCache = s.repo.blobCache;
  return r;
}

function estimateOf(plan: PrunePlan): PruneEstimate {
  const { bytes, packs } = plan.stats;
  return {
    bytesFreed: bytes.removeTotal,
    packsDeleted: packs.removeTotal,
    packsRepacked: packs.repack,
    bytesRepacked: bytes.repack,
    bytesBefore: bytes.total,
    bytesAfter: bytes.remaining,
  };
}

function reporter(onProgress?: (p: ProgressSnapshot) => void): (p: PruneProgress) => void {
  const t = new ProgressTracker('Freeing space', onProgress);
  let phase: PrunePhase | undefined;
  return (p) => {
    if (p.phase !== phase) {
      phase = p.phase;
      t.done.files = t.done.bytes = 0;
    }
    t.phase = `Freeing space: ${PHASES[p.phase].toLowerCase()}`;
    t.done.files = t.done.bytes = p.done;
    t.total.files = t.total.bytes = p.total;
    t.totalsFinal = true;
    Object.assign(t.extra, {
      packsRead: p.packsRead,
      packsRepacked: p.packsRepacked,
      packsDeleted: p.packsDeleted,
      bytesFreed: Math.max(0, p.bytesDeleted - p.bytesWritten),
    });
    t.tick(p.phase === 'done');
  };
}

export const freeSpace: FreeSpace | undefined = {
  async estimate(s, removed, signal) {
    return estimateOf(await planPrune(pruneRepository(s), { signal, ignoreSnapshots: removed }));
  },
  async run(s, signal, onProgress) {
    const onPrune = reporter(onProgress);
    const plan = await planPrune(pruneRepository(s), { signal, onProgress: onPrune });
    try {
      const r = await executePrune(plan, { signal, onProgress: onPrune });
      return { bytesFreed: Math.max(0, r.bytesDeleted - r.bytesWritten), packsDeleted: r.packsDeleted, packsRepacked: plan.packs.repack.length };
    } finally {
      // The session reads the new index (and forgets what it read ahead) on its next use.
      s.repo.dropIndex();
      s.forgetSnapshots();
    }
  },
};
