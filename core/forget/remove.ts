// Removing snapshot files (restic's ParallelRemove for forget): as many at once as the
// backend handles well; a file that cannot be removed is reported and the rest still go.

import { mapLimit } from '../concurrency/concurrency';
import { isNotFound, throwIfAborted } from '../errors';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';

export interface RemoveOptions {
  signal?: AbortSignal;
  onRemoved?: (id: ID) => void;
  onError?: (id: ID, e: unknown) => void;
}

/** Removes the snapshot files; returns the IDs that could not be removed. */
export async function removeSnapshots(repo: Repository, ids: readonly ID[], opts: RemoveOptions = {}): Promise<ID[]> {
  const failed: ID[] = [];
  await mapLimit(ids, Math.max(1, repo.backend.connections), async (id) => {
    throwIfAborted(opts.signal);
    try {
      await repo.backend.remove({ type: 'snapshots', name: id }, { signal: opts.signal });
    } catch (e) {
      throwIfAborted(opts.signal);
      if (!isNotFound(e)) {
        failed.push(id);
        opts.onError?.(id, e);
        return;
      }
      // already gone, which is what forget wanted
    }
    opts.onRemoved?.(id);
  });
  return failed;
}
