// "Then free space": prune after forget, the app's side of core/prune (branch `prune`, not merged
// into this branch yet). Until it is, `freeSpace` is undefined: the retention page forgets
// snapshots and says that their space is freed by a later prune (`cairn prune` or `restic
// prune`); the preview shows no estimate. Wiring it is this module only:
//   estimate: planPrune(repo, { ignoreSnapshots: removed }) without a lock (a dry run), its
//             stats as a PruneEstimate;
//   run:      planPrune then executePrune under the exclusive lock forget already holds, its
//             PruneProgress mapped onto the ProgressSnapshot the page shows, then the tree cache
//             tidied (./retention.ts dropUnreachableTrees).

import type { ProgressSnapshot } from '../../core/progress';
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

export const freeSpace: FreeSpace | undefined = undefined;
